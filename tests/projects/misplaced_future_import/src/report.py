"""Monthly report helpers, not used by any tool yet."""

import os
from __future__ import annotations


def home() -> str:
    return os.getcwd()
