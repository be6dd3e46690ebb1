"""Ask CPython about a file before it is indexed: whether it compiles, and how deep it nests.

The ``ast`` tree is compiled (which runs nothing), so that whatever the interpreter
refuses (``return`` outside a function, a duplicate argument, a misplaced ``from
__future__``, too many nested parentheses) is a ``skill/syntax-error`` rather than a
clean compile followed by a failing import, and whatever it warns about is a
``skill/syntax-warning``.  The tree is then measured: LibCST's native parser recurses
once per level of nesting and crashes the whole process (a segmentation fault, no
exception) somewhere past a thousand levels, so a file nested deeper than
``MAX_NESTING`` never reaches it.  Positions are CPython's own, in characters.
"""

from __future__ import annotations

import ast
import contextlib
import threading
import warnings
from collections.abc import Callable, Iterator
from typing import Any

from .types import Diagnostic, Severity

__all__ = ["MAX_NESTING", "NESTING_HINT", "check_syntax", "syntax_error", "warnings_ignored"]

#: The deepest nesting handed to LibCST, counted in ``ast`` levels.  Measured with an 8 MB
#: stack (LibCST 1.9), its parser crashes the process at about 1,250 nested brackets,
#: 5,900 ``a.b.c`` links, 7,000 ``+`` terms, 8,000 unary operators, 3,000 to 10,000
#: ``and`` terms and 20,000 dotted import parts, and takes seconds and hundreds of
#: megabytes well before: CPython 3.11 itself refuses most chains past 1,000.  Brackets
#: are bounded apart, by CPython's own limit of 200.
MAX_NESTING = 1000

_SYNTAX_HINT = "fix the syntax; the rest of the project is still checked"
NESTING_HINT = "split it into smaller expressions that name their parts; the rest of the project is still checked"


#: Held while the compiler records or ignores warnings.  The filters and the recording are the
#: process's, not the thread's (before Python 3.14): two checks at once in two threads took each
#: other's warnings, or let one escape, raised under ``-W error``.  (Re-entrant: a check that
#: records may look for the deepest statement, which ignores.)
_WARNINGS_HELD = threading.RLock()


@contextlib.contextmanager
def _warnings_recorded() -> Iterator[list[warnings.WarningMessage]]:
    """Every warning inside the block, recorded, never raised or printed; one thread at a time."""
    with _WARNINGS_HELD, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")  # recorded, never raised: tests run with -W error
        yield caught


@contextlib.contextmanager
def warnings_ignored() -> Iterator[None]:
    """No warning inside the block is raised or printed; one thread at a time (see ``_WARNINGS_HELD``)."""
    with _WARNINGS_HELD, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def syntax_error(path: str, message: str, line: int, col: int, hint: str = _SYNTAX_HINT) -> Diagnostic:
    """A ``skill/syntax-error`` at ``line``, ``col`` of ``path``."""
    return Diagnostic("skill/syntax-error", Severity.ERROR, message, path, line, col, hint)


def check_syntax(source: bytes, path: str) -> tuple[ast.Module | None, tuple[Diagnostic, ...]]:
    """Ask CPython about ``source`` and measure its nesting: its ``ast`` tree, or ``None``.

    The tree is compiled as well as parsed, which runs nothing: CPython's compiler refuses
    what its parser lets through (``return`` outside a function, a duplicate argument,
    ``nonlocal`` at module level...).  The diagnostics are the error when there is no
    tree, and CPython's warnings, which it never prints here.
    """
    tree: ast.Module | None = None
    with _warnings_recorded() as caught:
        try:
            tree = ast.parse(source, filename=path)
            compile(tree, path, "exec", dont_inherit=True)
        except SyntaxError as error:
            refused: Diagnostic | None = _refused(source, path, error, compiled=tree is not None)
        except (RecursionError, MemoryError):  # "too complex", before any position is known
            line, col = _deepest_statement(source)
            message = "this statement is nested too deeply for Python to compile"
            refused = syntax_error(path, message, line, col, NESTING_HINT)
        except ValueError as error:  # a null byte, before Python 3.11.4
            refused = syntax_error(path, str(error), *_null_byte(source))
        else:
            refused = _too_deep(source, path, tree)
    found = _warnings(caught, path)
    if refused is not None:
        return None, (refused, *found)
    return tree, found


