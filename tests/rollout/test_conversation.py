"""toklane.Conversation on the bundled tokenizers (real vocabularies) and real chat templates.

The property test plays random rollouts: a scripted "model" emits, as ids, exactly what the
template renders for a random assistant turn (reasoning, content, tool calls), the environment
answers with tool results (one call or several at a time) or a user turn (text or text parts).
Checked on every rollout: generated ids kept verbatim, the loss mask 1 exactly on them, parse
results equal to ``toklane.parse`` of the same ids, the windowed deltas equal to deltas computed
from the whole conversation, and -- where the template is prefix-stable for that conversation
(every prompt the model saw, with what it generated, starts the whole render) -- the ids equal to
the whole render's ids and ``check()`` empty; where it is not, ``check()`` reports drift.
"""

from __future__ import annotations

import contextlib
import json
import pickle
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toklane
from tests.profiles import examples
from toklane.chat import render
from toklane.rollout import Conversation
from toklane.rollout.conversation import _added

from ..chat import helpers

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "The weather in a city",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        },
    },
    {
        "type": "function",
        "function": {
            "name": "add",
            "description": "Add two numbers",
            "parameters": {
                "type": "object",
                "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                "required": ["a", "b"],
            },
        },
    },
]

# (tokenizer, template file or None for the family format, tools rendered)
CONFIGS = [
    ("qwen3.6", None, True),
    ("qwen3", None, True),
    ("llama3", None, True),
    ("deepseek-v4", None, True),
    ("o200k_harmony", None, True),
    ("qwen3.6", "qwen3.5", True),
    ("qwen3.6", "qwen3", True),
    ("llama3", "llama3.1", True),
    ("deepseek-v4", "deepseek-v3.1", True),
    ("o200k_harmony", "gpt-oss", True),
    ("qwen3.6", "glm-4.6", True),
    ("qwen3.6", "kimi-k2", True),
    ("qwen3.6", "mistral-small-3.2", True),
]

_word = st.sampled_from(["Paris", "sunny", "ok", "The answer is 4.", "日本語", "a b", "x\ny", "🚀", "  padded  "])
_texts = st.lists(_word, min_size=1, max_size=3).map(" ".join)


def _template(name: str | None) -> str | None:
    return None if name is None else helpers.template(name)


def _conv(model: str, tname: str | None, tools: bool, messages: list[dict[str, Any]]) -> Conversation:
    return Conversation(model, messages, tools=TOOLS if tools else None, chat_template=_template(tname))


def _model_output(conv: Conversation, message: dict[str, Any]) -> list[int] | None:
    """The ids a model that follows its template exactly emits for ``message``: the template's render
    of the turn after the generation prompt, up to its last marker (the stop token)."""
    tok = conv.tokenizer
    msgs = conv.messages
    try:
        prompt = conv._render(msgs, True)
        full = conv._render([*msgs, message], False)
    except toklane.ToklaneError:
        return None
    if not full.startswith(prompt):
        return None
    turn = full[len(prompt) :]
    _, pattern = _added(tok)
    last = None
    for last in pattern.finditer(turn):  # noqa: B007
        pass
    if last is None:
        return None
    return tok.encode(turn[: last.end()])


@st.composite
def assistant_turns(draw: Any, tools: bool) -> dict[str, Any]:
    msg: dict[str, Any] = {"role": "assistant", "content": draw(_texts)}
    if draw(st.booleans()):
        msg["reasoning_content"] = draw(_texts)
    if tools and draw(st.integers(0, 2)) == 0:
        calls = []
        for _ in range(draw(st.integers(1, 2))):
            if draw(st.booleans()):
                name, args = "get_weather", {"city": draw(_word)}
            else:
                name, args = "add", {"a": draw(st.integers(0, 99)), "b": draw(st.integers(0, 99))}
            calls.append({"id": "", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}})
        msg["tool_calls"] = calls
        if draw(st.booleans()):
            msg["content"] = ""
    return msg


