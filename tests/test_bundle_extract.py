"""A verified bundle is extracted once into a folder named by its sha256, safely.

Modules keep being compiled from the verified bytes in memory; the extracted folder
gives them a real ``__file__``, so data files bundled with them can be read.
"""

from __future__ import annotations

import asyncio
import hashlib
import io
import json
import os
import stat
import subprocess
import sys
import tempfile
import textwrap
import zipfile
from pathlib import Path

import pytest
from helpers import RunSkill, write_project
from skillc.compiler.bundle import write_archive
from skillc.runtime import extract
from skillc.runtime.bundle_cache import remove_tree
from skillc.runtime.bundles import LoadError, ModuleSpace
from skillc.runtime.distfiles import read_manifest
from skillc.runtime.store import DistStore

MODULE = (
    "import json\n"
    "from importlib.resources import files\n"
    "from pathlib import Path\n\n"
    'PRICES = json.loads((Path(__file__).parent / "data" / "prices.json").read_text())\n'
    'NOTE = files(__package__).joinpath("note.txt").read_text()\n'
    "HERE = __file__\n"
)
FILES = {
    "shop/__init__.py": b"",
    "shop/prices.py": MODULE.encode(),
    "shop/data/prices.json": b'{"apple": 3}',
    "shop/note.txt": b"fresh",
}


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """This test's own ``XDG_CACHE_HOME``: where bundles are extracted to."""
    home = tmp_path / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    return home / "skillc" / "bundles"


def _archive(files: dict[str, bytes]) -> bytes:
    return write_archive(sorted(files.items()))


def _load(data: bytes, attribute: str = "PRICES") -> object:
    return ModuleSpace().import_bundle(data, "dist/tools/shop/bundle.zip", "shop.prices", attribute)


def test_modules_get_a_real_file_and_read_their_data(cache: Path) -> None:
    data = _archive(FILES)
    assert _load(data) == {"apple": 3}
    assert _load(data, "NOTE") == "fresh"
    here = Path(str(_load(data, "HERE")))
    folder = cache / hashlib.sha256(data).hexdigest()
    assert here == folder / "shop" / "prices.py" and here.read_bytes() == FILES["shop/prices.py"]
    assert sorted(path.name for path in cache.iterdir()) == [folder.name]  # no temporary folder left


def test_the_extraction_is_reused(cache: Path) -> None:
    data = _archive(FILES)
    _load(data)
    folder = cache / hashlib.sha256(data).hexdigest()
    before = {path: path.stat().st_ino for path in folder.rglob("*")}
    assert _load(data) == {"apple": 3}
    assert {path: path.stat().st_ino for path in folder.rglob("*")} == before
    assert extract.extracted_folder(folder.name, {"other.txt": b"x"}) == folder  # trusted by its name
    assert not (folder / "other.txt").exists()


def _malicious(name: str, *, link: bool = False) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for member, content in FILES.items():
            archive.writestr(member, content)
        info = zipfile.ZipInfo(name)
        if link:
            info.external_attr = (0o120777 << 16) | 0
        archive.writestr(info, b"/etc/passwd" if link else b"owned")
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("name", "link"),
    [("../escaped.txt", False), ("shop/../../escaped.txt", False), ("/tmp/escaped.txt", False), ("shop/link", True)],
    ids=["dotdot", "nested-dotdot", "absolute", "symlink"],
)
def test_a_malicious_member_is_refused(cache: Path, tmp_path: Path, name: str, link: bool) -> None:
    with pytest.raises(LoadError, match="which skillc never writes"):
        _load(_malicious(name, link=link))
    assert not (tmp_path / "escaped.txt").exists() and not (cache.parent / "escaped.txt").exists()
    assert not cache.exists() or not any(cache.iterdir())  # refused before anything is written


def test_without_a_cache_folder_modules_still_load_from_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(extract, "bundle_cache_root", lambda: None)
    data = _archive({"shop/__init__.py": b"", "shop/prices.py": b"PRICES = {'apple': 3}\n"})
    assert _load(data) == {"apple": 3}


