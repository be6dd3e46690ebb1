import csv
import json
import os
from importlib import resources
from pathlib import Path

from skillc import tool

DATA = Path(__file__).parent / "data"
PRICES = json.loads((DATA / "prices.json").read_text())


@tool
def lookup(item: str) -> str:
    """Look an item up.

    Args:
        item: The item's id.
    """
    stock = json.loads(Path(__file__).parent.joinpath("data", "stock.json").read_text())
    with open(DATA / "rates.csv") as stream:
        rates = list(csv.reader(stream))
    legacy = open(os.path.join(os.path.dirname(__file__), "legacy", "old.txt")).read()
    notes = resources.files(__package__).joinpath("notes.txt").read_text()
    outside = (Path(__file__).parent.parent.parent / "README.md").read_text()
    return f"{PRICES[item]} {stock[item]} {rates} {legacy} {notes} {outside}"
