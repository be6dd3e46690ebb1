from skillc import Agent, Skill

from tools import Lookup, summarize_every_open_ticket_of_the_customer

desk = Skill(name="desk", description="Tickets.", tools=[Lookup(), summarize_every_open_ticket_of_the_customer])
agent = Agent(name="customer_support_desk", persona="Helpful.", skills=[desk])
