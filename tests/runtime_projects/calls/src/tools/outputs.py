import dataclasses
import datetime
import decimal
import enum
import uuid
from typing import Any

from pydantic import BaseModel

from skillc import Tool, ToolContext, tool


class Receipt(BaseModel):
    order_id: str
    status: str = "received"


class GoodInput(BaseModel):
    order_id: str


class GoodOutput(Tool):
    name = "good_output"
    description = "Return a dict that fits the output schema."
    input_schema = GoodInput
    output_schema = Receipt

    def execute(self, input: GoodInput, ctx: ToolContext) -> dict[str, str]:
        return {"order_id": input.order_id}


class BadOutput(Tool):
    name = "bad_output"
    description = "Return a dict that does not fit the output schema."
    input_schema = GoodInput
    output_schema = Receipt

    def execute(self, input: GoodInput, ctx: ToolContext) -> dict[str, str]:
        return {"status": "lost", "secret": "do-not-echo"}


good_output = GoodOutput()
bad_output = BadOutput()


class Color(enum.Enum):
    RED = "red"


@dataclasses.dataclass
class Shipment:
    when: datetime.date
    at: datetime.datetime
    color: Color
    tags: set[str]
    ident: uuid.UUID
    price: decimal.Decimal
    receipt: Receipt


@tool
def rich_types() -> Shipment:
    """Return values that plain json cannot serialize."""
    return Shipment(
        when=datetime.date(2026, 12, 3),
        at=datetime.datetime(2026, 12, 3, 10, 30, tzinfo=datetime.timezone.utc),
        color=Color.RED,
        tags={"fragile"},
        ident=uuid.UUID("12345678-1234-5678-1234-567812345678"),
        price=decimal.Decimal("42.50"),
        receipt=Receipt(order_id="A1001"),
    )


@tool
def unserializable() -> Any:
    """Return what JSON cannot hold."""
    return {"handle": object()}


@tool
def huge(size: int) -> str:
    """Return a long text."""
    return "x" * size
