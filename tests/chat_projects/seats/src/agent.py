from skillc import Agent

from seats import seats

agent = Agent(name="airline", persona="You help passengers with their seats. Be brief.", skills=[seats])
