from skillc import Agent

from skills import gated, main

agent = Agent(name="runtime_conditions", persona="Offers what its conditions allow.", skills=[main, gated])
