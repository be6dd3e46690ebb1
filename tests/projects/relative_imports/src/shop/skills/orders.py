from skillc import Skill

from ..tools import cancel
from ..tools.lookup import Lookup

orders = Skill(name="orders", description="Orders.", tools=[Lookup(), cancel])
