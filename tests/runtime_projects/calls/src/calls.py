from skillc import Skill

from tools.basic import Echo, add, ctx_echo, raw
from tools.broken_import import import_fails
from tools.failures import always_fails, flaky, slow_async, slow_sync
from tools.outputs import bad_output, good_output, huge, rich_types, unserializable
from tools.side_effects import approve_me, async_noisy, async_quitter, noisy, quitter, sneaky
from tools.strict import StrictTool

calls = Skill(
    name="calls",
    description="Every kind of call.",
    context="Calls context.",
    tools=[
        Echo(), add, ctx_echo, raw,
        always_fails, flaky, slow_async, slow_sync,
        good_output, bad_output, rich_types, unserializable, huge,
        noisy, async_noisy, quitter, async_quitter, sneaky, approve_me,
        StrictTool(), import_fails,
    ],
)
