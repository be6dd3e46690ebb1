from skillc import Agent

from tampering import tampering

agent = Agent(name="runtime_tampering", persona="Runs tools that tamper with the process.", skills=[tampering])
