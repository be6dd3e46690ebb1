from pydantic import BaseModel
from skillc import Tool


class LookupInput(BaseModel):
    order_id: str


class Lookup(Tool):
    description = "Commande café — look up an order."; name = "Lookup"
    input_schema = LookupInput

    def execute(self, input: LookupInput, ctx: object) -> str:
        return input.order_id


CAFÉ = "café"; spare = Tool(name="spare", description="Spare.", input_schema=LookupInput, execute=print)
