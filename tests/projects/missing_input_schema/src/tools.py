from typing import Any

from skillc import Tool


class Lookup(Tool):
    name = "lookup"
    description = "Look up an order."

    def execute(self, input: Any, ctx: object) -> str:
        return str(input)


def run_track(input: Any, ctx: object) -> str:
    return "in transit"


track = Tool(name="track", description="Track a parcel.", execute=run_track)
