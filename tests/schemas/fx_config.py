"""Model docstrings and model_config."""

from pydantic import BaseModel, ConfigDict, Field

SHARED_CONFIG = ConfigDict(extra="forbid", title="Shared")


class Forbidding(BaseModel):
    """Forbids extra fields.

    Second paragraph,
        with an indented line.
    """

    model_config = ConfigDict(extra="forbid", title="Custom Title")

    a: int


class DictConfig(BaseModel):
    model_config = {"extra": "forbid", "title": "From dict"}

    a: int = 1


class Allowing(BaseModel):
    model_config = ConfigDict(extra="allow")

    a: int = 1


class Ignoring(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True, str_strip_whitespace=True)

    a: str = ""


class Harmless(BaseModel):
    model_config = ConfigDict(
        validate_assignment=True, validate_default=True, use_enum_values=True, populate_by_name=True,
        strict=True, arbitrary_types_allowed=True, str_to_lower=True, from_attributes=True,
        revalidate_instances="always", protected_namespaces=(), validate_by_name=True,
    )

    a: str = ""


class Extra(BaseModel):
    model_config = ConfigDict(json_schema_extra={"examples": [{"a": 1}], "x-owner": "team"})

    a: int


class ExtraOverrides(BaseModel):
    """Doc."""

    model_config = ConfigDict(json_schema_extra={"title": "Extra wins", "description": "Also extra"})

    a: int = 0


class FromConstant(BaseModel):
    model_config = SHARED_CONFIG

    a: int = 0


class DictCall(BaseModel):
    model_config = dict(extra="forbid")

    a: int = 0


class OneLine(BaseModel):
    """One line docstring."""

    a: int = 0


class Quoted(BaseModel):
    '''Single-quoted "docstring" with 'quotes'.'''

    a: int = 0


class AttributeDocs(BaseModel):
    """Fields described by the string under them."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    name: str
    """The name.

        Indented further.
    """
    count: int = Field(0, description="The Field wins.")
    """Not used."""
    plain: int = 0
    other: str = ""

    "Still the docstring of other: blank lines do not count."


class InheritsAttributeDocs(AttributeDocs):
    extra: bool = False
    """Extra, documented in the subclass."""


class NoAttributeDocs(BaseModel):
    name: str
    """Ignored without the setting."""
