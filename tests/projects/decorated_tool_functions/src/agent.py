from skillc import Agent, Skill

from tools import cancel, flaky_quote, lookup

agent = Agent(name="orders", skills=[Skill(name="orders", tools=[lookup, flaky_quote, cancel])])
