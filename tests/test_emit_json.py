"""Every JSON file in ``dist/`` is exactly ``json.dumps(..., indent=2, ensure_ascii=False)`` of its content.

The writer renders JSON itself (the standard library's indenting encoder is pure Python),
and a tool that is not strict sends its input schema as ``parameters`` rendered once for
both files; whatever the content (strict or not, an output model, text that needs
escaping), the bytes must be the ones ``json.dumps`` gives, key order kept.
"""

from __future__ import annotations

import json
from pathlib import Path

from helpers import RunSkill, write_project

TOOLS = '''from typing import Literal

from pydantic import BaseModel, Field
from skillc import Tool


class Address(BaseModel):
    city: str = Field(description='Town, "quoted", with a line\\nbreak and a tab\\t')
    zip_code: str | None = None


class QuoteIn(BaseModel):
    """Where a parcel goes: ünïcode, an emoji 📦 and a backslash \\\\."""

    weight_kg: float = Field(gt=0, le=1e6, description="Weight.")
    express: bool = False
    speed: Literal["slow", "fast"] = "slow"
    tags: list[str] = []
    address: Address


class QuoteOut(BaseModel):
    price: float
    currency: str = "EUR"


class Quote(Tool):
    name = "quote"
    description = "Quote shipping: {braces}, [brackets], \\"quotes\\", ünïcode."
    input_schema = QuoteIn
    output_schema = QuoteOut

    def execute(self, input, ctx):
        return QuoteOut(price=1.0)


class StrictQuote(Quote):
    name = "strict_quote"
    description = "The same, strict."
    strict = True


class Empty(BaseModel):
    pass


class Ping(Tool):
    name = "ping"
    description = ""
    input_schema = Empty

    def execute(self, input, ctx):
        return "pong"
'''
AGENT = (
    "from skillc import Agent, Skill\nfrom tools import Ping, Quote, StrictQuote\n\n\n"
    "def ready() -> bool:\n    return True\n\n\n"
    'agent = Agent(name="a", skills=[Skill(name="s", description="S.", '
    "tools=[Quote(), StrictQuote(), Ping()], condition=ready)])\n"
)


def test_every_json_file_is_exactly_what_json_dumps_writes(skill: RunSkill, tmp_path: Path) -> None:
    project = write_project(tmp_path / "p", {"agent.py": AGENT, "tools.py": TOOLS})
    result = skill("compile", cwd=project)
    assert result.code == 0, result.stdout + result.stderr
    dist = project / "dist"
    written = sorted(path.relative_to(dist).as_posix() for path in dist.rglob("*.json"))
    assert written == [
        "manifest.json",
        *(f"tools/{name}/{file}" for name in ("ping",) for file in ("input.schema.json", "tool.json")),
        *(
            f"tools/{name}/{file}"
            for name in ("quote", "strict_quote")
            for file in ("input.schema.json", "output.schema.json", "tool.json")
        ),
    ]
    for name in written:
        data = (dist / name).read_bytes()
        expected = json.dumps(json.loads(data), indent=2, ensure_ascii=False, sort_keys=name == "manifest.json")
        assert data == (expected + "\n").encode(), name
    for name, strict in (("quote", False), ("strict_quote", True), ("ping", False)):
        definition = json.loads((dist / f"tools/{name}/tool.json").read_bytes())
        schema = json.loads((dist / f"tools/{name}/input.schema.json").read_bytes())
        assert list(definition) == ["type", "name", "description", "parameters", "strict"]
        assert definition["strict"] is strict
        assert (definition["parameters"] == schema) is not strict  # the strict variant is another schema
