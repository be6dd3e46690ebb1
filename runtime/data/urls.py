"""Database URLs: which backend one names, and how to show one without its password."""

from __future__ import annotations

import re
from typing import Final
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit, urlunsplit

from ...contracts.errors import ConfigError

__all__ = ["POSTGRES_SCHEMES", "backend_kind", "redact_url", "without_secrets"]

POSTGRES_SCHEMES: Final = ("postgresql", "postgres")
_SECRET_PARAMETERS: Final = frozenset({"password", "passfile", "sslpassword", "sslkey"})
HIDDEN: Final = "***"


def redact_url(url: str) -> str:
    """``url`` with its password (in the authority or the query) replaced by ``***``.

    Anything that cannot be parsed as a URL is shown only by its scheme.
    """
    try:
        parts = urlsplit(url)
        netloc = parts.netloc
        if "@" in netloc:
            credentials, _, host = netloc.rpartition("@")
            user, colon, _password = credentials.partition(":")
            netloc = f"{user}{':' + HIDDEN if colon else ''}@{host}"
        query = parts.query
        if query:
            pairs = parse_qsl(query, keep_blank_values=True)
            query = urlencode(
                [(key, HIDDEN if key.lower() in _SECRET_PARAMETERS else value) for key, value in pairs], safe="/*"
            )
        return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))
    except ValueError:
        scheme = re.match(r"[A-Za-z][A-Za-z0-9+.-]*", url)
        return f"{scheme.group() if scheme else 'a URL'}://{HIDDEN}"


def without_secrets(text: str, url: str) -> str:
    """``text`` (a driver's message about ``url``) with every secret of ``url`` in it replaced by ``***``."""
    secrets: set[str] = set()
    try:
        parts = urlsplit(url)
        credentials = parts.netloc.rpartition("@")[0]
        if ":" in credentials:
            secrets.add(credentials.partition(":")[2])
        secrets.update(value for key, value in parse_qsl(parts.query) if key.lower() in _SECRET_PARAMETERS)
    except ValueError:
        return "(a message about a URL that cannot be parsed)"
    for secret in sorted(secrets | {unquote(secret) for secret in secrets}, key=len, reverse=True):
        if secret:
            text = text.replace(secret, HIDDEN)
    return text


def backend_kind(url: str, origin: str) -> str:
    """``postgresql`` for a PostgreSQL URL; a ``ConfigError`` naming ``origin`` for anything else."""
    scheme = url.partition("://")[0].lower() if "://" in url else ""
    if scheme in POSTGRES_SCHEMES:
        return "postgresql"
    raise ConfigError(
        f"{origin} must be a PostgreSQL URL (postgresql://...), not {redact_url(url)!r}",
        hint="leave it unset to keep the data in SQLite under .skill/data/",
    )
