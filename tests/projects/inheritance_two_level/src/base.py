from typing import Any

from skillc import Tool


class ShopTool(Tool):
    """Shared settings and plumbing of every shop tool."""

    timeout = 30
    retries = 2
    metadata = {"team": "shop"}

    def execute(self, input: Any, ctx: object) -> Any:
        return self.run(input)

    def run(self, input: Any) -> Any:
        raise NotImplementedError
