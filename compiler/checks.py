"""The diagnostics the compiler can report: code, severity, and what each one means.

Every check carries examples, kept apart in ``check_examples``, ``tool_check_examples``
and ``schema_check_examples``: small projects that must not report it (``valid``) and
projects that must report it at a given place (``invalid``).  The test suite turns
each example into a case, so a check and its documentation cannot drift apart.

This module is a leaf: the stages import it (``report`` sets each diagnostic's severity
from it), and it imports none of them; its example tables import only ``types``.
"""

from __future__ import annotations

from .check_examples import EXAMPLES
from .schema_check_examples import SCHEMA_EXAMPLES
from .tool_check_examples import TOOL_EXAMPLES
from .types import Check, Example, Severity

__all__ = ["CHECKS", "SCHEMA_CHECKS", "Check", "Example", "severity_of"]


def _check(code: str, severity: Severity, summary: str) -> Check:
    """The check ``code``, with its examples from ``check_examples``."""
    valid, invalid = EXAMPLES[code] if code in EXAMPLES else TOOL_EXAMPLES[code]
    return Check(code, severity, summary, valid=valid, invalid=invalid)


def _schema_check(code: str, severity: Severity, summary: str) -> Check:
    """The schema translator's check ``code``, with its examples from ``schema_check_examples``."""
    valid, invalid = SCHEMA_EXAMPLES[code]
    return Check(code, severity, summary, valid=valid, invalid=invalid)


