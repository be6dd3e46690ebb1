"""The shop's tools, importable from one place."""

from .cancel import cancel as cancel_order
from .lookup import Lookup
from tools.track import track

__all__ = ["Lookup", "cancel_order", "track"]