def test_a_folder_someone_else_may_write_is_not_used(cache: Path) -> None:
    data = _archive({"shop/__init__.py": b"", "shop/prices.py": b"HERE = __file__\n"})
    folder = cache / hashlib.sha256(data).hexdigest()
    folder.mkdir(parents=True)
    (folder / "planted.py").write_text("")
    folder.chmod(0o777)
    assert extract.extracted_folder(folder.name, {"shop/prices.py": b""}) is None
    here = str(_load(data, "HERE"))  # served from memory, the planted folder ignored
    assert not here.startswith(str(folder)) and [path.name for path in folder.iterdir()] == ["planted.py"]


CONCURRENT = textwrap.dedent(
    """
    import json, sys
    from pathlib import Path
    from skillc.runtime.bundles import ModuleSpace
    data = Path(sys.argv[1]).read_bytes()
    space = ModuleSpace()
    prices = space.import_bundle(data, sys.argv[1], "shop.prices", "PRICES")
    here = space.import_bundle(data, sys.argv[1], "shop.prices", "HERE")
    print(json.dumps({"prices": prices, "here": here}))
    """
)


def test_concurrent_processes_extract_the_same_bundle_once(cache: Path, tmp_path: Path) -> None:
    data = _archive(FILES)
    bundle = tmp_path / "bundle.zip"
    bundle.write_bytes(data)
    env = {**os.environ, "XDG_CACHE_HOME": str(cache.parent.parent)}
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", CONCURRENT, str(bundle)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        for _ in range(8)
    ]
    results = []
    for process in processes:
        out, err = process.communicate(timeout=60)
        assert process.returncode == 0, err.decode()
        results.append(json.loads(out))
    folder = cache / hashlib.sha256(data).hexdigest()
    assert all(result == {"prices": {"apple": 3}, "here": str(folder / "shop" / "prices.py")} for result in results)
    assert sorted(path.name for path in cache.iterdir()) == [folder.name]  # the losers dropped their copies
    assert sorted(path.relative_to(folder).as_posix() for path in folder.rglob("*") if path.is_file()) == sorted(FILES)


AGENT = (
    "from skillc import Agent, Skill\n\n"
    "from shop.tools import price\n\n"
    'agent = Agent(name="a", skills=[Skill(name="s", description="Prices.", tools=[price])])\n'
)
TOOLS = (
    "import json\nfrom pathlib import Path\n\nfrom skillc import tool\n\n\n"
    "@tool\ndef price(product: str) -> str:\n"
    '    """The price of a product."""\n'
    '    return str(json.loads((Path(__file__).parent / "prices.json").read_text())[product])\n'
)


