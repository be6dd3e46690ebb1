from skillc import Agent, Skill

from tools import Refund, transfer, wire

payments = Skill(name="payments", description="Payments.", tools=[Refund(), transfer, wire])
agent = Agent(name="bank", persona="You move money carefully.", skills=[payments])
