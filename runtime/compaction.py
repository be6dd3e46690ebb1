"""What the model gets of a tool's result: compacted by a model (``compact``), capped (``max_output_chars``).

deepseek-kit's ``compact``: a result at or above the tool's threshold is compressed by a
model, with a prompt that keeps identifiers, paths, numbers and error text, before it goes
into the conversation.  Compactions are cached by tool, model and content hash, so a
result seen again costs no request.  When there is no model to ask (the offline model),
or asking fails, or the answer is no shorter, the original is sent instead, never an
error; an original over ``max_output_chars`` (or, for a tool without one, over
``COMPACT_HARD_LIMIT``) is cut to its head and tail with a notice saying how much was
left out (``cut_output``).

``max_output_chars`` caps every result the model sees, error or not, compacted or not,
in ``skill chat`` and ``skill serve``; ``skill test`` shows the whole result and says what
the model would have received (``uncompacted_view``, and whether ``compacts``).
"""

from __future__ import annotations

import hashlib
import logging
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from ..contracts.errors import UserError
from ..contracts.settings import COMPACT, MAX_OUTPUT_CHARS, SettingValues

if TYPE_CHECKING:  # for start-up: `skill test` shows a result without loading the chat models
    from .models import Model

__all__ = [
    "COMPACT_HARD_LIMIT",
    "COMPACT_PROMPT",
    "Compactor",
    "ModelView",
    "compacts",
    "cut_output",
    "model_view",
    "uncompacted_view",
]

logger = logging.getLogger("skillc.runtime")

#: A compactable result that could not be compacted is cut to this many characters
#: when its tool has no ``max_output_chars``.
COMPACT_HARD_LIMIT: Final = 20_000
#: How many compactions a ``Compactor`` remembers.
_CACHE_SIZE: Final = 256
COMPACT_PROMPT: Final = (
    "You compress the result of a tool call for an AI agent that will read it instead of the original. "
    "Keep every identifier, name, path, URL, number, date and error message exactly as written, and "
    "every fact the agent may need; drop repetition, boilerplate and formatting. Answer with the "
    "compressed result only, without comments."
)


def _notice(left: int, total: int) -> str:
    return f"\n[... {left} of {total} characters left out ...]\n"


def cut_output(text: str, limit: int) -> str:
    """``text`` if it has at most ``limit`` characters; else its head and tail around a notice, ``limit`` in all.

    The notice says how many characters of how many were left out; a limit too small for
    it keeps the head alone.
    """
    total = len(text)
    if total <= limit:
        return text
    kept = limit - len(_notice(total, total))
    if kept < 2:
        return text[:limit]
    for _ in range(3):  # fewer characters left out can mean a shorter notice, so room for more kept
        wider = limit - len(_notice(total - kept, total))
        if wider == kept:
            break
        kept = wider
    notice = _notice(total - kept, total)
    kept = min(kept, limit - len(notice))
    head = kept - kept // 2
    tail = kept // 2
    return text[:head] + notice + (text[total - tail :] if tail else "")


@dataclass(frozen=True)
class ModelView:
    """What the model receives of one result, and why it differs from the result."""

    text: str
    #: ``"compacted"``, ``"cut"``, ``"compacted and cut"`` or ``""`` (sent as it is).
    how: str = ""


class Compactor:
    """Compresses results with a model, caching each by tool, model and content.

    ``default`` answers for a tool whose ``compact`` names no model (``None``: no real model
    is configured, so nothing is compacted); ``open_named`` opens the model a tool names.
    Never raises for a failed compaction: ``compact`` then says ``None``.
    """

    def __init__(self, default: Model | None, open_named: Callable[[str], Model] | None = None) -> None:
        self.default = default
        self.open_named = open_named
        self._named: dict[str, Model | None] = {}
        self._cache: OrderedDict[tuple[str, str, str], str] = OrderedDict()
        #: How many compactions were asked of a model (the cache answers the others).
        self.requests = 0

    def _model(self, name: str | None) -> Model | None:
        if name is None:
            return self.default
        if name not in self._named:
            model = None
            if self.open_named is not None:
                try:
                    model = self.open_named(name)
                except UserError as error:  # a configuration that cannot work: not compacted, said once
                    logger.warning("cannot open the compaction model %r: %s", name, error.message)
            self._named[name] = model
        return self._named[name]

    async def compact(self, tool: str, text: str, model: str | None = None) -> str | None:
        """``text`` compressed by the model (the named one, else the default), or ``None`` when it cannot be."""
        chosen = self._model(model)
        if chosen is None:
            return None
        key = (tool, model or "", hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest())
        cached = self._cache.get(key)
        if cached is not None:
            self._cache.move_to_end(key)
            return cached
        messages = [
            {"role": "system", "content": COMPACT_PROMPT},
            {"role": "user", "content": f"The result of the tool {tool}:\n\n{text}"},
        ]
        self.requests += 1
        from .models import ModelError  # for start-up: only a compaction loads the chat models

        try:
            reply = await chosen.respond(messages, [])
        except ModelError as error:
            logger.warning("compacting the result of %r failed, so it is sent as it is: %s", tool, error.message)
            return None
        compacted = reply.text.strip()
        if not compacted or len(compacted) >= len(text):
            return None
        self._cache[key] = compacted
        if len(self._cache) > _CACHE_SIZE:
            self._cache.popitem(last=False)
        return compacted

    async def aclose(self) -> None:
        """Close the models this compactor opened (not ``default``, which is the caller's)."""
        for model in self._named.values():
            if model is not None:
                await model.aclose()


def compacts(text: str, settings: SettingValues, *, is_error: bool = False) -> Mapping[str, Any] | None:
    """The tool's ``compact`` setting when it applies to this result (not an error, long enough); else ``None``."""
    compact: Mapping[str, Any] | bool = settings[COMPACT]
    if is_error or not isinstance(compact, Mapping) or len(text) < compact["threshold"]:
        return None
    return compact


def uncompacted_view(text: str, settings: SettingValues, *, is_error: bool = False) -> ModelView:
    """What the model receives of a result that is not compacted: capped by ``max_output_chars``.

    A result the tool would have compacted is cut at ``COMPACT_HARD_LIMIT`` when the tool has no cap.
    """
    limit = settings[MAX_OUTPUT_CHARS]
    if limit is None and compacts(text, settings, is_error=is_error) is not None:
        limit = COMPACT_HARD_LIMIT
    if limit is not None and len(text) > limit:
        return ModelView(cut_output(text, limit), "cut")
    return ModelView(text)


async def model_view(
    tool: str, text: str, settings: SettingValues, compactor: Compactor | None, *, is_error: bool = False
) -> ModelView:
    """What the model receives of a result: compacted when the tool says so and it can be, then capped."""
    compact = compacts(text, settings, is_error=is_error)
    if compact is not None and compactor is not None:
        compacted = await compactor.compact(tool, text, compact["model"])
        if compacted is not None:
            limit = settings[MAX_OUTPUT_CHARS]
            if limit is not None and len(compacted) > limit:
                return ModelView(cut_output(compacted, limit), "compacted and cut")
            return ModelView(compacted, "compacted")
    return uncompacted_view(text, settings, is_error=is_error)
