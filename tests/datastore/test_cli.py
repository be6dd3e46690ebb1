"""``skill data``: every action, as a table and as JSON, and what bad input gets."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pexpect
import pytest
from helpers import AGENT, RunSkill, write_project
from skillc.runtime.data import redact_url
from skillc.runtime.data.urls import without_secrets

ORDERS = [
    {"_id": "A1001", "status": "shipped", "total_eur": 42.5, "items": ["kettle", "tea sampler"]},
    {"_id": "A1002", "status": "processing", "total_eur": 18.0, "items": ["notebook"]},
]


@pytest.fixture
def project(tmp_path: Path, skill: RunSkill) -> Path:
    root = write_project(tmp_path / "shop", {"agent.py": AGENT})
    (root / "orders.json").write_text(json.dumps(ORDERS))
    done = skill("data", "import", "orders", "orders.json", cwd=root)
    assert (done.code, done.stdout) == (0, "Imported 2 documents into orders\n"), done.stderr
    assert done.stderr == f"sandbox data: {root / '.skill/data/sandbox.sqlite3'}\n"
    return root


def test_collections_as_a_table_and_as_json(skill: RunSkill, project: Path) -> None:
    table = skill("data", "collections", cwd=project)
    assert table.stdout.splitlines() == ["collection  documents", "orders              2"]
    listed = skill("data", str(project), "collections", "--json")  # the project named first
    assert json.loads(listed.stdout) == [{"collection": "orders", "documents": 2}]
    empty = skill("data", "collections", "-e", "production", cwd=project)
    assert (empty.code, empty.stdout) == (0, "No documents in the production store.\n")


def test_find_filters_sorts_and_pages(skill: RunSkill, project: Path) -> None:
    table = skill("data", "find", "orders", "--sort", "-total_eur", cwd=project)
    assert table.code == 0
    assert table.stdout.splitlines() == [
        "_id    status      total_eur  items                    ",
        'A1001  shipped     42.5       ["kettle", "tea sampler"]',
        'A1002  processing  18.0       ["notebook"]             ',
        "1-2 of 2 documents in orders",
    ]
    page = skill("data", "find", "orders", "--filter", '{"total_eur": {"$lt": 20}}', "--json", cwd=project)
    assert json.loads(page.stdout) == {"total": 1, "offset": 0, "limit": 20, "documents": [ORDERS[1]]}
    first = skill("data", "find", "orders", "--limit", "1", cwd=project)
    assert first.stdout.splitlines()[-1] == "1-1 of 2 documents in orders (--limit and --offset show others)"


def test_get_put_delete_and_export(skill: RunSkill, project: Path) -> None:
    got = skill("data", "get", "orders", "A1001", cwd=project)
    assert json.loads(got.stdout) == ORDERS[0] and got.stdout.startswith('{\n  "_id": "A1001",')
    put = skill("data", "put", "orders", "A1003", '{"status": "new", "note": "\\u001b[2J\\u202eok"}', cwd=project)
    assert (put.code, put.stdout) == (0, "Stored orders/A1003\n")
    shown = skill("data", "get", "orders", "A1003", cwd=project)
    assert '"note": "\\u001b[2J\\u202eok"' in shown.stdout  # a document's text is shown, not obeyed
    assert "\x1b" not in shown.stdout and "\u202e" not in shown.stdout
    table = skill("data", "find", "orders", "--filter", '{"_id": "A1003"}', cwd=project)
    assert "\\x1b[2J\\u202eok" in table.stdout and "\x1b" not in table.stdout
    (project / "doc.json").write_text('{"status": "paid"}')
    again = skill("data", "put", "orders", "A1003", "--file", "doc.json", "--json", cwd=project)
    assert json.loads(again.stdout) == {"_id": "A1003", "status": "paid"}
    assert (
        skill("data", "put", "orders", "A1003", "--file", "doc.json", cwd=project).stdout == "Replaced orders/A1003\n"
    )
    deleted = skill("data", "delete", "orders", "A1003", cwd=project)
    assert (deleted.code, deleted.stdout) == (0, "Deleted orders/A1003\n")
    exported = skill("data", "export", "orders", cwd=project)
    assert [json.loads(line) for line in exported.stdout.splitlines()] == ORDERS
    (project / "copy.jsonl").write_text(exported.stdout)
    assert skill("data", "import", "copy", "copy.jsonl", cwd=project).stdout == "Imported 2 documents into copy\n"
    searched = skill("data", "search", "orders", "kettle", "--json", cwd=project)
    assert [hit["document"]["_id"] for hit in json.loads(searched.stdout)] == ["A1001"]


def test_a_missing_document_is_exit_1(skill: RunSkill, project: Path) -> None:
    for action in ("get", "delete"):
        done = skill("data", action, "orders", "A9999", cwd=project)
        assert (done.code, done.stdout) == (1, "")
        assert done.stderr.endswith("error: no document 'A9999' in orders\n")


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["find", "orders", "--filter", "{status: 1}"], "error: --filter is not JSON: "),
        (["find", "orders", "--filter", "[1]"], "error: --filter must be a JSON object"),
        (
            ["find", "orders", "--filter", '{"status": {"$regex": "x"}}'],
            "error: filter.status: unknown operator '$regex'",
        ),
        (["find", "orders", "--sort", "a..b"], "error: sort: 'a..b' is not a field path"),
        (["find", "orders", "--limit", "-1"], "error: --limit and --offset take whole numbers"),
        (["find"], "error: usage: skill data [PROJECT] find COLLECTION"),
        (["get", "orders"], "error: usage: skill data [PROJECT] get COLLECTION ID"),
        (["put", "orders", "A1", "[1]"], "error: the document must be a JSON object, not list"),
        (["put", "orders", "A1"], "error: put takes the document as JSON or with --file FILE"),
        (["put", "orders", "A1", '{"a.b": 1}'], "error: in the document: key 'a.b' is not allowed"),
        (["put", "../x", "A1", "{}"], "error: collection name '../x' is not allowed"),
        (["import", "orders", "missing.json"], "error: cannot read missing.json"),
        (["explode"], "error: unknown action 'explode'"),
        ([], "error: skill data needs an action: collections, find, search, get, put, delete, import, export, clear"),
    ],
)
def test_bad_input_is_exit_2_with_what_is_wrong(
    skill: RunSkill, project: Path, arguments: list[str], message: str
) -> None:
    done = skill("data", *arguments, cwd=project)
    assert done.code == 2, done.stdout + done.stderr
    assert message in done.stderr and "Traceback" not in done.stderr


def test_import_names_the_line_that_is_not_json(skill: RunSkill, project: Path) -> None:
    (project / "bad.jsonl").write_text('{"_id": "x"}\n{oops}\n')
    done = skill("data", "import", "orders", "bad.jsonl", cwd=project)
    assert done.code == 2 and "error: bad.jsonl:2: not JSON" in done.stderr
    assert skill("data", "get", "orders", "x", cwd=project).code == 1  # nothing of it was imported


def test_clear_asks_and_without_a_terminal_needs_yes(skill: RunSkill, project: Path) -> None:
    refused = skill("data", "clear", "orders", cwd=project)
    assert refused.code == 2 and "pass --yes to confirm" in refused.stderr
    assert skill("data", "get", "orders", "A1001", cwd=project).code == 0
    child = pexpect.spawn(
        str(Path(sys.executable).with_name("skill")), ["data", "clear", "orders"], cwd=str(project), timeout=30
    )
    try:
        child.expect_exact("Delete every document of orders in the sandbox store? [y/N] ")
        child.sendline("n")
        child.expect_exact("Nothing deleted.")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 1
    cleared = skill("data", "clear", "--yes", cwd=project)
    assert (cleared.code, cleared.stdout) == (0, "Deleted 2 documents.\n")
    assert skill("data", "collections", "--json", cwd=project).stdout == "[]\n"


def test_urls_are_shown_without_their_secrets() -> None:
    assert redact_url("postgresql://shop:s3cr%40t@db:5432/shop") == "postgresql://shop:***@db:5432/shop"
    assert redact_url("postgresql://db/shop?password=s3cr3t&sslmode=require") == (
        "postgresql://db/shop?password=***&sslmode=require"
    )
    assert redact_url("postgresql://shop@db/shop") == "postgresql://shop@db/shop"
    url = "postgresql://shop:s3cr%40t@db/shop"
    assert without_secrets('bad token "s3cr@t" and "s3cr%40t"', url) == 'bad token "***" and "***"'
