"""The shop's tools: CURRENCY comes first, because shop.lookup imports it from here."""

CURRENCY = "EUR"

from . import lookup  # noqa: E402
from .lookup import Lookup  # noqa: E402

__all__ = ["CURRENCY", "Lookup", "lookup"]
