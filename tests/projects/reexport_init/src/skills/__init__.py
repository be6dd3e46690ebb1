from skills.orders import orders

__all__ = ["orders"]
