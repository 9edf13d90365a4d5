"""One multi-turn rollout as ids: the model's ids verbatim, the template's ids rendered once, as deltas.

A conversation's ids are a run of *spans*: ``"template"`` spans (what the chat template renders:
the first prompt, tool results, user turns, the generation prompt, the end of a turn that the
model did not emit itself) and ``"generated"`` spans (the ids the model produced, appended as given
and never decoded and re-encoded). ``loss_mask`` is 1 exactly on the generated spans.

How a template span is computed (the delta). After the model's turn ``a`` (the last generated
assistant message) the messages added since, ``P``, are rendered inside a bounded *window* of the
conversation: ``W`` = the leading system / developer messages and the first message after them
(a template may put tool definitions into it), the last user message before ``a`` (Qwen-style
templates find "the last query" to decide which assistant turns show their reasoning) and ``a``.
With ``B0 = render(W)`` and ``B1 = render(W + P, add_generation_prompt=...)``, when ``B1`` starts
with ``B0`` (the template is prefix-stable there) the delta is ``B1[len(B0):]``, preceded by the
*glue*: what the template renders after the model's own ids in turn ``a`` (Qwen's ``"\\n"`` after
``<|im_end|>``; the whole end of the turn when the model's output was cut short). Only that text is
encoded. The window does not grow with the conversation, so a turn costs O(its new tokens), not
O(history). Where ``B1`` does not start with ``B0`` (a template that re-renders turn ``a`` once a
later message arrives, e.g. Qwen's dropping of past reasoning after a new user turn), ``a`` is
rendered without its reasoning, and failing that the whole conversation is rendered; a template
that raises on the window (one that checks role alternation by position) is rendered whole too.

The whole render of the recorded messages is what :meth:`Conversation.check` compares the ids
with: the two are equal for every prefix-stable template (tested on the real templates); where
they differ, :class:`Drift` says which turn, which span and why.

Messages added (tool results, a user turn) are kept as *pending* until ids are needed
(:meth:`Conversation.prompt_ids`, :attr:`Conversation.ids`): the template span after the last
generated one is recomputed from the messages then, so adding tool results one call at a time
renders as adding them together (a template that groups consecutive tool results renders them as
one group), and a template error surfaces there (the messages that caused it are taken back).
"""

from __future__ import annotations

import contextlib
import re
import weakref
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..chat.messages import template_messages, validate_messages
from ..chat.render import Renderer, render, renderer_for
from ..errors import InvalidArgumentError, InvalidTokenIdError, ToklaneError
from ..tokenizer import Tokenizer, load_tokenizer

if TYPE_CHECKING:
    from ..parsing import ParseResult

__all__ = ["Conversation", "Drift", "Span", "default_formats"]

#: Parser formats (reasoning, tools) for the family formats' models.
_FORMAT_DEFAULTS: dict[str, tuple[str | None, str | None]] = {
    "chatml": ("qwen3", "hermes"),
    "qwen3.5": ("qwen3", "qwen3_coder"),
    "llama3": (None, "llama3_json"),
    "deepseek": ("deepseek_r1", "deepseek_v3"),
    "harmony": ("gpt_oss", "gpt_oss"),
    "openai": (None, None),
    "mistral": ("mistral", "mistral"),
    "deepseek-v4": ("deepseek_r1", "deepseek_v4"),
    "mistral-v3": ("mistral", "mistral"),
    "mistral-v7": ("mistral", "mistral"),
    "mistral-tekken": ("mistral", "mistral"),
}

