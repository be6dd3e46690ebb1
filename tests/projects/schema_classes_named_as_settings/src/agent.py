from skillc import Agent, Skill

from tools import Interp, Plain, Shout

agent = Agent(name="code", skills=[Skill(name="code", description="Code.", tools=[Interp(), Shout(), Plain()])])
