from skillc import Agent, Skill

from tools import Lookup, lookup_invoice

orders = Skill(name="orders", description="Orders.", tools=[Lookup()])
billing = Skill(name="billing", description="Invoices.", tools=[lookup_invoice])
Billing = Skill(name="Billing", description="Invoices again.", tools=[])
agent = Agent(name="shop", persona="Helpful.", skills=[orders, billing, Billing])
