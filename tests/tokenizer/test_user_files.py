"""A user's tokenizer.json on the engine choose_engine picks: the ids, templates and text of HF tokenizers.

Pipelines are generated (every normalizer and pre-tokenizer step a byte-level BPE file may hold, added
tokens with every flag) over a real vocabulary cut small (tests/tokenizer/pipelines.py), and each is
loaded from a file, moved to its final engine (fastokens where the plan names it) and compared with HF
``tokenizers`` over the same file on generated texts. The DeepSeek-V4 file itself, loaded from a folder,
is compared on the mixed corpus and on the inputs the engines handle with care.
"""

from __future__ import annotations

import itertools
import json
import re
import shutil
import threading
import unicodedata

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer as HFTokenizer

import toklane
from tests.profiles import examples
from tests.references import CORPUS
from tests.tokenizer import pipelines
from toklane.tokenizer import patterns
from toklane.tokenizer import user_files as user_files_module
from toklane.tokenizer.compiled_pipelines import SINGLE_SPLITS
from toklane.tokenizer.engines import staged
from toklane.tokenizer.engines.choose import choose_engine
from toklane.tokenizer.files import Pipeline
from toklane.tokenizer.pieces import PARALLEL_MIN

_SURROGATE = re.compile("[\ud800-\udfff]")
_names = itertools.count()


def hf_ids(hf: HFTokenizer, text: str, *, split: bool = False, special: bool = False) -> list[int] | None:
    """HF's ids (lone surrogates read as U+FFFD, as toklane reads them); None where HF fails."""
    hf.encode_special_tokens = split
    try:
        return hf.encode(_SURROGATE.sub("\ufffd", text), add_special_tokens=special).ids
    except BaseException as exc:  # a regex retry limit panics inside tokenizers
        if type(exc).__name__ != "PanicException":
            raise
        return None


def load(tmp_path, text: str) -> toklane.Tokenizer:
    folder = tmp_path / f"m{next(_names)}"
    folder.mkdir()
    (folder / "tokenizer.json").write_text(text, encoding="utf-8")
    return toklane.load_tokenizer(folder)


def assert_same(tok: toklane.Tokenizer, hf: HFTokenizer, texts: list[str]) -> None:
    for text in texts:
        for split in (False, True):
            expected = hf_ids(hf, text, split=split)
            try:
                got = tok.encode(text, split_special_tokens=split)
            except toklane.ToklaneError:
                assert expected is None, (text, split)
                continue
            if expected is None:
                continue  # HF fails (a regex retry limit); toklane's engine read it
            assert got == expected, (tok.engine, text, split)
            assert tok.decode(got) == hf.decode(got, skip_special_tokens=False), (tok.engine, text)
            assert tok.decode(got, skip_special_tokens=True) == hf.decode(got, skip_special_tokens=True)
        expected = hf_ids(hf, text, special=True)
        if expected is not None:
            assert tok.encode(text, add_special_tokens=True) == expected, (tok.engine, text)
    assert tok.encode_batch(texts) == [tok.encode(t) for t in texts]
    ids, offsets = tok.encode_batch_flat(texts)
    assert [ids[a:b].tolist() for a, b in itertools.pairwise(offsets.tolist())] == [tok.encode(t) for t in texts]


def _fast(pipeline: dict) -> bool:
    """Whether fastokens runs the pipeline: every step one it runs, or NFKC as the only normalizer (then
    fastokens runs the file without it, for the texts NFKC leaves as they are)."""
    steps = Pipeline({"normalizer": pipeline["normalizer"], "pre_tokenizer": pipeline["pre_tokenizer"]})
    kinds = [s["type"] for s in steps.normalizers]
    return (kinds == ["NFKC"] or all(k in ("NFC", "Lowercase", "Replace", "Prepend") for k in kinds)) and all(
        s["type"] in ("Split", "ByteLevel", "Digits") for s in steps.pre_tokenizers
    )


@settings(
    max_examples=examples(60),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(pipeline=pipelines.pipelines(), texts=st.lists(pipelines.texts, min_size=1, max_size=8))
def test_generated_pipelines_equal_hf_tokenizers(tmp_path, pipeline, texts):
    text = pipelines.tokenizer_json(
        pipeline["pre_tokenizer"], pipeline["normalizer"], pipeline["added"], ignore_merges=pipeline["ignore_merges"]
    )
    note(repr(pipeline))
    hf = HFTokenizer.from_str(text)
    tok = load(tmp_path, text)
    plan = choose_engine(__import__("json").loads(text))
    if not _fast(pipeline):  # a step fastokens does not run
        assert plan.upgrade is None, plan.explain()
    elif plan.upgrade is None:  # else only added tokens it would match differently keep it off
        assert "added token" in plan.reason or "regex" in plan.reason, plan.explain()
    if plan.engine == "compiled":  # (a pipeline compiled_pipelines reproduces; its merges replay as ranks)
        assert tok.engine == "compiled", tok.engine_reason
    else:
        assert tok.engine == "tokenizers"
    assert_same(tok, hf, texts)
    if plan.upgrade:
        if staged.upgrade_now(tok):
            assert tok.engine == "fastokens"
        else:  # the load-time probes found a difference the plan cannot see (a regex class read differently
            # by Oniguruma and PCRE2, e.g. U+180E as whitespace under ByteLevel's add_prefix_space): kept exact
            assert "differ" in tok.engine_reason and tok.engine == "tokenizers", tok.engine_reason
        assert_same(tok, hf, texts + pipelines.PIECES_JOINED)


# --------------------------------------------------------------------------- compiled single splits

_BYTE_LEVEL = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False}
_COMPILED_PRE = {
    **{
        label: {
            "type": "Sequence",
            "pretokenizers": [
                {"type": "Split", "pattern": {"Regex": regex}, "behavior": "Isolated", "invert": False},
                _BYTE_LEVEL,
            ],
        }
        for regex, label in SINGLE_SPLITS.items()
    },
    "DeepSeek-V4": __import__("toklane.tokenizer.deepseek_v4", fromlist=["x"]).PRE_TOKENIZER,
}
_NORMALIZERS = (
    None,
    {"type": "NFC"},
    {"type": "NFKC"},
    {"type": "Sequence", "normalizers": [{"type": "NFC"}]},
    {"type": "Sequence", "normalizers": [{"type": "NFKC"}]},
)


