"""The names a module uses at import before binding them: the analysis agrees with running the module.

Generated modules (definitions, classes, assignments, loops and guarded blocks that use
each other's names in random order, with and without ``from __future__ import
annotations``, and names some of which nothing binds) are executed in a fresh namespace: the
analysis must report a name at a line exactly when executing the module raises
``NameError`` for it there.  The code is
generated here and harmless (it calls nothing but ``range``, ``object`` and two
helpers that return their arguments' decorator and base).
"""

from __future__ import annotations

import ast
import builtins
import sys
import textwrap

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from skillc.compiler.index import index_source
from skillc.compiler.index_early_names import find_early_uses
from skillc.compiler.index_imports import is_main_guard, is_type_checking
from skillc.compiler.index_types import EarlyUse, ModuleIndex
from skillc.compiler.types import Pos

FILENAME = "<generated>"
#: The names the generated statements bind and use; ``len`` is a builtin until it is shadowed.
NAMES = ("A", "B", "C", "D", "len")
PREAMBLE = "from typing import TYPE_CHECKING\n\ndef _pass(*_):\n    return lambda function: function\n\ndef _base(*_):\n    return object\n\n"

names = st.sampled_from(NAMES)
uses = st.lists(names, max_size=3)


def _tuple(items: list[str]) -> str:
    return "(" + "".join(f"{item}, " for item in items) + ")"


@st.composite
def annotation(draw: st.DrawFn) -> str:
    """A name, or the same name quoted (never evaluated)."""
    name = draw(names)
    return f'"{name}"' if draw(st.booleans()) else name


@st.composite
def function(draw: st.DrawFn, indent: str = "") -> str:
    lines = []
    if draw(st.booleans()):
        lines.append(f"@_pass({draw(names)})")
    parameter = "self, p" if indent else "p"
    if draw(st.booleans()):
        parameter += f": {draw(annotation())}"
    if draw(st.booleans()):
        parameter += f" = {draw(names)}"
    returns = f" -> {draw(annotation())}" if draw(st.booleans()) else ""
    lines.append(f"def {draw(names)}({parameter}){returns}:")
    lines.append(f"    return {_tuple(draw(uses))}")  # runs only when called
    return textwrap.indent("\n".join(lines), indent)


@st.composite
def class_body_statement(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["assign", "annotated", "bare", "method", "comprehension", "class"]))
    target = draw(names)
    if kind == "class":  # binds its name in the class body only
        return f"    class {target}:\n        {draw(names)}_ = {_tuple(draw(uses))}"
    if kind == "assign":
        return f"    {target} = {_tuple(draw(uses))}"
    if kind == "annotated":
        return f"    {target}: {draw(annotation())} = {_tuple(draw(uses))}"
    if kind == "bare":
        return f"    {target}: {draw(annotation())}"
    if kind == "comprehension":  # its element does not see the class body's names
        return f"    {target} = [{_tuple(draw(uses))} for _ in range(1)]"
    return draw(function("    "))


@st.composite
def class_(draw: st.DrawFn) -> str:
    lines = []
    if draw(st.booleans()):
        lines.append(f"@_pass({draw(names)})")
    bases = f"(_base({draw(names)}))" if draw(st.booleans()) else ""
    lines.append(f"class {draw(names)}{bases}:")
    lines.extend(draw(st.lists(class_body_statement(), min_size=1, max_size=3)))
    return "\n".join(lines)


@st.composite
def statement(draw: st.DrawFn) -> str:
    kind = draw(
        st.sampled_from(
            [
                "assign",
                "annotated",
                "bare",
                "function",
                "class",
                "import",
                "for",
                "try-guarded",
                "try-unguarded",
                "if",
                "comprehension",
                "generator",
                "comprehension-variable",
                "walrus",
                "lambda",
                "lambda-default",
                "type-checking",
                "main-guard",
            ]
        )
    )
    target, other = draw(names), draw(names)
    used = _tuple(draw(uses))
    if kind == "function":
        return draw(function())
    if kind == "class":
        return draw(class_())
    if kind == "annotated":
        return f"{target}: {draw(annotation())} = {used}"
    if kind == "bare":  # binds nothing
        return f"{target}: {draw(annotation())}"
    if kind == "import":
        return f"import math as {target}" if draw(st.booleans()) else f"from math import pi as {target}"
    if kind == "for":  # the body uses no name the loop binds: a second pass would see it
        body_uses = _tuple([name for name in draw(uses) if name not in (target, other)])
        return f"for {target} in range(1):\n    {other} = {body_uses}"
    if kind == "try-guarded":
        return f"try:\n    {target} = {used}\nexcept NameError:\n    {target} = None"
    if kind == "try-unguarded":
        return f"try:\n    {target} = {used}\nexcept (ImportError, KeyError):\n    pass"
    if kind == "if":
        return f"if True:\n    {target} = {used}\nelse:\n    {target} = ()"
    if kind == "comprehension":
        return f"{target} = [{used} for _ in range(1)]"
    if kind == "generator":  # its element runs only when consumed
        return f"{target} = ({used} for _ in range(1))"
    if kind == "comprehension-variable":  # the variable does not leak
        return f"{target} = [{other} for {other} in range(1)]"
    if kind == "walrus":
        return f"{target} = ({other} := 1, {used})"
    if kind == "lambda":
        return f"{target} = lambda: {used}"
    if kind == "lambda-default":
        return f"{target} = lambda q={used}: q"
    if kind == "type-checking":  # never runs: what it binds stays unbound
        return f"if TYPE_CHECKING:\n    {target} = {used}"
    if kind == "main-guard":
        return f"if __name__ == '__main__':\n    {target} = {used}\nelse:\n    {other} = ()"
    return f"{target} = {used}"


