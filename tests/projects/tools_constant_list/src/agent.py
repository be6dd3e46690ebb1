from skillc import Agent, Skill

from tools import ORDER_TOOLS, refund

BILLING_TOOLS = (refund,)

orders = Skill(name="orders", description="Orders.", tools=ORDER_TOOLS)
billing = Skill(name="billing", description="Invoices.", tools=BILLING_TOOLS)
SKILLS = [orders, billing]
agent = Agent(name="shop", persona="Helpful.", skills=SKILLS)