@st.composite
def compiled_pipelines(draw: st.DrawFn) -> dict:
    """A byte-level BPE file whose pipeline :func:`compiled_pipeline` accepts: one family split (or
    DeepSeek-V4's three), no normaliser or NFC, added tokens of either kind, either ``ignore_merges``."""
    contents = draw(st.lists(st.sampled_from(("<tok>", "[X]", "<|end|>", " hi!", "zq\u00e9")), max_size=3, unique=True))
    added = [(c, {"normalized": draw(st.booleans()), "special": draw(st.booleans())}) for c in contents]
    return {
        "pre": draw(st.sampled_from(sorted(_COMPILED_PRE))),
        "normalizer": draw(st.sampled_from(_NORMALIZERS)),
        "added": added,
        "ignore_merges": draw(st.booleans()),
        "post": draw(
            st.sampled_from(
                (None, {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False})
            )
        ),
    }


@settings(
    max_examples=examples(60),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(pipeline=compiled_pipelines(), texts=st.lists(pipelines.texts, min_size=1, max_size=8))
def test_family_splits_run_compiled_and_equal_hf_tokenizers(tmp_path, pipeline, texts):
    """A user's file with a family's split (Llama 3, Qwen2/3, Qwen3.5, o200k, tekken) or DeepSeek-V4's,
    NFC or no normaliser, trained merges: on the compiled encoder from load, with HF's ids and text --
    unless its added tokens are matched in an order one pass cannot follow (then HF tokenizers)."""
    note(repr(pipeline))
    text = pipelines.tokenizer_json(
        _COMPILED_PRE[pipeline["pre"]],
        pipeline["normalizer"],
        pipeline["added"],
        ignore_merges=pipeline["ignore_merges"],
        post_processor=pipeline["post"],
    )
    hf = HFTokenizer.from_str(text)
    tok = load(tmp_path, text)
    if choose_engine(json.loads(text)).engine == "compiled":
        assert tok.engine == "compiled", tok.engine_reason
        assert pipeline["pre"].split("'")[0] in tok.engine_reason, tok.engine_reason
    else:
        assert tok.engine == "tokenizers" and "is compiled, but added token" in tok.engine_reason, tok.engine_reason
    assert_same(tok, hf, texts + pipelines.PIECES_JOINED)


@pytest.mark.parametrize("form", ["NFC", "NFKC"])
@pytest.mark.parametrize("label", sorted(_COMPILED_PRE))
def test_family_splits_every_code_point_in_context(tmp_path, label, form):
    """Each compiled split on a user's file reads every code point as HF tokenizers does (Oniguruma's
    classes, case-insensitive contractions, HF's NFC and NFKC), beside letters, marks, digits, spaces
    and quotes."""
    text = pipelines.tokenizer_json(_COMPILED_PRE[label], {"type": form})
    hf = HFTokenizer.from_str(text)
    tok = load(tmp_path, text)
    assert tok.engine == "compiled", tok.engine_reason
    chars = [chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000]
    contexts = ("a{}b", " {}\u0301", "{} x", "'{}s", "!{}\u0308a", "1{}\n", "{}'LL", "\u4e00{}\u4e00")
    texts = [
        "".join(contexts[(k + i) % len(contexts)].format(c) for i, c in enumerate(chars[k : k + 4096]))
        for k in range(0, len(chars), 4096)
    ]
    assert tok.encode_batch(texts) == [e.ids for e in hf.encode_batch(texts, add_special_tokens=False)]


def test_an_nfc_file_normalises_as_hf_tokenizers_where_python_would_not(tmp_path):
    """HF tokenizers' Unicode tables are older than Python's: it leaves marks it does not know where they
    are (U+1DF6 before U+0301, which Python's NFC reorders). A user's NFC file on the compiled encoder
    normalises as HF does, on every text where the two NFCs differ."""
    from toklane.tokenizer.engines.hf import HF_NORMALIZERS
    from toklane.tokenizer.engines.tiktoken import python_nfc

    shapes = (" {}\u0301", "a\u0301{}", "a{}\u0301", "{}\u0308a", "e{}")
    chars = [chr(c) for c in range(0x300, 0x110000) if not 0xD800 <= c < 0xE000]
    hf_nfc = HF_NORMALIZERS["NFC"]
    differ = [s.format(c) for c in chars for s in shapes if hf_nfc(s.format(c)) != python_nfc(s.format(c))]
    assert " \u1df6\u0301" in differ
    text = pipelines.tokenizer_json(_COMPILED_PRE["Qwen2/3's split"], {"type": "NFC"})
    tok = load(tmp_path, text)
    assert tok.engine == "compiled", tok.engine_reason
    hf = HFTokenizer.from_str(text)
    assert tok.encode_batch(differ) == [e.ids for e in hf.encode_batch(differ, add_special_tokens=False)]
    assert tok.encode(" ".join(differ)) == hf.encode(" ".join(differ), add_special_tokens=False).ids


@pytest.mark.parametrize("form", ["NFC", "NFKC"])
def test_long_texts_normalise_before_they_are_cut(tmp_path, form):
    """A long text is cut at pre-token boundaries and its parts normalised and encoded on every core: a
    cut lies before an ASCII space after a character that is not one, or after a newline, and no such
    character's NFC or NFKC ends in whitespace (U+00A8 is a space and a diaeresis under NFKC: it
    starts with one), so each cut is still a boundary in the normalised text. The ids are HF's."""
    ends_in_space = [
        hex(c)
        for c in range(0x80, 0x110000)
        if not 0xD800 <= c < 0xE000 and not chr(c).isspace() and unicodedata.normalize(form, chr(c))[-1:].isspace()
    ]
    assert not ends_in_space
    text = pipelines.tokenizer_json(_COMPILED_PRE["Llama 3's split"], {"type": form})
    tok = load(tmp_path, text)
    assert tok.engine == "compiled", tok.engine_reason
    hf = HFTokenizer.from_str(text)
    pieces = ["word", " \u00a8x", "\u00a8", "ﬁne", "①", "ｶ\uff9e", "e\u0301", " \u1df6\u0301", "\u3000", "\n", "12"]
    long = "".join(pieces[(k * 7) % len(pieces)] for k in range(160_000))
    assert len(long) > 2 * PARALLEL_MIN
    assert tok.encode(long) == hf.encode(long, add_special_tokens=False).ids
    assert tok.encode_batch([long, long[:999]]) == [
        e.ids for e in hf.encode_batch([long, long[:999]], add_special_tokens=False)
    ]
    assert tok.count(long) == len(hf.encode(long, add_special_tokens=False).ids)


def test_an_added_token_matched_in_the_nfc_text_keeps_the_file_on_tokenizers(tmp_path):
    """HF matches a ``normalized`` added token in the NFC text (``Key`` in ``\u212aey``: NFC turns the
    Kelvin sign into K); the compiled encoder matches added tokens in the text as written, so such a
    file stays on HF tokenizers, and says why."""
    qwen = _COMPILED_PRE["Qwen2/3's split"]
    text = pipelines.tokenizer_json(qwen, {"type": "NFC"}, [("Key", {"normalized": True})])
    tok = load(tmp_path, text)
    assert tok.engine == "tokenizers" and "'Key' is matched in the NFC-normalised text" in tok.engine_reason
    hf = HFTokenizer.from_str(text)
    assert tok.encode("\u212aey Key") == hf.encode("\u212aey Key", add_special_tokens=False).ids
    plain = pipelines.tokenizer_json(qwen, {"type": "NFC"}, [("Key", {"normalized": False})])
    tok = load(tmp_path, plain)
    assert tok.engine == "compiled", tok.engine_reason
    hf = HFTokenizer.from_str(plain)
    assert tok.encode("\u212aey Key") == hf.encode("\u212aey Key", add_special_tokens=False).ids


def _read_again_without_parsing(monkeypatch, target) -> toklane.Tokenizer:
    """``target`` read again with every JSON parse and check made to fail (it must come from the disk cache)."""
    from toklane.tokenizer import registry

    def no_parse(*args, **kwargs):
        raise AssertionError("the JSON was parsed again")

    with monkeypatch.context() as m:
        m.setattr(registry, "load_json", no_parse)
        m.setattr(user_files_module, "load_json", no_parse)
        m.setattr(user_files_module, "check_tokenizer_json", no_parse)
        return registry._read_path(target, str(target))


def test_a_users_file_on_tokenizers_loads_again_without_parsing(tmp_path, monkeypatch):
    """A file toklane runs on HF tokenizers (GPT-2's ByteLevel regex) keeps its checked skeleton and its
    ids in the disk cache: a later load neither parses nor checks the JSON, and is the same tokenizer."""
    from toklane.tokenizer import registry

    monkeypatch.setenv("TOKLANE_CACHE_DIR", str(tmp_path / "cache"))
    text = pipelines.tokenizer_json({**_BYTE_LEVEL, "use_regex": True}, None, [("<|end|>", {})])
    folder = tmp_path / "gpt2"
    folder.mkdir()
    target = folder / "tokenizer.json"
    target.write_text(text, encoding="utf-8")
    first = registry._read_path(target, str(target))
    assert first.engine == "tokenizers"
    again = _read_again_without_parsing(monkeypatch, target)
    assert again.engine == "tokenizers" and again.engine_reason == first.engine_reason
    assert (again.vocab_size, again.eos_token_ids, again.vocab) == (first.vocab_size, first.eos_token_ids, first.vocab)
    assert_same(again, HFTokenizer.from_str(text), CORPUS + pipelines.PIECES_JOINED)


def test_tokenizer_objects_of_one_vocabulary_share_its_replayed_ranks(tmp_path, monkeypatch):
    """A tokenizers.Tokenizer (or a transformers fast tokenizer) is read through its JSON: its replayed
    ranks are kept in the disk cache keyed by its model alone, so another object with the same
    vocabulary and other added tokens (a fine-tune's, another process's) loads without replaying the
    merges, with its own added tokens and HF's ids; another vocabulary is another key."""
    from toklane.tokenizer import deepseek_v4

    monkeypatch.setenv("TOKLANE_CACHE_DIR", str(tmp_path / "cache"))
    text = pipelines.tokenizer_json(_COMPILED_PRE["Qwen2/3's split"], {"type": "NFC"})
    first = HFTokenizer.from_str(text)
    first.add_special_tokens(["<first>"])
    assert toklane.load_tokenizer(first).engine == "compiled"

    def no_replay(*args, **kwargs):
        raise AssertionError("the merges were replayed again")

    second = HFTokenizer.from_str(text)
    second.add_special_tokens(["<second>", "<|end|>"])
    with monkeypatch.context() as m:
        m.setattr(deepseek_v4, "replay", no_replay)
        tok = toklane.load_tokenizer(second)
        assert tok.engine == "compiled", tok.engine_reason
        texts = ["a <second> b <|end|> <first>", "naïve café 123 東京"]
        assert [tok.encode(t) for t in texts] == [second.encode(t, add_special_tokens=False).ids for t in texts]
        other = json.loads(text)
        other["model"]["merges"] = other["model"]["merges"][:-1]
        other["model"]["vocab"] = dict(list(other["model"]["vocab"].items())[:-1])
        with pytest.raises(AssertionError, match="replayed again"):
            toklane.load_tokenizer(HFTokenizer.from_str(json.dumps(other)))


def test_a_unigram_file_that_names_no_type_is_read_as_hf_reads_it(tmp_path, monkeypatch):
    """HF reads a model with a list vocabulary and no ``type`` as Unigram: so does the engine chooser
    (no fastokens plan for it), on load and when the file loads again from its remembered skeleton."""
    monkeypatch.setenv("TOKLANE_CACHE_DIR", str(tmp_path / "cache"))
    metaspace = {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": True}
    unk = {"id": 0, "content": "<unk>", "single_word": False, "lstrip": False, "rstrip": False}
    data = {
        "version": "1.0",
        "added_tokens": [{**unk, "normalized": False, "special": True}],
        "normalizer": None,
        "pre_tokenizer": metaspace,
        "post_processor": None,
        "decoder": metaspace,
        "model": {
            "unk_id": 0,
            "vocab": [["<unk>", 0.0], ["\u2581", -1.0], ["a", -2.0], ["b", -2.0], ["\u2581ab", -1.5]],
        },
    }
    folder = tmp_path / "unigram"
    folder.mkdir()
    target = folder / "tokenizer.json"
    target.write_text(json.dumps(data), encoding="utf-8")
    from toklane.tokenizer import registry

    first = registry._read_path(target, str(target))
    again = _read_again_without_parsing(monkeypatch, target)
    for tok in (first, again):
        assert tok.engine == "tokenizers" and "Unigram" in tok.engine_reason, tok.engine_reason
        assert "not fastokens: a Unigram model" in tok.engine_reason, tok.engine_reason
    hf = HFTokenizer.from_str(json.dumps(data))
    assert again.encode("ab ab ba") == hf.encode("ab ab ba", add_special_tokens=False).ids


def test_a_file_refused_for_the_compiled_encoder_is_not_tried_again(tmp_path, monkeypatch):
    """A family split over merges that do not replay as ranks loads on HF tokenizers, and a later load
    of the same text takes HF tokenizers at once, with the same reason, without replaying them."""
    from toklane.tokenizer import deepseek_v4, registry

    monkeypatch.setenv("TOKLANE_CACHE_DIR", str(tmp_path / "cache"))
    data = json.loads(pipelines.tokenizer_json(_COMPILED_PRE["Qwen2/3's split"], {"type": "NFC"}))
    data["model"]["merges"] = data["model"]["merges"][::-1]  # (results no longer in id order)
    folder = tmp_path / "reversed"
    folder.mkdir()
    target = folder / "tokenizer.json"
    target.write_text(json.dumps(data), encoding="utf-8")
    first = registry._read_path(target, str(target))
    assert first.engine == "tokenizers" and "cannot be replayed as a rank" in first.engine_reason

    def no_replay(*args, **kwargs):
        raise AssertionError("the merges were replayed again")

    with monkeypatch.context() as m:
        m.setattr(deepseek_v4, "replay", no_replay)
        again = registry._read_path(target, str(target))
    assert again.engine == "tokenizers" and again.engine_reason == first.engine_reason
    texts = ["Hello world, naïve café 123", "東京 e\u0301"]
    assert [again.encode(t) for t in texts] == [HFTokenizer.from_str(json.dumps(data)).encode(t).ids for t in texts]


_NFKC_TEXTS = [
    "plain ascii text, code() and 123",
    "café naïve 日本語 नमस्ते 🚀",
    "ﬁne ① ｆｕｌｌｗｉｄｔｈ Ⅳ x²",  # (compatibility forms: NFKC changes them)
    "cafe\u0301 e\u0301\u0301",  # (composed by NFKC)
    "new \U00011dd0 code point",  # (unassigned in Python's tables: left to tokenizers)
    "<s> added</s> tokens",
]


def test_an_nfkc_file_runs_on_fastokens_for_text_nfkc_leaves_as_it_is(tmp_path):
    """fastokens runs no NFKC step: toklane runs the file without it for the texts NFKC leaves as they
    are (by any Unicode version's tables: a code point Python leaves unassigned counts as changed),
    and the others on HF tokenizers; every text gets HF's ids, one at a time and in batches."""
    from toklane.tokenizer.engines import compiled

    split = {"type": "Split", "pattern": {"Regex": patterns.LLAMA3}, "behavior": "Isolated", "invert": False}
    byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False}
    pre = {"type": "Sequence", "pretokenizers": [split, byte_level]}
    text = pipelines.tokenizer_json(pre, {"type": "NFKC"}, [("<s>", {}), ("</s>", {})])
    plan = choose_engine(json.loads(text))
    assert plan.upgrade == "fastokens" and plan.unless_changed_by == "NFKC", plan.explain()
    hf, tok = HFTokenizer.from_str(text), load(tmp_path, text)
    assert staged.upgrade_now(tok) and tok.engine == "fastokens", tok.engine_reason
    assert [compiled.is_nfkc(t) for t in _NFKC_TEXTS] == [True, True, False, False, False, True]
    assert_same(tok, hf, _NFKC_TEXTS + CORPUS)
    assert tok.encode_batch(_NFKC_TEXTS) == [hf.encode(t, add_special_tokens=False).ids for t in _NFKC_TEXTS]


@settings(max_examples=examples(300), deadline=None)
@given(text=st.text(max_size=12))
def test_is_nfkc_never_calls_a_text_nfkc_changes_stable(text):
    from toklane.tokenizer.engines import compiled

    if compiled.is_nfkc(text):
        assert unicodedata.normalize("NFKC", text) == text


def test_a_regex_class_read_differently_keeps_the_exact_engine(tmp_path):
    """GPT-2's split, then ByteLevel with add_prefix_space: Oniguruma and PCRE2 split U+180E differently,
    which shows in the ids only through the prefix space. The plan cannot see it; the probes must."""
    gpt2 = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"
    split = {"type": "Split", "pattern": {"Regex": gpt2}, "behavior": "Isolated", "invert": False}
    byte_level = {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": False}
    text = pipelines.tokenizer_json({"type": "Sequence", "pretokenizers": [split, byte_level]}, None, [])
    tok, hf = load(tmp_path, text), HFTokenizer.from_str(text)
    if choose_engine(__import__("json").loads(text)).upgrade is None:
        pytest.skip("fastokens is not installed")
    assert not staged.upgrade_now(tok) and tok.engine == "tokenizers", tok.engine_reason
    assert "ids differ on probe text" in tok.engine_reason
    assert_same(tok, hf, ["\u180e", "a\u180eb", "x \u180e\u180e y", "\u1809\u180a\u180b\u180c\u180d\u180e"])


pipelines.PIECES_JOINED = ["".join(pipelines.PIECES), " ".join(pipelines.PIECES), "\n".join(pipelines.PIECES) * 3]


# --------------------------------------------------------------------------- the DeepSeek-V4 file from a folder


@pytest.fixture(scope="module")
def deepseek_folder(tmp_path_factory, deepseek_json):
    folder = tmp_path_factory.mktemp("deepseek") / "model"
    folder.mkdir()
    shutil.copy(deepseek_json, folder / "tokenizer.json")
    return folder


@pytest.fixture(scope="module")
def deepseek_hf(deepseek_json):
    return HFTokenizer.from_file(str(deepseek_json))


EDGES = [
    " " * 1_000_000 + "x",
    " \t\u3000\u00a0" * 200_000 + "y\n",
    "\n" * 300_000 + " " * 300_000,
    "a\ud800b\udfffc \ud83d",
    "e\u0301\u0301\u0301 a\u0300x \u0915\u094d\u0937\u093f " * 500,
    "<｜end▁of▁sentence｜>hi<think>x</think><｜tool▁calls▁begin｜>",
    "1" * 100_001 + "中文" * 5000,
    "🚀" * 20_000,
]


def test_deepseek_file_from_a_folder_runs_compiled_then_fastokens(deepseek_folder, deepseek_hf):
    bundled = toklane.load_tokenizer("deepseek-v4")
    tok = toklane.load_tokenizer(deepseek_folder)
    assert tok is not bundled and tok.engine == "compiled", tok.engine_reason
    assert "DeepSeek-V4's pre-tokeniser" in tok.engine_reason and "fastokens" in tok.engine_reason
    for text in CORPUS:
        assert tok.encode(text) == bundled.encode(text)
    assert_same(tok, deepseek_hf, CORPUS)
    assert staged.upgrade_now(tok), tok.engine_reason
    assert tok.engine == "fastokens" and tok.engine_reason.startswith("fastokens")
    assert_same(tok, deepseek_hf, CORPUS)
    for text in EDGES:
        assert tok.encode(text) == bundled.encode(text), text[:20]
        assert tok.encode(text, split_special_tokens=True) == bundled.encode(text, split_special_tokens=True)
    assert tok.vocab == bundled.vocab and tok.special_tokens == bundled.special_tokens


def test_a_users_file_loads_again_from_the_disk_cache(tmp_path, monkeypatch, deepseek_json, deepseek_hf):
    """A user's tokenizer.json on the compiled encoder keeps its ranks and checked skeleton in the disk
    cache, keyed by a hash of its text and the toklane release: a later load of the same text (another
    process, here the loader called again) neither parses nor checks the JSON, and gives the same ids;
    a changed file is a new key; a file that fails its check is never remembered."""
    from toklane.tokenizer import image_cache, registry

    monkeypatch.setenv("TOKLANE_CACHE_DIR", str(tmp_path / "cache"))
    folder = tmp_path / "model"
    folder.mkdir()
    target = folder / "tokenizer.json"
    shutil.copy(deepseek_json, target)
    first = registry._read_path(target, str(target))
    kinds = sorted(p.name.rsplit("-", 1)[0] for p in (tmp_path / "cache").glob("*.img"))
    assert kinds.count("json-ranks") == 1 and kinds.count("json-skeleton") == 1, kinds
    again = _read_again_without_parsing(monkeypatch, target)
    assert again.engine == first.engine == "compiled" and again.engine_reason == first.engine_reason
    for text in CORPUS:
        assert again.encode(text) == first.encode(text)
    assert_same(again, deepseek_hf, CORPUS)
    # another text: another key (its own images), never the first file's
    data = json.loads(target.read_text(encoding="utf-8"))
    data["added_tokens"].append({**data["added_tokens"][-1], "id": 200_000, "content": "<|new one|>"})
    target.write_text(json.dumps(data), encoding="utf-8")
    changed = registry._read_path(target, str(target))
    assert changed.encode("<|new one|>") == [200_000] and first.encode("<|new one|>") != [200_000]
    assert len(list((tmp_path / "cache").glob("json-skeleton-*.img"))) == 2
    # a file that fails its check loads nowhere, and leaves no skeleton
    data["model"]["merges"] = 7
    target.write_text(json.dumps(data), encoding="utf-8")
    for _ in range(2):
        with pytest.raises(toklane.TokenizerLoadError):
            registry._read_path(target, str(target))
    assert len(list((tmp_path / "cache").glob("json-skeleton-*.img"))) == 2
    assert image_cache.cache_dir() == tmp_path / "cache"


def test_a_first_load_builds_one_encoder(tmp_path, monkeypatch, deepseek_json):
    """A user's file loaded for the first time (empty cache) builds the compiled encoder once: the
    irregular-token check runs on the encoder the engine then uses, not on a second one."""
    from toklane.tokenizer import registry
    from toklane.tokenizer.engines import compiled

    monkeypatch.setenv("TOKLANE_CACHE_DIR", str(tmp_path / "cache"))
    target = tmp_path / "tokenizer.json"
    shutil.copy(deepseek_json, target)
    builds = []

    class Counting:
        def __getattr__(self, name):
            found = getattr(real, name)
            if name in ("build", "build_packed", "build_mapped"):
                return lambda *args: builds.append(name) or found(*args)
            return found

    real = compiled._bpe
    monkeypatch.setattr(compiled, "_bpe", Counting())
    tok = registry._read_path(target, str(target))
    assert tok.engine == "compiled" and builds == ["build"], builds
    assert tok.encode("hello world") == toklane.load_tokenizer("deepseek-v4").encode("hello world")


def _small_deepseek_style(folder, merges: list[tuple[str, str]]):
    """A tokenizer.json with DeepSeek-V4's pre-tokeniser over 256 bytes and ``merges`` (in order)."""
    from toklane.tokenizer import deepseek_v4
    from toklane.tokenizer.bytelevel import bytes_to_token_string

    vocab = {bytes_to_token_string(bytes([b])): b for b in range(256)}
    for a, b in merges:
        vocab[a + b] = len(vocab)
    model = {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None}
    model |= {"end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False, "ignore_merges": False}
    model |= {"vocab": vocab, "merges": [f"{a} {b}" for a, b in merges]}
    decoder = {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True}
    data = {"version": "1.0", "added_tokens": [], "normalizer": None, "pre_tokenizer": deepseek_v4.PRE_TOKENIZER}
    data |= {"post_processor": None, "decoder": decoder, "model": model}
    folder.mkdir()
    (folder / "tokenizer.json").write_text(json.dumps(data), encoding="utf-8")
    return HFTokenizer.from_file(str(folder / "tokenizer.json"))


def test_a_vocabulary_extended_by_hand_is_not_read_as_ranks(tmp_path):
    """DeepSeek-V4's pre-tokeniser over merges that ranked BPE reads differently from HF: ``abc`` has the
    rule ``ab c``, but ``b c`` comes first, so HF's merges leave ``a`` + ``bc`` where ranked BPE (any two
    parts that make a token) gives ``abc``. Refused for the compiled encoder at load, with the token
    named: it loads with HF tokenizers and gives HF's ids. The same merges in training order stay
    compiled."""
    texts = ["abc", "abcabc xyz qxy", "qxy", "xabcy"]
    extended = _small_deepseek_style(tmp_path / "extended", [("b", "c"), ("a", "b"), ("ab", "c"), ("x", "y")])
    tok = toklane.load_tokenizer(tmp_path / "extended")
    assert tok.engine == "tokenizers" and "'abc'" in tok.engine_reason, tok.engine_reason
    assert [tok.encode(t) for t in texts] == [extended.encode(t).ids for t in texts]
    trained = _small_deepseek_style(tmp_path / "trained", [("a", "b"), ("ab", "c"), ("b", "c"), ("x", "y")])
    tok = toklane.load_tokenizer(tmp_path / "trained")
    assert tok.engine == "compiled", tok.engine_reason
    assert [tok.encode(t) for t in texts] == [trained.encode(t).ids for t in texts]


def test_upgrade_under_concurrent_encoding_changes_no_result(tmp_path, deepseek_json):
    """Threads encode while the faster engine is built and swapped in: every result is the same."""
    text = deepseek_json.read_text(encoding="utf-8")
    tok = load(tmp_path, text)
    expected = [tok.encode(t) for t in CORPUS]
    failures: list[str] = []
    stop = threading.Event()

    def work() -> None:
        while not stop.is_set():
            for t, ids in zip(CORPUS, expected, strict=True):
                if tok.encode(t) != ids:
                    failures.append(t)

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    try:
        assert staged.upgrade_now(tok)
    finally:
        stop.set()
        for t in threads:
            t.join()
    assert tok.engine == "fastokens" and not failures


def test_ski_rental_starts_the_build_once_encoding_has_paid_for_it(tmp_path, monkeypatch):
    monkeypatch.setenv("TOKLANE_FASTOKENS", "auto")  # (the default; the suite runs under manual)
    text = pipelines.tokenizer_json(
        {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}
    )
    tok = load(tmp_path, text)
    upgrade = tok._upgrade
    assert upgrade is not None and upgrade.state == "pending" and tok.engine == "tokenizers"
    tok.encode("short")
    assert upgrade.state == "pending"
    chunk = "The quick brown fox jumps over the lazy dog. " * 2000
    while upgrade.state == "pending":
        tok.encode(chunk)
    assert upgrade.run_now() and tok.engine == "fastokens"


def test_a_process_that_ends_during_the_build_exits_cleanly(tmp_path):
    """A script that ends while fastokens builds (``eager``: right after load) exits 0: the build thread
    is no daemon, which Python would stop at exit inside fastokens' Rust frames (an abort, exit 134)."""
    import os
    import subprocess
    import sys

    path = tmp_path / "tokenizer.json"
    split = {"type": "Split", "pattern": {"Regex": r"\p{L}+|\s+|[^\s\p{L}]+"}, "behavior": "Isolated", "invert": False}
    byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False}
    pre = {"type": "Sequence", "pretokenizers": [split, byte_level]}
    path.write_text(pipelines.tokenizer_json(pre), encoding="utf-8")
    script = f"import toklane; t = toklane.load_tokenizer({str(path)!r}); print(t._upgrade.state, t.encode('hi'))"
    env = {**os.environ, "TOKLANE_FASTOKENS": "eager", "TOKLANE_CACHE_DIR": str(tmp_path / "cache")}
    for _ in range(3):
        run = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stderr[-2000:]
        assert run.stdout.split()[0] in ("building", "done")


def test_a_regex_that_fails_on_adversarial_text_is_a_documented_error_on_every_engine(tmp_path):
    pre = {
        "type": "Sequence",
        "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": r"(\w+\s?)+(?!\S)x"}, "behavior": "Isolated", "invert": False},
            {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False},
        ],
    }
    text = pipelines.tokenizer_json(pre)
    tok = load(tmp_path, text)
    hf = HFTokenizer.from_str(text)
    for _ in range(2):  # HF tokenizers, then fastokens (its PCRE2 limit sends the call to HF)
        for bad in ("x" * 60, "x" * 61):
            with pytest.raises(toklane.ToklaneError):
                tok.encode(bad)
        assert_same(tok, hf, ["plain words here", "a" * 30])
        assert staged.upgrade_now(tok), tok.engine_reason


