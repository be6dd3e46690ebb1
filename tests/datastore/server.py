"""A PostgreSQL server of one's own, in a temporary folder: for the tests and ``bench/data.py``.

It runs from the binaries that the ``pgserver`` wheel ships (a test extra), or Debian's
``postgresql`` package when it is installed: ``initdb`` in a temporary folder, then
``postgres`` listening on a unix socket in that folder only (no port, no network), as the
unprivileged ``nobody`` when this runs as root (PostgreSQL refuses to run as root), with
durability turned off (these databases are thrown away).  Every wait is bounded.
"""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import stat
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from importlib.util import find_spec
from pathlib import Path
from typing import Any

#: The longest wait for initdb, for the server to accept connections, and for it to stop.
SERVER_WAIT = 60.0


class ServerUnavailable(Exception):
    """Why no server could be started here."""


def server_binaries() -> Path | None:
    """The folder with ``initdb`` and ``postgres``: pgserver's, else Debian's newest."""
    spec = find_spec("pgserver")  # found, not imported: importing it touches the user's runtime folder
    for location in (spec.submodule_search_locations or []) if spec else []:
        folder = Path(location) / "pginstall" / "bin"
        if (folder / "postgres").is_file():
            return folder
    debian = sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=lambda path: path.parent.name, reverse=True)
    return next((folder for folder in debian if (folder / "postgres").is_file()), None)


def _open_to_all(path: Path) -> bool:
    """Whether every user may reach ``path`` (each folder above it searchable by others)."""
    return all(folder.stat().st_mode & stat.S_IXOTH for folder in path.parents) and bool(
        path.stat().st_mode & stat.S_IXOTH
    )


def _binaries_for(run_as: dict[str, Any], binaries: Path, folder: Path) -> Path:
    """``binaries``, or a copy of the installation in ``folder`` when the unprivileged user cannot reach them.

    The copy keeps the wheel's layout: ``pgserver/pginstall/`` beside ``pgserver.libs/``,
    where the binaries' run path finds the libraries.
    """
    if not run_as or _open_to_all(binaries / "postgres"):
        return binaries
    folder.chmod(0o711)  # the unprivileged user reaches the copy through it (and may not list it)
    top = binaries.parents[2]  # site-packages, for pgserver
    copy = folder / "install"
    for part in (binaries.parent, top / "pgserver.libs"):
        if part.is_dir():
            shutil.copytree(part, copy / part.relative_to(top), symlinks=True)
    for here, folders, files in os.walk(copy):
        for name in folders + files:
            target = Path(here) / name
            if not target.is_symlink():
                runnable = target.is_dir() or os.access(target, os.X_OK)
                target.chmod(target.stat().st_mode | stat.S_IROTH | (stat.S_IXOTH if runnable else 0))
    return copy / binaries.relative_to(top)


def _unprivileged() -> dict[str, Any]:
    """How to run the server: as ``nobody`` when this process is root."""
    if os.geteuid() != 0:
        return {}
    try:
        account = pwd.getpwnam("nobody")
    except KeyError:
        raise ServerUnavailable("running as root, and there is no 'nobody' account to run PostgreSQL as") from None
    return {"user": account.pw_uid, "group": account.pw_gid, "extra_groups": []}


@contextmanager
def running_postgres() -> Iterator[str]:
    """Start a server, yield the URL of its ``postgres`` database, stop it and remove its folder."""
    binaries = server_binaries()
    if binaries is None:
        raise ServerUnavailable(
            "no PostgreSQL server binaries: install the test extra (pgserver) or Debian's postgresql"
        )
    run_as = _unprivileged()
    folder = Path(tempfile.mkdtemp(prefix="skillc-pg-"))
    server: subprocess.Popen[bytes] | None = None
    try:
        if run_as:
            os.chown(folder, run_as["user"], run_as["group"])
            binaries = _binaries_for(run_as, binaries, folder)
        data, log = folder / "data", folder / "server.log"
        made = subprocess.run(
            [
                binaries / "initdb",
                "-D",
                data,
                "-U",
                "postgres",
                "--auth=trust",
                "-E",
                "UTF8",
                "--locale=C",
                "--no-sync",
            ],
            capture_output=True,
            timeout=SERVER_WAIT,
            check=False,
            **run_as,
        )
        if made.returncode != 0:
            raise ServerUnavailable(f"initdb failed: {made.stderr.decode(errors='replace').strip()[-500:]}")
        settings = {
            "listen_addresses": "",
            "unix_socket_directories": str(folder),
            "fsync": "off",
            "synchronous_commit": "off",
            "full_page_writes": "off",
            "max_connections": "200",
        }
        options = [part for key, value in settings.items() for part in ("-c", f"{key}={value}")]
        with log.open("wb") as output:
            server = subprocess.Popen(
                [binaries / "postgres", "-D", data, *options], stdout=output, stderr=subprocess.STDOUT, **run_as
            )
        url = f"postgresql://postgres@/postgres?host={folder}"
        _wait_until_ready(url, server, log)
        yield url
    finally:
        if server is not None:
            _stop(server)
        shutil.rmtree(folder, ignore_errors=True)


def _wait_until_ready(url: str, server: subprocess.Popen[bytes], log: Path) -> None:
    import psycopg

    deadline = time.monotonic() + SERVER_WAIT
    while True:
        try:
            psycopg.connect(url, connect_timeout=2).close()
            return
        except psycopg.OperationalError:
            if server.poll() is not None or time.monotonic() > deadline:
                raise ServerUnavailable(
                    f"PostgreSQL did not start: {log.read_text(errors='replace').strip()[-500:]}"
                ) from None
            time.sleep(0.1)


def _stop(server: subprocess.Popen[bytes]) -> None:
    """Stop the server (a fast shutdown), killing it if it has not stopped within the wait."""
    if server.poll() is None:
        server.send_signal(signal.SIGINT)
        try:
            server.wait(timeout=SERVER_WAIT)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(timeout=SERVER_WAIT)
