from skillc import Skill, ToolContext

from conditional import (
    always,
    async_hangs,
    async_yes,
    broken,
    env_gate,
    gated_tool,
    hangs,
    no,
    not_bool,
    yes,
)


def gate_open() -> bool:
    context = ToolContext.current()
    return context.skill == "gated" and context.env.get("GATED") == "on"


main = Skill(
    name="main",
    description="Tools with every kind of condition.",
    context="Main context.",
    tools=[always, yes, async_yes, no, broken, hangs, async_hangs, not_bool, env_gate],
)
gated = Skill(
    name="gated",
    description="Offered only when GATED is on.",
    context="Gated context.",
    tools=[gated_tool],
    condition=gate_open,
)