def test_a_pipeline_fastokens_does_not_run_stays_on_tokenizers_and_says_why(tmp_path):
    byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}
    nfd = {"type": "Sequence", "normalizers": [{"type": "NFD"}, {"type": "Lowercase"}]}
    for normalizer, step in ((nfd, "NFD"), ({"type": "Sequence", "normalizers": [{"type": "NFKC"}] * 2}, "NFKC")):
        tok = load(tmp_path, pipelines.tokenizer_json(byte_level, normalizer))
        assert tok.engine == "tokenizers" and tok._upgrade is None
        assert f"not fastokens: normalizer {step}" in tok.engine_reason, tok.engine_reason
        assert not staged.upgrade_now(tok)


def test_fastokens_off(tmp_path, monkeypatch):
    monkeypatch.setenv("TOKLANE_FASTOKENS", "off")
    text = pipelines.tokenizer_json(
        {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}
    )
    tok = load(tmp_path, text)
    assert tok._upgrade is None and "TOKLANE_FASTOKENS=off" in tok.engine_reason


def test_models_explain_says_which_engine_runs_a_file_and_why(deepseek_folder, capsys):
    import json

    from toklane import cli

    assert cli.main(["models", "--explain", str(deepseek_folder)]) == 0
    out = capsys.readouterr().out
    assert "DeepSeek-V4's pre-tokeniser" in out and "fastokens" in out  # (an earlier test may have upgraded it)
    assert "engine compiled" in out or "engine fastokens" in out
    assert cli.main(["models", "--explain", "mistral-tekken", "--json"]) == 0
    row = json.loads(capsys.readouterr().out)
    assert row["engine"] == "compiled" and row["reason"].startswith("compiled:")