CHECKS: dict[str, Check] = {
    check.code: check
    for check in (
        _check(
            "skill/syntax-error", Severity.ERROR, "A file does not parse; the rest of the project is still checked."
        ),
        _check(
            "skill/syntax-warning",
            Severity.WARNING,
            "Python warns about a construct when it compiles the file (an invalid escape sequence, say).",
        ),
        _check(
            "skill/file-too-large",
            Severity.ERROR,
            "A source file is larger than [tool.skill] max_file_bytes; it is not read.",
        ),
        _check("skill/no-agent", Severity.ERROR, "The entry module is missing or defines no Agent."),
        _check("skill/missing-name", Severity.ERROR, "A registered tool has no name."),
        _check("skill/missing-execute", Severity.ERROR, "Tool must have an execute function."),
        _check(
            "skill/generator-function",
            Severity.ERROR,
            "execute, a @tool function, condition() or a needs_approval function yields: calling it makes a "
            "generator, where the runtime needs the whole result.",
        ),
        _check(
            "skill/call-signature",
            Severity.ERROR,
            "execute, condition() or a needs_approval function cannot take the arguments the runtime calls it "
            "with: execute(input, ctx), needs_approval(input, ctx), condition().",
        ),
        _check(
            "skill/client-tool-execute",
            Severity.ERROR,
            "A client-side tool (client = True) also has code to run: an execute, a @tool function body "
            "that does more than `...`, or a needs_approval function; its result comes from the caller.",
        ),
        _check(
            "skill/client-tool-condition",
            Severity.ERROR,
            "A client-side tool has a condition(): a condition is code, and a client tool ships none.",
        ),
        _check(
            "skill/invalid-tool-name",
            Severity.ERROR,
            "A tool name must match ^[a-zA-Z0-9_-]+$, which also keeps it inside dist/.",
        ),
        _check("skill/invalid-skill-name", Severity.ERROR, "A skill or agent name must match ^[a-zA-Z0-9_-]+$."),
        _check(
            "skill/dynamic-value",
            Severity.ERROR,
            "A name, description or setting is not a literal or a module-level constant bound to one.",
        ),
        _check(
            "skill/invalid-setting",
            Severity.ERROR,
            "A setting has a value that can never work (a timeout that is not positive, say).",
        ),
        _check(
            "skill/unknown-setting",
            Severity.ERROR,
            "Tool(...) or @tool(...) is given a keyword it does not take; the hint names the closest one.",
        ),
        _check(
            "skill/tool-is-model",
            Severity.ERROR,
            "A tool class also derives from pydantic's BaseModel, which cannot be loaded as a tool.",
        ),
        _check(
            "skill/constructor-args-invalid",
            Severity.ERROR,
            "A tool class is registered with arguments its __init__ does not take.",
        ),
        _check(
            "skill/misspelled-setting",
            Severity.WARNING,
            "A tool class attribute is named almost like a setting, which then keeps its default.",
        ),
        _check(
            "skill/duplicate-tool-name",
            Severity.ERROR,
            "Two tools of the agent have the same name, or names that differ only in case.",
        ),
        _check(
            "skill/reserved-tool-name",
            Severity.ERROR,
            "A tool name is a Windows device name (CON, PRN, AUX, NUL, COM1-9, LPT1-9, in any case), "
            "so its folder of dist/ cannot exist there.",
        ),
        _check(
            "skill/reserved-skill-name",
            Severity.ERROR,
            "A skill name is a Windows device name (CON, PRN, AUX, NUL, COM1-9, LPT1-9, in any case), "
            "so its folder of dist/ cannot exist there.",
        ),
        _check(
            "skill/duplicate-skill-name",
            Severity.ERROR,
            "Two skills of the agent have the same name, or names that differ only in case.",
        ),
        _check(
            "skill/unresolved-reference",
            Severity.ERROR,
            "An entry of tools=[...] or skills=[...] is not a tool or skill.",
        ),
        _check(
            "skill/wrapped-tool-ref",
            Severity.ERROR,
            "An entry of tools=[...] is wrapped in another call, which would register nothing.",
        ),
        _check("skill/unresolved-import", Severity.ERROR, "A project-local import resolves to no module or name."),
        _check("skill/inheritance-cycle", Severity.ERROR, "Classes inherit from each other in a cycle."),
        _check(
            "skill/import-cycle",
            Severity.ERROR,
            "A from-import runs while the module it imports from is still initialising, before it "
            "binds the name: Python's circular-import ImportError.",
        ),
        _check(
            "skill/get-data-at-call-time",
            Severity.ERROR,
            "pkgutil.get_data of a project package runs in a function: it looks the package up at call "
            "time, when a bundle's modules cannot be found that way.",
        ),
        _check(
            "skill/used-before-definition",
            Severity.ERROR,
            "Code that runs when a module is imported (a class body, a decorator, a default, a base "
            "class, an annotation without `from __future__ import annotations`) uses a module-level "
            "name the module binds only further down: importing it raises NameError.",
        ),
        _check(
            "skill/encoding-error", Severity.ERROR, "A file is not valid in its declared encoding (UTF-8 by default)."
        ),
        _check("skill/unreadable-file", Severity.ERROR, "A file or folder of the project cannot be read."),
        _check("skill/internal-error", Severity.ERROR, "skillc failed on a file; this is a bug to report."),
        _check("skill/tool-name-style", Severity.WARNING, "By convention a tool name matches ^[a-z][a-z0-9_-]*$."),
        _check(
            "skill/host-tool-name",
            Severity.WARNING,
            "Served over MCP, a tool name becomes longer than the 64 characters model APIs accept "
            "in hosts that prefix it with the server's name (Claude Code: mcp__<agent>__<tool>).",
        ),
        _check("skill/missing-input-schema", Severity.WARNING, "Tool should have an input_schema for type safety."),
        _check(
            "skill/mixed-strict",
            Severity.WARNING,
            "A skill mixes strict and non-strict tools, which some providers refuse in one request "
            '(deepseek\'s strict mode); [tool.skill.chat] strict = "all" or "none" sends one value.',
        ),
        _check(
            "skill/constructor-args-dropped",
            Severity.WARNING,
            "A class-form tool is registered with arguments, which the compiled tool never receives.",
        ),
        _check(
            "skill/init-requires-arguments",
            Severity.ERROR,
            "A class-form tool's __init__ needs arguments, but the compiled tool is created with none.",
        ),
        _check(
            "skill/missing-description",
            Severity.WARNING,
            "A tool has no description, so the model cannot tell when to use it.",
        ),
        _check("skill/unreachable-tool", Severity.WARNING, "A tool is defined but the agent never reaches it."),
        _check("skill/empty-skill", Severity.WARNING, "A skill has no tools."),
        _check("skill/star-import", Severity.WARNING, "A star import cannot be resolved statically."),
        _check(
            "skill/conditional-definition",
            Severity.WARNING,
            "A base class or tool is bound differently in different branches.",
        ),
        _check(
            "skill/dynamic-import",
            Severity.WARNING,
            "import_module() or __import__() is given a module name that is not a literal: "
            "the compiler cannot bundle that module.",
        ),
        _check(
            "skill/undeclared-dependency",
            Severity.WARNING,
            "A tool's module imports a third-party package the project does not declare.",
        ),
        _check(
            "skill/bundle-not-self-contained",
            Severity.ERROR,
            "A bundle does not import on its own (skill compile --verify), e.g. a module loaded dynamically.",
        ),
        _check(
            "skill/schema-mismatch",
            Severity.ERROR,
            "The static schema differs from pydantic's own (skill compile --verify): a bug in skillc.",
        ),
        _check(
            "skill/symlink-loop",
            Severity.WARNING,
            "A symbolic link in the source tree leads back to a folder above it; it is not followed.",
        ),
        _check(
            "skill/symlink-outside-project",
            Severity.WARNING,
            "A symbolic link in the source tree leads outside the project (and outside every "
            "[tool.skill] allow_outside folder); it is not followed, so nothing it points to is bundled.",
        ),
        _check(
            "skill/dangling-symlink",
            Severity.WARNING,
            "A symbolic link in the source tree points to nothing; it is skipped.",
        ),
        _check(
            "skill/missing-data-file",
            Severity.ERROR,
            'A module names a data file (Path(__file__).parent / "x.json", importlib.resources.files(...)) '
            "that its bundle will not hold: missing, left out by [tool.skill] include/exclude, or another package's.",
        ),
        _check(
            "skill/unknown-config-key",
            Severity.WARNING,
            "[tool.skill] holds a key skillc does not know (often a typo).",
        ),
    )
}


# --- The schema translator's checks (compiler/schema*.py) ----------------------------

SCHEMA_CHECKS: tuple[Check, ...] = (
    _schema_check(
        "skill/schema-unsupported",
        Severity.ERROR,
        "A model uses a construct outside the subset of pydantic that skillc translates to "
        'JSON Schema statically; [tool.skill] schema = "import" lets pydantic build it instead.',
    ),
    _schema_check(
        "skill/strict-incompatible",
        Severity.ERROR,
        "A tool with strict = True has an input schema that OpenAI's strict mode cannot express "
        "(a free-form dict, a value of any type, a tuple of mixed types, open extra fields).",
    ),
)
CHECKS.update((check.code, check) for check in SCHEMA_CHECKS)


def severity_of(code: str) -> Severity:
    """The severity every diagnostic with ``code`` has."""
    return CHECKS[code].severity
