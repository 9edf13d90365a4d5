"""``Tokenizer.encode``'s common call in one C call (``toklane._bpe.front``): a short text with none of
the added tokens' first characters straight into the engine -- the compiled encoder, or fastokens' own
binding once it has taken over -- and every other call through the method. Property-tested: every
call form gives what the method gives, on every bundled tokenizer that has a front, before and after
the upgrade."""

from __future__ import annotations

import gc
import inspect
import random
import weakref

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toklane
from toklane import Tokenizer
from toklane.tokenizer.bundled import BUNDLED
from toklane.tokenizer.bundled_loaders import load_bundled
from toklane.tokenizer.engines import compiled, staged

from ..profiles import examples
from ..references import CORPUS

pytestmark = pytest.mark.skipif(not compiled.NATIVE, reason="the front is part of toklane._bpe")

RANKED = [row.name for row in BUNDLED if not row.name.startswith("mistral-v")]

#: Pieces of the texts: added tokens and their first characters alone, NFC-sensitive characters
#: (a combining accent, a Hangul jamo, a character NFC replaces; and marks NFC leaves where they are,
#: which the front asks the form about in C), a lone surrogate, long runs.
_PIECES = [
    "hello",
    " world",
    "café",
    "e\u0301",
    "x\u0301",
    " नमस्ते",
    "ที่",
    "\u1100\u1161",
    "\u212b",
    "\ud800",
    "<",
    "<|",
    "<|endoftext|>",
    "<|im_start|>",
    "<think>",
    "<｜end▁of▁sentence｜>",
    "｜",
    "[INST]",
    "[",
    "</s>",
    "<|eot_id|>",
    "<|return|>",
    "日本語",
    "🙂",
    "  \n\t",
    "x" * 300,
    "123456",
]
texts = st.lists(st.sampled_from(_PIECES) | st.text(max_size=8), max_size=12).map("".join)


def _loaded(name: str, upgraded: bool) -> Tokenizer:
    if name.startswith("mistral"):
        pytest.importorskip("mistral_common")
    tok = load_bundled(next(row for row in BUNDLED if row.name == name), ())
    if upgraded:
        pytest.importorskip("fastokens")
        assert staged.upgrade_now(tok) and tok.engine == "fastokens", tok.engine_reason
    return tok


_TOKS: dict[tuple[str, bool], Tokenizer] = {}


def _tok(name: str, upgraded: bool) -> Tokenizer:
    if (name, upgraded) not in _TOKS:
        _TOKS[name, upgraded] = _loaded(name, upgraded)
    return _TOKS[name, upgraded]


class _Binding:
    """fastokens' binding of an upgraded tokenizer, the texts it is sent counted (``calls``)."""

    def __init__(self, tok: Tokenizer) -> None:
        self.native = tok._backend._tok
        self.calls: list[str] = []

    def ordinary(self, text: str) -> object:
        self.calls.append(text)
        return self.native.encode_ordinary(text)

    def full(self, text: str, *args: object) -> object:
        self.calls.append(text)
        return self.native.encode(text, *args)


def _unseen(rng: random.Random, words: int = 4) -> str:
    """Words of rare letters, new to every table: each a merge."""
    return " ".join("".join(rng.choice("qxzjvkwfyщъэ") for _ in range(rng.randint(6, 9))) for _ in range(words))


@pytest.mark.parametrize("upgraded", [False, True], ids=["compiled", "fastokens"])
@pytest.mark.parametrize("name", RANKED)
def test_every_call_is_the_methods(name: str, upgraded: bool) -> None:
    tok = _tok(name, upgraded)
    assert type(tok.encode).__name__ == "Front", "the front must be in place for this test to mean anything"

    @settings(max_examples=examples(150), deadline=None)
    @given(texts)
    def check(text: str) -> None:
        want = Tokenizer.encode(tok, text)
        assert tok.encode(text) == want
        assert tok.encode(text, add_special_tokens=False, split_special_tokens=False) == want
        assert tok.encode(text, split_special_tokens=True) == Tokenizer.encode(tok, text, split_special_tokens=True)
        assert tok.encode(text, True) == Tokenizer.encode(tok, text, True)
        assert tok.encode(text, max_length=3) == Tokenizer.encode(tok, text, max_length=3)

    check()


