"""The diagnostics the compiler can report, each with its row of ``check_table`` (code,
severity, what it means) and its examples.

Every check carries examples, kept apart in ``check_examples``, ``tool_check_examples``
and ``schema_check_examples``: small projects that must not report it (``valid``) and
projects that must report it at a given place (``invalid``).  The test suite turns
each example into a case, so a check and its documentation cannot drift apart.

No stage imports this module (``report`` reads the severities from ``check_table``), and
it imports none of them; its example tables import only ``types``.
"""

from __future__ import annotations

from .check_examples import EXAMPLES
from .check_table import ROWS, SCHEMA_ROWS
from .schema_check_examples import SCHEMA_EXAMPLES
from .tool_check_examples import TOOL_EXAMPLES
from .types import Check, Example, Severity

__all__ = ["CHECKS", "SCHEMA_CHECKS", "Check", "Example"]


def _check(code: str, severity: Severity, summary: str) -> Check:
    """The check ``code``, with its examples from ``check_examples``."""
    valid, invalid = EXAMPLES[code] if code in EXAMPLES else TOOL_EXAMPLES[code]
    return Check(code, severity, summary, valid=valid, invalid=invalid)


def _schema_check(code: str, severity: Severity, summary: str) -> Check:
    """The schema translator's check ``code``, with its examples from ``schema_check_examples``."""
    valid, invalid = SCHEMA_EXAMPLES[code]
    return Check(code, severity, summary, valid=valid, invalid=invalid)


CHECKS: dict[str, Check] = {row.code: _check(*row) for row in ROWS}

# --- The schema translator's checks (compiler/schema*.py) ----------------------------

SCHEMA_CHECKS: tuple[Check, ...] = tuple(_schema_check(*row) for row in SCHEMA_ROWS)
CHECKS.update((check.code, check) for check in SCHEMA_CHECKS)
