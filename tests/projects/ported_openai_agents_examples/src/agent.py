from skillc import Agent, Skill

from weather import faq_lookup_tool, get_temperature, get_weather

travel = Skill(name="travel", description="Weather and flights.", tools=[get_weather, get_temperature, faq_lookup_tool])
agent = Agent(name="helper", persona="You are a helpful agent.", skills=[travel])
