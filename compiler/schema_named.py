"""The named types of pydantic and the standard library that the static subset reads.

Each external name maps to a node kind (and constraints, for pydantic's constrained
aliases such as ``PositiveInt``), and each kind to the JSON ``model_json_schema()``
gives it, as pydantic writes it: URLs (``format: uri``), e-mail addresses, secrets
(``writeOnly``), paths, IP addresses and networks, UUID versions, base64 strings,
dates and datetimes with extra checks, ``ByteSize`` (a size like ``"1 KiB"`` or a number
of bytes), ``PaymentCardNumber`` and ``ImportString`` (a dotted name, whatever it names).  A leaf: the tables only, no reading.
"""

from __future__ import annotations

from typing import Any

__all__ = ["FORMAT_JSON", "NAMED_TYPES", "named_type"]


def _names(modules: tuple[str, ...], *names: str) -> list[str]:
    return [f"{module}.{name}" for name in names for module in modules]


_PYDANTIC_NETWORKS = ("pydantic", "pydantic.networks")
_PYDANTIC_TYPES = ("pydantic", "pydantic.types")

#: Kinds that are a string with fixed keywords (the JSON pydantic writes for them).
FORMAT_JSON: dict[str, dict[str, Any]] = {
    "uri": {"type": "string", "minLength": 1, "format": "uri"},
    "uri-2083": {"type": "string", "minLength": 1, "maxLength": 2083, "format": "uri"},
    "multi-host-uri": {"type": "string", "minLength": 1, "format": "multi-host-uri"},
    "email": {"type": "string", "format": "email"},
    "name-email": {"type": "string", "format": "name-email"},
    "secret": {"type": "string", "writeOnly": True, "format": "password"},
    "path": {"type": "string", "format": "path"},
    "file-path": {"type": "string", "format": "file-path"},
    "directory-path": {"type": "string", "format": "directory-path"},
    "ipv4": {"type": "string", "format": "ipv4"},
    "ipv6": {"type": "string", "format": "ipv6"},
    "ipv4network": {"type": "string", "format": "ipv4network"},
    "ipv6network": {"type": "string", "format": "ipv6network"},
    "ipv4interface": {"type": "string", "format": "ipv4interface"},
    "ipv6interface": {"type": "string", "format": "ipv6interface"},
    "ipvanyaddress": {"type": "string", "format": "ipvanyaddress"},
    "ipvanynetwork": {"type": "string", "format": "ipvanynetwork"},
    "ipvanyinterface": {"type": "string", "format": "ipvanyinterface"},
    "base64": {"type": "string", "format": "base64"},
    "base64url": {"type": "string", "format": "base64url"},
    "byte-size": {
        "anyOf": [{"pattern": r"^\s*(\d*\.?\d+)\s*(\w+)?", "type": "string"}, {"minimum": 0, "type": "integer"}]
    },
    "payment-card": {"type": "string", "minLength": 12, "maxLength": 19},
    "import-string": {"type": "string"},
    **{f"uuid{version}": {"type": "string", "format": f"uuid{version}"} for version in range(1, 9) if version != 2},
}

