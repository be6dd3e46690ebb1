from skillc import Agent

from hostile import hostile

agent = Agent(name="runtime_hostile", persona="Runs tools that misbehave.", skills=[hostile])