def _user(draw: Any) -> dict[str, Any]:
    text = draw(_texts)
    return {"role": "user", "content": [{"type": "text", "text": text}] if draw(st.booleans()) else text}


def _full_context_ids(conv: Conversation) -> list[int]:
    """The conversation's ids with every delta computed from the whole conversation, not a window."""
    twin = pickle.loads(pickle.dumps(conv))
    twin._window = lambda: list(range(twin._anchor + 1))  # type: ignore[method-assign]
    twin._tail = None
    return twin.prompt_ids() if conv._tail is True else twin.ids


def _ids_param(c: tuple[str, str | None, bool]) -> str:
    return f"{c[0]}-{c[1] or 'format'}"


@pytest.mark.parametrize("config", CONFIGS, ids=_ids_param)
@settings(max_examples=examples(12), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_rollouts(config: tuple[str, str | None, bool], data: st.DataObject) -> None:
    model, tname, tools = config
    draw = data.draw
    start: list[dict[str, Any]] = []
    if draw(st.booleans()):
        start.append({"role": "system", "content": draw(_texts)})
    start.append(_user(draw))
    conv = _conv(model, tname, tools, start)
    tok = conv.tokenizer
    seen: list[tuple[str, list[int]]] = []  # (prompt text + generated text, generated ids)
    results = []
    for _turn in range(draw(st.integers(1, 4))):
        try:
            prompt = conv.prompt_ids()
        except toklane.ChatTemplateError:  # a template that refuses text parts, or a role order
            break
        out = _model_output(conv, draw(assistant_turns(tools)))
        if out is None:
            break
        result = conv.add_generated(out)
        thinking = conv._thinking_for(conv.reasoning_format)
        expected = toklane.parse(
            tok,
            token_ids=out,
            reasoning=conv.reasoning_format,
            tools=conv.tool_format,
            tools_schema=TOOLS if tools and conv.tool_format else None,
            thinking=thinking,
        )
        assert (result.reasoning, result.content) == (expected.reasoning, expected.content)
        assert [(c.name, c.arguments) for c in result.tool_calls] == [
            (c.name, c.arguments) for c in expected.tool_calls
        ]
        assert conv.ids[len(prompt) :] == out  # verbatim, right after the prompt
        seen.append((tok.decode(prompt + out), out))
        results.append(result)
        if result.tool_calls and draw(st.booleans()):
            answers = [
                {"role": "tool", "tool_call_id": c.id, "name": c.name, "content": draw(_texts)}
                for c in result.tool_calls
            ]
            if draw(st.booleans()):
                conv.add_messages(answers)
            else:
                for answer in answers:  # one at a time: the same ids
                    conv.add_messages([answer])
        else:
            conv.add_messages([_user(draw)])
    if not seen:
        return
    with contextlib.suppress(toklane.ChatTemplateError):  # (refused messages are taken back)
        conv.prompt_ids() if draw(st.booleans()) else conv.ids
    ids, mask, spans = conv.ids, conv.loss_mask, conv.spans
    # generated spans verbatim, the mask exactly on them, spans tiling the ids
    assert [ids[s.start : s.end] for s in spans if s.kind == "generated"] == [out for _, out in seen]
    assert mask == [1 if s.kind == "generated" else 0 for s in spans for _ in range(s.start, s.end)]
    assert [s.start for s in spans[1:]] == [s.end for s in spans[:-1]] and spans[-1].end == len(ids)
    # windowed deltas = deltas from the whole conversation
    assert ids == _full_context_ids(conv)
    # prefix-stable -> equal to the whole render; otherwise reported
    whole = conv._render(conv.messages, conv._tail is True)
    stable = all(whole.startswith(text) for text, _ in seen) and whole.startswith(tok.decode(ids))
    drifts = conv.check()
    if stable and tok.encode(whole)[: len(ids)] == ids:
        assert drifts == []
    else:
        assert drifts, "drift not reported"
    if stable and not seen[-1:]:
        assert tok.encode(whole) == ids


@pytest.mark.parametrize("config", [c for c in CONFIGS if c[1] is None], ids=_ids_param)
def test_prefix_stable_tool_loop_equals_whole_render(config: tuple[str, str | None, bool]) -> None:
    """A tool-calling loop with no reasoning and no new user turn: the ids are the whole render's."""
    model, tname, tools = config
    conv = _conv(model, tname, tools, [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}])
    for k in range(4):
        call = [{"id": "", "type": "function", "function": {"name": "add", "arguments": json.dumps({"a": k, "b": 1})}}]
        out = _model_output(
            conv,
            {"role": "assistant", "content": "", "reasoning_content": "ok", "tool_calls": call}
            if tools
            else {"role": "assistant", "content": f"step {k}"},
        )
        result = conv.add_generated(out)
        if result.tool_calls:
            conv.add_messages(
                [{"role": "tool", "tool_call_id": result.tool_calls[0].id, "name": "add", "content": str(k + 1)}]
            )
        else:
            conv.add_messages([{"role": "user", "content": f"next {k}"}])
    prompt = conv.prompt_ids()
    whole = render(conv.tokenizer, conv.messages, tools=TOOLS if tools else None, add_generation_prompt=True).text
    assert prompt == conv.tokenizer.encode(whole)
    assert conv.check() == []