def test_a_tampered_bundle_is_refused_before_it_is_extracted(
    tmp_path: Path, skill: RunSkill, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    project = write_project(
        tmp_path / "p",
        {"agent.py": AGENT, "shop/__init__.py": "", "shop/tools.py": TOOLS, "shop/prices.json": '{"apple": 3}'},
    )
    assert skill("compile", str(project), env={"XDG_CACHE_HOME": str(cache)}).code == 0
    dist = project / "dist"
    (bundle,) = dist.rglob("*.zip")
    with zipfile.ZipFile(bundle) as archive:
        files = {info.filename: archive.read(info) for info in archive.infolist() if not info.is_dir()}
    assert files["shop/prices.json"] == b'{"apple": 3}'

    def load() -> object:
        store = DistStore(dist, read_manifest(dist))
        try:
            return asyncio.run(store.load_tool("price", 30))
        finally:
            store.close()

    load()
    bundles = cache / "skillc" / "bundles"
    extracted = sorted(path.name for path in bundles.iterdir())
    assert extracted == [hashlib.sha256(bundle.read_bytes()).hexdigest()]
    bundle.write_bytes(_archive({**files, "shop/prices.json": b'{"apple": 0}'}))
    with pytest.raises(LoadError, match="does not match the sha256"):
        load()
    assert sorted(path.name for path in bundles.iterdir()) == extracted  # nothing new was extracted


def test_an_extracted_folder_is_sealed_read_only(cache: Path) -> None:
    data = _archive(FILES)
    _load(data)
    folder = cache / hashlib.sha256(data).hexdigest()
    modes = {path.relative_to(folder).as_posix(): stat.S_IMODE(path.lstat().st_mode) for path in folder.rglob("*")}
    assert modes == {"shop": 0o555, "shop/data": 0o555, **{name: 0o444 for name in FILES}}
    assert stat.S_IMODE(folder.lstat().st_mode) == 0o555


#: A tool that writes next to its module through a path the compile cannot follow (a class attribute).
_WRITER = '''\
from pathlib import Path

from skillc import tool


class Store:
    path = Path(__file__).parent / "notes.json"


@tool
def add_note(text: str) -> str:
    """Add a note."""
    Store.path.write_text(text)
    return "saved"
'''
_WRITER_AGENT = (
    "from skillc import Agent, Skill\nfrom notes import add_note\n\n"
    'agent = Agent(name="a", skills=[Skill(name="s", tools=[add_note])])\n'
)
_PRUNE = (
    "import sys\nfrom pathlib import Path\nfrom skillc.runtime.bundle_cache import prune_bundles\n"
    "print(len(prune_bundles(Path(sys.argv[1]), max_age=0)))\n"
)


def _unprivileged(folder: Path) -> list[str]:
    """The prefix that runs a command as a user whom permissions bind, owning ``folder``."""
    if os.geteuid() != 0:
        return []
    prefix = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    try:
        probe = subprocess.run([*prefix, sys.executable, "-c", "import skillc"], capture_output=True, timeout=60)
    except FileNotFoundError:
        pytest.skip("running as root, and setpriv is not here to run as another user")
    if probe.returncode != 0:
        pytest.skip("running as root, and the user nobody cannot run this Python")
    for path in [folder, *folder.rglob("*")]:
        os.lchown(path, 65534, 65534)
    return prefix


def test_a_tool_that_writes_into_its_bundle_fails_and_the_sealed_folder_is_still_pruned(tmp_path: Path) -> None:
    """Where permissions bind (not for the superuser), the write fails loudly, never into the cache."""
    home = Path(tempfile.mkdtemp(prefix="skillc-sealed-"))  # outside tmp_path: another user must reach it
    try:
        project = write_project(home / "project", {"notes.py": _WRITER, "agent.py": _WRITER_AGENT, "notes.json": "[]"})
        (home / "cache").mkdir()
        prefix = _unprivileged(home)
        env = {**os.environ, "XDG_CACHE_HOME": str(home / "cache"), "HOME": str(home)}
        skill = [
            str(Path(sys.executable).with_name("skill")),
            "test",
            "--name",
            "add_note",
            "--input",
            '{"text": "hi"}',
        ]
        called = subprocess.run(
            [*prefix, *skill, "--json", str(project)], capture_output=True, text=True, env=env, timeout=120
        )
        assert called.returncode == 1, called.stdout + called.stderr
        output = json.loads(called.stdout)["output"]
        assert output.startswith("The tool failed: PermissionError: [Errno 13] Permission denied: "), output
        [extracted] = [path for path in (home / "cache/skillc/bundles").iterdir() if not path.name.startswith(".")]
        assert (extracted / "notes.json").read_text() == "[]"
        pruned = subprocess.run(
            [*prefix, sys.executable, "-c", _PRUNE, str(home / "cache/skillc/bundles")],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
        assert (pruned.returncode, pruned.stdout) == (0, "1\n"), pruned.stderr
        assert list(extracted.parent.iterdir()) == []  # nothing left aside either
    finally:
        remove_tree(home)
