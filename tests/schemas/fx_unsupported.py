"""Constructs outside the static subset; never imported, only read by the compiler.

Each marker ``# unsupported[Model]: text`` says that compiling ``Model`` reports
skill/schema-unsupported at the column where ``text`` starts on that line.
"""

import dataclasses
import enum
import typing
from datetime import datetime
from fractions import Fraction
from ipaddress import IPv4Address
from typing import Annotated, Any, Final, Generic, Literal, Mapping, Optional, TypeVar, Union

import annotated_types
import thirdparty
from typing_extensions import TypedDict
from pydantic import (
    AfterValidator,
    BaseModel,
    ByteSize,
    ConfigDict,
    Discriminator,
    EmailStr,
    Field,
    RootModel,
    Secret,
    Tag,
    conlist,
    field_validator,
)

T = TypeVar("T")
NOT_LITERAL = len("abc")


def now() -> datetime:
    return datetime.now()


class Third(BaseModel):
    value: thirdparty.Model  # unsupported[Third,OptionalNested]: thirdparty.Model


class Address(BaseModel):
    ip: Fraction  # unsupported[Address,OptionalNested]: Fraction


class CallDefault(BaseModel):
    when: datetime = now()  # unsupported[CallDefault]: now()
    fine: int = 1


class FieldCallDefault(BaseModel):
    when: str = Field(default=str(1))  # unsupported[FieldCallDefault]: str(1)


class ConstantNotLiteral(BaseModel):
    size: int = NOT_LITERAL  # unsupported[ConstantNotLiteral]: NOT_LITERAL


class FactoryCall(BaseModel):
    items: list[int] = Field(default_factory=make_factory())  # unsupported[FactoryCall]: make_factory()


class Discriminated(BaseModel):
    pet: Any = Field(discriminator="kind")  # unsupported[Discriminated]: Field(


class NonLiteralDescription(BaseModel):
    a: int = Field(description=NOT_LITERAL)  # unsupported[NonLiteralDescription]: NOT_LITERAL


class Plain(BaseModel):
    a: int

    @field_validator("a", mode="plain")  # unsupported[Plain]: field_validator
    @classmethod
    def check(cls, value: Any) -> int:
        return int(value)


plain_check = field_validator("a", mode="plain")


class AliasedValidator(BaseModel):
    a: int

    @plain_check  # unsupported[AliasedValidator]: plain_check
    @classmethod
    def check(cls, value: Any) -> int:
        return int(value)


class InputType(BaseModel):
    a: int

    @field_validator("a", mode="before", json_schema_input_type=str)  # unsupported[InputType]: field_validator
    @classmethod
    def check(cls, value: Any) -> Any:
        return value


class AnnotatedValidator(BaseModel):
    a: Annotated[int, AfterValidator(abs), Field(le=10)]  # unsupported[AnnotatedValidator]: Field(le=10)


class GenericModel(BaseModel, Generic[T]):  # unsupported[GenericModel]: Generic[T]
    a: int


class Hooked(BaseModel):
    a: int

    @classmethod
    def __get_pydantic_json_schema__(cls, core: Any, handler: Any) -> Any:  # unsupported[Hooked]: def
        return handler(core)


class BadConfig(BaseModel):
    model_config = ConfigDict(alias_generator=str.upper)  # unsupported[BadConfig]: str.upper


class StrConfig(BaseModel):
    model_config = ConfigDict(str_max_length=5)  # unsupported[StrConfig]: 5


class Mappings(BaseModel):
    a: Mapping[str, int]  # unsupported[Mappings]: Mapping[str, int]


class IntKeys(BaseModel):
    a: dict[tuple[int, int], str]  # unsupported[IntKeys]: tuple[int, int], str]


class Constraint(BaseModel):
    a: Literal[1, 2] = Field(ge=0)  # unsupported[Constraint]: 0)
    b: str = Field(ge=1)  # unsupported[Constraint]: 1)
    c: int = Field(ge=1.5)  # unsupported[Constraint]: 1.5


class Lookaround(BaseModel):
    a: str = Field(pattern=r"^(?=a)\w+$")  # unsupported[Lookaround]: r"^(?=a)\w+$"


class Auto(str, enum.Enum):
    A = enum.auto()  # unsupported[UsesAuto]: enum.auto()


class UsesAuto(BaseModel):
    a: Auto


class NotAnnotated(BaseModel):
    a: int
    b = 1  # unsupported[NotAnnotated]: b = 1


class Finals(BaseModel):
    a: Final[int] = 1  # unsupported[Finals]: Final[int]


def register(cls: Any) -> Any:
    return cls


@register  # unsupported[Decorated]: register
class Decorated(BaseModel):
    a: int


class SetInDefault(BaseModel):
    a: dict[str, set[str]] = {"k": {"x", "y"}}  # unsupported[SetInDefault]: {"k"


class MixedSet(BaseModel):
    a: set[Any] = {1, "a"}  # unsupported[MixedSet]: {1, "a"}


class BlankDoc(BaseModel):  # unsupported[BlankDoc]: class BlankDoc
    """   """

    a: int


class NotAModel:
    a: int


class UsesPlainClass(BaseModel):
    a: NotAModel  # unsupported[UsesPlainClass]: NotAModel


