"""What the document store raises: one branch of skillc's error hierarchy.

Each is a ``UserError``, so the command line prints it without a traceback, and each is
also the built-in exception a tool would catch for the same problem (``ValueError`` for
bad input, ``LookupError`` for a missing document), so that a tool's own ``except``
clauses keep working.  Messages name fields and collections, never a document's values
or a database URL's password.
"""

from __future__ import annotations

from ...contracts.errors import EXIT_USAGE, UserError

__all__ = ["DataError", "DuplicateId", "InvalidData", "NotFound", "StoreUnavailable"]


class DataError(UserError):
    """Something the document store could not do."""


class InvalidData(DataError, ValueError):
    """A document, filter, sort, id or collection name that the store refuses (nothing was written)."""

    exit_code = EXIT_USAGE


class NotFound(DataError, LookupError):
    """The document with that id does not exist."""


class DuplicateId(DataError, ValueError):
    """``create`` was given an id that a document of the collection already has."""


class StoreUnavailable(DataError):
    """The store cannot be opened or reached (a server that does not answer, a file that cannot be written).

    A store that is configured wrongly (a bad URL, a missing driver) is a ``ConfigError`` instead.
    """