#: External name -> (kind, constraints).
NAMED_TYPES: dict[str, tuple[str, dict[str, object]]] = {
    **{
        name: ("uri", {})
        for name in _names(
            _PYDANTIC_NETWORKS,
            "AnyUrl",
            "AnyHttpUrl",
            "FileUrl",
            "FtpUrl",
            "AnyWebsocketUrl",
            "CockroachDsn",
            "AmqpDsn",
            "RedisDsn",
            "KafkaDsn",
            "MySQLDsn",
            "MariaDBDsn",
            "ClickHouseDsn",
            "SnowflakeDsn",
        )
    },
    **{name: ("uri-2083", {}) for name in _names(_PYDANTIC_NETWORKS, "HttpUrl", "WebsocketUrl")},
    **{name: ("multi-host-uri", {}) for name in _names(_PYDANTIC_NETWORKS, "PostgresDsn", "MongoDsn", "NatsDsn")},
    **{name: ("email", {}) for name in _names(_PYDANTIC_NETWORKS, "EmailStr")},
    **{name: ("name-email", {}) for name in _names(_PYDANTIC_NETWORKS, "NameEmail")},
    **{name: ("secret", {}) for name in _names(_PYDANTIC_TYPES, "SecretStr", "SecretBytes")},
    "pathlib.Path": ("path", {}),
    **{name: ("path", {}) for name in _names(_PYDANTIC_TYPES, "NewPath", "SocketPath")},
    **{name: ("file-path", {}) for name in _names(_PYDANTIC_TYPES, "FilePath")},
    **{name: ("directory-path", {}) for name in _names(_PYDANTIC_TYPES, "DirectoryPath")},
    "ipaddress.IPv4Address": ("ipv4", {}),
    "ipaddress.IPv6Address": ("ipv6", {}),
    "ipaddress.IPv4Network": ("ipv4network", {}),
    "ipaddress.IPv6Network": ("ipv6network", {}),
    "ipaddress.IPv4Interface": ("ipv4interface", {}),
    "ipaddress.IPv6Interface": ("ipv6interface", {}),
    **{name: ("ipvanyaddress", {}) for name in _names(_PYDANTIC_NETWORKS, "IPvAnyAddress")},
    **{name: ("ipvanynetwork", {}) for name in _names(_PYDANTIC_NETWORKS, "IPvAnyNetwork")},
    **{name: ("ipvanyinterface", {}) for name in _names(_PYDANTIC_NETWORKS, "IPvAnyInterface")},
    **{name: ("base64", {}) for name in _names(_PYDANTIC_TYPES, "Base64Str", "Base64Bytes")},
    **{name: ("base64url", {}) for name in _names(_PYDANTIC_TYPES, "Base64UrlStr", "Base64UrlBytes")},
    **{
        name: (f"uuid{name[-1]}", {})
        for name in _names(_PYDANTIC_TYPES, *(f"UUID{version}" for version in range(1, 9) if version != 2))
    },
    **{name: ("byte-size", {}) for name in _names(_PYDANTIC_TYPES, "ByteSize")},
    **{name: ("payment-card", {}) for name in _names(_PYDANTIC_TYPES, "PaymentCardNumber")},
    **{name: ("import-string", {}) for name in _names(_PYDANTIC_TYPES, "ImportString")},
    # Constrained aliases: a scalar and the constraints pydantic.types puts on it.
    **{name: ("str", {}) for name in _names(_PYDANTIC_TYPES, "StrictStr")},
    **{name: ("int", {}) for name in _names(_PYDANTIC_TYPES, "StrictInt")},
    **{name: ("float", {}) for name in _names(_PYDANTIC_TYPES, "StrictFloat", "FiniteFloat")},
    **{name: ("bool", {}) for name in _names(_PYDANTIC_TYPES, "StrictBool")},
    **{name: ("bytes", {}) for name in _names(_PYDANTIC_TYPES, "StrictBytes")},
    **{name: ("int", {"gt": 0}) for name in _names(_PYDANTIC_TYPES, "PositiveInt")},
    **{name: ("int", {"lt": 0}) for name in _names(_PYDANTIC_TYPES, "NegativeInt")},
    **{name: ("int", {"ge": 0}) for name in _names(_PYDANTIC_TYPES, "NonNegativeInt")},
    **{name: ("int", {"le": 0}) for name in _names(_PYDANTIC_TYPES, "NonPositiveInt")},
    **{name: ("float", {"gt": 0}) for name in _names(_PYDANTIC_TYPES, "PositiveFloat")},
    **{name: ("float", {"lt": 0}) for name in _names(_PYDANTIC_TYPES, "NegativeFloat")},
    **{name: ("float", {"ge": 0}) for name in _names(_PYDANTIC_TYPES, "NonNegativeFloat")},
    **{name: ("float", {"le": 0}) for name in _names(_PYDANTIC_TYPES, "NonPositiveFloat")},
    **{name: ("date", {}) for name in _names(_PYDANTIC_TYPES, "PastDate", "FutureDate")},
    **{
        name: ("datetime", {})
        for name in _names(_PYDANTIC_TYPES, "PastDatetime", "FutureDatetime", "AwareDatetime", "NaiveDatetime")
    },
}


def named_type(qualname: str) -> tuple[str, dict[str, object]] | None:
    """The kind and constraints of a named external type, if the subset reads it."""
    return NAMED_TYPES.get(qualname)
