from .descriptions import ORDERS_DESCRIPTION

__all__ = ["ORDERS_DESCRIPTION"]
