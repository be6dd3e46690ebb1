from skillc import Agent, Skill

from tools import Book, forecast

travel = Skill(
    name="travel",
    description="Book trips and check the weather.",
    tools=[Book(), forecast],
)
agent = Agent(name="travel_agent", persona="You plan trips.", skills=[travel])
