"""What each diagnostic code is: its severity and what it means, one row per code.

The compiler needs only the severities (``severity_of``, which ``report`` gives every
diagnostic); ``checks`` joins each row with its examples, which only the test suite and
the documentation read, and which take longer to build than a compile after one change
has to spare.
"""

from __future__ import annotations

from typing import NamedTuple

from .types import Severity

__all__ = ["ROWS", "SCHEMA_ROWS", "CheckRow", "severity_of"]


class CheckRow(NamedTuple):
    """One diagnostic code: how severe it is, and in a sentence what it means."""

    code: str
    severity: Severity
    summary: str


ROWS: tuple[CheckRow, ...] = (
    CheckRow("skill/syntax-error", Severity.ERROR, "A file does not parse; the rest of the project is still checked."),
    CheckRow(
        "skill/syntax-warning",
        Severity.WARNING,
        "Python warns about a construct when it compiles the file (an invalid escape sequence, say).",
    ),
    CheckRow(
        "skill/file-too-large",
        Severity.ERROR,
        "A source file is larger than [tool.skill] max_file_bytes; it is not read.",
    ),
    CheckRow("skill/no-agent", Severity.ERROR, "The entry module is missing or defines no Agent."),
    CheckRow("skill/duplicate-agent", Severity.ERROR, "The entry module binds more than one Agent(...)."),
    CheckRow("skill/missing-name", Severity.ERROR, "A registered tool has no name."),
    CheckRow("skill/missing-execute", Severity.ERROR, "Tool must have an execute function."),
    CheckRow(
        "skill/generator-function",
        Severity.ERROR,
        "execute, a @tool function, condition() or a needs_approval function yields: calling it makes a "
        "generator, where the runtime needs the whole result.",
    ),
    CheckRow(
        "skill/replacing-decorator",
        Severity.ERROR,
        "A project decorator of a @tool function replaces what it decorates: below @tool, with None or a "
        "function of its own that has no @functools.wraps (so @tool reads that function's parameters, not "
        "the tool's); above @tool, with None or any function (so the skill is given no tool).",
    ),
    CheckRow(
        "skill/call-signature",
        Severity.ERROR,
        "execute, condition() or a needs_approval function cannot take the arguments the runtime calls it "
        "with: execute(input, ctx), needs_approval(input, ctx), condition().",
    ),
    CheckRow(
        "skill/client-tool-execute",
        Severity.ERROR,
        "A client-side tool (client = True) also has code to run: an execute, a @tool function body "
        "that does more than `...`, or a needs_approval function; its result comes from the caller.",
    ),
    CheckRow(
        "skill/client-tool-condition",
        Severity.ERROR,
        "A client-side tool has a condition(): a condition is code, and a client tool ships none.",
    ),
    CheckRow(
        "skill/invalid-tool-name",
        Severity.ERROR,
        "A tool name must match ^[a-zA-Z0-9_-]+$, which also keeps it inside dist/.",
    ),
    CheckRow("skill/invalid-skill-name", Severity.ERROR, "A skill or agent name must match ^[a-zA-Z0-9_-]+$."),
    CheckRow(
        "skill/dynamic-value",
        Severity.ERROR,
        "A name, description or setting is not a literal or a module-level constant bound to one.",
    ),
    CheckRow(
        "skill/invalid-setting",
        Severity.ERROR,
        "A setting has a value that can never work (a timeout that is not positive, say).",
    ),
    CheckRow(
        "skill/unknown-setting",
        Severity.ERROR,
        "Tool(...) or @tool(...) is given a keyword it does not take; the hint names the closest one.",
    ),
    CheckRow(
        "skill/tool-is-model",
        Severity.ERROR,
        "A tool class also derives from pydantic's BaseModel: its settings become fields (unannotated ones "
        "are refused at import) and its __init__ replaces Tool's.",
    ),
    CheckRow(
        "skill/constructor-args-invalid",
        Severity.ERROR,
        "A tool class is registered with arguments its __init__ does not take.",
    ),
    CheckRow(
        "skill/misspelled-setting",
        Severity.WARNING,
        "A tool class attribute is named almost like a setting, which then keeps its default.",
    ),
    CheckRow(
        "skill/duplicate-tool-name",
        Severity.ERROR,
        "Two tools of the agent have the same name, or names that differ only in case.",
    ),
    CheckRow(
        "skill/reserved-tool-name",
        Severity.ERROR,
        "A tool name is a Windows device name (CON, PRN, AUX, NUL, COM1-9, LPT1-9, in any case), "
        "so its folder of dist/ cannot exist there.",
    ),
    CheckRow(
        "skill/reserved-skill-name",
        Severity.ERROR,
        "A skill name is a Windows device name (CON, PRN, AUX, NUL, COM1-9, LPT1-9, in any case), "
        "so its folder of dist/ cannot exist there.",
    ),
    CheckRow(
        "skill/duplicate-skill-name",
        Severity.ERROR,
        "Two skills of the agent have the same name, or names that differ only in case.",
    ),
    CheckRow(
        "skill/unresolved-reference",
        Severity.ERROR,
        "An entry of tools=[...] or skills=[...] is not a tool or skill.",
    ),
    CheckRow(
        "skill/wrapped-tool-ref",
        Severity.ERROR,
        "An entry of tools=[...] is wrapped in another call, which would register nothing.",
    ),
    CheckRow("skill/unresolved-import", Severity.ERROR, "A project-local import resolves to no module or name."),
    CheckRow("skill/inheritance-cycle", Severity.ERROR, "Classes inherit from each other in a cycle."),
    CheckRow(
        "skill/import-cycle",
        Severity.ERROR,
        "A from-import runs while the module it imports from is still initialising, before it "
        "binds the name: Python's circular-import ImportError.",
    ),
    CheckRow(
        "skill/get-data-at-call-time",
        Severity.ERROR,
        "pkgutil.get_data of a project package runs in a function: it looks the package up at call "
        "time, when a bundle's modules cannot be found that way.",
    ),
    CheckRow(
        "skill/used-before-definition",
        Severity.ERROR,
        "Code that runs when a module is imported (a class body, a decorator, a default, a base "
        "class, an annotation without `from __future__ import annotations`) uses a module-level "
        "name the module binds only further down: importing it raises NameError.",
    ),
    CheckRow(
        "skill/undefined-name",
        Severity.ERROR,
        "Code uses a name that nothing it can see defines or imports, and that is no builtin: code run when "
        "a module is imported (a decorator, a base class, a default, a module-level statement), and then "
        "importing it raises NameError; or a function body (an execute, a helper, a method, a lambda), and "
        "then calling it does.  Either way that includes a name the module binds only under "
        '`if __name__ == "__main__":` or `if TYPE_CHECKING:` (an annotation evaluated at import, without '
        "`from __future__ import annotations`), and in a function one bound only in a class body, which its "
        "methods do not see.",
    ),
    CheckRow(
        "skill/working-folder-path",
        Severity.WARNING,
        "A call is given a relative path that names a file of the project from the project's folder "
        '(open("src/data/orders.json"), or open("settings.json") of a file outside src/, which no bundle '
        'holds), or makes or changes a file at a relative path (sqlite3.connect("notes.db")): a compiled tool '
        "runs wherever its process started, where the path names nothing or another file.",
    ),
    CheckRow(
        "skill/model-field-conflict",
        Severity.ERROR,
        "A model has a field named like a member of pydantic's BaseModel in its protected namespaces "
        "(model_dump, model_validate_json...), or a @tool function a parameter named so or model_config: "
        "pydantic refuses the class, so its module does not import.",
    ),
    CheckRow(
        "skill/command-line-at-import",
        Severity.ERROR,
        "Code that runs when a module is imported parses the command line (parser.parse_args() with no "
        "arguments): a compiled tool is imported by another program, whose command line the parser refuses.",
    ),
    CheckRow(
        "skill/nested-event-loop",
        Severity.ERROR,
        "An async def starts an event loop of its own (asyncio.run(...)), which asyncio refuses inside the "
        "loop that runs it.",
    ),
    CheckRow(
        "skill/unawaited-coroutine",
        Severity.ERROR,
        "A function calls an async def of the project, or an async method of the data store "
        "(ctx.data[...].acreate), as a statement of its own (save(note), not await save(note)): the call makes "
        "a coroutine that nothing awaits, so none of it ever runs.  Or an async execute, needs_approval or "
        "condition() returns such a coroutine (return fetch(url)): the runtime gets it for the value.",
    ),
    CheckRow(
        "skill/event-loop-in-thread",
        Severity.ERROR,
        "A sync execute, needs_approval or condition() looks up asyncio's event loop (asyncio.get_event_loop()"
        ".run_until_complete(...)): the runtime runs sync tool code in a worker thread, which has none, so asyncio "
        "raises RuntimeError on every call.",
    ),
    CheckRow(
        "skill/event-loop-at-import",
        Severity.ERROR,
        "Code that runs when a module is imported looks up asyncio's event loop (asyncio.get_event_loop()): "
        "in the worker thread that imports a tool's modules there is none, so the module never loads.",
    ),
    CheckRow(
        "skill/sqlite-at-import",
        Severity.ERROR,
        "A module opens a SQLite connection when it is imported and its functions use it: sqlite3 refuses it in "
        "any thread but the worker thread that imported the module, and the calls run in others.",
    ),
    CheckRow(
        "skill/signal-at-import",
        Severity.ERROR,
        "Code that runs when a module is imported installs a signal handler (signal.signal): the runtime imports "
        "a tool's modules in a worker thread, where Python refuses it, so the module never loads.",
    ),
    CheckRow(
        "skill/environment-at-import",
        Severity.WARNING,
        'Code that runs when a module is imported reads an environment variable by key (os.environ["KEY"]), or '
        "makes pydantic-settings' settings with a required field (settings = Settings()): where the variable is "
        "not set, every tool whose bundle holds the module fails to load.",
    ),
    CheckRow(
        "skill/encoding-error", Severity.ERROR, "A file is not valid in its declared encoding (UTF-8 by default)."
    ),
    CheckRow("skill/unreadable-file", Severity.ERROR, "A file or folder of the project cannot be read."),
    CheckRow("skill/internal-error", Severity.ERROR, "skillc failed on a file; this is a bug to report."),
    CheckRow("skill/tool-name-style", Severity.WARNING, "By convention a tool name matches ^[a-z][a-z0-9_-]*$."),
    CheckRow(
        "skill/host-tool-name",
        Severity.WARNING,
        "Served over MCP, a tool name becomes longer than the 64 characters model APIs accept "
        "in hosts that prefix it with the server's name (Claude Code: mcp__<agent>__<tool>).",
    ),
    CheckRow(
        "skill/unknown-attribute",
        Severity.ERROR,
        "A tool's execute (or needs_approval) reads an attribute of what the runtime passes it that it does not "
        "have: of its input "
        "(input.ordr_id) one that the input model has no field, attribute or method for (checked when the sources "
        "say all the model has: its bases are the project's or pydantic's, and it allows no extra fields), or of "
        "its context (ctx.usr) one that ToolContext does not have, or of self one that the tool class does not have "
        "(self.nmae); or a function reads one that the data store or a "
        "collection of it does not have (ctx.data['notes'].insert_one).  Every call that gets there raises "
        "AttributeError.",
    ),
    CheckRow(
        "skill/input-type",
        Severity.ERROR,
        "execute or needs_approval of a tool class annotates its input with a type the runtime never passes "
        "there (a str, as a LangChain _run takes a field; dict with an input model; another project class): it "
        "passes the input model's instance, or the arguments' dict without one.",
    ),
    CheckRow(
        "skill/result-type",
        Severity.ERROR,
        "execute (or a @tool function) is annotated to return another project model than its output_schema, "
        "lacking a field the output model requires: every call would fail its output validation.",
    ),
    CheckRow(
        "skill/unserializable-result",
        Severity.ERROR,
        "execute (or a @tool function) is annotated to return a plain project class, which pydantic cannot "
        "make JSON: every call would fail with a serialization error.",
    ),
    CheckRow(
        "skill/foreign-setting",
        Severity.ERROR,
        "A tool class sets another framework's name for a setting (LangChain's args_schema, the OpenAI "
        "Agents SDK's params_json_schema), which skillc does not read: the setting would keep its default.",
    ),
    CheckRow("skill/missing-input-schema", Severity.WARNING, "Tool should have an input_schema for type safety."),
    CheckRow(
        "skill/mixed-strict",
        Severity.WARNING,
        "A skill mixes strict and non-strict tools, which some providers refuse in one request "
        '(deepseek\'s strict mode); [tool.skill.chat] strict = "all" or "none" sends one value.',
    ),
    CheckRow(
        "skill/constructor-args-dropped",
        Severity.WARNING,
        "A class-form tool is registered with arguments, which the compiled tool never receives.",
    ),
    CheckRow(
        "skill/init-requires-arguments",
        Severity.ERROR,
        "A class-form tool's __init__ needs arguments, but the compiled tool is created with none.",
    ),
    CheckRow(
        "skill/missing-description",
        Severity.WARNING,
        "A tool has no description, so the model cannot tell when to use it.",
    ),
    CheckRow("skill/unreachable-tool", Severity.WARNING, "A tool is defined but the agent never reaches it."),
    CheckRow("skill/empty-skill", Severity.WARNING, "A skill has no tools."),
    CheckRow("skill/star-import", Severity.WARNING, "A star import cannot be resolved statically."),
    CheckRow(
        "skill/conditional-definition",
        Severity.WARNING,
        "A base class or tool is bound differently in different branches.",
    ),
    CheckRow(
        "skill/dynamic-import",
        Severity.WARNING,
        "import_module() or __import__() is given a module name that is not a literal: "
        "the compiler cannot bundle that module.",
    ),
    CheckRow(
        "skill/undeclared-dependency",
        Severity.WARNING,
        "A tool's module imports a third-party package the project does not declare.",
    ),
    CheckRow(
        "skill/dependency-not-installed",
        Severity.WARNING,
        "A tool needs a declared third-party package whenever it runs (no try goes on without it), "
        "and the environment skill runs in cannot import it: the tool cannot run there.",
    ),
    CheckRow(
        "skill/bundle-not-self-contained",
        Severity.ERROR,
        "A bundle does not import on its own (skill compile --verify), e.g. a module loaded dynamically.",
    ),
    CheckRow(
        "skill/schema-mismatch",
        Severity.ERROR,
        "The static schema differs from pydantic's own (skill compile --verify): a bug in skillc.",
    ),
    CheckRow(
        "skill/symlink-loop",
        Severity.WARNING,
        "A symbolic link in the source tree leads back to a folder above it; it is not followed.",
    ),
    CheckRow(
        "skill/symlink-outside-project",
        Severity.WARNING,
        "A symbolic link in the source tree leads outside the project (and outside every "
        "[tool.skill] allow_outside folder); it is not followed, so nothing it points to is bundled.",
    ),
    CheckRow(
        "skill/dangling-symlink",
        Severity.WARNING,
        "A symbolic link in the source tree points to nothing; it is skipped.",
    ),
    CheckRow(
        "skill/missing-data-file",
        Severity.ERROR,
        'A module names a data file (Path(__file__).parent / "x.json", importlib.resources.files(...)) '
        "that its bundle will not hold: missing, left out by [tool.skill] include/exclude, or another package's.",
    ),
    CheckRow(
        "skill/database-in-bundle",
        Severity.WARNING,
        'A module opens a database inside its own bundle (sqlite3.connect(Path(__file__).parent / "notes.db")): '
        "what the calls store stays in one tool's extracted copy, which the next compile replaces; reading one is fine.",
    ),
    CheckRow(
        "skill/write-into-bundle",
        Severity.ERROR,
        'A module changes a path of its own bundle (NOTES.write_text(...), open(Path(__file__).parent / "x", "w")): '
        "each tool runs from its own copy of its bundle, so no other tool sees the change, and the next compile "
        "starts from the project's files again.",
    ),
    CheckRow(
        "skill/unknown-config-key",
        Severity.WARNING,
        "[tool.skill] holds a key skillc does not know (often a typo).",
    ),
)

# --- The schema translator's checks (compiler/schema*.py) ----------------------------

SCHEMA_ROWS: tuple[CheckRow, ...] = (
    CheckRow(
        "skill/schema-unsupported",
        Severity.ERROR,
        "A model uses a construct outside the subset of pydantic that skillc translates to "
        'JSON Schema statically; [tool.skill] schema = "import" lets pydantic build it instead.',
    ),
    CheckRow(
        "skill/unknown-field",
        Severity.ERROR,
        '@field_validator("name") or @field_serializer("name") on a model names no field of it: pydantic '
        "refuses the class, so its module does not import.",
    ),
    CheckRow(
        "skill/strict-incompatible",
        Severity.ERROR,
        "A tool with strict = True has an input schema that OpenAI's strict mode cannot express "
        "(a free-form dict, a value of any type, a tuple of mixed types, open extra fields).",
    ),
)

_SEVERITIES = {row.code: row.severity for row in (*ROWS, *SCHEMA_ROWS)}


def severity_of(code: str) -> Severity:
    """The severity every diagnostic with ``code`` has."""
    return _SEVERITIES[code]
