"""1,000 concurrent patches of one document, from 4 processes of 5 threads each, lose no update."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from datastore.stores import BACKENDS, make_store

PROCESSES, THREADS, PATCHES = 4, 5, 50  # 4 x 5 x 50 = 1,000
WAIT = 60.0

#: One writer process: opens the store as a tool's project would, waits for the start, patches.
WRITER = """
import sys, threading, time
from pathlib import Path
from skillc.runtime.data import open_store

folder, url, worker, start = sys.argv[1], sys.argv[2], sys.argv[3], Path(sys.argv[4])
threads, patches = int(sys.argv[5]), int(sys.argv[6])
store = open_store(Path(folder), "sandbox", url=url or None, folder=Path(folder))
orders = store["orders"]
orders.get("hot")  # connected before the start, so that the patches race each other, not the connects
print("ready", flush=True)
deadline = time.monotonic() + 30
while not start.exists() and time.monotonic() < deadline:
    time.sleep(0.005)

def patch(thread):
    for index in range(patches):
        orders.patch("hot", {"hits": {f"{worker}-{thread}-{index}": True}, "last": worker})

threads = [threading.Thread(target=patch, args=(number,)) for number in range(threads)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
store.close()
"""


@pytest.mark.parametrize("kind", BACKENDS)
def test_concurrent_patches_from_several_processes_lose_no_update(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    store = make_store(kind, tmp_path, request)
    url = request.getfixturevalue("postgres_url") if kind == "postgres" else ""
    store["orders"].create({"hits": {}, "status": "new"}, id="hot")
    start = tmp_path / "start"
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(tmp_path), url, f"p{number}", str(start), str(THREADS), str(PATCHES)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for number in range(PROCESSES)
    ]
    try:
        for writer in writers:
            assert writer.stdout is not None and writer.stdout.readline() == "ready\n", writer.stderr
        began = time.monotonic()
        start.touch()
        for writer in writers:
            _, errors = writer.communicate(timeout=WAIT)
            assert writer.returncode == 0, errors
        elapsed = time.monotonic() - began
    finally:
        for writer in writers:
            if writer.poll() is None:
                writer.kill()
                writer.wait(timeout=WAIT)
    document = store["orders"].get("hot")
    store.close()
    assert document is not None
    assert len(document["hits"]) == PROCESSES * THREADS * PATCHES
    assert document["status"] == "new" and document["last"] in {f"p{number}" for number in range(PROCESSES)}
    assert elapsed < 20, f"1,000 patches took {elapsed:.1f} s"
