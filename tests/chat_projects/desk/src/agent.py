from skillc import Agent

from desk import back_office, front_desk

agent = Agent(name="desk", persona="You run the help desk. Be brief.", skills=[front_desk, back_office])