@pytest.mark.parametrize("name", RANKED)
def test_the_shared_tokenizers_have_it(name: str) -> None:
    """What load_tokenizer gives has the front (so the exactness suites, which compare every bundled
    tokenizer with its reference, read through it); the mixed corpus reads as through the method."""
    if name.startswith("mistral"):
        pytest.importorskip("mistral_common")
    tok = toklane.load_tokenizer(name)
    assert type(tok.encode).__name__ == "Front"
    for text in CORPUS:
        assert tok.encode(text) == Tokenizer.encode(tok, text)


def test_it_reads_as_the_method_to_introspection() -> None:
    tok = _tok("qwen3.6", False)
    assert inspect.signature(tok.encode) == inspect.signature(Tokenizer.encode.__get__(tok))
    assert tok.encode.__doc__ == Tokenizer.encode.__doc__ and tok.encode.__name__ == "encode"
    with pytest.raises(TypeError, match="expects str"):
        tok.encode(b"bytes")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        tok.encode()  # type: ignore[call-arg]


def test_it_holds_its_tokenizer_weakly() -> None:
    """No reference cycle: a tokenizer nobody holds is freed at once; its front, kept, says so."""
    gc.collect()
    gc.disable()
    try:
        tok = _loaded("llama3", False)
        front, ref = tok.encode, weakref.ref(tok)
        assert front("plain text") == Tokenizer.encode(tok, "plain text")
        del tok
        assert ref() is None
    finally:
        gc.enable()
    with pytest.raises(ReferenceError):
        front("<|eot_id|> goes to the method, whose tokenizer is gone")


def test_upgrade_and_back_reinstall_it() -> None:
    tok = _loaded("cl100k_base", False)
    before = tok.encode
    assert staged.upgrade_now(tok)
    assert tok.encode is not before and type(tok.encode).__name__ == "Front"
    assert tok.encode("x <|endoftext|>") == Tokenizer.encode(tok, "x <|endoftext|>")