@st.composite
def module(draw: st.DrawFn) -> str:
    future = "from __future__ import annotations\n\n" if draw(st.booleans()) else ""
    body = "\n".join(draw(st.lists(statement(), min_size=1, max_size=8)))
    # Most names are bound at the end (a NameError for one is a use before its binding); the
    # others may be bound nowhere (a NameError for one is a use of an undefined name, reported
    # where the use runs whenever the import reaches it: not in a branch, a loop's body...).
    bound = draw(st.lists(names, unique=True, min_size=1).map(sorted))
    return f"{future}{PREAMBLE}{body}\n{' = '.join(bound)} = 0\n"


def _position(node: ast.AST) -> Pos:
    return Pos(getattr(node, "lineno", 0), getattr(node, "col_offset", 0))


def _module_level_names(tree: ast.Module) -> set[str]:
    """The names the module's own statements store when it is imported, in no function or class
    body (nor a comprehension, nor a block under ``TYPE_CHECKING`` or the main guard)."""
    names: set[str] = set()
    pending: list[ast.AST] = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.If) and (is_type_checking(node.test) or is_main_guard(node.test)):
            pending.extend(node.orelse)  # the body never runs on import
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
            pending.extend([*node.decorator_list, *getattr(node, "bases", ())])
        elif isinstance(node, ast.AnnAssign) and node.value is None:
            pending.append(node.annotation)  # ``B: A`` binds nothing
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.alias):
            names.add((node.asname or node.name).split(".")[0])
        elif not isinstance(node, ast.Lambda | ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp):
            pending.extend(ast.iter_child_nodes(node))
    return names


def _name_error(source: str) -> tuple[str, int] | None:
    """The name and line of the ``NameError`` executing ``source`` raises, if it does."""
    try:
        exec(compile(source, FILENAME, "exec", dont_inherit=True), {"__name__": "generated", "__builtins__": builtins})
    except NameError as error:
        traceback = error.__traceback__
        line = 0
        while traceback is not None:
            if traceback.tb_frame.f_code.co_filename == FILENAME:
                line = traceback.tb_lineno
            traceback = traceback.tb_next
        assert error.name is not None
        return error.name, line
    return None


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(module())
def test_reported_exactly_when_importing_raises_name_error(source: str) -> None:
    reported = find_early_uses(ast.parse(source), _position)
    raised = _name_error(source)
    if raised is None:
        assert reported == (), source
        return
    name, line = raised
    bound = _module_level_names(ast.parse(source))
    # Each use reported raises when it runs, so none comes before the one that raised; a use
    # of a name bound later is always reported, one of a name nothing binds where it surely runs.
    assert all(use.pos.line >= line for use in reported), (raised, reported, source)
    assert all(use.name not in bound for use in reported if use.bound_line is None), (reported, source)
    if name in bound:
        assert (name, line) in {(use.name, use.pos.line) for use in reported}, (raised, reported, source)
        assert all(use.bound_line is None or use.bound_line >= 1 for use in reported)


def _early(source: str) -> tuple[EarlyUse, ...]:
    index = index_source(textwrap.dedent(source).encode(), "m.py", "m", False)
    assert isinstance(index, ModuleIndex)
    return index.early_uses


def test_the_index_records_the_first_use_its_column_in_characters_and_the_later_binding() -> None:
    uses = _early(
        """\
        café = "é"; x = Late
        y = Late
        Late = 1
        """
    )
    assert uses == (EarlyUse("Late", Pos(1, 16), 3),)


def test_an_annotation_is_marked_as_one() -> None:
    (use,) = _early("def f(x: Node) -> None: ...\nclass Node: ...\n")
    assert (use.name, use.annotation) == ("Node", True)


def test_a_try_that_catches_name_error_guards_its_body() -> None:
    assert _early("try:\n    unicode\nexcept NameError:\n    unicode = str\n") == ()
    assert _early("try:\n    x = Late\nexcept:\n    pass\nLate = 1\n") == ()
    assert _early("try:\n    x = Late\nexcept ImportError:\n    pass\nLate = 1\n") != ()


