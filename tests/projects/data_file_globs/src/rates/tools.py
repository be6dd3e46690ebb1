from pathlib import Path

from skillc import tool


@tool
def listing() -> str:
    """The files bundled with this package, other than modules."""
    here = Path(__file__).parent
    found = [path.relative_to(here).as_posix() for path in here.rglob("*") if path.is_file()]
    above = sorted(path.name for path in here.parent.iterdir())
    return " ".join(sorted(name for name in found if not name.endswith(".py"))) + " | " + " ".join(above)