def _sentencepiece_styles() -> list[tuple[str, str]]:
    """``(label, text)`` of SentencePiece-style tokenizer.json files of Mistral's models, as transformers
    writes Llama 2 / Mistral ones: a Prepend + Replace normalizer, or a Metaspace pre-tokenizer that
    prepends always or only first; BPE with byte fallback and the SentencePiece decoder. v3 in all three
    shapes, v1 (Llama 2's layout, 32,000 pieces) and v7 (user-defined pieces as added tokens) in one each."""
    try:
        from tests.references import find_package

        data = find_package("mistral_common") / "data"
    except AssertionError:
        pytest.skip("mistral-common is not installed")

    def first(text: str) -> str:
        assert '"prepend_scheme": "always"' in text
        return text.replace('"prepend_scheme": "always"', '"prepend_scheme": "first"')

    v3, v1 = str(data / "mistral_instruct_tokenizer_240323.model.v3"), str(data / "tokenizer.model.v1")
    v7 = str(data / "mistral_instruct_tokenizer_241114.model.v7")
    return [
        ("v3 prepend", pipelines.sentencepiece_json(v3)),
        ("v3 always", pipelines.sentencepiece_json(v3, metaspace=True)),
        ("v3 first", first(pipelines.sentencepiece_json(v3, metaspace=True))),
        ("v1 prepend", pipelines.sentencepiece_json(v1)),
        ("v7 first", first(pipelines.sentencepiece_json(v7, metaspace=True))),
    ]


