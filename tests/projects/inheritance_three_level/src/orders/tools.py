from base import AuditedTool

from .base import OrderTool


class Lookup(OrderTool):
    name = "lookup"
    description = "Look up an order."
    timeout = 10
    needs_approval = False


class Cancel(OrderTool):
    name = "cancel"


class Refund(AuditedTool, OrderTool):
    name = "refund"
    description = "Refund an order."