def test_names_bound_where_the_walk_cannot_see_are_never_reported() -> None:
    assert _early("from os.path import *\nx = join\njoin = 1\n") == ()
    assert _early("def bind():\n    global Late\n    Late = 1\nbind()\nx = Late\nLate = 2\n") == ()
    assert _early("globals()['Late'] = 1\nx = Late\nLate = 2\n") == ()
    assert _early("import sys\nsetattr(sys.modules[__name__], 'Late', 1)\nx = Late\nLate = 2\n") == ()
    # enum.global_enum binds the members in the module (the standard library's re does it).
    global_enum = "import enum\n@enum.global_enum\nclass Flag(enum.IntFlag):\n    DEBUG = 1\nx = DEBUG\n"
    assert _early(global_enum) == ()


def test_a_loop_body_may_read_what_its_previous_pass_bound() -> None:
    assert _early("for i in range(2):\n    if i:\n        print(previous)\n    previous = i\n") == ()


def test_a_name_bound_only_under_type_checking_or_the_main_guard_is_unbound_at_import() -> None:
    source = "from typing import TYPE_CHECKING\nx = Late\nif TYPE_CHECKING:\n    from m import Late\n"
    assert _early(source) == (EarlyUse("Late", Pos(2, 4), None, only_under="type checking", only_under_line=4),)
    source = (
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from decimal import Decimal\ndef f(x: Decimal): ...\n"
    )
    assert _early(source) == (
        ()
        if sys.version_info >= (3, 14)
        else (EarlyUse("Decimal", Pos(4, 9), None, annotation=True, only_under="type checking", only_under_line=3),)
    )
    assert _early("from __future__ import annotations\n" + source) == ()  # annotations are not evaluated
    source = 'if __name__ == "__main__":\n    LIMIT = 3\nelse:\n    PAGE = 1\nx = PAGE, LIMIT\n'
    assert _early(source) == (EarlyUse("LIMIT", Pos(5, 10), None, only_under="main guard", only_under_line=2),)


def test_the_main_guard_does_not_run_when_the_module_is_imported() -> None:
    assert _early('if __name__ == "__main__":\n    main()\n\ndef main():\n    pass\n') == ()
    assert _early('if "__main__" != __name__:\n    main()\n\ndef main():\n    pass\n') != ()


def test_annotations_are_deferred_where_python_defers_them() -> None:
    source = "def f(x: Node) -> None: ...\nclass Node: ...\n"
    assert (_early(source) == ()) == (sys.version_info >= (3, 14))


def test_a_class_body_that_reads_a_class_it_defines_further_down_is_reported() -> None:
    (use,) = _early(
        "from pydantic import BaseModel\nclass Tank(BaseModel):\n    first: Shrimp\n    class Shrimp(BaseModel): ...\n"
    )
    assert (use.name, use.pos.line, use.pos.col, use.bound_line, use.annotation) == ("Shrimp", 3, 11, 4, True)
    assert _early("class Tank:\n    class Shrimp: ...\n    first: Shrimp\n") == ()
    assert _early("from __future__ import annotations\nclass Tank:\n    first: Shrimp\n    class Shrimp: ...\n") == ()


def test_a_name_nothing_binds_is_reported_where_its_use_surely_runs() -> None:
    uses = _early(
        """\
        import functools
        @functools.lru_cache
        @cahce
        def f(limit=LIMIT):
            return 1
        class Special(Base):
            size = SIZE
        """
    )
    assert [(use.name, use.pos.line, use.pos.col, use.bound_line, use.similar) for use in uses] == [
        ("cahce", 3, 1, None, None),
        ("LIMIT", 4, 12, None, None),
        ("Base", 6, 14, None, None),
        ("SIZE", 7, 11, None, None),
    ]
    [misspelt] = _early("from datetime import datetime\nSTARTED = datetimes.now()\n")
    assert (misspelt.name, misspelt.similar) == ("datetimes", "datetime")


def test_a_name_nothing_binds_is_not_reported_where_its_use_may_not_run() -> None:
    # Version and platform checks read names that exist elsewhere; so do the other branches.
    assert _early("import sys\nif sys.version_info >= (3, 15):\n    D = frozendict\n") == ()
    assert _early("import sys\nPY3 = sys.version_info[0] >= 3\ntext = str if PY3 else unicode\n") == ()
    assert _early("import os\nSEP = os.sep or fallback\nOK = 1 < 2 < later\n") == ()
    assert _early("for item in ():\n    x = missing\nwhile False:\n    y = missing\n") == ()
    assert _early("try:\n    import json\nexcept ImportError:\n    json = simplejson\n") == ()
    assert _early("ITEMS = [missing for _ in ()]\nmatch 1:\n    case 2:\n        z = missing\n") == ()