@pytest.mark.parametrize("upgraded", [False, True], ids=["compiled", "fastokens"])
def test_a_flagged_text_the_form_keeps_is_asked_of_stable_in_c(upgraded: bool) -> None:
    """A text holding a character NFC may change goes to the engine straight from C where the front's
    ``stable`` says the form keeps each span around such characters (asked per span, in order, until
    one fails; a span that is the whole text is the text itself; a short span's answer is kept), and to
    the method where it says not, where it raises, or where there is none: the calls each path makes
    are counted on a front built over Qwen3.6 (NFC)."""
    tok = _tok("qwen3.6", upgraded)
    backend = tok._backend
    asked: list[str] = []
    methods: list[str] = []

    def method(owner: Tokenizer, text: str, *args: object, **kwargs: object) -> list[int]:
        methods.append(text)
        return Tokenizer.encode(owner, text, *args, **kwargs)

    def build(stable: object) -> object:
        if upgraded:
            native = backend._tok
            return compiled._bpe.front(
                None, weakref.ref(tok), method, "<", "<", 1000, compiled._nfc_flags,
                native.encode_ordinary, native.encode, stable,
            )  # fmt: skip
        engine = backend._engine
        return compiled._bpe.front(
            engine._encoder, weakref.ref(tok), method, "<", "<", 1000, compiled._nfc_flags, None, None, stable
        )

    def stable(span: str) -> bool:
        asked.append(span)
        return compiled.nfc_span_stable(span)

    def broken(text: str) -> bool:
        raise ValueError("a check that fails sends the call to the method")

    kept, changed, whole, replaced = "x\u0301 नमस्ते", "café e\u0301 x\u0301", "q\u0301", "\u212b \u0915\u094d"
    flags = compiled._nfc_flags()
    # (the virama's span is in NFC by Unicode's quick check alone; the acute may compose: open)
    assert [kept[a:b] for a, b in compiled._bpe.nfc_spans(flags, kept)] == ["x\u0301", "\u0938\u094d"]
    assert [kept[a:b] for a, b in compiled._bpe.nfc_spans(flags, kept, True)] == ["x\u0301"]
    front = build(stable)
    assert front(kept) == Tokenizer.encode(tok, kept) and (asked, methods) == (["x\u0301"], [])
    # (a span asked before is answered from the front's memo: x + acute is not asked again)
    assert front(changed) == Tokenizer.encode(tok, changed) and (asked, methods) == (["x\u0301", "e\u0301"], [changed])
    asked.clear()
    methods.clear()
    assert front(whole) == Tokenizer.encode(tok, whole) and asked == [whole] and asked[0] is whole
    assert front(whole) == Tokenizer.encode(tok, whole) and asked == [whole]  # (the memo's answer)
    assert front(replaced) == Tokenizer.encode(tok, replaced) and (asked, methods) == ([whole], [replaced])
    assert front("\u0915\u094d") == Tokenizer.encode(tok, "\u0915\u094d") and asked == [whole]  # (quick: yes)
    methods.clear()
    assert front("plain ascii") == Tokenizer.encode(tok, "plain ascii") and asked == [whole]  # (never asked)
    assert front("e\u0301") == Tokenizer.encode(tok, "e\u0301") and methods == ["e\u0301"]  # (the memo's no)
    assert asked == [whole]
    methods.clear()
    assert build(broken)(kept) == Tokenizer.encode(tok, kept) and methods == [kept]
    methods.clear()
    assert build(None)(kept) == Tokenizer.encode(tok, kept) and methods == [kept]


@pytest.mark.parametrize("upgraded", [False, True], ids=["compiled", "fastokens"])
def test_the_memo_of_span_answers_never_mixes_spans(upgraded: bool) -> None:
    """Over a thousand short spans that may compose (a letter and a mark or two, some NFC composes,
    many it keeps), more than the front's memo holds, asked twice in two orders: each text goes to
    the method exactly where NFC changes it, and gets the method's ids, whether its answer was kept,
    evicted or never held."""
    import unicodedata

    tok = _tok("qwen3.6", upgraded)
    methods: list[str] = []

    def method(owner: Tokenizer, text: str, *args: object, **kwargs: object) -> list[int]:
        methods.append(text)
        return Tokenizer.encode(owner, text, *args, **kwargs)

    backend = tok._backend
    if upgraded:
        native = backend._tok
        front = compiled._bpe.front(
            None, weakref.ref(tok), method, "<", "<", 1000, compiled._nfc_flags,
            native.encode_ordinary, native.encode, compiled.nfc_span_stable,
        )  # fmt: skip
    else:
        engine = backend._engine
        front = engine.front(weakref.ref(tok), method, "<", "<")
    letters = "abcdeghijklmnorsuwyzAEIOU\u0928\u0915\u0bb5\u0b95"
    marks = ["\u0301", "\u0300", "\u0308", "\u0323", "\u0303", "\u093c", "\u0bbe", "\u0302\u0301", "\u0327\u0306"]
    texts = [f"{a}{m} {b}{n}" for a in letters for m in marks for b in "xkt" for n in marks[:2]]
    assert len({t.split()[0] for t in texts} | {t.split()[1] for t in texts}) > 250 and len(texts) > 1000
    changed = [t for t in texts if not unicodedata.is_normalized("NFC", t)]
    assert 0 < len(changed) < len(texts)
    for order in (texts, texts[::-1]):
        methods.clear()
        for text in order:
            assert front(text) == Tokenizer.encode(tok, text), text
        assert sorted(methods) == sorted(changed)


