"""The orders skill: look up orders, quote shipping and cancel orders."""

from skillc import Skill

from skills.tools.cancel_order import cancel_order
from skills.tools.lookup_order import LookupOrder
from skills.tools.shipping_quote import shipping_quote

orders = Skill(
    name="orders",
    description="Look up orders, quote shipping and cancel orders.",
    context=(
        "Order ids look like A1001. Look an order up before you cancel it, "
        "and tell the customer what the cancellation changes."
    ),
    tools=[LookupOrder(), cancel_order, shipping_quote],
)