@pytest.fixture(scope="module")
def sentencepiece_style(tmp_path_factory):
    """HF's tokenizer and toklane's (the merges on the compiled encoder, HF beside them) over each
    SentencePiece-style file; the second load of one (its skeleton from the disk cache) too."""
    tmp = tmp_path_factory.mktemp("sp-style")
    out = []
    for label, text in _sentencepiece_styles():
        tok, again = load(tmp, text), load(tmp, text)
        for t in (tok, again):
            assert t.engine == "compiled" and "SentencePiece-style" in t.engine_reason, t.engine_reason
            assert t._upgrade is None  # (no fastokens: the compiled merges are faster)
        # HF is built beside the merges on first need only: encoding, counting and the template do not
        assert again.encode("<s> a  b", add_special_tokens=True) and again.count("x y") == 2
        assert again._backend._exact is None
        assert again.decode([1, 23325]) == HFTokenizer.from_str(text).decode([1, 23325], skip_special_tokens=False)
        assert again._backend._exact is not None
        out.append((label, HFTokenizer.from_str(text), tok))
    return out


SPECIALS = [
    "[INST] hello [/INST] <s></s>[TOOL_CALLS]",
    "<s>hi",
    " x<s> y",
    "<s> hi",
    "[INST]  two",
    "a[/INST]b",
    "[REF]x",
]
# What the merges must get right: runs of spaces (HF's merge ranks, not the library's scores, decide them),
# text around added tokens (Metaspace's prefix: always, or only where the input starts), characters no
# token holds (byte fallback), U+2581 typed as such, words past the encoder's in-place merge (128 bytes).
_SP_HARD = st.sampled_from(
    [
        " ",
        "  ",
        " " * 17,
        "\u2581",
        "\n",
        "ab",
        "é",
        "漢字",
        "😀",
        "\U0010fffd",
        "\ud800",
        "[INST]",
        "<s>",
        "[/INST]",
        "[REF]",
        "=",
    ]
)
sp_texts = st.lists(st.one_of(_SP_HARD, st.text(max_size=3), _SP_HARD.map(lambda s: s * 40)), max_size=24).map("".join)


