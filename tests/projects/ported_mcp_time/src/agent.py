from skillc import Agent, Skill

from time_tools import ConvertTime, GetCurrentTime

time = Skill(name="time", description="Time and timezones.", tools=[GetCurrentTime(), ConvertTime()])
agent = Agent(name="clock", persona="You answer questions about time.", skills=[time])
