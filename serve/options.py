"""What ``skill serve`` was asked for over HTTP, checked: ``HttpOptions``.

A module of its own, without uvicorn, starlette or the mcp SDK, so that the command
checks its flags and prints a host's configuration (``--print-config``) without
importing the server it does not start.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from ..contracts.errors import UsageError
from ..runtime.context import Environment

__all__ = ["HEALTH_PATH", "HttpOptions"]

HEALTH_PATH: Final = "/healthz"


@dataclass(frozen=True)
class HttpOptions:
    """Everything a worker needs to serve the project as the command line asked."""

    project: str
    environment: Environment = "sandbox"
    approve: bool = False
    host: str = "127.0.0.1"
    port: int = 8000
    path: str = "/mcp"
    workers: int = 1

    def check(self) -> None:
        """Refuse options that cannot work, as usage errors."""
        if not self.path.startswith("/") or self.path == HEALTH_PATH or any(c in self.path for c in "?# "):
            raise UsageError(
                f"--path must be an absolute URL path other than {HEALTH_PATH}, not {self.path!r}",
                hint="e.g. --path /mcp",
            )
        if not 0 <= self.port <= 65535:
            raise UsageError(f"--port must be between 0 and 65535, not {self.port}")
        if self.workers < 1:
            raise UsageError(f"--workers must be at least 1, not {self.workers}")
