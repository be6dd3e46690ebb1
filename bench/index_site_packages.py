"""Index every ``.py`` file of the installed site-packages; no file may crash the indexer.

Usage: ``python bench/index_site_packages.py [FOLDER ...]`` (default: this interpreter's
site-packages folders).  Prints how many files were indexed, how many became
diagnostics (by code), and exits 1 if any file produced ``skill/internal-error`` —
a crash of the indexer, which must never happen whatever the input.
"""

from __future__ import annotations

import argparse
import collections
import site
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from skillc.compiler.index_types import ModuleIndex
from skillc.compiler.sources import _index_one


def _index(path: Path) -> tuple[str, list[str]]:
    try:
        source = path.read_bytes()
    except OSError as error:
        return str(path), [f"unreadable: {error}"]
    result = _index_one(str(path), path.stem, path.name == "__init__.py", source)
    if isinstance(result, ModuleIndex):
        return str(path), []
    return str(path), [f"{item.code}: {item.message}" for item in result]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="*", type=Path)
    arguments = parser.parse_args()
    folders = arguments.folders or [Path(p) for p in site.getsitepackages()]
    files = sorted({p for folder in folders for p in folder.rglob("*.py") if p.is_file()})
    started = time.perf_counter()
    outcomes: collections.Counter[str] = collections.Counter()
    crashes: list[tuple[str, str]] = []
    with ProcessPoolExecutor() as pool:
        for path, problems in pool.map(_index, files, chunksize=64):
            if not problems:
                outcomes["indexed"] += 1
            for problem in problems:
                outcomes[problem.split(":", 1)[0]] += 1
                if problem.startswith("skill/internal-error"):
                    crashes.append((path, problem))
    elapsed = time.perf_counter() - started
    print(f"{len(files)} files under {', '.join(map(str, folders))} in {elapsed:.1f}s")
    for outcome, count in sorted(outcomes.items()):
        print(f"  {outcome}: {count}")
    for path, problem in crashes:
        print(f"CRASH {path}: {problem}")
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
