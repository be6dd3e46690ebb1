from skillc import Agent, Skill

from tools import Lookup, refund

agent = Agent(
    name="shop",
    persona="Helpful.",
    skills=[
        Skill(name="orders", description="Orders.", tools=[Lookup()]),
        Skill(name="billing", description="Invoices.", tools=[refund]),
    ],
)
