"""Find where a module parses the command line while it is imported.

``parser.parse_args()`` with no arguments (and ``parse_known_args``,
``parse_intermixed_args``, ``parse_known_intermixed_args``: argparse's, and optparse's
``parse_args``) reads ``sys.argv``.  A compiled tool's modules are imported by the process
that loads the tool (``skill test``, ``skill serve``, ``skill chat``, a host of the
runtime), whose command line is its own: the parser exits on the first argument it does
not know, or reads values that were never meant for it.  A call given its arguments
(``parse_args([])``, ``parse_args(args=...)``) reads no command line.

What runs at import is what ``index_import_time`` walks.  Which object the method belongs
to is not resolved: a method of that name called with no argument at import is taken to
parse the command line.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from .index_import_time import import_time_nodes
from .types import Pos

__all__ = ["PARSE_METHODS", "find_command_line_parses"]

#: The parser methods that read ``sys.argv`` when called without arguments.
PARSE_METHODS = frozenset({"parse_args", "parse_known_args", "parse_intermixed_args", "parse_known_intermixed_args"})
#: How much of the called expression a report shows.
_SHOWN = 60


def find_command_line_parses(
    tree: ast.Module, source: bytes, position: Callable[[ast.AST], Pos]
) -> tuple[tuple[str, Pos], ...]:
    """Each call of one of ``PARSE_METHODS`` with no arguments in code that runs at import, in
    order: the called expression as written (shortened), and where the call is."""
    if b"parse_" not in source:  # nearly every module: decided without walking it
        return ()
    found: list[tuple[str, Pos]] = []
    for node, _ in import_time_nodes(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in PARSE_METHODS
            and not node.args
            and not any(keyword.arg in ("args", None) for keyword in node.keywords)  # None: ``**options``
        ):
            called = ast.unparse(node.func)
            found.append((called if len(called) <= _SHOWN else "..." + called[-_SHOWN:], position(node)))
    return tuple(sorted(found, key=lambda item: (item[1].line, item[1].col)))
