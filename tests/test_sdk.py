"""The authoring SDK used as plain Python, the way users unit-test their tools."""

from __future__ import annotations

import asyncio
import re
import string
from typing import Annotated, Any, Literal

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, Field, ValidationError
from skillc import Agent, Skill, Tool, ToolContext, ToolDefinitionError, ToolFlag, tool
from skillc.contracts.docstrings import parse_docstring
from skillc.contracts.settings import NEEDS_APPROVAL, PER_CALL
from skillc.runtime.sdk import settings_of


class OrderInput(BaseModel):
    order_id: str


class OrderOutput(BaseModel):
    status: str


class LookupOrder(Tool):
    name = "lookup_order"
    description = "Look up an order."
    input_schema = OrderInput
    output_schema = OrderOutput
    timeout = 5
    retries = 2
    strict = True
    needs_approval = True
    required = True
    metadata = {"owner": "shop"}
    voice = ToolFlag.IGNORE_ON_ENTER | ToolFlag.DISALLOW_INTERRUPTION

    async def execute(self, input: OrderInput, ctx: ToolContext) -> OrderOutput:
        return OrderOutput(status=f"{input.order_id} via {ctx.call_id}")

    def condition(self) -> bool:
        return ToolContext.current().environment == "production"


def test_class_form_keeps_its_settings_and_runs() -> None:
    lookup = LookupOrder()
    assert lookup.form == "class"
    assert (lookup.name, lookup.description) == ("lookup_order", "Look up an order.")
    assert (lookup.input_schema, lookup.output_schema) == (OrderInput, OrderOutput)
    assert (lookup.timeout, lookup.retries) == (5, 2)
    assert (lookup.strict, lookup.needs_approval, lookup.required) == (True, True, True)
    assert lookup.metadata == {"owner": "shop"}
    assert ToolFlag.DISALLOW_INTERRUPTION in lookup.voice
    result = asyncio.run(lookup.execute(OrderInput(order_id="A1"), ToolContext(call_id="c1")))
    assert result == OrderOutput(status="A1 via c1")


def test_defaults_of_the_execution_settings() -> None:
    class Ping(Tool):
        name = "ping"

        def execute(self, input: Any, ctx: ToolContext) -> str:
            return "pong"

    ping = Ping()
    assert (ping.timeout, ping.retries) == (60, 0)
    assert (ping.strict, ping.needs_approval, ping.required) == (False, False, False)
    assert (ping.input_schema, ping.output_schema, ping.condition_function) == (None, None, None)
    assert ping.metadata == {} and ping.voice is ToolFlag.NONE


def test_condition_reads_the_active_context() -> None:
    condition = LookupOrder().condition_function
    assert condition is not None
    with ToolContext(environment="production").activate():
        assert condition() is True
    with ToolContext(environment="sandbox").activate():
        assert condition() is False
    with pytest.raises(LookupError, match="no ToolContext is active"):
        condition()


def test_attributes_resolve_along_a_project_base_class() -> None:
    class ShopTool(Tool):
        timeout = 7
        description = "A shop tool."

    class Refund(ShopTool):
        name = "refund"
        description = "Refund an order."

        def execute(self, input: Any, ctx: ToolContext) -> str:
            return "ok"

    refund = Refund()
    assert (refund.timeout, refund.description) == (7, "Refund an order.")


