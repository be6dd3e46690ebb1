"""A package re-exporting a model from a submodule."""

from .inner import Reexported

__all__ = ["Reexported"]
