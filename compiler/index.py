"""Index one module: read its source with LibCST into a plain ``ModuleIndex``.

Only what the compiler reasons about is read: imports, classes (bases, class-level
attributes, method signatures), functions (decorators, parameters, docstrings),
module-level assignments and calls, including those inside ``if``/``try``/``with``
blocks, which are marked with the branch they sit in.  Function bodies are never
visited.

No LibCST metadata is resolved: ``PositionProvider`` costs more than the parse itself.
Positions come instead from the standard library's ``ast`` for the same bytes (a
fifteenth of LibCST's parse), walked in step with the LibCST tree: every statement and
expression the index records has its ``ast`` twin, whose position is exact and is the
one editors and CPython's own errors show.  Where the two trees do not pair up, a node
is recorded with its path instead, and ``locate`` finds its position on demand.

Before LibCST sees a file, ``check_syntax`` asks CPython: the ``ast`` tree is compiled
(which runs nothing), so that whatever the interpreter refuses (``return`` outside a
function, a duplicate argument, a misplaced ``from __future__``, too many nested
parentheses) is a ``skill/syntax-error`` rather than a clean compile followed by a
failing import, and whatever it warns about is a ``skill/syntax-warning``.  The tree
is then measured: LibCST's native parser recurses once per level of nesting and
crashes the whole process (a segmentation fault, no exception) somewhere past a
thousand levels, so a file nested deeper than ``MAX_NESTING`` never reaches it.
"""

from __future__ import annotations

import ast
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import libcst as cst

from .types import (
    BinOp,
    Call,
    ClassInfo,
    Const,
    Container,
    Diagnostic,
    Dynamic,
    Expr,
    FunctionInfo,
    ImportBinding,
    ModuleIndex,
    NodePath,
    Param,
    Pos,
    Ref,
    Severity,
    Subscript,
    ValueBinding,
)

__all__ = ["MAX_NESTING", "IndexFailure", "analyse_source", "check_syntax", "index_source"]

#: The deepest nesting handed to LibCST, counted in ``ast`` levels.  Measured with an 8 MB
#: stack (LibCST 1.9), its parser crashes the process at about 1,250 nested brackets,
#: 5,900 ``a.b.c`` links, 7,000 ``+`` terms, 8,000 unary operators, 3,000 to 10,000
#: ``and`` terms and 20,000 dotted import parts, and takes seconds and hundreds of
#: megabytes well before: CPython 3.11 itself refuses most chains past 1,000.  Brackets
#: are bounded apart, by CPython's own limit of 200.
MAX_NESTING = 1000
#: The deepest expression the index records; anything deeper is recorded as dynamic,
#: so that no index value is too deep to pickle, compare or walk.
_EXPRESSION_DEPTH = 100
_DYNAMIC_TEXT_LIMIT = 80
_BINARY_OPERATORS = {
    cst.BitOr: "|",
    cst.BitAnd: "&",
    cst.Add: "+",
    cst.Subtract: "-",
    cst.Multiply: "*",
    cst.Divide: "/",
    cst.FloorDivide: "//",
    cst.Modulo: "%",
    cst.Power: "**",
    cst.BitXor: "^",
    cst.LeftShift: "<<",
    cst.RightShift: ">>",
    cst.MatrixMultiply: "@",
}
_CONSTANT_NAMES = {"True": True, "False": False, "None": None}


@dataclass(frozen=True)
class IndexFailure:
    """A file that could not be indexed: the diagnostics say why."""

    path: str
    diagnostics: tuple[Diagnostic, ...]


_SYNTAX_HINT = "fix the syntax; the rest of the project is still checked"
_NESTING_HINT = "split it into smaller expressions that name their parts; the rest of the project is still checked"


def _error(path: str, message: str, line: int, col: int, hint: str = _SYNTAX_HINT) -> Diagnostic:
    return Diagnostic("skill/syntax-error", Severity.ERROR, message, path, line, col, hint)