#: For a model's own template: a telltale in its text -> parser formats (first match wins).
_TEMPLATE_CLUES: tuple[tuple[str, str | None, str | None], ...] = (
    ("<|channel|>", "gpt_oss", "gpt_oss"),
    ("<minimax:tool_call>", "minimax_m2", "minimax_m2"),
    ("<|tool_calls_section_begin|>", "kimi_k2", "kimi_k2"),
    ("<arg_key>", "glm45", "glm45"),
    ("DSML", "deepseek_r1", "deepseek_v4"),
    ("<｜tool▁call▁begin｜>function<｜tool▁sep｜>", "deepseek_r1", "deepseek_v3"),
    ("<｜tool▁calls▁begin｜>", "deepseek_r1", "deepseek_v31"),
    ("[TOOL_CALLS]", "mistral", "mistral"),
    ("<function=", "qwen3", "qwen3_coder"),
    ("<tool_call>", "qwen3", "hermes"),
    ("<|python_tag|>", None, "llama3_json"),
)


def default_formats(renderer: Renderer) -> tuple[str | None, str | None]:
    """The parser formats ``(reasoning, tools)`` of the model a renderer renders for: the family
    format's, or those a model's own template names by its markers (``(None, None)`` if none)."""
    if renderer.format is not None:
        return _FORMAT_DEFAULTS.get(renderer.format.name, (None, None))
    text = renderer.template.text
    for clue, reasoning, tools in _TEMPLATE_CLUES:
        if clue in text:
            if reasoning is not None and reasoning not in ("gpt_oss", "mistral") and "<think>" not in text:
                reasoning = None
            if reasoning == "mistral" and "[THINK]" not in text:
                reasoning = None
            return reasoning, tools
    return ("qwen3" if "<think>" in text else None), None


def _fitting(tok: Tokenizer, reasoning: str | None, tools: str | None) -> tuple[str | None, str | None]:
    """The default formats whose markers the tokenizer has (a model's template over another
    vocabulary gets no parser for markers that vocabulary lacks)."""
    from ..parsing import get_parser

    fit: list[str | None] = []
    for kind, name in (("reasoning", reasoning), ("tools", tools)):
        if name is not None:
            try:
                get_parser(tok, **{kind: name})
            except ToklaneError:
                name = None
        fit.append(name)
    return fit[0], fit[1]


@dataclass(frozen=True)
class Span:
    """A run of ids: ``ids[start:end]``, rendered by the template or generated by the model;
    ``messages`` is the range of message indices it holds (``turn``: generated turns before it,
    for a template span; its own number, from 0, for a generated one)."""

    start: int
    end: int
    kind: str  # "template" | "generated"
    turn: int
    messages: tuple[int, int]


@dataclass(frozen=True)
class Drift:
    """Where a whole render of the recorded messages differs from the accumulated ids."""

    turn: int
    span: Span
    reason: str
    #: The text the whole render has there, and the text of the ids held.
    expected: str
    actual: str


_REASONING_KEYS = ("reasoning_content", "thinking", "reasoning")
_added_cache: weakref.WeakKeyDictionary[Any, tuple[frozenset[int], re.Pattern[str] | None]]
_added_cache = weakref.WeakKeyDictionary()


def _added(tok: Tokenizer) -> tuple[frozenset[int], re.Pattern[str] | None]:
    """The tokenizer's added-token ids and a pattern finding their texts (built once per tokenizer)."""
    try:
        return _added_cache[tok]
    except (KeyError, TypeError):
        pass
    tokens = [t for t in tok.added_tokens if t.content]
    ids = frozenset(t.id for t in tokens)
    texts = sorted({t.content for t in tokens}, key=len, reverse=True)
    pattern = re.compile("|".join(map(re.escape, texts))) if texts else None
    with contextlib.suppress(TypeError):  # (a tokenizer object without weak references)
        _added_cache[tok] = (ids, pattern)
    return ids, pattern


def _last_added(text: str, pattern: re.Pattern[str] | None) -> re.Match[str] | None:
    if pattern is None:
        return None
    last = None
    for last in pattern.finditer(text):  # noqa: B007 (the last one)
        pass
    return last


def _without_reasoning(message: dict[str, Any]) -> dict[str, Any]:
    if message.get("role") != "assistant":
        return message
    return {k: v for k, v in message.items() if k not in _REASONING_KEYS}


