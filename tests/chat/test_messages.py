"""Conversations are validated at the edge: a bad field is an InvalidMessagesError naming it
(``messages[1].tool_call_id must be a string``), in every chat format, for count, render and truncate."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toklane
from tests.profiles import examples
from toklane.chat.formats import FORMATS
from toklane.errors import InvalidMessagesError, ToklaneError

CALL = {"id": "call_1", "type": "function", "function": {"name": "get", "arguments": '{"a": 1}'}}
GOOD = [
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": [{"type": "text", "text": "hi"}]},
    {"role": "assistant", "content": None, "tool_calls": [CALL]},
    {"role": "tool", "tool_call_id": "call_1", "name": "get", "content": "42"},
]


def _with(index: int, **changes: Any) -> list[dict[str, Any]]:
    messages = [dict(m) for m in GOOD]
    messages[index].update(changes)
    return messages


BAD: list[tuple[str, Any, str]] = [
    ("dict tool_call_id", _with(3, tool_call_id={"x": 1}), "messages[3].tool_call_id must be a string, got dict"),
    ("int tool_call_id", _with(3, tool_call_id=7), "messages[3].tool_call_id must be a string, got int"),
    ("list name", _with(3, name=["get"]), "messages[3].name must be a string, got list"),
    ("role not a string", _with(1, role=["user"]), "messages[1].role must be one of"),
    ("unknown role", _with(1, role="wizard"), "messages[1].role must be one of"),
    ("content a number", _with(1, content=3), "messages[1].content must be a string, a list of text parts or null"),
    ("content part an image", _with(1, content=[{"type": "image_url"}]), "messages[1].content[0] must be a text part"),
    ("tool_calls a dict", _with(2, tool_calls=CALL), "messages[2].tool_calls must be a list, got dict"),
    ("tool call a string", _with(2, tool_calls=["get"]), "messages[2].tool_calls[0] must be an object, got str"),
    ("tool call id a dict", _with(2, tool_calls=[dict(CALL, id={})]), "messages[2].tool_calls[0].id must be a string"),
    ("function a list", _with(2, tool_calls=[{"function": []}]), "messages[2].tool_calls[0].function must be an obj"),
    ("function name missing", _with(2, tool_calls=[{"function": {}}]), "messages[2].tool_calls[0].function.name must"),
    (
        "arguments not JSON",
        _with(2, tool_calls=[{"function": {"name": "g", "arguments": {1, 2}}}]),
        "messages[2].tool_calls[0].function.arguments must be a JSON string or JSON-serialisable",
    ),
    ("message a string", ["hi", *GOOD], "messages[0] must be a mapping, got str"),
    ("messages a dict", {"role": "user", "content": "hi"}, "messages must be a list"),
    ("messages None", None, "messages must be a list"),
]


@pytest.mark.parametrize("messages, expected", [c[1:] for c in BAD], ids=[c[0] for c in BAD])
@pytest.mark.parametrize("chat_format", sorted(FORMATS))
def test_bad_messages_name_the_field(messages, expected, chat_format):
    calls = (
        lambda: toklane.count_tokens(messages, model="o200k_harmony", chat_format=chat_format),
        lambda: toklane.truncate_messages(messages, 100, model="o200k_harmony", chat_format=chat_format),
    )
    for call in calls:
        with pytest.raises(InvalidMessagesError) as info:
            call()
        assert expected in str(info.value), str(info.value)
        assert isinstance(info.value, ValueError) and isinstance(info.value, TypeError)
        assert isinstance(info.value, ToklaneError)


def test_the_reported_case_and_good_messages_in_every_format():
    with pytest.raises(InvalidMessagesError, match=r"messages\[3\]\.tool_call_id must be a string"):
        toklane.count_tokens(_with(3, tool_call_id={"x": 1}), model="o200k_harmony")
    for chat_format in FORMATS:
        assert toklane.count_tokens(GOOD, model="o200k_harmony", chat_format=chat_format) > 10
    assert toklane.count_tokens(_with(3, tool_call_id=None, name=None), model="o200k_harmony") > 10


_VALUE = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5) | st.sampled_from(["user", "tool", "assistant"]),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["role", "content", "type", "text", "function", "name", "id"]), inner)
    ),
    max_leaves=8,
)
_MESSAGE = st.dictionaries(
    st.sampled_from(["role", "content", "name", "tool_call_id", "tool_calls"]), _VALUE, max_size=5
) | st.fixed_dictionaries({"role": st.sampled_from(["user", "assistant", "tool", "system"]), "content": _VALUE})


@settings(max_examples=examples(300), deadline=None)
@given(messages=st.lists(_MESSAGE, max_size=4), chat_format=st.sampled_from(sorted(FORMATS)))
def test_any_conversation_counts_or_is_an_invalid_messages_error(messages, chat_format):
    try:
        count = toklane.count_tokens(messages, model="o200k_harmony", chat_format=chat_format)
    except InvalidMessagesError:
        return
    assert count >= 0