def check_syntax(source: bytes, path: str) -> tuple[ast.Module | None, tuple[Diagnostic, ...]]:
    """Ask CPython about ``source`` and measure its nesting: its ``ast`` tree, or ``None``.

    The tree is compiled as well as parsed, which runs nothing: CPython's compiler refuses
    what its parser lets through (``return`` outside a function, a duplicate argument,
    ``nonlocal`` at module level...).  The diagnostics are the error when there is no
    tree, and CPython's warnings, which it never prints here.
    """
    tree: ast.Module | None = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")  # recorded, never raised: tests run with -W error
        try:
            tree = ast.parse(source, filename=path)
            compile(tree, path, "exec", dont_inherit=True)
        except SyntaxError as error:
            refused: Diagnostic | None = _refused(source, path, error, compiled=tree is not None)
        except (RecursionError, MemoryError):  # "too complex", before any position is known
            line, col = _deepest_statement(source)
            message = "this statement is nested too deeply for Python to compile"
            refused = _error(path, message, line, col, _NESTING_HINT)
        except ValueError as error:  # a null byte, before Python 3.11.4
            refused = _error(path, str(error), *_null_byte(source))
        else:
            refused = _too_deep(source, path, tree)
    found = _warnings(caught, path)
    if refused is not None:
        return None, (refused, *found)
    return tree, found