def _common_prefix(a: str, b: str) -> int:
    n = min(len(a), len(b))
    lo, hi = 0, n
    while lo < hi:  # longest common prefix by halving (string slices compare in C)
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


class Conversation:
    """A conversation held as the ids a model sees and produces (module docstring).

    ``model``: a bundled tokenizer name, a path, or anything :func:`toklane.load_tokenizer` takes
    (a :class:`toklane.Tokenizer` too). ``messages``: the conversation so far (OpenAI-style);
    ``tools``: the tool definitions the template renders (and the parser reads as its schema);
    ``chat_template`` / ``chat_template_kwargs``: as :func:`toklane.render_chat`.
    """

    def __init__(
        self,
        model: Any,
        messages: Iterable[Mapping[str, Any]] | None = None,
        tools: Sequence[Mapping[str, Any]] | None = None,
        chat_template: str | None = None,
        chat_template_kwargs: Mapping[str, Any] | None = None,
    ):
        self._tok = model if isinstance(model, Tokenizer) else load_tokenizer(model)
        self._spec = model if isinstance(model, str) else self._tok.name
        self._tools = None if tools is None else list(tools)
        self._chat_template = chat_template
        self._kwargs = None if chat_template_kwargs is None else dict(chat_template_kwargs)
        self._renderer = renderer_for(self._tok, chat_template=chat_template, tools=self._tools)
        #: The parser formats add_generated uses when none are given.
        self.reasoning_format, self.tool_format = _fitting(self._tok, *default_formats(self._renderer))
        self._messages: list[dict[str, Any]] = []
        self._ids: list[int] = []
        self._mask: list[int] = []
        self._spans: list[Span] = []
        self._base = 0  # len(ids) at the end of the last generated span
        self._anchor = -1  # the index of the last generated assistant message
        self._last_gen: list[int] = []
        self._turns = 0
        self._tail: bool | None = False  # the template tail is built (with the generation prompt: True)
        self._good = 0  # messages rendered without error
        self._thinking: bool | None = None
        if messages is not None:
            self.add_messages(messages)

    # ------------------------------------------------------------------ public

    @property
    def tokenizer(self) -> Tokenizer:
        return self._tok

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The recorded messages (copies): the ones given, and the model's turns as parsed."""
        return [dict(m) for m in self._messages]

    @property
    def ids(self) -> list[int]:
        """All ids so far (a copy): template spans and generated spans in order."""
        self._build(self._tail is True)
        return list(self._ids)

    @property
    def loss_mask(self) -> list[int]:
        """1 on the generated ids, 0 on every id the template or the environment added (a copy)."""
        self._build(self._tail is True)
        return list(self._mask)

    @property
    def spans(self) -> list[Span]:
        self._build(self._tail is True)
        return list(self._spans)

    def prompt_ids(self) -> list[int]:
        """The ids to generate from: the conversation so far and the generation prompt (a copy)."""
        self._build(True)
        return list(self._ids)

    def add_messages(self, messages: Iterable[Mapping[str, Any]]) -> None:
        """Append messages (tool results, a user turn...): their ids are the template's render of
        them after the conversation so far (computed when ids are next needed)."""
        new = template_messages(messages)
        if self._renderer.format is not None:
            validate_messages(new)
        if not new:
            return
        self._messages.extend(new)
        self._tail = None

    def add_generated(
        self,
        ids: Iterable[int],
        *,
        reasoning: str | None = ...,  # type: ignore[assignment]
        tools: str | None = ...,  # type: ignore[assignment]
    ) -> ParseResult:
        """Append the model's ids verbatim (loss mask 1), parse them (``reasoning`` / ``tools``:
        parser formats, the model's defaults when not given; ``None``: no parser) and record the
        assistant message the parse gives. Returns the :class:`toklane.ParseResult`."""
        from ..parsing import parse

        got = self._check_ids(ids)
        self._build(True)
        rfmt = self.reasoning_format if reasoning is ... else reasoning
        tfmt = self.tool_format if tools is ... else tools
        schema = self._tools if tfmt is not None else None
        result = parse(
            self._tok, token_ids=got, reasoning=rfmt, tools=tfmt, tools_schema=schema, thinking=self._thinking_for(rfmt)
        )
        msg: dict[str, Any] = {"role": "assistant", "content": result.content or ""}
        if result.reasoning is not None:
            msg["reasoning_content"] = result.reasoning
        if result.tool_calls:
            msg["tool_calls"] = [call.to_openai() for call in result.tool_calls]
        start = len(self._ids)
        self._ids.extend(got)
        self._mask.extend([1] * len(got))
        index = len(self._messages)
        self._messages.append(msg)
        self._spans.append(Span(start, len(self._ids), "generated", self._turns, (index, index + 1)))
        self._turns += 1
        self._base = len(self._ids)
        self._anchor = index
        self._last_gen = got
        self._good = len(self._messages)
        self._tail = False
        return result

    def check(self) -> list[Drift]:
        """Compare the ids with a whole render of the recorded messages, encoded: the drift (empty
        when equal). A whole render after a last generated turn may add the end of that turn
        (Qwen's ``"\\n"`` after ``<|im_end|>``): that is not drift."""
        self._build(self._tail is True)
        whole = self._render(self._messages, self._tail is True)
        tok = self._tok
        spans = self._spans
        texts = [tok.decode(self._ids[s.start : s.end]) for s in spans]
        drifts: list[Drift] = []
        pos, k = 0, 0
        while k < len(spans):
            text = texts[k]
            if whole.startswith(text, pos):
                pos += len(text)
                k += 1
                continue
            # a region that differs: from where span k leaves the whole render to the next span found
            cut = _common_prefix(text, whole[pos : pos + len(text)])
            _, pattern = _added(tok)
            if pattern is not None:  # not inside a marker: from its start
                for m in pattern.finditer(text, max(0, cut - 64), cut + 64):
                    if m.start() < cut < m.end():
                        cut = m.start()
            start = pos + cut
            j, end = k + 1, len(whole)
            while j < len(spans):
                at = whole.find(texts[j], start) if texts[j] else -1
                if at >= 0:
                    end = at
                    break
                j += 1
            region = spans[k:j]
            span = next((s for s in region if s.kind == "generated"), region[0])
            actual = text[cut:] + "".join(texts[k + 1 : j])
            expected = whole[start:end]
            drifts.append(Drift(span.turn, span, self._why(span, expected, actual), expected, actual))
            pos, k = end, j
        if pos < len(whole) and not (spans and spans[-1].kind == "generated"):
            last = spans[-1] if spans else Span(0, 0, "template", 0, (0, 0))
            drifts.append(Drift(last.turn, last, "the whole render has more text after the ids held", whole[pos:], ""))
        if drifts:
            return drifts
        whole_ids = tok.encode(whole)
        for span in self._spans:
            if whole_ids[span.start : span.end] != self._ids[span.start : span.end]:
                drifts.append(
                    Drift(
                        span.turn,
                        span,
                        "the same text, tokenized differently (the whole render's tokens cross a span's edge)",
                        tok.decode(whole_ids[span.start : span.end]),
                        tok.decode(self._ids[span.start : span.end]),
                    )
                )
                break
        return drifts

    @staticmethod
    def batch_prompt_ids(conversations: Sequence[Conversation]) -> list[list[int]]:
        """``prompt_ids()`` of many conversations, their new template text encoded as one batch per
        tokenizer."""
        todo: dict[int, list[tuple[Conversation, str, int]]] = {}
        for conv in conversations:
            if conv._tail is not True:
                text, good = conv._tail_text(True)
                todo.setdefault(id(conv._tok), []).append((conv, text, good))
        for group in todo.values():
            encoded = group[0][0]._tok.encode_batch([text for _, text, _ in group])
            for (conv, text, _good), ids in zip(group, encoded, strict=True):
                conv._apply(text, ids, True)
        return [list(conv._ids) for conv in conversations]

    def __len__(self) -> int:
        return len(self.ids)

    def __repr__(self) -> str:
        return (
            f"Conversation({self._spec!r}, {len(self._messages)} messages, {len(self._ids)} ids, "
            f"{self._turns} generated turns)"
        )

    # ------------------------------------------------------------------ pickling

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        del state["_tok"], state["_renderer"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._tok = load_tokenizer(self._spec)
        self._renderer = renderer_for(self._tok, chat_template=self._chat_template, tools=self._tools)

    # ------------------------------------------------------------------ internals

    def _check_ids(self, ids: Iterable[int]) -> list[int]:
        if hasattr(ids, "tolist"):
            ids = ids.tolist()
        if isinstance(ids, (str, bytes)) or not isinstance(ids, Iterable):
            raise InvalidArgumentError("ids", f"must be a sequence of token ids, got {type(ids).__name__}")
        got = list(ids)
        size = len(self._tok)
        for i in got:
            if type(i) is not int or not 0 <= i < size:
                raise InvalidTokenIdError(i, self._tok.name, size)
        return got

    def _render(self, messages: Sequence[Mapping[str, Any]], gen: bool) -> str:
        if not messages and not gen:
            return ""
        return render(
            self._tok,
            messages,
            tools=self._tools,
            add_generation_prompt=gen,
            chat_template_kwargs=self._kwargs,
            renderer=self._renderer,
        ).text

    def _thinking_for(self, rfmt: str | None) -> bool | None:
        """Whether the generation prompt left reasoning open (None: no reasoning format)."""
        if rfmt is None or self._thinking is None:
            return None
        from ..reasoning_markers import markers_for

        markers = markers_for(rfmt)
        if markers is None:
            return None
        # open only where the prompt ends with the start marker; an explicit start is read either way
        return bool(markers.start) and self._thinking.endswith(markers.start)

    def _build(self, gen: bool) -> None:
        if self._tail is gen:
            return
        text, _ = self._tail_text(gen)
        self._apply(text, self._tok.encode(text), gen)

    def _apply(self, text: str, ids: list[int], gen: bool) -> None:
        del self._ids[self._base :], self._mask[self._base :]
        while self._spans and self._spans[-1].start >= self._base and self._spans[-1].kind == "template":
            self._spans.pop()
        if ids:
            start = len(self._ids)
            self._ids.extend(ids)
            self._mask.extend([0] * len(ids))
            self._spans.append(
                Span(start, len(self._ids), "template", self._turns, (self._anchor + 1, len(self._messages)))
            )
        self._thinking = text[-64:].rstrip() if gen else None
        self._good = len(self._messages)
        self._tail = gen

    def _tail_text(self, gen: bool) -> tuple[str, int]:
        """The template's text after the last generated ids: the glue and the pending messages
        (and the generation prompt when ``gen``). On a template error, the pending messages added
        since the last good render are taken back and the error raised."""
        try:
            return self._delta(gen), len(self._messages)
        except ToklaneError:
            del self._messages[self._good :]
            self._tail = None
            raise

    def _window(self) -> list[int]:
        """Indices of the messages a delta after turn ``anchor`` is rendered with (module docstring)."""
        a, msgs = self._anchor, self._messages
        head = 0
        while head < a and msgs[head].get("role") in ("system", "developer"):
            head += 1
        keep = list(range(min(head + 1, a)))
        query = next((i for i in range(a - 1, -1, -1) if msgs[i].get("role") == "user"), -1)
        if query >= len(keep):
            keep.append(query)
        keep.append(a)
        return keep

    def _delta(self, gen: bool) -> str:
        msgs, a = self._messages, self._anchor
        pending = msgs[a + 1 :]
        if a < 0:
            return self._render(pending, gen)
        if not pending and not gen:
            return ""
        window = [msgs[i] for i in self._window()]
        try:
            return self._delta_in(window, pending, gen)
        except ToklaneError:
            if len(window) == a + 1:
                raise
        return self._delta_in(msgs[: a + 1], pending, gen)  # (a template that refuses the window)

    def _delta_in(self, context: list[dict[str, Any]], pending: list[dict[str, Any]], gen: bool) -> str:
        b0 = self._render(context, False)
        b1 = self._render(context + pending, gen)
        if b1.startswith(b0):
            return self._glue(b0) + b1[len(b0) :]
        # the template renders turn a (and earlier ones) differently once later messages follow:
        # the pending messages' render after the turns without their reasoning
        bare = [_without_reasoning(m) for m in context]
        c0 = self._render(bare, False)
        c1 = self._render([*bare, *pending], gen)
        if c1.startswith(c0):
            return self._glue(c0) + c1[len(c0) :]
        # last resort: where turn a ends in the longer render -- as many of the model's stop markers
        # after the point where the renders part as the shorter render has there (the turns after
        # that point are re-rendered, one end marker each)
        n = _common_prefix(b0, b1)
        _, pattern = _added(self._tok)
        stop = self._stop_text()
        count = b0.count(stop, n) if stop else 0
        at = n - 1
        for _ in range(count):
            at = b1.find(stop, at + 1)
            if at < 0:
                break
        if count and at >= 0:
            return b1[at + len(stop) :]
        match = pattern.search(b1, n) if pattern is not None else None
        return b1[match.start() :] if match is not None else b1[n:]

    def _stop_text(self) -> str | None:
        """The text of the model's last id when it is an added token (its stop token), else None."""
        added, _ = _added(self._tok)
        if self._last_gen and self._last_gen[-1] in added:
            return self._tok.decode(self._last_gen[-1:])
        return None

    def _glue(self, rendered: str) -> str:
        """What the template renders after the model's ids in its last turn (``rendered`` ends with
        that turn): nothing when the model emitted all of it; the rest of the turn's end when the
        model stopped on the template's own end marker; the whole end of the turn, from the
        template's last marker, when the model's output was cut short."""
        gen_text = self._tok.decode(self._last_gen)
        if gen_text and rendered.endswith(gen_text):
            return ""
        at = rendered.rfind(gen_text) if gen_text else -1
        if at >= 0 and at + len(gen_text) >= len(rendered) - 64:
            return rendered[at + len(gen_text) :]
        _, pattern = _added(self._tok)
        stop = self._stop_text()
        if stop is not None:
            at = rendered.rfind(stop)
            if at >= 0:
                return rendered[at + len(stop) :]
        last = _last_added(rendered[-256:], pattern)
        if last is None:
            return ""
        tail = rendered[-256:]
        # the model ended on another marker (harmony's <|return|> where the template writes <|end|>):
        # the turn is closed; cut short: the template closes it
        return tail[last.end() :] if stop is not None else tail[last.start() :]

    def _why(self, span: Span, expected: str, actual: str) -> str:
        if span.kind == "template":
            return (
                "the whole render lays these messages out differently (the template is not prefix-stable "
                "here: it re-renders earlier turns once later messages follow)"
            )
        msg = self._messages[span.messages[0]]
        reasoning = msg.get("reasoning_content")
        if reasoning and reasoning.strip() and reasoning.strip() not in expected:
            return "the template drops this turn's reasoning"
        from ..reasoning_markers import markers_for

        markers = markers_for(self.reasoning_format) if self.reasoning_format else None
        if markers is not None and markers.end in actual and markers.end not in expected:
            return "the template drops this turn's reasoning"
        stop = self._tok.decode(self._ids[span.end - 1 : span.end])
        if stop and actual.endswith(stop) and expected.startswith(actual[: -len(stop)]) and stop not in expected:
            return f"the template ends this turn with {expected[len(actual) - len(stop) :]!r}, the model with {stop!r}"
        if msg.get("tool_calls"):
            return "the template writes this turn's tool calls differently (re-serialised arguments or layout)"
        if expected.strip() == actual.strip():
            return "the template trims this turn's whitespace"
        return "the template renders this turn's text differently"
