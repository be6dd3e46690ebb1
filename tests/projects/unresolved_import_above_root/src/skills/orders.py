from skillc import Skill

from ... import settings
from ..tools import Lookup

orders = Skill(name="orders", description="Orders.", tools=[Lookup()])
