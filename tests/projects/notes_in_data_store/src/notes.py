"""Notes kept in ctx.data: every tool, call and process sees the same ones."""

from skillc import ToolContext, tool


@tool
def add_note(text: str, *, ctx: ToolContext) -> int:
    """Add a note."""
    notes = ctx.data["notes"]
    notes.create({"text": text})
    return notes.find({}).total


@tool
def list_notes(*, ctx: ToolContext) -> list[str]:
    """List the notes."""
    return [note["text"] for note in ctx.data["notes"].find({}, sort=["text"]).items]
