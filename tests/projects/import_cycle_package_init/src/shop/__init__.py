"""The shop's tools."""

from .lookup import Lookup

CURRENCY = "EUR"

__all__ = ["CURRENCY", "Lookup"]
