from .cancel import cancel

__all__ = ["cancel"]
