from shop import orders, reports, voice_desk
from skillc import Agent

agent = Agent(name="shop", persona="You help the shop's customers.", skills=[orders, reports, voice_desk])
