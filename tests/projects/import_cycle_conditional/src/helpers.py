from __future__ import annotations

from typing import TYPE_CHECKING

import tools

if TYPE_CHECKING:  # never runs: an import for type checkers only is no cycle
    from tools import LookupInput

try:
    from tools import SUFFIX
except ImportError:  # tools is still initialising when it imports this module
    SUFFIX = "?"


def shout(input: LookupInput) -> str:
    return input.order_id.upper() + SUFFIX + tools.SUFFIX
