"""Static schemas equal pydantic's own, for every model of the fixture corpus.

The fixtures under ``tests/schemas/`` are copied into a project's ``src/``; the compiler
reads them as source, and the test imports them to ask pydantic.  Every schema is
compared with ``model_json_schema()`` key order included (the order is what makes
``dist/`` byte-identical whichever way a schema was built), and must itself be a valid
JSON Schema 2020-12 document.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import json
import re
import shutil
import subprocess
import sys
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import jsonschema
import pytest
from helpers import DEFAULT_PYPROJECT, write_project
from pydantic import BaseModel, create_model
from skillc.compiler.api import compile_project
from skillc.compiler.checks import SCHEMA_CHECKS
from skillc.compiler.config import locate_config, read_config
from skillc.compiler.link import link_project
from skillc.compiler.model_field_check import PROTECTED_MEMBERS
from skillc.compiler.resolve import Linker
from skillc.compiler.schema import function_schema, model_schema
from skillc.compiler.schema_models import SchemaResult
from skillc.compiler.schema_versions import PYDANTIC
from skillc.compiler.source_tree import read_sources
from skillc.compiler.sources import index_sources
from skillc.compiler.strict import strict_schema
from skillc.compiler.types import Finding, Pos
from skillc.contracts.settings import STRICT
from skillc.runtime.sdk import FunctionTool

FIXTURES = Path(__file__).parent / "schemas"
UNSUPPORTED = "skill/schema-unsupported"
MARKER = re.compile(r"#\s*unsupported\[(?P<models>[\w,]+)\]:\s?(?P<text>.*)$")


@dataclass(frozen=True)
class Corpus:
    """The fixture project: its linker, and where its sources live."""

    linker: Linker
    src: Path


def _linker(root: Path) -> Linker:
    config = read_config(locate_config(root))
    index = index_sources(config, read_sources(config), use_cache=False)
    return Linker(index.modules, config, index.failed)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Corpus]:
    root = tmp_path_factory.mktemp("corpus")
    shutil.copytree(FIXTURES, root / "src", ignore=shutil.ignore_patterns("__pycache__", "*.md"))
    (root / "pyproject.toml").write_text(DEFAULT_PYPROJECT.replace("src/agent.py", "src/fx_scalars.py"))
    sys.path.insert(0, str(root / "src"))
    try:
        yield Corpus(_linker(root), root / "src")
    finally:
        sys.path.remove(str(root / "src"))
        for name in [name for name in sys.modules if name.startswith("fx_")]:
            del sys.modules[name]


def _json(value: object) -> Any:
    return json.loads(json.dumps(value))


def _assert_same(static: SchemaResult, expected: dict[str, Any]) -> None:
    assert static.findings == (), [(f.path, f.pos.line, f.pos.col, f.message) for f in static.findings]
    assert static.schema is not None
    jsonschema.Draft202012Validator.check_schema(static.schema)
    assert static.schema == _json(expected)
    # The same keys in the same order: dist/ is byte-identical whichever way it was built.
    assert json.dumps(static.schema) == json.dumps(_json(expected))


def _models(module: ModuleType) -> list[str]:
    return [
        name
        for name, value in vars(module).items()
        if inspect.isclass(value) and issubclass(value, BaseModel) and value.__module__ == module.__name__
    ]


MODULES = [
    "fx_scalars",
    "fx_unions",
    "fx_enums",
    "fx_nested",
    "fx_inheritance",
    "fx_collections",
    "fx_fields",
    "fx_config",
    "fx_future",
    "fx_validators",
    "fx_collide.top",
    "fx_collide.a",
    "fx_aliases",
    "fx_pkg.inner",
    "fx_named",
    "fx_constrained",
    "fx_classes",
    "fx_discriminated",
    "fx_keys",
    "fx_types",
    "fx_inner",
    "fx_inner_future",
]
FUNCTION_MODULES = ["fx_functions", "fx_functions_future"]


def _model_names(source: str) -> list[str]:
    """The models a fixture defines: classes deriving from BaseModel or from one of them."""
    models: list[str] = []
    for node in ast.parse(source).body:
        if isinstance(node, ast.ClassDef):
            bases = {ast.unparse(base).split("[")[0].rpartition(".")[2] for base in node.bases}
            if bases & {"BaseModel", *models}:
                models.append(node.name)
    return models


def _cases() -> Iterator[Any]:
    """One case per model of each fixture module, found without importing it."""
    for module in MODULES:
        path = FIXTURES / (module.replace(".", "/") + ".py")
        for name in _model_names(path.read_text()):
            yield pytest.param(module, name, id=f"{module}.{name}")


#: Models whose schema the installed pydantic writes differently from run to run before a
#: minor version (tests/test_pydantic_versions.py runs this module under each): refused there.
NEWER = {("fx_collections", "Sets"): ((2, 13), "writes a set default in hash order")}


@pytest.mark.parametrize(("module_name", "model"), list(_cases()))
def test_model_schema_equals_pydantic(corpus: Corpus, module_name: str, model: str) -> None:
    cls = getattr(importlib.import_module(module_name), model)
    static = model_schema(corpus.linker, module_name, model)
    since, reason = NEWER.get((module_name, model), ((0, 0), ""))
    if PYDANTIC < since:
        assert static.schema is None and static.findings, static.schema
        assert all(reason in item.message and item.code == UNSUPPORTED for item in static.findings)
        return
    _assert_same(static, cls.model_json_schema())


@pytest.mark.parametrize(
    ("module_name", "qualname"),
    [
        ("fx_inner", "ShrimpTank.Shrimp"),
        ("fx_inner", "Outer.Inner"),
        ("fx_inner", "Deep.Middle.Leaf"),
        ("fx_inner", "Family.Child"),
    ],
)
def test_a_model_defined_in_a_model_s_body_equals_pydantic(corpus: Corpus, module_name: str, qualname: str) -> None:
    cls: Any = importlib.import_module(module_name)
    for part in qualname.split("."):
        cls = getattr(cls, part)
    _assert_same(model_schema(corpus.linker, module_name, qualname), cls.model_json_schema())


def test_every_fixture_model_is_a_case(corpus: Corpus) -> None:
    cases = {(param.values[0], param.values[1]) for param in _cases()}
    for name in MODULES:
        for model in _models(importlib.import_module(name)):
            assert (name, model) in cases


def _function_cases() -> Iterator[Any]:
    for module in FUNCTION_MODULES:
        for name in re.findall(r"^def (\w+)\(", (FIXTURES / f"{module}.py").read_text(), re.M):
            yield pytest.param(module, name, id=f"{module}.{name}")


@pytest.mark.parametrize(("module_name", "function"), list(_function_cases()))
def test_function_schema_equals_the_runtime_input_model(corpus: Corpus, module_name: str, function: str) -> None:
    module = importlib.import_module(module_name)
    tool = getattr(module, function)
    assert isinstance(tool, FunctionTool)
    assert tool.input_schema is not None
    info = next(item for item in corpus.linker.modules[module_name].functions if item.name == function)
    _assert_same(function_schema(corpus.linker, module_name, info), tool.input_schema.model_json_schema())


@pytest.mark.parametrize(
    "first",
    [
        "schema",
        "checks",
        "link",
        "api",
        "resolve",
        "evaluate",
        "importtime",
        "cycles",
        "tools",
        "report",
        "probe",
        "verify",
        "artifacts",
        "schema_types",
        "schema_models",
        "schema_enums",
        "schema_json",
        "schema_defs",
        "schema_annotations",
        "schema_classes",
        "schema_config",
        "schema_docs",
        "schema_named",
        "schema_versions",
    ],
)
def test_the_compiler_modules_import_in_any_order(first: str) -> None:
    finished = subprocess.run(
        [sys.executable, "-c", f"import skillc.compiler.{first}, skillc.compiler.api"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert finished.returncode == 0, finished.stderr


# --- What is outside the subset ------------------------------------------------------


def _markers() -> dict[str, set[tuple[int, int]]]:
    """``model -> {(line, col)}`` from the markers of fx_unsupported.py."""
    expected: dict[str, set[tuple[int, int]]] = {}
    for number, line in enumerate((FIXTURES / "fx_unsupported.py").read_text().splitlines(), start=1):
        found = MARKER.search(line)
        if found is None or number <= 5:  # the docstring explains the syntax
            continue
        code = line[: found.start()]
        column = code.index(found.group("text"))
        for model in found.group("models").split(","):
            expected.setdefault(model, set()).add((number, column))
    return expected


@pytest.mark.parametrize(("model", "positions"), sorted(_markers().items()))
def test_unsupported_constructs_are_reported_where_they_are(
    corpus: Corpus, model: str, positions: set[tuple[int, int]]
) -> None:
    result = model_schema(corpus.linker, "fx_unsupported", model)
    assert result.schema is None
    found = {(item.pos.line, item.pos.col) for item in result.findings}
    assert found == positions, [(f.pos.line, f.pos.col, f.message) for f in result.findings]
    for finding in result.findings:
        assert finding.code == UNSUPPORTED
        assert finding.path == "src/fx_unsupported.py"
        # Building the schema by importing helps, except where pydantic itself refuses the type.
        helps = (
            "from typing_extensions import TypedDict"
            if "not typing.TypedDict" in finding.message
            else 'schema = "import"'
        )
        assert finding.hint is not None and helps in finding.hint


def test_a_model_outside_the_project_is_reported(corpus: Corpus) -> None:
    result = model_schema(corpus.linker, "thirdparty.models", "Order")
    assert result.schema is None
    assert [item.code for item in result.findings] == [UNSUPPORTED]
    assert "outside the project" in result.findings[0].message


def test_a_name_that_is_not_a_model_is_reported(corpus: Corpus) -> None:
    result = model_schema(corpus.linker, "fx_unsupported", "NotAModel")
    assert result.schema is None and len(result.findings) == 1


def test_a_root_model_is_named_as_one(corpus: Corpus) -> None:
    result = model_schema(corpus.linker, "fx_unsupported", "WithIds")
    assert [item.message for item in result.findings] == [
        "class Ids is a pydantic RootModel, which the static schema subset does not cover"
    ]


def test_the_helpers_of_the_unsupported_models_compile(corpus: Corpus) -> None:
    helpers = set(_model_names((FIXTURES / "fx_unsupported.py").read_text())) - set(_markers())
    assert helpers == {"Holder", "Kitten", "Puppy", "Loose", "WithPart", "Gadget"}
    for model in helpers:
        result = model_schema(corpus.linker, "fx_unsupported", model)
        assert result.findings == () and result.schema is not None


# --- The checks' own examples, compiled the way a compile uses this module ------------


def _compile_example(root: Path, files: dict[str, str | bytes]) -> list[Finding]:
    write_project(root, files)
    config = read_config(locate_config(root))
    index = index_sources(config, read_sources(config), use_cache=False)
    linked = link_project(index.modules, config, index.failed)
    linker = Linker(index.modules, config, index.failed)
    findings = list(linked.findings)
    for tool in linked.tools:
        if tool.input_model is not None:
            result = model_schema(linker, tool.input_model.module, tool.input_model.qualname)
        else:
            info = next(item for item in index.modules[tool.module].functions if item.name == tool.qualname)
            result = function_schema(linker, tool.module, info)
        findings.extend(result.findings)
        if result.schema is not None and tool.settings[STRICT]:
            strict = strict_schema(result.schema)
            if isinstance(strict, str):  # reported at the tool, as compiler/artifacts.py does
                pos = Pos(tool.source.line, tool.source.col)
                findings.append(Finding("skill/strict-incompatible", strict, tool.source.path, pos))
    return findings


CHECK_CASES = [
    pytest.param(check.code, kind, example, id=f"{check.code}-{kind}-{number}")
    for check in SCHEMA_CHECKS
    for kind, examples in (("valid", check.valid), ("invalid", check.invalid))
    for number, example in enumerate(examples)
]


@pytest.mark.parametrize(("code", "kind", "example"), CHECK_CASES)
def test_check_examples(tmp_path: Path, code: str, kind: str, example: Any) -> None:
    findings = _compile_example(tmp_path, dict(example.files))
    if kind == "valid":
        assert findings == [], [item.message for item in findings]
    else:
        found = [(item.path, item.pos.line, item.pos.col) for item in findings if item.code == code]
        assert example.at in found, (found, [item.message for item in findings])


def test_a_model_in_a_module_that_does_not_parse_is_reported(tmp_path: Path) -> None:
    write_project(
        tmp_path,
        {
            "agent.py": "",
            "broken.py": "from pydantic import BaseModel\nclass Broken(BaseModel:\n    a: int\n",
            "uses.py": (
                "from pydantic import BaseModel\nfrom broken import Broken\n\nclass Uses(BaseModel):\n    b: Broken\n"
            ),
        },
    )
    linker = _linker(tmp_path)
    for module, model, line in (("broken", "Broken", 1), ("uses", "Uses", 5)):
        result = model_schema(linker, module, model)
        assert result.schema is None
        assert [(item.code, item.pos.line) for item in result.findings] == [(UNSUPPORTED, line)]


# --- Types that need an optional dependency at run time ---------------------------------


EMAIL_SOURCE = """\
from typing import Optional

