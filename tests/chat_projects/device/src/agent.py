from device import device
from skillc import Agent

agent = Agent(name="concierge", persona="You help travellers.", skills=[device])