def test_function_form_builds_its_input_from_the_signature() -> None:
    @tool
    def cancel_order(
        order_id: Annotated[str, Field(pattern=r"^A\d+$", description="Explicit wins.")],
        reason: str = "customer request",
        urgency: Literal["low", "high"] = "low",
        ctx: ToolContext | None = None,
    ) -> dict[str, str]:
        """Cancel an order.

        It must not have shipped.

        Args:
            order_id: The order id.
            reason: Why the customer cancels,
                in a few words.

        Returns:
            The cancelled order.
        """
        assert ctx is not None
        return {"order_id": order_id, "reason": reason, "call": ctx.call_id}

    assert cancel_order.form == "function"
    assert cancel_order.name == "cancel_order"
    assert cancel_order.description == "Cancel an order.\n\nIt must not have shipped."
    assert cancel_order.context_parameter == "ctx"
    schema = cancel_order.input_schema.model_json_schema() if cancel_order.input_schema else {}
    assert schema == {
        "title": "CancelOrderInput",
        "type": "object",
        "properties": {
            "order_id": {
                "title": "Order Id",
                "type": "string",
                "pattern": r"^A\d+$",
                "description": "Explicit wins.",
            },
            "reason": {
                "title": "Reason",
                "type": "string",
                "default": "customer request",
                "description": "Why the customer cancels, in a few words.",
            },
            "urgency": {
                "title": "Urgency",
                "type": "string",
                "enum": ["low", "high"],
                "default": "low",
            },
        },
        "required": ["order_id"],
    }
    assert cancel_order.input_schema is not None
    arguments = cancel_order.input_schema.model_validate({"order_id": "A7"})
    assert cancel_order.execute(arguments, ToolContext(call_id="c9")) == {
        "order_id": "A7",
        "reason": "customer request",
        "call": "c9",
    }
    with pytest.raises(ValidationError):
        cancel_order.input_schema.model_validate({"order_id": "B7"})
    # Still callable as the plain function, with the same name and docstring.
    assert cancel_order("A1", ctx=ToolContext())["order_id"] == "A1"
    assert cancel_order.__name__ == "cancel_order"
    assert cancel_order.__doc__ is not None and "Args:" in cancel_order.__doc__


def test_function_form_with_settings() -> None:
    def always() -> bool:
        return True

    @tool(
        name="quote",
        description="Quote a price.",
        timeout=3,
        retries=1,
        strict=True,
        needs_approval=True,
        required=True,
        metadata={"a": 1},
        condition=always,
        output_schema=OrderOutput,
        voice=ToolFlag.IGNORE_ON_ENTER,
    )
    async def shipping_quote(weight_kg: float) -> float:
        return weight_kg * 2

    assert (shipping_quote.name, shipping_quote.description) == ("quote", "Quote a price.")
    assert (shipping_quote.timeout, shipping_quote.retries, shipping_quote.strict) == (3, 1, True)
    assert shipping_quote.needs_approval and shipping_quote.required
    assert shipping_quote.metadata == {"a": 1} and shipping_quote.condition_function is always
    assert shipping_quote.output_schema is OrderOutput
    assert shipping_quote.voice is ToolFlag.IGNORE_ON_ENTER
    assert shipping_quote.input_schema is not None
    arguments = shipping_quote.input_schema.model_validate({"weight_kg": 2})
    assert asyncio.run(shipping_quote.execute(arguments, ToolContext())) == 4


def test_object_form_from_keyword_arguments() -> None:
    def quote(input: OrderInput, ctx: ToolContext) -> str:
        return input.order_id

    def offered() -> bool:
        return False

    shipping = Tool(
        name="shipping_quote",
        description="Quote shipping.",
        input_schema=OrderInput,
        execute=quote,
        condition=offered,
        timeout=2.5,
        retries=3,
        needs_approval=True,
        metadata={"team": "logistics"},
    )
    assert shipping.form == "object"
    assert (shipping.timeout, shipping.retries, shipping.needs_approval) == (2.5, 3, True)
    assert (shipping.strict, shipping.required) == (False, False)
    assert shipping.condition_function is offered
    assert shipping.execute(OrderInput(order_id="A5"), ToolContext()) == "A5"
    assert repr(shipping) == "<object tool 'shipping_quote'>"