@pytest.mark.parametrize("name", ["cl100k_base", "qwen3.6", "deepseek-v4"])
def test_after_the_upgrade_short_text_goes_to_the_compiled_encoder(name: str) -> None:
    """With both engines, a text of at most short_max characters holding no lead goes to the compiled
    encoder, ASCII or not, anything else to fastokens' binding (the calls it gets are counted), and
    every answer is the method's; a front with short_max 0 sends every text to the binding."""
    from toklane.tokenizer.engines import fastokens

    tok = _tok(name, True)
    encoder, binding = tok._backend.exact.compiled_encoder(), _Binding(tok)
    assert encoder is not None
    calls = binding.calls

    def build(short_max: int) -> object:
        flags = compiled._nfc_flags if name.startswith("qwen") else None
        return compiled._bpe.front(
            encoder, weakref.ref(tok), Tokenizer.encode, "<", "<", 1000, flags, binding.ordinary, binding.full,
            None, short_max,
        )  # fmt: skip

    limit = fastokens._FRONT_SHORT_MAX
    short, long, other, lead = "Short text, 42.", "word " * (limit // 5 + 1), "café au lait, 東京", "x <|endoftext|>"
    front = build(limit)
    for text in (short, long, other, lead, "ж" * (limit + 1)):
        assert front(text) == Tokenizer.encode(tok, text)
    assert calls == [long, lead, "ж" * (limit + 1)]
    calls.clear()
    assert build(0)(short) == Tokenizer.encode(tok, short) and calls == [short]
    assert type(tok.encode).__name__ == "Front" and tok.encode(short) == Tokenizer.encode(tok, short)


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_short_text_that_merges_much_goes_to_the_binding_while_it_does(name: str) -> None:
    """The compiled encoder merges a word it has not seen pair by pair, no faster than fastokens'
    binding: while a quarter of the recent short texts merged two pieces or more, such texts go to the
    binding, one in 32 still to the encoder (which keeps the record current), and back to the
    encoder once its texts are ones it knows, ASCII or not. Every answer is the method's."""
    from toklane.tokenizer.engines import fastokens

    tok = _tok(name, True)
    encoder, binding = tok._backend.exact.compiled_encoder(), _Binding(tok)
    calls = binding.calls
    front = compiled._bpe.front(
        encoder, weakref.ref(tok), Tokenizer.encode, "<", "<", 1000, None, binding.ordinary, binding.full, None,
        fastokens._FRONT_SHORT_MAX,
    )  # fmt: skip
    rng = random.Random(f"{name} merges")

    def unseen() -> str:
        return _unseen(rng)

    assert front.short_route == (0, True)
    for _ in range(40):
        text = unseen()
        assert front(text) == Tokenizer.encode(tok, text)
    slow, to_encoder = front.short_route
    assert slow >= 256 and not to_encoder
    calls.clear()
    texts = [unseen() for _ in range(64)]
    assert [front(t) for t in texts] == [Tokenizer.encode(tok, t) for t in texts]
    assert len(calls) == 62  # (one in 32 to the encoder)
    known = ["the cat sat on the mat", "hello world", "a b c", "print(x)", "привет, мир"]
    for k in range(1000):  # (~22 probes, one call in 32, bring the record under a quarter)
        assert front(known[k % 5]) == Tokenizer.encode(tok, known[k % 5])
    assert front.short_route[1]
    calls.clear()
    assert front("the cat sat on the mat") == Tokenizer.encode(tok, "the cat sat on the mat") and calls == []
    assert front("привет, мир") == Tokenizer.encode(tok, "привет, мир") and calls == []


@pytest.mark.parametrize("name", ["cl100k_base", "qwen3.6", "deepseek-v4"])
def test_a_text_asked_about_before_goes_to_the_compiled_encoder(name: str) -> None:
    """Where a text would go to the binding, a repeat of it goes to the compiled encoder, which keeps
    its words once it has merged them: a short text while the record of merges sends such texts to
    the binding, and a longer one of at most repeat_max characters that is not ASCII. The first time,
    such a text goes to the binding; ASCII past short_max, a text past repeat_max and one holding a
    lead always do (the calls the binding gets are counted). Every answer is the method's."""
    from toklane.tokenizer.engines import fastokens

    tok = _tok(name, True)
    encoder, binding = tok._backend.exact.compiled_encoder(), _Binding(tok)
    calls = binding.calls
    flags = compiled._nfc_flags if name.startswith("qwen") else None
    stable = compiled.nfc_span_stable if flags is not None else None
    short_max, repeat_max = fastokens._FRONT_SHORT_MAX, fastokens._FRONT_REPEAT_MAX
    front = compiled._bpe.front(
        encoder, weakref.ref(tok), Tokenizer.encode, "<", "<", 1000, flags, binding.ordinary, binding.full, stable,
        short_max, repeat_max,
    )  # fmt: skip
    longer, ascii_longer = "Слова и ещё слова, " * 10, "Some words, and more of them. " * 7
    past, held = "ж" * (repeat_max + 1), "Слова и ещё слова <|x " * 8
    assert short_max < min(len(longer), len(ascii_longer), len(held)) <= repeat_max < len(past)
    for text in (longer, ascii_longer, past, held) * 3:
        assert front(text) == Tokenizer.encode(tok, text)
    assert calls == [longer, ascii_longer, past, held] + [ascii_longer, past, held] * 2

    rng = random.Random(f"{name} repeats")

    def unseen() -> str:
        return _unseen(rng)

    for _ in range(40):
        text = unseen()
        assert front(text) == Tokenizer.encode(tok, text)
    assert not front.short_route[1]
    again = [unseen() for _ in range(8)]
    calls.clear()
    for text in again * 4:  # (one call in 32 to the encoder whatever it is: at most one per text here)
        assert front(text) == Tokenizer.encode(tok, text)
    assert sorted(calls) == sorted(again)  # (each text's first call the record sent to the binding)


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_repeats_go_back_to_the_binding_where_the_encoder_merges_them_again(name: str) -> None:
    """Where the recurring texts hold more words than the encoder's tables keep, it merges them again on
    every repeat and the binding is faster: once a quarter of the recent repeats it took before merged
    two pieces or more, such repeats go to the binding, one in 32 still to the encoder. A few texts
    that recur keep going to the encoder. Every answer is the method's."""
    from toklane.tokenizer.engines import fastokens

    tok = _tok(name, True)
    encoder, binding = tok._backend.exact.compiled_encoder(), _Binding(tok)
    calls = binding.calls
    rng = random.Random(f"{name} thrash")

    def build() -> object:
        return compiled._bpe.front(
            encoder, weakref.ref(tok), Tokenizer.encode, "<", "<", 1000, None, binding.ordinary, binding.full, None,
            fastokens._FRONT_SHORT_MAX, fastokens._FRONT_REPEAT_MAX,
        )  # fmt: skip

    few, many = [_unseen(rng) for _ in range(40)], [_unseen(rng, 10) for _ in range(3000)]
    assert max(map(len, few + many)) <= fastokens._FRONT_SHORT_MAX
    front = build()
    for text in few * 4:  # (first sight: the record of merges sends them to the binding, then repeats)
        assert front(text) == Tokenizer.encode(tok, text)
    assert not front.short_route[1] and front.repeat_route == (0, True)
    calls.clear()
    for text in few:
        assert front(text) == Tokenizer.encode(tok, text)
    assert calls == []
    front = build()
    for text in many * 4:  # (30,000 words: more than the encoder keeps)
        assert front(text) == Tokenizer.encode(tok, text)
    again_slow, to_encoder = front.repeat_route
    assert again_slow >= 256 and not to_encoder
    calls.clear()  # (each text the front still knows is a repeat the encoder took before, or new again)
    for text in many[:1000]:
        assert front(text) == Tokenizer.encode(tok, text)
    assert len(calls) >= 900  # (one in 32 still to the encoder; a text the front lost and was asked
    # about again goes there once, as a first repeat)