class Undefined(BaseModel):
    a: Missing  # unsupported[Undefined]: Missing


class BadForwardRef(BaseModel):
    a: "list[int"  # unsupported[BadForwardRef]: "list[int"


class TwoDefaults(BaseModel):
    a: Annotated[int, Field(default=1)] = 2  # unsupported[TwoDefaults]: 2


class FactoryAndDefault(BaseModel):
    a: list[int] = Field(default=[], default_factory=list)  # unsupported[FactoryAndDefault]: a: list


class AliasChoices(BaseModel):
    a: int = Field(validation_alias=thirdparty.choices)  # unsupported[AliasChoices]: thirdparty.choices


class Shade(enum.Enum):
    DARK = "dark"


class Holder(BaseModel):
    """Compiles on its own: Shade is used once, pydantic drops the repeated title."""

    shade: Shade = Field(title="Shade")  # unsupported[SharedTitle]: shade


class SharedTitle(BaseModel):
    a: Holder
    b: Holder
    other: Shade


class CycleA(BaseModel):
    """Doc A."""

    b: "CycleB" = Field(description="Doc B.")  # unsupported[CycleA,CycleB]: b: "CycleB"
    n: int = 0


class CycleB(BaseModel):
    """Doc B."""

    a: Optional[CycleA] = None
    a2: CycleA = Field(description="Doc A.")  # unsupported[CycleA,CycleB]: a2


class RecursiveAnnotated(BaseModel):
    kids: list["RecursiveAnnotated"] = []
    described: list[Annotated["RecursiveAnnotated", Field(description="d")]] = []  # unsupported[RecursiveAnnotated]: Field


class OptionalNested(BaseModel):
    ok: Optional[int] = None
    nested: Optional[Address] = None
    third: list[Third] = []



class WithPart(BaseModel):
    class Part(BaseModel):
        x: int


class InheritsPart(WithPart):
    parts: list[Part]  # unsupported[InheritsPart]: Part]


class Gadget(BaseModel):
    size: int


class ShadowedBelow(BaseModel):
    gadget: Gadget  # unsupported[ShadowedBelow]: Gadget

    class Gadget(BaseModel):
        color: str


class OldStyle(BaseModel):
    name: str

    class Config:  # unsupported[OldStyle]: class Config
        extra = "forbid"


class Branching(BaseModel):
    name: str
    if True:  # unsupported[Branching]: if True
        extra: int = 0


class Kitten(BaseModel):
    kind: Literal["kitten"]
    flag: Literal[True]  # unsupported[BoolDiscriminator]: flag


class Puppy(BaseModel):
    kind: Literal["puppy"]
    flag: Literal[False]
    kind_enum: Shade


def pick(value: Any) -> str:
    return "kitten"


class CallableDiscriminator(BaseModel):
    pet: Annotated[Union[Kitten, Puppy], Discriminator(pick)]  # unsupported[CallableDiscriminator]: pet


class PartlyTagged(BaseModel):
    pet: Annotated[Union[Annotated[Kitten, Tag("k")], Puppy], Discriminator(pick)]  # unsupported[PartlyTagged]: pet


class InnerUntagged(BaseModel):
    pets: list[Annotated[Union[Kitten, Puppy], Discriminator(pick)]]  # unsupported[InnerUntagged]: Discriminator


class BoolDiscriminator(BaseModel):
    pet: Union[Kitten, Puppy] = Field(discriminator="flag")


class NotAUnion(BaseModel):
    pet: Kitten = Field(discriminator="kind")  # unsupported[NotAUnion]: Field(


class MissingTag(BaseModel):
    pet: Union[Kitten, Puppy] = Field(discriminator="color")  # unsupported[MissingTag]: Field(


class OldTypedDict(typing.TypedDict):  # unsupported[UsesOldTypedDict]: class OldTypedDict
    a: int


class UsesOldTypedDict(BaseModel):
    a: OldTypedDict


class Sizes(BaseModel):
    size: ByteSize = Field(gt=1)  # unsupported[Sizes]: 1)
    email: EmailStr = Field(min_length=3)  # unsupported[Sizes]: 3)


class SecretModel(BaseModel):
    inner: Secret[Kitten]  # unsupported[SecretModel]: Kitten


@dataclasses.dataclass
class WithInit:
    a: int
    b: int = dataclasses.field(default=0, init=False)  # unsupported[UsesWithInit]: False


class UsesWithInit(BaseModel):
    a: WithInit


class ConListPositional(BaseModel):
    a: conlist(int, 1)  # unsupported[ConListPositional]: conlist


class UnknownMetadata(BaseModel):
    a: Annotated[int, annotated_types.Predicate(bool)]  # unsupported[UnknownMetadata]: annotated_types.Predicate


class NestedAddressTitle(BaseModel):
    hosts: list[Annotated[IPv4Address, Field(title="Host")]]  # unsupported[NestedAddressTitle]: Field


class Shared(TypedDict):
    a: int


class Loose(BaseModel):
    shared: Shared


class Closed(BaseModel):
    model_config = ConfigDict(extra="forbid")

    loose: Loose
    shared: Shared  # unsupported[Closed]: Shared


class Ids(RootModel[list[int]]):
    """Order ids."""


class WithIds(BaseModel):
    ids: Ids  # unsupported[WithIds]: Ids
