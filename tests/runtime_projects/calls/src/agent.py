from skillc import Agent

from calls import calls

agent = Agent(name="runtime_calls", persona="Runs every kind of call.", skills=[calls])
