import skillc as sk

import tools.orders as order_tools
from tools.billing import Refund as RefundTool
from tools.billing import get_invoice as invoice

orders = sk.Skill(name="orders", description="Orders.", tools=[order_tools.Lookup()])
billing = sk.Skill(name="billing", description="Invoices.", tools=[RefundTool(), invoice])
agent = sk.Agent(name="shop", persona="Helpful.", skills=[orders, billing])
