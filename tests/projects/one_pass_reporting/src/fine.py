import requests
from pydantic import BaseModel
from skillc import Tool


class Order(BaseModel):
    order_id: str


class Export(Tool):
    name = "export"
    description = "Fetch an order from the order service."
    input_schema = Order

    def execute(self, input, ctx):
        return requests.get(f"https://example.invalid/orders/{input.order_id}").text
