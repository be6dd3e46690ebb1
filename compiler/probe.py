"""Import one bundle the way a deployed runtime does, in isolation, and say what it holds.

Each bundle is imported in its own ``python -I`` process: no user site, no
``PYTHON*`` variables, a fresh temporary working folder, and on ``sys.path`` only
the environment's installed packages.  In that process the bundle is loaded by the
runtime's own loader (``skillc.runtime.bundles.ModuleSpace``), exactly as a deployed
runtime loads it: its modules come from the archive's bytes alone, so a module that
the static closure missed (one loaded by ``importlib.import_module``, say) fails to
import, and the archive is extracted (into the probe's temporary folder, removed
afterwards) so that a module reading its data file at import time
(``Path(__file__).parent / "x.json"``) works as it does in the runtime.  The
compiler never imports the runtime itself: only the probe process does.
The probe writes its answer to a file rather than stdout, which the tool's own code
may print to, and every probe has a timeout.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import zipfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["PROBE_TIMEOUT", "Probe", "probe_bundle", "probe_bundles"]

PROBE_TIMEOUT = 60.0

_PROBE = r"""
import json, sys
from pathlib import Path
archive, entry, attribute, answer, cache = sys.argv[1:6]
sys.dont_write_bytecode = True
result = {"ok": False}
try:
    from skillc.runtime.bundles import ModuleSpace
    from skillc.runtime.sdk import Tool
    Path(cache).mkdir(mode=0o700)
    data = Path(archive).read_bytes()
    value = ModuleSpace(cache=Path(cache)).import_bundle(data, archive, entry, attribute)
    result["ok"] = True
    if isinstance(value, Tool):
        result["input"] = value.input_schema.model_json_schema() if value.input_schema else None
        result["output"] = value.output_schema.model_json_schema() if value.output_schema else None
    elif not callable(value):
        result = {"ok": False, "error": f"{attribute} is {type(value).__name__}, not a tool or condition"}
except BaseException as error:
    result = {"ok": False, "error": f"{type(error).__name__}: {error}", "error_type": type(error).__name__}
with open(answer, "w", encoding="utf-8") as stream:
    json.dump(result, stream)
"""


@dataclass(frozen=True)
class Probe:
    """What importing one bundle in isolation showed."""

    ok: bool
    error: str | None = None
    input_schema: Any = None
    output_schema: Any = None
    #: The class name of the exception importing raised (``None`` when it did not get that far).
    error_type: str | None = None


def _zipped(folder: Path, target: Path) -> Path:
    """The files of ``folder`` (an extracted bundle) as an archive at ``target``, which the runtime loads."""
    with zipfile.ZipFile(target, "w") as archive:
        for path in sorted(folder.rglob("*")):
            if path.is_file() and not path.is_symlink():
                archive.write(path, path.relative_to(folder).as_posix())
    return target


def probe_bundle(archive: Path, entry: str, attribute: str, *, timeout: float = PROBE_TIMEOUT) -> Probe:
    """Import ``entry`` from ``archive`` (a bundle, or the folder one was extracted to) alone
    and report its schemas, or why it failed."""
    with tempfile.TemporaryDirectory(prefix="skillc-probe-") as work:
        if archive.is_dir():
            archive = _zipped(archive, Path(work) / "bundle.zip")
        answer = Path(work) / "answer.json"
        cache = Path(work) / "bundles"
        command = [
            sys.executable,
            "-I",
            "-c",
            _PROBE,
            str(archive.resolve()),
            entry,
            attribute,
            str(answer),
            str(cache),
        ]
        try:
            finished = subprocess.run(
                command,
                cwd=work,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                timeout=timeout,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return Probe(False, f"importing the bundle took longer than {timeout:g}s")
        try:
            result = json.loads(answer.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            tail = finished.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no answer"]
            return Probe(False, f"the import process exited {finished.returncode}: {tail[0]}")
    if not result.get("ok"):
        error_type = result.get("error_type")
        return Probe(False, str(result.get("error")), error_type=error_type if isinstance(error_type, str) else None)
    return Probe(True, None, result.get("input"), result.get("output"))


def probe_bundles(jobs: list[tuple[Path, str, str]], *, timeout: float = PROBE_TIMEOUT) -> list[Probe]:
    """Probe several bundles, a few processes at a time, results in order."""
    if not jobs:
        return []
    with ThreadPoolExecutor(max_workers=4) as pool:
        return list(pool.map(lambda job: probe_bundle(*job, timeout=timeout), jobs))
