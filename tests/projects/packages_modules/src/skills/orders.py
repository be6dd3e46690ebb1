from skillc import Skill

from skills.tools.cancel import cancel_order
from skills.tools.lookup import Lookup

orders = Skill(name="orders", description="Orders.", tools=[Lookup(), cancel_order])
