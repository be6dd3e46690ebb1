from typing import Annotated

import annotated_types
from pydantic import BaseModel, Field
from skillc import Tool
from typing_extensions import TypedDict


class Meta(TypedDict):
    source: str


class LookupInput(BaseModel):
    order_id: Annotated[str, Field(min_length=2), annotated_types.MaxLen(10)]


class Lookup(Tool):
    name = "lookup"
    description = "Look up an order."
    input_schema = LookupInput

    def execute(self, input: LookupInput, ctx: object) -> str:
        import pydantic_core  # brought in by pydantic, which skillc brings in

        meta: Meta = {"source": "store"}
        return f"{input.order_id} from {meta['source']} ({type(pydantic_core.to_json(1)).__name__})"