def _refused(source: bytes, path: str, error: SyntaxError, compiled: bool) -> Diagnostic:
    """CPython's syntax error at its line and column (0-based, in characters)."""
    if error.lineno is None:  # a null byte: no version of CPython says where
        return _error(path, error.msg, *_null_byte(source))
    col = max((error.offset or 1) - 1, 0)
    if compiled:  # the compiler's offsets come from the tree's, which count UTF-8 bytes
        col = _characters(source, error.lineno, col)
    return _error(path, error.msg, error.lineno, col)


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
            return _error(
                path,
                f"this is nested more than {MAX_NESTING} levels deep, more than skillc's parser can read",
                line,
                col,
                _NESTING_HINT,
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
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
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


def analyse_source(
    source: bytes, path: str, module_name: str, is_package: bool
) -> tuple[ModuleIndex | None, tuple[Diagnostic, ...]]:
    """Index ``source``: the index (``None`` when the file cannot be indexed) and its diagnostics.

    Without an index, the diagnostics hold at least one error; with one, only warnings.
    """
    tree, problems = check_syntax(source, path)
    if tree is None:
        return None, problems
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError as error:
        message = error.message.removeprefix("parser error: ")
        refused = _error(
            path,
            f"skillc's parser cannot read this, though Python accepts it: {message}",
            error.raw_line,
            error.raw_column,
        )
        return None, (refused, *problems)
    indexer = _Indexer(module, tree, source)
    try:
        with warnings.catch_warnings():
            # LibCST evaluates strings with ``ast.literal_eval``, which warns again about
            # what ``check_syntax`` has already reported: never print it, never raise it.
            warnings.simplefilter("ignore")
            return indexer.run(path, module_name, is_package), problems
    except RecursionError:  # a LibCST helper that recurses once per level of nesting
        where = indexer.statement
        refused = _error(
            path, "this statement is nested too deeply for skillc to analyse", where.line, where.col, _NESTING_HINT
        )
        return None, (refused, *problems)


def index_source(source: bytes, path: str, module_name: str, is_package: bool) -> ModuleIndex | IndexFailure:
    """Index ``source``; a file that does not parse becomes an ``IndexFailure``.

    CPython's warnings are left out: ``analyse_source`` returns them too.
    """
    index, problems = analyse_source(source, path, module_name, is_package)
    return IndexFailure(path, problems) if index is None else index


def _statements(body: Sequence[cst.CSTNode], prefix: NodePath) -> Iterator[tuple[cst.CSTNode, NodePath]]:
    """Yield each statement of a block, small statements of a line one by one.

    The order matches ``ast``'s list of statements for the same block.
    """
    for index, statement in enumerate(body):
        if isinstance(statement, cst.SimpleStatementLine):
            for inner, small in enumerate(statement.body):
                yield small, (*prefix, index, "body", inner)
        else:
            yield statement, (*prefix, index)


def _block(node: cst.BaseSuite, path: NodePath) -> tuple[Sequence[cst.CSTNode], NodePath]:
    """The statements of a suite and their path (an indented block or ``: stmt; stmt``)."""
    if isinstance(node, cst.IndentedBlock | cst.SimpleStatementSuite):
        return node.body, (*path, "body")
    return (), path


_T = TypeVar("_T")


def _get(items: Sequence[_T] | None, index: int) -> _T | None:
    return items[index] if items is not None and index < len(items) else None


class _Indexer:
    """One pass over one module's statements; see the module docstring."""

    def __init__(self, module: cst.Module, tree: ast.Module | None, source: bytes) -> None:
        self.module = module
        self.tree = tree
        # ast counts columns in UTF-8 bytes of the decoded text, whatever the file's encoding.
        encoding = module.encoding.lower().replace("_", "-")
        if encoding not in ("utf-8", "utf8"):
            source = source.decode(module.encoding).encode("utf-8")
        self.lines = source.splitlines()
        self.imports: list[ImportBinding] = []
        self.classes: list[ClassInfo] = []
        self.functions: list[FunctionInfo] = []
        self.assignments: list[ValueBinding] = []
        self.calls: list[Call] = []
        #: The statement being indexed, where a ``RecursionError`` is reported.
        self.statement = Pos(1, 0)
        #: How many expressions deep ``_expr`` is.
        self.depth = 0

    def run(self, path: str, module_name: str, is_package: bool) -> ModuleIndex:
        docstring = self.module.get_docstring()  # first, while ``statement`` is still line 1
        self._module_block(self.module.body, ("body",), self.tree.body if self.tree else None, None)
        return ModuleIndex(
            name=module_name,
            path=path,
            is_package=is_package,
            docstring=docstring,
            imports=tuple(self.imports),
            classes=tuple(self.classes),
            functions=tuple(self.functions),
            assignments=tuple(self.assignments),
            calls=tuple(self.calls),
        )

    # --- positions ------------------------------------------------------------------

    def _pos(self, twin: ast.AST | None, path: NodePath, statement: Pos | None = None) -> Pos:
        """The exact position of ``twin``; without one, the statement's and the path."""
        line = getattr(twin, "lineno", None)
        if line is None:
            base = statement or Pos(0, 0)
            return Pos(base.line, base.col, Pos.encode(path), exact=False)
        offset: int = getattr(twin, "col_offset", 0)
        raw = self.lines[line - 1] if 0 < line <= len(self.lines) else b""
        if not raw.isascii():  # ast counts bytes; a column counts characters
            offset = len(raw[:offset].decode("utf-8", "replace"))
        return Pos(line, offset)

    def _paired(
        self, body: Sequence[cst.CSTNode], prefix: NodePath, ast_body: Sequence[ast.stmt] | None
    ) -> Iterator[tuple[cst.CSTNode, NodePath, Pos, ast.stmt | None]]:
        """Pair each statement with its ``ast`` twin and its exact position."""
        nodes = list(_statements(body, prefix))
        twins: Sequence[ast.stmt | None]
        if ast_body is not None and len(ast_body) == len(nodes):
            twins = ast_body
        else:
            twins = [None] * len(nodes)
        for (node, path), twin in zip(nodes, twins, strict=True):
            self.statement = self._pos(twin, path)
            yield node, path, self.statement, twin

    # --- module level -----------------------------------------------------------------

    def _module_block(
        self,
        body: Sequence[cst.CSTNode],
        prefix: NodePath,
        ast_body: Sequence[ast.stmt] | None,
        branch: str | None,
    ) -> None:
        for node, path, pos, twin in self._paired(body, prefix, ast_body):
            if isinstance(node, cst.Import):
                self._import(node, path, pos, twin, branch)
            elif isinstance(node, cst.ImportFrom):
                self._import_from(node, path, pos, twin, branch)
            elif isinstance(node, cst.ClassDef):
                self.classes.append(self._class(node, path, pos, twin, branch))
            elif isinstance(node, cst.FunctionDef):
                self.functions.append(self._function(node, path, pos, twin, branch))
            elif isinstance(node, cst.Assign | cst.AnnAssign):
                self.assignments.extend(self._bindings(node, path, pos, twin, branch))
            elif isinstance(node, cst.Expr) and isinstance(node.value, cst.Call):
                value_twin = twin.value if isinstance(twin, ast.Expr) else None
                call = self._expr(node.value, (*path, "value"), pos, value_twin)
                assert isinstance(call, Call)
                self.calls.append(call)
            else:
                self._nested(node, path, pos, twin)

    def _nested(self, node: cst.CSTNode, path: NodePath, pos: Pos, twin: ast.stmt | None) -> None:
        """Index the blocks of ``if``/``try``/``with``, marking the branch of each."""
        label = f"{type(node).__name__.lower()}@{pos.line}"
        if isinstance(node, cst.If):
            self._if(node, path, pos, twin)
        elif isinstance(node, cst.Try | cst.TryStar):
            ast_try = twin if isinstance(twin, ast.Try | ast.TryStar) else None
            self._branch(node.body, path, ast_try.body if ast_try else None, f"{label}:body")
            handlers: Sequence[cst.ExceptHandler | cst.ExceptStarHandler] = node.handlers
            for index, handler in enumerate(handlers):
                ast_handler = ast_try.handlers[index] if ast_try else None
                self._branch(
                    handler.body,
                    (*path, "handlers", index),
                    ast_handler.body if ast_handler else None,
                    f"{label}:except{index}",
                )
            if node.orelse is not None:
                self._branch(
                    node.orelse.body,
                    (*path, "orelse"),
                    ast_try.orelse if ast_try else None,
                    f"{label}:body",
                )
            if node.finalbody is not None:
                self._branch(
                    node.finalbody.body,
                    (*path, "finalbody"),
                    ast_try.finalbody if ast_try else None,
                    None,
                )
        elif isinstance(node, cst.With):
            ast_with = twin if isinstance(twin, ast.With) else None
            self._branch(node.body, path, ast_with.body if ast_with else None, None)

    def _if(self, node: cst.If, path: NodePath, pos: Pos, twin: ast.stmt | None) -> None:
        """Index an ``if`` and each ``elif`` after it: its own if statement, its own branches.

        A loop rather than a recursion: a generated chain may hold thousands of ``elif``.
        """
        current: cst.CSTNode = node
        while isinstance(current, cst.If):
            label = f"if@{pos.line}"
            ast_if = twin if isinstance(twin, ast.If) else None
            ast_orelse = ast_if.orelse if ast_if else None
            self._branch(current.body, path, ast_if.body if ast_if else None, f"{label}:body")
            orelse = current.orelse
            if isinstance(orelse, cst.Else):
                self._branch(orelse.body, (*path, "orelse"), ast_orelse, f"{label}:orelse")
            if not isinstance(orelse, cst.If):
                return
            ((current, path, pos, twin),) = self._paired([orelse], (*path, "orelse"), ast_orelse)

    def _branch(
        self,
        suite: cst.BaseSuite,
        path: NodePath,
        ast_body: Sequence[ast.stmt] | None,
        branch: str | None,
    ) -> None:
        body, prefix = _block(suite, (*path, "body"))
        self._module_block(body, prefix, ast_body, branch)

    # --- imports ----------------------------------------------------------------------

    def _aliases(self, twin: ast.stmt | None) -> Sequence[ast.AST] | None:
        return twin.names if isinstance(twin, ast.Import | ast.ImportFrom) else None

    def _import(self, node: cst.Import, path: NodePath, pos: Pos, twin: ast.stmt | None, branch: str | None) -> None:
        aliases = self._aliases(twin)
        for index, alias in enumerate(node.names):
            dotted = _dotted(alias.name) or ""
            alias_pos = self._pos(_get(aliases, index), (*path, "names", index), pos)
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                local = alias.asname.name.value
            else:
                local = dotted.split(".")[0]
            self.imports.append(ImportBinding(local, dotted, None, 0, alias_pos, branch=branch))

    def _import_from(
        self, node: cst.ImportFrom, path: NodePath, pos: Pos, twin: ast.stmt | None, branch: str | None
    ) -> None:
        module = _dotted(node.module) if node.module is not None else ""
        level = len(node.relative)
        if isinstance(node.names, cst.ImportStar):
            self.imports.append(ImportBinding("*", module or "", None, level, pos, star=True, branch=branch))
            return
        aliases = self._aliases(twin)
        for index, alias in enumerate(node.names):
            name = _dotted(alias.name) or ""
            local = name
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                local = alias.asname.name.value
            alias_pos = self._pos(_get(aliases, index), (*path, "names", index), pos)
            self.imports.append(ImportBinding(local, module or "", name, level, alias_pos, branch=branch))

    # --- definitions ------------------------------------------------------------------

    def _class(
        self, node: cst.ClassDef, path: NodePath, pos: Pos, twin: ast.stmt | None, branch: str | None
    ) -> ClassInfo:
        ast_class = twin if isinstance(twin, ast.ClassDef) else None
        docstring = node.get_docstring()  # before the body moves ``statement`` on
        bases: list[Expr] = []
        keywords: list[tuple[str, Expr]] = []
        for index, arg in enumerate(node.bases):
            base_twin = _get(ast_class.bases if ast_class else None, index)
            bases.append(self._expr(arg.value, (*path, "bases", index, "value"), pos, base_twin))
        keyword_index = 0
        for index, arg in enumerate(node.keywords):
            keyword_twin = _get(ast_class.keywords if ast_class else None, keyword_index)
            keyword_index += 1
            if arg.keyword is not None:
                value_twin = keyword_twin.value if isinstance(keyword_twin, ast.keyword) else None
                value = self._expr(arg.value, (*path, "keywords", index, "value"), pos, value_twin)
                keywords.append((arg.keyword.value, value))
        attributes: list[ValueBinding] = []
        methods: list[FunctionInfo] = []
        body, prefix = _block(node.body, (*path, "body"))
        ast_body = ast_class.body if ast_class else None
        nested: list[tuple[str, Pos]] = []
        skipped: list[Pos] = []
        for statement, statement_path, statement_pos, statement_twin in self._paired(body, prefix, ast_body):
            if isinstance(statement, cst.Assign | cst.AnnAssign):
                attributes.extend(self._bindings(statement, statement_path, statement_pos, statement_twin, None))
            elif isinstance(statement, cst.FunctionDef):
                methods.append(self._function(statement, statement_path, statement_pos, statement_twin, None))
            elif isinstance(statement, cst.ClassDef):
                nested.append((statement.name.value, statement_pos))
            elif not isinstance(statement, cst.Expr | cst.Pass | cst.Import | cst.ImportFrom):
                skipped.append(statement_pos)
        return ClassInfo(
            name=node.name.value,
            bases=tuple(bases),
            keywords=tuple(keywords),
            decorators=self._decorators(node.decorators, path, pos, ast_class.decorator_list if ast_class else None),
            attributes=tuple(attributes),
            methods=tuple(methods),
            docstring=docstring,
            pos=pos,
            branch=branch,
            nested=tuple(nested),
            skipped=tuple(skipped),
        )

    def _decorators(
        self,
        decorators: Sequence[cst.Decorator],
        path: NodePath,
        pos: Pos,
        twins: Sequence[ast.expr] | None,
    ) -> tuple[Expr, ...]:
        return tuple(
            self._expr(item.decorator, (*path, "decorators", index, "decorator"), pos, _get(twins, index))
            for index, item in enumerate(decorators)
        )

    def _function(
        self, node: cst.FunctionDef, path: NodePath, pos: Pos, twin: ast.stmt | None, branch: str | None
    ) -> FunctionInfo:
        ast_function = twin if isinstance(twin, ast.FunctionDef | ast.AsyncFunctionDef) else None
        arguments = ast_function.args if ast_function else None
        params: list[Param] = []
        # ast keeps the defaults of positional parameters right-aligned in one list.
        positional = [*node.params.posonly_params, *node.params.params]
        ast_positional = [*arguments.posonlyargs, *arguments.args] if arguments else None
        ast_defaults: list[ast.expr | None] = []
        if arguments is not None:
            padding = len(ast_positional or []) - len(arguments.defaults)
            ast_defaults = [None] * padding + list(arguments.defaults)
        for index, param in enumerate(positional):
            only = index < len(node.params.posonly_params)
            attribute = "posonly_params" if only else "params"
            offset = index if only else index - len(node.params.posonly_params)
            params.append(
                self._param(
                    param,
                    "positional_only" if only else "normal",
                    (*path, "params", attribute, offset),
                    pos,
                    _get(ast_positional, index),
                    _get(ast_defaults, index),
                )
            )
        for index, param in enumerate(node.params.kwonly_params):
            params.append(
                self._param(
                    param,
                    "keyword_only",
                    (*path, "params", "kwonly_params", index),
                    pos,
                    _get(arguments.kwonlyargs if arguments else None, index),
                    _get(arguments.kw_defaults if arguments else None, index),
                )
            )
        star_arg = node.params.star_arg
        if isinstance(star_arg, cst.Param):
            params.append(
                self._param(
                    star_arg,
                    "var_positional",
                    (*path, "params", "star_arg"),
                    pos,
                    arguments.vararg if arguments else None,
                    None,
                )
            )
        if node.params.star_kwarg is not None:
            params.append(
                self._param(
                    node.params.star_kwarg,
                    "var_keyword",
                    (*path, "params", "star_kwarg"),
                    pos,
                    arguments.kwarg if arguments else None,
                    None,
                )
            )
        returns = None
        if node.returns is not None:
            returns = self._expr(
                node.returns.annotation,
                (*path, "returns", "annotation"),
                pos,
                ast_function.returns if ast_function else None,
            )
        return FunctionInfo(
            name=node.name.value,
            params=tuple(params),
            decorators=self._decorators(
                node.decorators, path, pos, ast_function.decorator_list if ast_function else None
            ),
            is_async=node.asynchronous is not None,
            docstring=node.get_docstring(),
            returns=returns,
            pos=pos,
            branch=branch,
        )

    def _param(
        self,
        param: cst.Param,
        kind: str,
        path: NodePath,
        statement: Pos,
        twin: ast.arg | None,
        default_twin: ast.expr | None,
    ) -> Param:
        annotation = None
        if param.annotation is not None:
            annotation = self._expr(
                param.annotation.annotation,
                (*path, "annotation", "annotation"),
                statement,
                twin.annotation if twin is not None else None,
            )
        default = None
        if param.default is not None:
            default = self._expr(param.default, (*path, "default"), statement, default_twin)
        return Param(
            name=param.name.value,
            kind=kind,  # type: ignore[arg-type]
            annotation=annotation,
            default=default,
            pos=self._pos(twin, path, statement),
        )

    def _bindings(
        self,
        node: cst.Assign | cst.AnnAssign,
        path: NodePath,
        pos: Pos,
        twin: ast.stmt | None,
        branch: str | None,
    ) -> list[ValueBinding]:
        value_twin = twin.value if isinstance(twin, ast.Assign | ast.AnnAssign) else None
        value = None
        if node.value is not None:
            value = self._expr(node.value, (*path, "value"), pos, value_twin)
        if isinstance(node, cst.AnnAssign):
            annotation = self._expr(
                node.annotation.annotation,
                (*path, "annotation", "annotation"),
                pos,
                twin.annotation if isinstance(twin, ast.AnnAssign) else None,
            )
            if isinstance(node.target, cst.Name):
                return [ValueBinding(node.target.value, value, annotation, pos, branch)]
            return []
        found: list[ValueBinding] = []
        for target in node.targets:
            for name in _target_names(target.target):
                # Unpacking binds each name to a part of the value, which is not known here.
                bound = value if isinstance(target.target, cst.Name) else None
                found.append(ValueBinding(name, bound, None, pos, branch))
        return found

    # --- expressions ------------------------------------------------------------------

    def _expr(self, node: cst.BaseExpression, path: NodePath, statement: Pos, twin: ast.AST | None) -> Expr:
        """``node`` as an index value; dynamic past ``_EXPRESSION_DEPTH`` levels."""
        if self.depth >= _EXPRESSION_DEPTH:
            return self._dynamic(node, self._pos(twin, path, statement))
        self.depth += 1
        try:
            return self._expression(node, path, statement, twin)
        except RecursionError:  # LibCST's evaluated_value of a thousand implicitly joined strings
            return self._dynamic(node, self._pos(twin, path, statement))
        finally:
            self.depth -= 1

    def _expression(self, node: cst.BaseExpression, path: NodePath, statement: Pos, twin: ast.AST | None) -> Expr:
        pos = self._pos(twin, path, statement)
        if isinstance(node, cst.Name):
            if node.value in _CONSTANT_NAMES:
                return Const(_CONSTANT_NAMES[node.value], pos)
            return Ref(node.value, pos)
        if isinstance(node, cst.Attribute):
            dotted = _dotted(node)
            return Ref(dotted, pos) if dotted else self._dynamic(node, pos)
        if isinstance(node, cst.SimpleString | cst.ConcatenatedString):
            value = node.evaluated_value
            return Const(value, pos) if value is not None else self._dynamic(node, pos)
        if isinstance(node, cst.Integer | cst.Float | cst.Imaginary):
            return Const(node.evaluated_value, pos)
        if isinstance(node, cst.Ellipsis):
            return Const(..., pos)
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus | cst.Plus):
            operand = node.expression
            if isinstance(operand, cst.Integer | cst.Float | cst.Imaginary):
                number = operand.evaluated_value
                return Const(-number if isinstance(node.operator, cst.Minus) else number, pos)
        if isinstance(node, cst.Call):
            return self._call(node, path, statement, pos, twin if isinstance(twin, ast.Call) else None)
        if isinstance(node, cst.List | cst.Tuple | cst.Set):
            elements = twin.elts if isinstance(twin, ast.List | ast.Tuple | ast.Set) else None
            items: list[Expr] = []
            has_star = False
            for index, element in enumerate(node.elements):
                if isinstance(element, cst.StarredElement):
                    has_star = True
                    continue
                items.append(
                    self._expr(element.value, (*path, "elements", index, "value"), statement, _get(elements, index))
                )
            kind = {cst.List: "list", cst.Tuple: "tuple", cst.Set: "set"}[type(node)]
            return Container(kind, tuple(items), pos, has_star=has_star)  # type: ignore[arg-type]
        if isinstance(node, cst.Dict):
            ast_dict = twin if isinstance(twin, ast.Dict) else None
            keys: list[Expr | None] = []
            values: list[Expr] = []
            has_star = False
            for index, entry in enumerate(node.elements):
                if isinstance(entry, cst.DictElement):
                    keys.append(
                        self._expr(
                            entry.key,
                            (*path, "elements", index, "key"),
                            statement,
                            _get(ast_dict.keys if ast_dict else None, index),
                        )
                    )
                    values.append(
                        self._expr(
                            entry.value,
                            (*path, "elements", index, "value"),
                            statement,
                            _get(ast_dict.values if ast_dict else None, index),
                        )
                    )
                else:
                    has_star = True
            return Container("dict", tuple(values), pos, keys=tuple(keys), has_star=has_star)
        if isinstance(node, cst.Subscript):
            ast_subscript = twin if isinstance(twin, ast.Subscript) else None
            subject = self._expr(
                node.value, (*path, "value"), statement, ast_subscript.value if ast_subscript else None
            )
            slice_twins: Sequence[ast.AST] | None = None
            if ast_subscript is not None:
                single = len(node.slice) == 1 and not isinstance(node.slice[0].comma, cst.Comma)
                inner = ast_subscript.slice
                slice_twins = [inner] if single else (inner.elts if isinstance(inner, ast.Tuple) else None)
            parts: list[Expr] = []
            for index, part in enumerate(node.slice):
                part_path = (*path, "slice", index, "slice", "value")
                if isinstance(part.slice, cst.Index) and part.slice.star is None:
                    parts.append(self._expr(part.slice.value, part_path, statement, _get(slice_twins, index)))
                else:
                    slice_path = part_path[:-1]  # a slice a:b is no Index: it has no .value
                    parts.append(self._dynamic(part.slice, self._pos(_get(slice_twins, index), slice_path, statement)))
            return Subscript(subject, tuple(parts), pos)
        if isinstance(node, cst.BinaryOperation):
            ast_binop = twin if isinstance(twin, ast.BinOp) else None
            return BinOp(
                _BINARY_OPERATORS.get(type(node.operator), "?"),
                self._expr(node.left, (*path, "left"), statement, ast_binop.left if ast_binop else None),
                self._expr(node.right, (*path, "right"), statement, ast_binop.right if ast_binop else None),
                pos,
            )
        return self._dynamic(node, pos)

    def _call(self, node: cst.Call, path: NodePath, statement: Pos, pos: Pos, twin: ast.Call | None) -> Call:
        func = self._expr(node.func, (*path, "func"), statement, twin.func if twin else None)
        args: list[Expr] = []
        kwargs: list[tuple[str, Expr]] = []
        has_star = False
        # ast splits positional (with *x) and keyword (with **x) arguments, each in order.
        positional = keyword = 0
        for index, arg in enumerate(node.args):
            arg_path = (*path, "args", index, "value")
            if arg.keyword is not None or arg.star == "**":
                keyword_twin = _get(twin.keywords if twin else None, keyword)
                keyword += 1
                if arg.star == "**":
                    has_star = True
                    continue
                value_twin = keyword_twin.value if isinstance(keyword_twin, ast.keyword) else None
                assert arg.keyword is not None
                kwargs.append((arg.keyword.value, self._expr(arg.value, arg_path, statement, value_twin)))
            else:
                positional_twin = _get(twin.args if twin else None, positional)
                positional += 1
                if arg.star == "*":
                    has_star = True
                    continue
                args.append(self._expr(arg.value, arg_path, statement, positional_twin))
        return Call(func, tuple(args), tuple(kwargs), pos, has_star)

    def _dynamic(self, node: cst.CSTNode, pos: Pos) -> Dynamic:
        try:
            text = " ".join(self.module.code_for_node(node).split())
        except RecursionError:  # LibCST's code generator recurses once per level of nesting
            text = "..."
        if len(text) > _DYNAMIC_TEXT_LIMIT:
            text = text[: _DYNAMIC_TEXT_LIMIT - 3] + "..."
        return Dynamic(type(node).__name__, text, pos)


def _dotted(node: cst.BaseExpression) -> str | None:
    """``a.b.c`` for a chain of names, else ``None``."""
    parts: list[str] = []
    while isinstance(node, cst.Attribute):  # a loop: chains may be a thousand links long
        parts.append(node.attr.value)
        node = node.value
    if not isinstance(node, cst.Name):
        return None
    parts.append(node.value)
    return ".".join(reversed(parts))


def _target_names(target: cst.BaseExpression) -> Iterator[str]:
    if isinstance(target, cst.Name):
        yield target.value
    elif isinstance(target, cst.Tuple | cst.List):
        for element in target.elements:
            yield from _target_names(element.value)
    elif isinstance(target, cst.StarredElement):
        yield from _target_names(target.value)
