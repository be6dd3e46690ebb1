from skillc import Agent, Skill

from dice import describe_foobar, foobar, roll_dice

games = Skill(name="games", description="Dice and foobars.", tools=[roll_dice, foobar, describe_foobar])
agent = Agent(name="player", persona="You're a dice game.", skills=[games])
