from skillc import Skill

from tools import Lookup, cancel_order, track

orders = Skill(name="orders", description="Orders.", tools=[Lookup(), cancel_order, track])