def _run(input: Any, ctx: ToolContext) -> None:
    return None


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"name": "bad name", "execute": _run}, "invalid tool name 'bad name'"),
        ({"name": "../../etc", "execute": _run}, "invalid tool name '../../etc'"),
        ({"name": "x" * 65, "execute": _run}, "at most 64 characters"),
        ({"name": "", "execute": _run}, "invalid tool name ''"),
        ({"execute": _run}, "Tool: Tool must have a name"),
        ({"name": "ok"}, "tool 'ok': Tool must have an execute function"),
        ({"name": "ok", "execute": "run"}, "tool 'ok': execute must be a function"),
        ({"name": "ok", "execute": _run, "timeout": 0}, "timeout must be a positive number"),
        ({"name": "ok", "execute": _run, "timeout": True}, "timeout must be a positive number"),
        ({"name": "ok", "execute": _run, "timeout": float("inf")}, "timeout must be a positive"),
        ({"name": "ok", "execute": _run, "retries": -1}, "retries must be a whole number >= 0"),
        ({"name": "ok", "execute": _run, "retries": 1.5}, "retries must be a whole number >= 0"),
        ({"name": "ok", "execute": _run, "strict": "yes"}, "strict must be True or False"),
        ({"name": "ok", "execute": _run, "input_schema": dict}, "input_schema must be a pydantic model class"),
        ({"name": "ok", "execute": _run, "output_schema": OrderInput(order_id="x")}, "output_schema must be"),
        ({"name": "ok", "execute": _run, "metadata": [1]}, "metadata must be a mapping"),
        ({"name": "ok", "execute": _run, "condition": True}, "condition must be a function"),
        ({"name": "ok", "execute": _run, "voice": 1}, "voice must be ToolFlag members combined with"),
        ({"name": "ok", "execute": _run, "description": 3}, "description must be a string"),
    ],
)
def test_invalid_object_form_is_refused_with_a_clear_error(settings: dict[str, Any], message: str) -> None:
    with pytest.raises(ToolDefinitionError, match=message.replace("(", r"\(").replace(".", r"\.")):
        Tool(**settings)


def test_class_form_without_execute_is_refused() -> None:
    class Broken(Tool):
        name = "broken"

    with pytest.raises(ToolDefinitionError, match="tool 'broken': Tool must have an execute function"):
        Broken()


def test_class_form_with_an_invalid_name_is_refused() -> None:
    class Spaced(Tool):
        name = "has space"

        def execute(self, input: Any, ctx: ToolContext) -> None:
            return None

    with pytest.raises(ToolDefinitionError, match="invalid tool name 'has space'"):
        Spaced()


def test_class_form_takes_no_settings_as_arguments() -> None:
    with pytest.raises(TypeError, match=r"LookupOrder\(\) takes no settings as arguments: set timeout"):
        LookupOrder(timeout=3)  # type: ignore[call-arg]


def test_function_form_refuses_variadic_parameters() -> None:
    def spread(*names: str) -> None:
        return None

    with pytest.raises(ToolDefinitionError, match="parameter 'names' must be a plain or keyword-only"):
        tool(spread)


def test_function_form_names_a_hint_it_cannot_resolve() -> None:
    """A name no one defines: refused when the model is first asked for (the module has finished by then)."""

    def hinted(x: Missing) -> None:  # type: ignore[name-defined]  # noqa: F821
        return None

    made = tool(hinted)
    message = re.escape("@tool test_function_form_names_a_hint_it_cannot_resolve.<locals>.hinted: ")
    with pytest.raises(
        ToolDefinitionError, match=message + r"cannot resolve its type hints \(name 'Missing' is not defined\)"
    ):
        made.input_schema  # noqa: B018


def test_function_form_makes_its_model_on_first_use_when_a_hint_names_what_comes_further_down() -> None:
    """``from __future__ import annotations``: the decorator runs before ``Box`` exists; its model is made later."""
    module = (
        "from __future__ import annotations\n"
        "from pydantic import BaseModel\n"
        "from skillc import ToolContext, tool\n"
        "@tool\n"
        "def measure(box: Box, *, ctx: ToolContext) -> int:\n"
        "    return box.width\n"
        "class Box(BaseModel):\n"
        "    width: int\n"
    )
    namespace: dict[str, Any] = {"__name__": "boxes"}
    exec(compile(module, "boxes.py", "exec"), namespace)  # noqa: S102 - the test's own source
    measure = namespace["measure"]
    assert measure.context_parameter == "ctx"
    assert measure.input_schema.model_json_schema()["required"] == ["box"]
    payload = measure.input_schema.model_validate({"box": {"width": 3}})
    assert measure.execute(payload, ToolContext()) == 3


def test_function_form_with_an_invalid_name() -> None:
    with pytest.raises(ToolDefinitionError, match="invalid tool name 'a b'"):
        tool(name="a b")(_run)