def test_sentencepiece_style_tokenizer_json_on_the_corpus(sentencepiece_style):
    for label, hf, tok in sentencepiece_style:
        assert_same(tok, hf, CORPUS + SPECIALS)
        assert [tok.count(t) for t in CORPUS + SPECIALS] == [len(tok.encode(t)) for t in CORPUS + SPECIALS], label


@settings(max_examples=examples(60), deadline=None)
@given(texts=st.lists(st.one_of(pipelines.texts, sp_texts), min_size=1, max_size=6))
def test_sentencepiece_style_tokenizer_json_equals_hf(sentencepiece_style, texts):
    for label, hf, tok in sentencepiece_style:
        assert_same(tok, hf, texts)
        assert [tok.count(t) for t in texts] == [len(tok.encode(t)) for t in texts], label


@pytest.mark.parametrize(
    ("edit", "why"),
    [
        (lambda d: d["added_tokens"][5].update(normalized=True), "is normalized"),
        (lambda d: d["model"].update(ignore_merges=True), "ignore_merges"),
        (
            lambda d: d["model"]["merges"].append(["a", "\u2581b"]) or d["model"]["vocab"].update({"a\u2581b": 40000}),
            "compiled merges: a merge outside",
        ),
    ],
)
def test_what_the_compiled_merges_do_not_take_stays_on_tokenizers(tmp_path, edit, why):
    text = _sentencepiece_styles()[0][1]
    data = json.loads(text)
    edit(data)
    text = json.dumps(data)
    tok = load(tmp_path, text)
    assert tok.engine in ("tokenizers", "fastokens") and why in tok.engine_reason, tok.engine_reason
    assert_same(tok, HFTokenizer.from_str(text), CORPUS[:3] + SPECIALS)


