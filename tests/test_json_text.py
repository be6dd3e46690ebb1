"""``compiler.json_text.indented_json`` writes exactly what ``json.dumps(indent=2)`` writes."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from skillc.compiler.json_text import indented_json

_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()  # NaN and infinities too: json.dumps writes those, and so must this
    | st.text()
)
_VALUES = st.recursive(
    _SCALARS,
    lambda children: (
        st.lists(children, max_size=4)
        | st.tuples(children, children)
        | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=25,
)


@settings(max_examples=300, deadline=None)
@given(document=_VALUES, sort_keys=st.booleans(), ensure_ascii=st.booleans())
def test_the_text_is_json_dumps_text(document: Any, sort_keys: bool, ensure_ascii: bool) -> None:
    expected = json.dumps(document, indent=2, sort_keys=sort_keys, ensure_ascii=ensure_ascii)
    assert indented_json(document, sort_keys=sort_keys, ensure_ascii=ensure_ascii) == expected


def test_what_is_not_plain_json_data_goes_to_json_dumps() -> None:
    class Text(str):
        pass

    document = {"a": Text("é"), "b": [1.5, {2: "two"}]}  # an int key: json.dumps makes it a string
    assert indented_json(document, ensure_ascii=True) == json.dumps(document, indent=2)
