SKILL_NAME = "orders"
LOOKUP_NAME = "lookup"
TRACK_NAME = "track"
