"""The shop's tools, importable from one place."""

from .lookup import lookup
from .weather import weather

__all__ = ["lookup", "weather"]
