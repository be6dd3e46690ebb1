"""Function-form tools: their input models as FunctionTool builds them."""

from typing import Annotated, Any, Literal, Optional

from pydantic import Field
from skillc import ToolContext, tool

from fx_enums import Color
from fx_nested import Address


@tool
def cancel_order(order_id: Annotated[str, Field(pattern=r"^A\d{4}$")], reason: str = "") -> str:
    """Cancel an order that has not shipped.

    Args:
        order_id: The order id, like A1001.
        reason: Why the customer cancels.
    """
    return order_id


@tool(name="ship", timeout=5)
def ship_order(
    order_id: str,
    ctx: ToolContext,
    address: Address,
    speed: Literal["slow", "fast"] = "slow",
    *,
    note: Optional[str] = None,
    color: Color = Color.RED,
) -> str:
    """Ship an order.

    Args:
        order_id (str): Which order.
        address: Where to.
            Continued on a second line.
        speed: How fast.
        note: Anything else.
        ctx: Not part of the input.
    """
    return order_id


@tool
def explicit_wins(
    count: Annotated[int, Field(ge=1, description="Explicit.")] = 1,
    size: int = Field(default=2, description="Also explicit."),
    untyped=3,
    anything: Any = None,
    maybe_ctx: ToolContext | None = None,
) -> int:
    """Explicit descriptions win.

    Args:
        count: From the docstring.
        size: From the docstring too.
        untyped: No annotation.
    """
    return count


@tool
def no_params(ctx: Optional[ToolContext] = None) -> str:
    """Takes nothing."""
    return ""


@tool
def no_docstring(a: int, b: list[int] = [], c: dict[str, float] = {}) -> int:
    return a


@tool
def required_field(value: int = Field(..., description="Required.")) -> int:
    """Args:
    value: Ignored, the Field says it.
    """
    return value


@tool
def weather(
    city: Annotated[str, "The city"],
    days: Annotated[int, "How many days", Field(ge=1)] = 1,
    unit: Annotated[Literal["c", "f"], "Ignored: the docstring wins"] = "c",
    detail: Annotated[str, "Ignored: the Field wins", Field(description="Explicit.")] = "",
    note: Annotated[Optional[str], 42, "Only strings count"] = None,
) -> str:
    """The forecast.

    Args:
        unit: Celsius or Fahrenheit.
    """
    return city
