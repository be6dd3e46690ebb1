from skillc import Agent, Skill

from rates.tools import listing

rates = Skill(name="rates", description="Exchange rates.", tools=[listing])
agent = Agent(name="bank", persona="You know exchange rates.", skills=[rates])
