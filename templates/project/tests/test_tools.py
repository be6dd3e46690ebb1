"""Tests of the agent's own tools, called directly as plain Python."""

from __future__ import annotations

import asyncio

import pytest
from pydantic import ValidationError

from agent import agent
from skillc import ToolContext
from skills.tools.cancel_order import cancel_order
from skills.tools.lookup_order import LookupOrder, LookupOrderInput
from skills.tools.shipping_quote import ShippingQuoteInput, shipping_quote


def test_agent_offers_three_tools_in_one_skill() -> None:
    assert [skill.name for skill in agent.skills] == ["orders"]
    assert sorted(tool.name for _, tool in agent.iter_tools()) == [
        "cancel_order",
        "lookup_order",
        "shipping_quote",
    ]


def test_lookup_order_returns_the_order() -> None:
    result = asyncio.run(
        LookupOrder().execute(LookupOrderInput(order_id="A1001", include_items=True), ToolContext())
    )
    assert result["status"] == "shipped"
    assert result["items"] == ["kettle", "tea sampler"]


def test_lookup_order_rejects_a_malformed_id() -> None:
    with pytest.raises(ValidationError):
        LookupOrderInput(order_id="1001")


def test_lookup_order_says_when_there_is_no_such_order() -> None:
    with pytest.raises(LookupError, match="no order A9999"):
        asyncio.run(LookupOrder().execute(LookupOrderInput(order_id="A9999"), ToolContext()))


def test_cancel_order_cancels_an_order_that_has_not_shipped() -> None:
    assert cancel_order(order_id="A1002") == {
        "order_id": "A1002",
        "status": "cancelled",
        "reason": "customer request",
    }
    assert cancel_order.needs_approval


def test_cancel_order_refuses_a_shipped_order() -> None:
    with pytest.raises(ValueError, match="already shipped"):
        cancel_order(order_id="A1001")


def test_shipping_quote_prices_a_parcel() -> None:
    parcel = ShippingQuoteInput(destination="eu", weight_kg=2, express=True)
    assert shipping_quote.execute(parcel, ToolContext()) == {
        "destination": "eu",
        "price_eur": 20.0,
    }


@pytest.mark.parametrize(("setting", "offered"), [({}, True), ({"SHIPPING_QUOTES": "off"}, False)])
def test_shipping_quote_is_offered_unless_turned_off(setting: dict[str, str], offered: bool) -> None:
    condition = shipping_quote.condition_function
    assert condition is not None
    with ToolContext(env=setting).activate():
        assert condition() is offered
