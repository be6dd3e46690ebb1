from skillc import Agent, Skill

from tools import GetLocation, confirm, pick_color, remember

device = Skill(name="device", description="Device.", tools=[GetLocation(), pick_color, confirm, remember])
agent = Agent(name="shop", persona="You help.", skills=[device])