def _refused(source: bytes, path: str, error: SyntaxError, compiled: bool) -> Diagnostic:
    """CPython's syntax error at its line and column (0-based, in characters)."""
    if error.lineno is None:  # a null byte: no version of CPython says where
        return syntax_error(path, error.msg, *_null_byte(source))
    col = max((error.offset or 1) - 1, 0)
    if compiled:  # the compiler's offsets come from the tree's, which count UTF-8 bytes
        col = _characters(source, error.lineno, col)
    return syntax_error(path, error.msg, error.lineno, col)


def _null_byte(source: bytes) -> tuple[int, int]:
    at = max(source.find(b"\0"), 0)
    start = max(source.rfind(b"\n", 0, at), source.rfind(b"\r", 0, at)) + 1
    return source.count(b"\n", 0, at) + 1, len(source[start:at].decode("utf-8", "replace"))


def _characters(source: bytes, line: int, offset: int) -> int:
    """The column, in characters, of the UTF-8 byte ``offset`` of line ``line``."""
    lines = _lines(source)
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    return len(text.encode("utf-8")[:offset].decode("utf-8", "replace"))


#: How many levels LibCST nests for what ``ast`` keeps in one node: ``a and b and c``,
#: each ``for`` of a comprehension, and each part of a dotted import name.
_FLAT_IN_AST: dict[type[ast.AST], Callable[[Any], int]] = {
    ast.BoolOp: lambda node: len(node.values),
    ast.ListComp: lambda node: len(node.generators),
    ast.SetComp: lambda node: len(node.generators),
    ast.DictComp: lambda node: len(node.generators),
    ast.GeneratorExp: lambda node: len(node.generators),
    ast.Import: lambda node: max(alias.name.count(".") for alias in node.names),
    ast.ImportFrom: lambda node: (node.module or "").count("."),
}


#: Nodes with no child worth a level: never pushed on the walk's stack, a third of its cost.
_LEAVES = frozenset(
    {
        ast.Name,
        ast.Constant,
        ast.Load,
        ast.Store,
        ast.Del,
        ast.Pass,
        ast.alias,
        *ast.operator.__subclasses__(),
        *ast.boolop.__subclasses__(),
        *ast.cmpop.__subclasses__(),
        *ast.unaryop.__subclasses__(),
    }
)


def _too_deep(source: bytes, path: str, tree: ast.Module) -> Diagnostic | None:
    """A diagnostic at the first node nested deeper than ``MAX_NESTING``, as LibCST nests it."""
    stack: list[tuple[ast.AST, int]] = [(tree, 0)]
    pop, push, wide, node_type = stack.pop, stack.append, _FLAT_IN_AST.get, ast.AST
    while stack:
        node, depth = pop()
        extra = wide(node.__class__)
        if extra is not None:
            depth += extra(node)
        if depth > MAX_NESTING and hasattr(node, "lineno"):
            line = node.lineno
            col = _characters(source, line, getattr(node, "col_offset", 0))
            return syntax_error(
                path,
                f"this is nested more than {MAX_NESTING} levels deep, more than skillc's parser can read",
                line,
                col,
                NESTING_HINT,
            )
        depth += 1
        for name in node._fields:  # ast.iter_child_nodes, three times faster without its generator
            value = getattr(node, name, None)
            if value.__class__ is list:
                for item in value:
                    if isinstance(item, node_type) and item.__class__ not in _LEAVES:
                        push((item, depth))
            elif isinstance(value, node_type) and value.__class__ not in _LEAVES:
                push((value, depth))
    return None


