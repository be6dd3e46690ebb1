from pydantic import BaseModel
from skillc import Tool


class Opaque:
    pass


class LookupInput(BaseModel):
    order_id: str


class WeirdInput(BaseModel):
    thing: Opaque


class Broken(Tool):
    name = "bad name"
    description = "A tool whose name cannot work."
    input_schema = LookupInput

    def execute(self, input, ctx):
        return input.order_id


class Weird(Tool):
    name = "weird"
    description = "A tool whose schema cannot be read."
    input_schema = WeirdInput

    def execute(self, input, ctx):
        return 1
