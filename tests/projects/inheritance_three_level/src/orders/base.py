from pydantic import BaseModel

from base import ShopTool


class OrderInput(BaseModel):
    order_id: str


class OrderTool(ShopTool):
    input_schema = OrderInput
    strict = True
    needs_approval = True
    retries = 3

    async def execute(self, input: OrderInput, ctx: object) -> str:
        return input.order_id