#: Tokens that nest an expression (or an ``elif``) one level further.
_NESTING_WORDS = frozenset({"and", "or", "not", "lambda", "if", "elif", "else", "await", "for"})
_FLAT_TOKENS = frozenset({",", ":", ";", "=", ")", "]", "}", "->"})
_LAYOUT_TOKENS = frozenset({"NL", "COMMENT", "INDENT", "DEDENT", "ENCODING"})
#: What continues a top-level statement on a line of its own at column 0.
_CONTINUATIONS = frozenset({"elif", "else", "except", "finally"})


def _deepest_statement(source: bytes) -> tuple[int, int]:
    """Where the statement that CPython finds too deep starts, as near as can be told.

    CPython's recursion errors say nothing of where: each top-level statement is compiled
    on its own to find the one that fails, and in it the logical line with the most
    operators is taken.  Seconds for a large file, spent only once a file is refused.
    """
    import io
    import tokenize

    logical: list[tuple[int, int, int]] = []  # (line, column, operators) of each logical line
    starts: list[int] = []  # the index in ``logical`` of each top-level statement's first line
    first: tokenize.TokenInfo | None = None
    count = 0
    decorated = False
    try:
        for token in tokenize.tokenize(io.BytesIO(source).readline):
            kind = tokenize.tok_name[token.type]
            if kind in ("NEWLINE", "ENDMARKER"):
                if first is not None:
                    logical.append((*first.start, count))
                first, count = None, 0
            elif kind not in _LAYOUT_TOKENS:
                if first is None:
                    first = token
                    top = token.start[1] == 0
                    if top and token.string not in _CONTINUATIONS and not decorated:
                        starts.append(len(logical))
                    if top:  # a decorator's statement goes on to the definition after it
                        decorated = token.string == "@"
                if (kind == "OP" and token.string not in _FLAT_TOKENS) or token.string in _NESTING_WORDS:
                    count += 1
    except (SyntaxError, tokenize.TokenError, ValueError):
        if first is not None:  # the statement being read when the tokenizer gave up
            logical.append((*first.start, count))
    if not logical:
        return 1, 0
    candidates = logical
    lines = _lines(source)
    for index, begin in enumerate(starts):
        end = starts[index + 1] if index + 1 < len(starts) else len(logical)
        until = logical[end][0] - 1 if end < len(logical) else len(lines)
        chunk = "\n".join(lines[logical[begin][0] - 1 : until]) + "\n"
        try:
            with warnings_ignored():
                compile(chunk, "<statement>", "exec", dont_inherit=True)
        except (RecursionError, MemoryError):
            candidates = logical[begin:end]
            break
        except (SyntaxError, ValueError):
            continue
    line, col, _ = max(candidates, key=lambda item: item[2])  # the first of the busiest
    return line, col


def _lines(source: bytes) -> list[str]:
    """The lines of ``source``, decoded and split as CPython does (PEP 263, then \\n, \\r\\n or \\r)."""
    import io
    import tokenize

    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
        text = source.decode(encoding)
    except (SyntaxError, LookupError, UnicodeDecodeError):
        text = source.decode("utf-8", "replace")
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def _warnings(caught: list[warnings.WarningMessage], path: str) -> tuple[Diagnostic, ...]:
    """CPython's compile-time warnings about the file, as ``skill/syntax-warning`` diagnostics."""
    found: dict[tuple[int, str], Diagnostic] = {}
    for item in caught:
        if not issubclass(item.category, SyntaxWarning | DeprecationWarning) or item.filename != path:
            continue
        message = str(item.message)
        if "escape sequence" in message:
            hint = "write the string raw (r'...') or double the backslash: a later Python refuses it"
        else:
            hint = "Python warns about this line each time it compiles the file"
        line = item.lineno or 1
        warning = Diagnostic("skill/syntax-warning", Severity.WARNING, message, path, line, 0, hint)
        found.setdefault((line, message), warning)
    return tuple(found.values())
