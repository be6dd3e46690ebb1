from pydantic import BaseModel
from skillc import Tool, tool


class LookupInput(BaseModel):
    ticket_id: str


class Lookup(Tool):
    # mcp__customer_support_desk__ and 36 characters: 64, as long as a model API takes
    name = "look_up_one_ticket_by_its_identifier"
    description = "Look up a ticket."
    input_schema = LookupInput

    def execute(self, input: LookupInput, ctx: object) -> str:
        return input.ticket_id


@tool
def summarize_every_open_ticket_of_the_customer(customer_id: str) -> str:
    """Summarize the customer's open tickets."""
    return customer_id