def test_reasoning_dropped_is_reported() -> None:
    conv = Conversation("qwen3.6", [{"role": "user", "content": "2+2?"}])
    tok = conv.tokenizer
    conv.prompt_ids()
    result = conv.add_generated(tok.encode("Add them.\n</think>\n\n4<|im_end|>"))
    assert (result.reasoning, result.content) == ("Add them.", "4")
    conv.add_messages([{"role": "user", "content": "3+3?"}])
    conv.prompt_ids()
    (drift,) = conv.check()
    assert drift.turn == 0 and drift.span.kind == "generated"
    assert drift.reason == "the template drops this turn's reasoning"
    assert "Add them." in drift.actual and "Add them." not in drift.expected


def test_generated_ids_never_reencoded() -> None:
    """Ids that are not how the text encodes (one id per character) are kept; check() sees the
    token-level drift."""
    conv = Conversation("llama3", [{"role": "user", "content": "Say hello"}])
    tok = conv.tokenizer
    odd = [tok.encode(ch)[0] for ch in "Hello there"] + [tok.token_to_id("<|eot_id|>")]
    prompt = conv.prompt_ids()
    assert conv.add_generated(odd).content == "Hello there"
    conv.add_messages([{"role": "user", "content": "Again"}])
    ids = conv.prompt_ids()
    assert ids[len(prompt) : len(prompt) + len(odd)] == odd
    (drift,) = conv.check()
    assert drift.span.kind == "generated" and "tokenized differently" in drift.reason


def test_cut_short_turn_is_closed_by_the_template() -> None:
    conv = Conversation("qwen3", [{"role": "user", "content": "Tell me a story"}])
    tok = conv.tokenizer
    prompt = conv.prompt_ids()
    out = tok.encode("<think>\nA story.\n</think>\n\nOnce upon a")  # max_tokens reached: no <|im_end|>
    conv.add_generated(out)
    conv.add_messages([{"role": "user", "content": "Go on"}])
    ids = conv.prompt_ids()
    assert tok.decode(ids[len(prompt) + len(out) :]).startswith("<|im_end|>\n<|im_start|>user\nGo on")
    assert conv.loss_mask.count(1) == len(out)


def test_harmony_return_vs_end() -> None:
    conv = Conversation("o200k_harmony", [{"role": "user", "content": "Hi"}])
    tok = conv.tokenizer
    conv.prompt_ids()
    conv.add_generated(tok.encode("<|channel|>final<|message|>Hello<|return|>"))
    conv.add_messages([{"role": "user", "content": "Bye"}])
    conv.prompt_ids()
    (drift,) = conv.check()
    assert drift.reason == "the template ends this turn with '<|end|>', the model with '<|return|>'"


