from skillc import Agent

from deadlines import deadlines

agent = Agent(name="runtime_deadlines", persona="Runs tools that ignore their deadline.", skills=[deadlines])
