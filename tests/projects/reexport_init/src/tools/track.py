from skillc import Tool

from .lookup import LookupInput


def run_track(input: LookupInput, ctx: object) -> str:
    return "in transit"


track = Tool(name="track", description="Track a parcel.", input_schema=LookupInput, execute=run_track)