from pydantic import BaseModel, EmailStr, NameEmail
from pydantic.networks import EmailStr as DottedEmail


class Contact(BaseModel):
    email: EmailStr
    named: Optional[NameEmail] = None
    many: list[DottedEmail] = []
"""


def test_email_types_equal_pydantic_without_email_validator(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """pydantic needs email-validator to build a model with EmailStr, not to write its schema:
    the static schema is the one pydantic writes once the dependency is there."""
    import pydantic.networks

    write_project(tmp_path, {"agent.py": "", "contact.py": EMAIL_SOURCE})
    static = model_schema(_linker(tmp_path), "contact", "Contact")
    monkeypatch.setattr(pydantic.networks, "import_email_validator", lambda: None)
    namespace: dict[str, Any] = {"__name__": "contact"}
    exec(compile(EMAIL_SOURCE, "contact.py", "exec", dont_inherit=True), namespace)
    _assert_same(static, namespace["Contact"].model_json_schema())


# --- dist/ keeps pydantic's key order ------------------------------------------------------


def test_dist_schemas_are_written_in_pydantic_key_order(tmp_path: Path) -> None:
    """input.schema.json is ``model_json_schema()`` byte for byte (properties in declaration
    order, not sorted), and tool.json keeps its own key order around it."""
    project = tmp_path / "rich"
    shutil.copytree(Path(__file__).parent / "projects" / "rich_schema_types", project)
    report = compile_project(project)
    assert report.ok and report.diagnostics == (), report.diagnostics
    spec = importlib.util.spec_from_file_location("rich_schema_models", project / "src" / "models.py")
    assert spec is not None and spec.loader is not None
    models = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = models
    try:
        spec.loader.exec_module(models)
        expected = json.dumps(models.BookingInput.model_json_schema(), indent=2, ensure_ascii=False) + "\n"
    finally:
        del sys.modules[spec.name]
    folder = project / "dist" / "tools"
    assert (folder / "book" / "input.schema.json").read_text() == expected
    assert list(json.loads(expected)["properties"])[:3] == ["traveller", "trip", "nights"]
    definition = json.loads((folder / "forecast" / "tool.json").read_text())
    assert list(definition) == ["type", "name", "description", "parameters", "strict"]
    assert list(definition["parameters"]["properties"]) == ["city", "days", "unit"]


def test_strict_variant_of_a_discriminated_union_is_an_any_of(corpus: Corpus) -> None:
    """OpenAI's strict mode has no ``oneOf``: a tagged union's members become an ``anyOf``."""
    result = model_schema(corpus.linker, "fx_discriminated", "Owner")
    assert result.schema is not None
    strict = strict_schema(result.schema)
    assert isinstance(strict, dict)
    text = json.dumps(strict)
    assert "oneOf" not in text and "discriminator" not in text
    assert strict["properties"]["pet"] == {"anyOf": [{"$ref": "#/$defs/Cat"}, {"$ref": "#/$defs/Dog"}]}
    for module, model in (("fx_named", "Urls"), ("fx_named", "Addresses"), ("fx_constrained", "Aliases")):
        found = model_schema(corpus.linker, module, model).schema
        assert found is not None and isinstance(strict_schema(found), dict), (module, model)


def test_a_bare_string_in_annotated_describes_a_tool_parameter(corpus: Corpus) -> None:
    """The OpenAI Agents SDK's ``Annotated[str, "The city"]``: the weakest description, below
    the docstring's ``Args:`` and an explicit ``Field(description=...)``, in both schemas."""
    module = importlib.import_module("fx_functions")
    properties = module.weather.input_schema.model_json_schema()["properties"]
    descriptions = {name: value.get("description") for name, value in properties.items()}
    assert descriptions == {
        "city": "The city",
        "days": "How many days",
        "unit": "Celsius or Fahrenheit.",
        "detail": "Explicit.",
        "note": "Only strings count",
    }


def test_the_field_names_pydantic_refuses_equals_pydantic() -> None:
    """``model_field_check.PROTECTED_MEMBERS`` is what the installed pydantic refuses as a field name."""
    refused = set()
    for name in dir(BaseModel):
        if name.startswith("_"):
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                create_model("Probe", **{name: (int, 0)})
            except (ValueError, NameError, TypeError):
                refused.add(name)
    assert refused == PROTECTED_MEMBERS
