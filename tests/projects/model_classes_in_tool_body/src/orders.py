"""A tool class that defines its input and output models in its own body."""

from pydantic import BaseModel

from skillc import Tool


class Lookup(Tool):
    class Input(BaseModel):
        order_id: str

    class Output(BaseModel):
        status: str

    name = "lookup"
    description = "Look up an order."
    input_schema = Input
    output_schema = Output

    def execute(self, input, ctx):
        return self.Output(status=f"{input.order_id} shipped")
