from skillc import Agent, Skill

from tools import Lookup

orders = Skill(name="orders", description="Orders.", tools=[Lookup()])
billing = Skill(name="billing", description="Invoices, coming soon.")
returns = Skill(name="returns", description="Returns.", tools=[])
agent = Agent(name="shop", persona="Helpful.", skills=[orders, billing, returns])