def test_auto_builds_fastokens_for_a_bundled_vocabulary_once_it_paid(monkeypatch):
    """TOKLANE_FASTOKENS=auto (the default) on a bundled vocabulary (a user file: the test above): the
    tokenizer serves on the engine it loads with, counting the work; once that reaches the build's
    expected time, fastokens is built on a thread of its own and swapped in, and every call before, during
    and after gives the same ids."""
    monkeypatch.setenv("TOKLANE_FASTOKENS", "auto")
    from toklane.tokenizer.bundled_loaders import load_bundled
    from toklane.tokenizer.registry import bundled_table

    tok = load_bundled(next(entry for entry in bundled_table() if entry.name == "cl100k_base"), ())
    assert tok.engine == "compiled" and isinstance(tok._backend, staged.CountingBackend)
    text = "def f(x):\n    return [i * 2 for i in range(x)]  # ünïcode ok\n" * 20_000
    want = tok._backend.inner.encode(text, False)
    budget = tok._backend._budget
    calls = 0
    while tok._upgrade.state == "pending":
        assert tok.encode(text) == want
        calls += 1
        assert calls * (len(text) + tok._backend._call_chars) < 2 * budget  # (it starts at the budget)
    assert tok._upgrade.state in ("building", "done")
    while tok._upgrade.state == "building":
        assert tok.encode(text) == want  # (served meanwhile, by the first engine)
    tok._upgrade._done.wait(60)
    assert tok._upgrade.state == "done" and tok.engine == "fastokens", tok.engine_reason
    assert tok.encode(text) == want


def test_manual_builds_only_on_upgrade_now(monkeypatch):
    monkeypatch.setenv("TOKLANE_FASTOKENS", "manual")
    from toklane.tokenizer.bundled_loaders import load_bundled
    from toklane.tokenizer.registry import bundled_table

    tok = load_bundled(next(entry for entry in bundled_table() if entry.name == "cl100k_base"), ())
    assert tok._upgrade is not None and tok._upgrade.state == "pending" and tok.engine == "compiled"
    assert "TOKLANE_FASTOKENS=manual" in tok.engine_reason
    for _ in range(3):
        tok.encode("x" * 1_000_000)
    assert tok._upgrade.state == "pending"
    assert staged.upgrade_now(tok) and tok.engine == "fastokens"
