"""Tests of the agent's tools, run from their compiled bundles exactly as a model's calls are.

``load_project()`` compiles the project once per session (as ``skill compile`` does)
and each call goes through the runtime: conditions, input validation, execution,
serialization.  The error results are the texts the model would receive.

The session's ``ctx.data`` is a temporary store, empty at the start: the tools import
the sample orders of ``src/skills/tools/data/orders.json`` into it on first use, and
``load_project().data()`` shows what they wrote.  Your own ``.skill/data`` is never touched.
"""

from __future__ import annotations

from skillc.testing import load_project


def test_the_agent_offers_three_tools() -> None:
    assert load_project().tools == ("lookup_order", "cancel_order", "shipping_quote")


def test_lookup_order_returns_the_order() -> None:
    order = load_project().value("lookup_order", {"order_id": "A1001", "include_items": True})
    assert order["status"] == "shipped"
    assert order["items"] == ["kettle", "tea sampler"]


def test_lookup_order_rejects_a_malformed_id() -> None:
    result = load_project().call("lookup_order", {"order_id": "1001"})
    assert result.error_type == "validation"
    assert "order_id" in result.output


def test_lookup_order_says_when_there_is_no_such_order() -> None:
    result = load_project().call("lookup_order", {"order_id": "A9999"})
    assert result.error_type == "execution"
    assert "There is no order A9999." in result.output


def test_cancel_order_needs_approval() -> None:
    refused = load_project().call("cancel_order", {"order_id": "A1002"})
    assert refused.error_type == "approval_denied"
    approved = load_project().value("cancel_order", {"order_id": "A1002"}, approve=True)
    assert approved == {"order_id": "A1002", "status": "cancelled", "reason": "customer request"}
    assert load_project().value("lookup_order", {"order_id": "A1002"})["status"] == "cancelled"
    stored = load_project().data()["orders"].get("A1002")
    assert stored is not None and stored["cancel_reason"] == "customer request"
    again = load_project().call("cancel_order", {"order_id": "A1002"}, approve=True)
    assert "already cancelled" in again.output


def test_cancel_order_refuses_a_shipped_order() -> None:
    result = load_project().call("cancel_order", {"order_id": "A1001"}, approve=True)
    assert result.error_type == "execution"
    assert "already shipped" in result.output


def test_shipping_quote_prices_a_parcel() -> None:
    quote = load_project().value("shipping_quote", {"destination": "eu", "weight_kg": 2, "express": True})
    assert quote == {"destination": "eu", "price_eur": 20.0}


def test_shipping_quote_is_not_offered_when_turned_off() -> None:
    result = load_project().call(
        "shipping_quote", {"destination": "eu", "weight_kg": 2}, env={"SHIPPING_QUOTES": "off"}
    )
    assert result.error_type == "not_offered"
