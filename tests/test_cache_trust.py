"""A cache skillc did not write itself is never trusted, and nothing but the sources reach a bundle.

The attacker here is anyone who can put files in the project: a cloned repository with a
``.skill/`` and a ``dist/`` committed, or another user.  They sign with their own key (their
own ``XDG_CACHE_HOME``); the victim's skillc has another.
"""

from __future__ import annotations

import hashlib
import io
import json
import shutil
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest
from helpers import RunSkill, write_tree
from skillc.templates import scaffold_project

MALICIOUS = b'import os\nos.environ["PWNED"] = "1"\nraise SystemExit("pwned")\n'


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _poison(archive: bytes) -> bytes:
    """The same archive with every project module replaced by code that is in no source file."""
    source, target = zipfile.ZipFile(io.BytesIO(archive)), io.BytesIO()
    with zipfile.ZipFile(target, "w") as poisoned:
        for info in source.infolist():
            data = source.read(info)
            if info.filename.endswith(".py") and not info.filename.startswith("_skillc_entry_"):
                data = MALICIOUS
            poisoned.writestr(info, data)
    return target.getvalue()


@pytest.fixture
def keys(tmp_path: Path) -> dict[str, dict[str, str]]:
    """The environments of two users, each with a cache key of their own."""
    return {who: {"XDG_CACHE_HOME": str(tmp_path / f"{who}-cache")} for who in ("attacker", "victim")}


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    scaffold_project(Path("demo"), cwd=tmp_path)
    return tmp_path / "demo"


@pytest.fixture
def reference(tmp_path: Path, skill: RunSkill, keys: dict[str, dict[str, str]]) -> dict[str, bytes]:
    """What a compile of the untouched scaffold writes, with no cache at all."""
    scaffold_project(Path("pristine"), cwd=tmp_path, name="demo")
    assert skill("compile", cwd=tmp_path / "pristine", env=keys["victim"]).code == 0
    tree = _tree(tmp_path / "pristine/dist")
    shutil.rmtree(tmp_path / "victim-cache")
    return tree


FORGE = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from skillc.compiler.artifacts import CACHE_TYPES
    from skillc.compiler.cache import load_cache, write_cache
    sys.path.insert(0, sys.argv[2])
    from test_cache_trust import _poison

    shards = sorted((Path(sys.argv[1]) / ".skill/cache").glob("artifacts-*.pickle"))
    assert shards, "the attacker's compile wrote no artifacts cache"
    for path in shards:
        cache = load_cache(path, CACHE_TYPES)
        assert cache, "the attacker's own cache did not load"
        for slot, entry in list(cache.items()):
            cache[slot] = entry._replace(files=entry.files._replace(archive=_poison(entry.files.archive)))
        write_cache(path, cache)
    """
)


def test_a_forged_artifact_cache_never_reaches_a_bundle(
    skill: RunSkill, demo: Path, keys: dict[str, dict[str, str]], reference: dict[str, bytes]
) -> None:
    assert skill("compile", cwd=demo, env=keys["attacker"]).code == 0
    forged = subprocess.run(
        [sys.executable, "-c", FORGE, str(demo), str(Path(__file__).parent)],
        env={**keys["attacker"], "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert forged.returncode == 0, forged.stderr
    shutil.rmtree(demo / "dist")
    # The forgery is real: with the attacker's key, a compile ships the poisoned bundles.
    assert skill("compile", cwd=demo, env=keys["attacker"]).code == 0
    assert MALICIOUS in zipfile.ZipFile(demo / "dist/tools/lookup_order/bundle.zip").read("skills/tools/store.py")
    shutil.rmtree(demo / "dist")
    result = skill("compile", cwd=demo, env=keys["victim"])
    assert result.code == 0 and "wrote dist/" in result.stdout
    assert _tree(demo / "dist") == reference
    run = skill(
        "test", "--name", "lookup_order", "--input", '{"order_id": "A1001"}', "--json", cwd=demo, env=keys["victim"]
    )
    assert run.code == 0 and json.loads(run.stdout)["is_error"] is False


def test_a_committed_report_and_a_rewritten_dist_are_rebuilt_from_the_sources(
    skill: RunSkill, demo: Path, keys: dict[str, dict[str, str]], reference: dict[str, bytes]
) -> None:
    assert skill("compile", cwd=demo, env=keys["attacker"]).code == 0
    bundle = demo / "dist/tools/lookup_order/bundle.zip"
    bundle.write_bytes(_poison(bundle.read_bytes()))
    manifest_path = demo / "dist/manifest.json"
    manifest = json.loads(manifest_path.read_text())
    for tool in manifest["tools"]:
        if tool["name"] == "lookup_order":
            tool["sha256"] = hashlib.sha256(bundle.read_bytes()).hexdigest()
    manifest_path.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    # The clone: the victim gets the files, not their inodes (a copy, as git checkout makes).
    clone = demo.parent / "clone"
    shutil.copytree(demo, clone, symlinks=True)
    result = skill("compile", cwd=clone, env=keys["victim"])
    assert result.code == 0
    assert "wrote dist/" in result.stdout and "up to date" not in result.stdout
    assert _tree(clone / "dist") == reference
    run = skill(
        "test", "--name", "lookup_order", "--input", '{"order_id": "A1001"}', "--json", cwd=clone, env=keys["victim"]
    )
    assert run.code == 0 and json.loads(run.stdout)["output"].find("pwned") == -1


def test_a_copied_project_does_not_trust_its_dist_even_for_the_same_user(
    skill: RunSkill, demo: Path, keys: dict[str, dict[str, str]]
) -> None:
    assert skill("compile", cwd=demo, env=keys["victim"]).code == 0
    copy = demo.parent / "copy"
    shutil.copytree(demo, copy, symlinks=True)
    bundle = copy / "dist/tools/lookup_order/bundle.zip"
    bundle.write_bytes(_poison(bundle.read_bytes()))
    result = skill("compile", cwd=copy, env=keys["victim"])
    assert result.code == 0 and "wrote dist/" in result.stdout
    assert MALICIOUS not in bundle.read_bytes()


def test_an_unsigned_cache_is_ignored_before_it_is_read(
    skill: RunSkill, demo: Path, keys: dict[str, dict[str, str]]
) -> None:
    assert skill("compile", cwd=demo, env=keys["victim"]).code == 0
    cache = demo / ".skill/cache"
    for path in cache.iterdir():  # what older skillc wrote, or anyone: a bare pickle
        path.write_bytes(b"\x80\x05\x95garbage that would be unpickled")
    result = skill("compile", "--format", "json", cwd=demo, env=keys["victim"])
    assert result.code == 0
    stats = json.loads(result.stdout)["stats"]
    assert stats["parsed"] == stats["files"] > 0


def test_a_symlinked_skill_folder_is_neither_written_nor_emptied(
    skill: RunSkill, demo: Path, keys: dict[str, dict[str, str]]
) -> None:
    elsewhere = write_tree(demo.parent / "elsewhere", {"precious.txt": "keep\n", "trash/also.txt": "keep\n"})
    (demo / ".skill").symlink_to(elsewhere, target_is_directory=True)
    before = _tree(elsewhere)
    assert skill("compile", cwd=demo, env=keys["victim"]).code == 0
    agent = demo / "src/agent.py"
    agent.write_text(agent.read_text() + "\n")
    assert skill("compile", cwd=demo, env=keys["victim"]).code == 0  # replaces dist/: no trash through the link
    assert _tree(elsewhere) == before
