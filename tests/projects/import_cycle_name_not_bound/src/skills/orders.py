from skillc import Skill

from skills.lookup import Lookup

CURRENCY = "EUR"

orders = Skill(name="orders", description="Orders.", tools=[Lookup()])
