"""The named types of pydantic and the standard library: URLs, secrets, paths, addresses."""

import ipaddress
import pathlib
from ipaddress import IPv4Address, IPv6Network
from pathlib import Path
from typing import Optional

import pydantic
from pydantic import (
    UUID4,
    AnyHttpUrl,
    AnyUrl,
    AwareDatetime,
    Base64Str,
    DirectoryPath,
    FilePath,
    FutureDate,
    HttpUrl,
    IPvAnyAddress,
    IPvAnyInterface,
    IPvAnyNetwork,
    NewPath,
    PostgresDsn,
    SecretBytes,
    SecretStr,
    WebsocketUrl,
)
from pydantic.networks import FileUrl, RedisDsn


class Urls(pydantic.BaseModel):
    """Every URL type."""

    any_url: AnyUrl
    http: HttpUrl = pydantic.Field(description="The home page.")
    any_http: Optional[AnyHttpUrl] = None
    file: FileUrl
    socket: WebsocketUrl
    database: PostgresDsn
    cache: RedisDsn
    dotted: pydantic.HttpUrl
    many: list[HttpUrl] = []


class Secrets(pydantic.BaseModel):
    password: SecretStr
    token: Optional[SecretBytes] = None
    described: SecretStr = pydantic.Field(description="Never logged.")


class Paths(pydantic.BaseModel):
    path: Path
    dotted: pathlib.Path = "/tmp"  # type: ignore[assignment]
    file: FilePath
    folder: DirectoryPath
    new: NewPath
    optional: Optional[Path] = None


class Addresses(pydantic.BaseModel):
    v4: IPv4Address
    v6: ipaddress.IPv6Address
    net: IPv6Network
    v4_net: ipaddress.IPv4Network
    v4_iface: ipaddress.IPv4Interface
    v6_iface: ipaddress.IPv6Interface
    any_address: IPvAnyAddress
    any_network: IPvAnyNetwork
    any_interface: IPvAnyInterface
    default: IPv4Address = "127.0.0.1"  # type: ignore[assignment]


class Others(pydantic.BaseModel):
    uid: UUID4
    encoded: Base64Str
    when: AwareDatetime
    due: FutureDate
