from typing import Any

from pydantic import BaseModel

from base import ShopTool


class OrderInput(BaseModel):
    order_id: str


class Lookup(ShopTool):
    name = "lookup"
    description = "Look up an order."
    input_schema = OrderInput
    timeout = 5

    def run(self, input: Any) -> Any:
        return input.order_id


class Cancel(ShopTool):
    name = "cancel"
    description = "Cancel an order."
    input_schema = OrderInput
    metadata = {"team": "orders"}

    def run(self, input: Any) -> Any:
        return "cancelled"