def test_skills_and_agent_group_tools() -> None:
    lookup = LookupOrder()
    shipping = Tool(name="shipping_quote", execute=_run)
    orders = Skill(name="orders", description="Orders.", context="Ids look like A1.", tools=[lookup])
    logistics = Skill(name="logistics", tools=[shipping], condition=lambda: True)
    agent = Agent(name="shop", persona="Helpful.", skills=[orders, logistics])
    assert [(skill.name, item.name) for skill, item in agent.iter_tools()] == [
        ("orders", "lookup_order"),
        ("logistics", "shipping_quote"),
    ]
    assert agent.get_tool("shipping_quote") is shipping
    with pytest.raises(KeyError, match=r"no tool 'nope' in agent 'shop' \(tools: lookup_order, shipping_quote\)"):
        agent.get_tool("nope")


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (
            lambda: Skill(name="orders", tools=[LookupOrder]),
            "LookupOrder is a Tool class; register an instance: LookupOrder()",
        ),
        (lambda: Skill(name="orders", tools=[_run]), "is not a tool (decorate the function with @tool)"),
        (lambda: Skill(name="orders", tools=[LookupOrder(), LookupOrder()]), "duplicate tool name 'lookup_order'"),
        (lambda: Skill(name="bad skill"), "invalid skill name 'bad skill'"),
        (lambda: Skill(name="orders", tools="abc"), "tools must be a list of tools"),
        (lambda: Agent(name="a b"), "invalid agent name 'a b'"),
        (lambda: Agent(name="shop", skills=["orders"]), "'orders' is not a Skill"),
        (
            lambda: Agent(name="shop", skills=[Skill(name="s"), Skill(name="s")]),
            "duplicate skill name 's'",
        ),
        (
            lambda: Agent(
                name="shop",
                skills=[Skill(name="a", tools=[LookupOrder()]), Skill(name="b", tools=[LookupOrder()])],
            ),
            "tool name 'lookup_order' is used in skills 'a' and 'b'",
        ),
    ],
)
def test_invalid_skills_and_agents_are_refused(build: Any, message: str) -> None:
    with pytest.raises(ToolDefinitionError) as caught:
        build()
    assert message in str(caught.value)


def test_tool_context_hides_variable_values_and_checks_the_environment() -> None:
    ctx = ToolContext(env={"API_KEY": "secret-value"}, environment="production")
    assert "secret-value" not in repr(ctx) and "1 variables" in repr(ctx)
    with pytest.raises(TypeError):
        ctx.env["API_KEY"] = "x"  # type: ignore[index]
    with pytest.raises(ToolDefinitionError, match="environment must be one of sandbox, production"):
        ToolContext(environment="staging")  # type: ignore[arg-type]


_words = (
    st.text(alphabet=string.ascii_letters + string.digits + " ,.", min_size=1, max_size=40).map(str.strip).filter(bool)
)
_names = st.from_regex(r"[a-z_][a-z0-9_]{0,12}", fullmatch=True)


@given(summary=_words, args=st.dictionaries(_names, _words, max_size=5))
def test_google_docstrings_round_trip(summary: str, args: dict[str, str]) -> None:
    lines = [summary, "", "Args:"] + [f"    {name}: {text}" for name, text in args.items()]
    lines += ["", "Returns:", "    something."]
    parsed = parse_docstring("\n".join(lines))
    assert parsed.description == summary
    assert parsed.args == args


def test_needs_approval_may_be_a_function_decided_per_call() -> None:
    def large(input: Any, ctx: Any) -> bool:
        return bool(input.amount > 100)

    @tool(needs_approval=large)
    def transfer(amount: float) -> str:
        """Transfer."""
        return "ok"

    assert transfer.needs_approval is large
    assert settings_of(transfer)[NEEDS_APPROVAL] == PER_CALL
    with pytest.raises(ToolDefinitionError, match="needs_approval must be True, False or a function"):
        Tool(name="ok", execute=_run, needs_approval="sometimes")


def test_a_tool_function_with_two_context_parameters_is_refused() -> None:
    def probe(order_id: str, ctx: ToolContext, other: ToolContext) -> str:
        return order_id

    with pytest.raises(ToolDefinitionError) as raised:
        tool(probe)
    assert str(raised.value) == (
        "@tool test_a_tool_function_with_two_context_parameters_is_refused.<locals>.probe: parameters 'ctx' and "
        "'other' are both a ToolContext; the context is passed to one parameter"
    )