def test_pickle_round_trip_and_continued_use() -> None:
    conv = Conversation("qwen3.6", [{"role": "user", "content": "Weather?"}], tools=TOOLS)
    tok = conv.tokenizer
    conv.prompt_ids()
    out = tok.encode(
        "ok\n</think>\n\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
        "</function>\n</tool_call><|im_end|>"
    )
    call = conv.add_generated(out).tool_calls[0]
    conv.add_messages([{"role": "tool", "tool_call_id": call.id, "content": "sunny"}])
    copy = pickle.loads(pickle.dumps(conv))
    assert copy.ids == conv.ids and copy.loss_mask == conv.loss_mask and copy.messages == conv.messages
    for c in (conv, copy):
        c.prompt_ids()
        c.add_generated(tok.encode("fine\n</think>\n\nSunny.<|im_end|>"))
    assert copy.ids == conv.ids and copy.spans == conv.spans and copy.check() == conv.check() == []
    assert copy.tokenizer is conv.tokenizer


def test_batch_prompt_ids() -> None:
    convs = [Conversation("llama3", [{"role": "user", "content": f"question {k}"}]) for k in range(3)]
    solo = [Conversation("llama3", [{"role": "user", "content": f"question {k}"}]).prompt_ids() for k in range(3)]
    assert Conversation.batch_prompt_ids(convs) == solo
    assert [c.prompt_ids() for c in convs] == solo


def test_window_is_bounded() -> None:
    """A long tool loop renders a bounded number of messages per turn."""
    conv = Conversation("qwen3.6", [{"role": "system", "content": "s"}, {"role": "user", "content": "go"}], tools=TOOLS)
    tok = conv.tokenizer
    sizes: list[int] = []
    real = conv._render

    def counting(messages: Any, gen: bool) -> str:
        sizes.append(len(messages))
        return real(messages, gen)

    conv._render = counting  # type: ignore[method-assign]
    for k in range(20):
        conv.prompt_ids()
        out = tok.encode(
            f"t{k}\n</think>\n\n<tool_call>\n<function=add>\n<parameter=a>\n{k}\n</parameter>\n"
            "</function>\n</tool_call><|im_end|>"
        )
        conv.add_generated(out)
        conv.add_messages([{"role": "tool", "content": str(k)}])
    assert max(sizes[-10:]) <= 6


def test_errors() -> None:
    conv = Conversation("llama3", [{"role": "user", "content": "hi"}])
    with pytest.raises(toklane.InvalidTokenIdError):
        conv.add_generated([10**9])
    with pytest.raises(toklane.InvalidMessagesError):
        conv.add_messages([{"role": "robot", "content": "x"}])
    template = (
        "{% for m in messages %}{% if m.role == 'tool' %}{{ raise_exception('no tools') }}{% endif %}"
        "{{ m.content }}{% endfor %}"
    )
    conv = Conversation("llama3", [{"role": "user", "content": "hi"}], chat_template=template)
    conv.prompt_ids()
    conv.add_messages([{"role": "tool", "content": "x"}])
    with pytest.raises(toklane.ChatTemplateError):
        conv.prompt_ids()
    assert len(conv.messages) == 1  # taken back
    assert re.search("hi", conv.tokenizer.decode(conv.prompt_ids()))


def test_example_runs() -> None:
    """examples/rollout_loop.py (docs/rollout.md) runs and ends with no drift."""
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parents[2] / "examples" / "rollout_loop.py"
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.rstrip().endswith("check(): the ids equal a whole re-render")


def test_example_runs_with_a_tiny_random_model() -> None:
    """``--tiny-model``: the ids come from generate() of a random one-layer Llama; they are kept verbatim."""
    import subprocess
    import sys
    from pathlib import Path

    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    script = Path(__file__).resolve().parents[2] / "examples" / "rollout_loop.py"
    proc = subprocess.run([sys.executable, str(script), "--tiny-model"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "generated ids[275:" in proc.stdout and "turn 0: prompt 275 ids" in proc.stdout, proc.stdout
