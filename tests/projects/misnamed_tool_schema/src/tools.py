from pydantic import BaseModel
from skillc import Tool


class Opaque:
    pass


class BadInput(BaseModel):
    thing: Opaque


class OtherInput(BaseModel):
    count: "Missing"


class LookupInput(BaseModel):
    order_id: str


class Spaced(Tool):
    name = "bad name"
    description = "An invalid name and a schema outside the subset: both are reported."
    input_schema = BadInput

    def execute(self, input, ctx):
        return 1


class First(Tool):
    name = "lookup"
    description = "The first tool of this name."
    input_schema = LookupInput

    def execute(self, input, ctx):
        return 1


class Second(Tool):
    name = "lookup"
    description = "The same name again, and a schema that cannot be read."
    input_schema = OtherInput

    def execute(self, input, ctx):
        return 2
