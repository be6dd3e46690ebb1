from skillc import Skill

from tools import lookup

returns = Skill(name="orders", description="Returns.", tools=[lookup])
