"""Notes kept in a file next to the module: each tool would write its own copy of its bundle."""

import json
import os
import shutil
from pathlib import Path

from skillc import tool

NOTES = Path(__file__).parent / "notes.json"
ARCHIVE = os.path.join(os.path.dirname(__file__), "archive")


@tool
def add_note(text: str) -> int:
    """Add a note."""
    notes = json.loads(NOTES.read_text()) if NOTES.exists() else []
    notes.append(text)
    NOTES.write_text(json.dumps(notes))
    return len(notes)


@tool
def list_notes() -> list[str]:
    """List the notes."""
    return json.loads(NOTES.read_text()) if NOTES.exists() else []


@tool
def archive_notes() -> str:
    """Move the notes to the archive."""
    os.makedirs(ARCHIVE, exist_ok=True)
    shutil.move(str(NOTES), os.path.join(ARCHIVE, "notes.json"))
    with open(Path(__file__).parent / "archive.log", "a", encoding="utf-8") as log:
        log.write("archived\n")
    return "archived"
