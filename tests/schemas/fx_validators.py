"""Validators, serializers and methods that leave the validation schema alone."""

from typing import Annotated, Any, Optional

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    Field,
    WrapValidator,
    computed_field,
    field_serializer,
    field_validator,
    model_validator,
)


class Validated(BaseModel):
    """Validated in many ways."""

    name: str
    count: int = 0

    @field_validator("name")
    @classmethod
    def strip(cls, value: str) -> str:
        return value.strip()

    @field_validator("count", mode="before")
    @classmethod
    def coerce(cls, value: Any) -> Any:
        return value

    @field_validator("count", mode="wrap")
    @classmethod
    def wrap(cls, value: Any, handler: Any) -> Any:
        return handler(value)

    @model_validator(mode="after")
    def check(self) -> "Validated":
        return self

    @model_validator(mode="before")
    @classmethod
    def before(cls, data: Any) -> Any:
        return data

    @computed_field  # type: ignore[prop-decorator]
    @property
    def double(self) -> int:
        return self.count * 2

    @field_serializer("name")
    def shout(self, value: str) -> str:
        return value.upper()

    def helper(self) -> str:
        return self.name

    @property
    def size(self) -> int:
        return len(self.name)

    @staticmethod
    def static() -> int:
        return 1


class UsesValidated(BaseModel):
    inner: Validated


def _positive(value: int) -> int:
    if value <= 0:
        raise ValueError("must be positive")
    return value


def _stripped(value: Any) -> Any:
    return value.strip() if isinstance(value, str) else value


def _wrapped(value: Any, handler: Any) -> Any:
    return handler(value)


class AnnotatedValidators(BaseModel):
    """Validators in Annotated: after, before and wrap leave the input schema to the type."""

    count: Annotated[int, AfterValidator(_positive)] = 1
    name: Annotated[str, Field(min_length=1), BeforeValidator(_stripped), Field(description="The name.")]
    both: Annotated[Optional[int], WrapValidator(_wrapped), AfterValidator(lambda value: value)] = None
