"""shipping_quote: the object form of a tool, offered only when a condition holds."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from skillc import Tool, ToolContext

PRICE_PER_KG_EUR = {"domestic": 1.5, "eu": 3.0, "world": 7.5}


class ShippingQuoteInput(BaseModel):
    """The parcel to quote for."""

    destination: Literal["domestic", "eu", "world"] = Field(description="Where it goes.")
    weight_kg: float = Field(gt=0, le=30, description="The parcel's weight in kilograms.")
    express: bool = Field(default=False, description="Delivery in one working day.")


def quote(input: ShippingQuoteInput, ctx: ToolContext) -> dict[str, object]:
    price = 4.0 + PRICE_PER_KG_EUR[input.destination] * input.weight_kg
    if input.express:
        price *= 2
    return {"destination": input.destination, "price_eur": round(price, 2)}


def shipping_available() -> bool:
    """Offer quotes unless the environment sets SHIPPING_QUOTES=off."""
    return ToolContext.current().env.get("SHIPPING_QUOTES", "on") != "off"


shipping_quote = Tool(
    name="shipping_quote",
    description="Quote the price of shipping a parcel.",
    input_schema=ShippingQuoteInput,
    execute=quote,
    condition=shipping_available,
    timeout=5,
)
