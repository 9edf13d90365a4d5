"""SentencePiece .model files: ids and text equal to the sentencepiece library's own, whether the
model's merges run on toklane's compiled encoder (BPE with byte fallback) or on the library.

Test data: the five models mistral-common ships (BPE with byte fallback), the same models edited
(scores tied or shuffled, options the compiled merges do not take) and a Unigram model trained here
by the sentencepiece library itself on a small corpus.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toklane
from tests.profiles import examples
from tests.references import CORPUS, find_package
from tests.tokenizer import pipelines
from toklane.tokenizer.files import SentencePieceModel, model_from_payload, model_payload, parse_sentencepiece

spm = pytest.importorskip("sentencepiece")

_SURROGATE = re.compile("[\ud800-\udfff]")
MISTRAL_MODELS = (
    "tokenizer.model.v1",
    "mistral_instruct_tokenizer_240216.model.v2",
    "mistral_instruct_tokenizer_240323.model.v3",
    "mistral_instruct_tokenizer_241114.model.v7",
    "mistral_instruct_tokenizer_241114.model.v7m1",
)


def mistral_model(name: str) -> Path:
    try:
        return find_package("mistral_common") / "data" / name
    except AssertionError:
        pytest.skip("mistral-common is not installed")


@pytest.fixture(scope="module")
def unigram_model(tmp_path_factory) -> Path:
    """A Unigram model trained by the sentencepiece library on the mixed corpus and some code."""
    folder = tmp_path_factory.mktemp("unigram")
    corpus = folder / "corpus.txt"
    lines = [line for text in CORPUS for line in text.splitlines() if line.strip()]
    lines += [line for line in Path(re.__file__).read_text(encoding="utf-8").splitlines() if line.strip()]
    corpus.write_text("\n".join(lines * 3), encoding="utf-8")
    spm.SentencePieceTrainer.train(
        input=str(corpus),
        model_prefix=str(folder / "uni"),
        model_type="unigram",
        vocab_size=600,
        character_coverage=1.0,
        byte_fallback=True,
        num_threads=1,
        user_defined_symbols=["<tool>"],
        control_symbols=["[INST]"],
        minloglevel=2,
    )
    return folder / "uni.model"


def _models(unigram: Path) -> list[Path]:
    return [mistral_model(n) for n in MISTRAL_MODELS] + [unigram]


def check(tok: toklane.Tokenizer, sp, text: str) -> None:
    expected = sp.encode(_SURROGATE.sub("\ufffd", text))
    assert tok.encode(text, split_special_tokens=True) == expected, text
    assert tok.decode(expected) == sp.decode(expected), text
    assert tok.count(text) == len(tok.encode(text))


def test_every_model_equals_the_library_on_the_corpus(unigram_model):
    for path in _models(unigram_model):
        tok = toklane.load_tokenizer(path)
        sp = spm.SentencePieceProcessor(model_file=str(path))
        assert tok.engine == ("sentencepiece" if path == unigram_model else "compiled"), path
        assert "SentencePiece" in tok.engine_reason
        assert tok.vocab_size == len(tok) == sp.get_piece_size()
        for text in CORPUS + list(pipelines.PIECES):
            check(tok, sp, text)
        assert tok.encode_batch(CORPUS, split_special_tokens=True) == [sp.encode(t) for t in CORPUS]
        ids, offsets = tok.encode_batch_flat(CORPUS)
        assert [ids[a:b].tolist() for a, b in itertools.pairwise(offsets.tolist())] == tok.encode_batch(CORPUS)
        assert tok.encode("hi", add_special_tokens=True) == [sp.bos_id(), *sp.encode("hi")]
        assert tok.eos_token_ids == (sp.eos_id(),)
        for i in range(tok.vocab_size):
            assert tok.id_to_token(i) == sp.id_to_piece(i)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=pipelines.texts, ids=st.lists(st.integers(0, 31999), max_size=30), name=st.sampled_from(MISTRAL_MODELS))
def test_hypothesis_text_and_ids(text, ids, name):
    path = mistral_model(name)
    tok = toklane.load_tokenizer(path)
    sp = spm.SentencePieceProcessor(model_file=str(path))
    check(tok, sp, text)
    plain = [i for i in ids if not (sp.is_control(i) or sp.is_unknown(i))]
    assert tok.decode(plain) == sp.decode(plain)


# What the compiled merges must get right: runs of spaces and of one character (equal scores, different
# splits), user-defined pieces inside words, characters no piece holds (byte fallback), words past the
# encoder's in-place merge (128 bytes), marks, lone surrogates, U+2581 typed as such, control tokens.
_HARD = st.sampled_from(
    [
        " ",
        "  ",
        " " * 17,
        "\u2581",
        "\n",
        "\t",
        "=",
        "==",
        "-" * 9,
        "ab",
        "a",
        "'",
        "é",
        "e\u0301",
        "漢字",
        "😀",
        "🫠",
        "\U0010fffd",
        "\x00",
        "\x01",
        "\ud800",
        "[REF]",
        "[/REF]",
        "[REFERENCE_DOC_3]",
        "[INST]",
        "<s>",
        "Hello",
        "ing",
        "▁▁x",
    ]
)
hard_texts = st.lists(st.one_of(_HARD, st.text(max_size=3), _HARD.map(lambda s: s * 40)), max_size=30).map("".join)


@settings(max_examples=examples(200), deadline=None)
@given(text=hard_texts, name=st.sampled_from(MISTRAL_MODELS))
def test_compiled_merges_equal_the_library_on_hard_text(text, name):
    path = mistral_model(name)
    tok = toklane.load_tokenizer(path)
    assert tok.engine == "compiled"
    sp = spm.SentencePieceProcessor(model_file=str(path))
    check(tok, sp, text)
    # special tokens matched whole: the text between them is encoded as the library encodes it alone
    special = [t for t in ("[INST]", "<s>") if t in tok.special_tokens]
    parts = re.split("(" + "|".join(map(re.escape, special)) + ")", text)
    expected = [
        i
        for part in parts
        if part
        for i in ([sp.piece_to_id(part)] if part in special else sp.encode(_SURROGATE.sub("\ufffd", part)))
    ]
    assert tok.encode(text) == expected and tok.count(text) == len(expected)


def _edited(tmp_path: Path, name: str, edit) -> Path:
    path = tmp_path / f"{name}.model"
    path.write_bytes(_model_with(mistral_model("mistral_instruct_tokenizer_241114.model.v7").read_bytes(), edit))
    return path


def _shuffle_scores(proto) -> None:
    import random

    normal = [p for p in proto.pieces if p.type == 1 and len(p.piece) > 1]
    scores = [p.score for p in normal]
    random.Random(7).shuffle(scores)
    for piece, score in zip(normal, scores, strict=True):
        piece.score = score


def _tie_scores(proto) -> None:
    for k, piece in enumerate(proto.pieces):
        if piece.type == 1 and len(piece.piece) > 1:
            piece.score = -float(k // 500)  # blocks of 500 pieces of one score: the leftmost pair merges


@pytest.mark.parametrize("edit", [_shuffle_scores, _tie_scores], ids=["shuffled", "tied"])
def test_compiled_merges_follow_the_scores(tmp_path, edit):
    """Scores in another order than the ids, and many pieces of one score: the merges follow the
    library's agenda (best score, then leftmost), and a word whose own merges do not build its piece
    (many, once the scores are edited) is encoded by its merges, not looked up whole."""
    path = _edited(tmp_path, edit.__name__, edit)
    tok = toklane.load_tokenizer(path)
    sp = spm.SentencePieceProcessor(model_file=str(path))
    assert tok.engine == "compiled"
    for text in CORPUS:
        check(tok, sp, text)
    pieces = [sp.id_to_piece(i) for i in range(sp.get_piece_size()) if sp.id_to_piece(i).startswith("\u2581")]
    words = [p[1:].replace("\u2581", " ") for p in pieces[::7]]
    assert [tok.encode(w) for w in words] == [sp.encode(w) for w in words]
    rebuilt = sum(sp.encode(w) != [sp.piece_to_id("\u2581" + w.replace(" ", "\u2581"))] for w in words)
    assert rebuilt > 20  # (words a look-up of the whole piece would get wrong: the merges ran)


def _without_byte_fallback(proto) -> None:
    proto.trainer_spec.byte_fallback = False
    for piece in proto.pieces:
        if piece.type == 6:
            piece.type = 4  # (the library refuses byte pieces without byte fallback)


@pytest.mark.parametrize(
    ("edit", "why"),
    [
        (lambda m: setattr(m.normalizer_spec, "remove_extra_whitespaces", True), "extra whitespace removed"),
        (lambda m: setattr(m.trainer_spec, "treat_whitespace_as_suffix", True), "whitespace not escaped"),
        (lambda m: setattr(m.pieces[40000 % len(m.pieces)], "type", 5), "unused pieces"),
        (lambda m: setattr(m.pieces[2000], "piece", "x\u2581y"), "U+2581 after another character"),
        (_without_byte_fallback, "no byte fallback"),
        (lambda m: setattr(m.pieces[2000], "score", float("nan")), "not a finite number"),
    ],
)
def test_what_the_compiled_merges_do_not_take_stays_on_the_library(tmp_path, edit, why):
    path = _edited(tmp_path, "edited", edit)
    tok = toklane.load_tokenizer(path)
    sp = spm.SentencePieceProcessor(model_file=str(path))
    assert tok.engine == "sentencepiece" and why in tok.engine_reason
    for text in CORPUS[:3]:
        check(tok, sp, text)


def test_special_tokens_are_matched_whole_and_split_on_request(unigram_model):
    path = mistral_model("mistral_instruct_tokenizer_240323.model.v3")
    tok = toklane.load_tokenizer(path)
    sp = spm.SentencePieceProcessor(model_file=str(path))
    inst = tok.token_to_id("[INST]")
    assert tok.special_tokens["[INST]"] == inst == sp.piece_to_id("[INST]") and tok.is_special(inst)
    text = "[INST] What is 2+2? [/INST]"
    ids = tok.encode(text)
    assert ids[0] == inst and ids[-1] == tok.token_to_id("[/INST]")
    assert ids[1:-1] == sp.encode(" What is 2+2? ")  # the text between them, as the library encodes it
    assert tok.encode(text, split_special_tokens=True) == sp.encode(text)
    assert tok.decode(ids) == "[INST]" + sp.decode(ids[1:-1]) + "[/INST]"
    assert tok.decode(ids, skip_special_tokens=True) == sp.decode(ids[1:-1])
    uni = toklane.load_tokenizer(unigram_model)  # a user-defined piece: matched by the library in both modes
    usp = spm.SentencePieceProcessor(model_file=str(unigram_model))
    assert uni.encode("a <tool> b") == usp.encode("a <tool> b") == uni.encode("a <tool> b", split_special_tokens=True)
    assert not uni.is_special(uni.token_to_id("<tool>"))


def test_folders_and_names(tmp_path, unigram_model):
    folder = tmp_path / "llama2-like"
    folder.mkdir()
    (folder / "tokenizer.model").write_bytes(unigram_model.read_bytes())
    (folder / "tokenizer_config.json").write_text("{}")
    assert toklane.load_tokenizer(folder).engine == "sentencepiece"
    two = tmp_path / "two"
    two.mkdir()
    for name in ("a.model", "b.model"):
        (two / name).write_bytes(unigram_model.read_bytes())
    with pytest.raises(toklane.TokenizerLoadError, match=r"2 SentencePiece \.model files"):
        toklane.load_tokenizer(two)


def test_the_reader_equals_protobuf(unigram_model):
    from sentencepiece import sentencepiece_model_pb2 as pb

    for path in _models(unigram_model):
        data = path.read_bytes()
        ours = parse_sentencepiece(data, str(path))
        ref = pb.ModelProto()
        ref.ParseFromString(data)
        assert ours.pieces == [p.piece for p in ref.pieces] and ours.types == [p.type for p in ref.pieces]
        assert ours.scores == [p.score for p in ref.pieces]
        norm = ref.normalizer_spec
        assert (
            ours.normalizer,
            ours.charsmap_bytes,
            ours.rule_tsv,
            ours.add_dummy_prefix,
            ours.remove_extra_whitespaces,
            ours.escape_whitespaces,
            ours.whitespace_as_suffix,
        ) == (
            norm.name,
            len(norm.precompiled_charsmap),
            bool(norm.normalization_rule_tsv),
            norm.add_dummy_prefix,
            norm.remove_extra_whitespaces,
            norm.escape_whitespaces,
            ref.trainer_spec.treat_whitespace_as_suffix,
        )
        again = model_from_payload(model_payload(ours), data)  # (the disk cache's image of it)
        assert again is not None and all(getattr(again, f) == getattr(ours, f) for f in SentencePieceModel.__slots__)
        spec = ref.trainer_spec
        assert (ours.model_type, ours.byte_fallback, ours.unk_id, ours.bos_id, ours.eos_id, ours.pad_id) == (
            spec.model_type,
            spec.byte_fallback,
            spec.unk_id,
            spec.bos_id,
            spec.eos_id,
            spec.pad_id,
        )


def _model_with(data: bytes, edit) -> bytes:
    from sentencepiece import sentencepiece_model_pb2 as pb

    proto = pb.ModelProto()
    proto.ParseFromString(data)
    edit(proto)
    return proto.SerializeToString()


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (lambda m: setattr(m.trainer_spec, "model_type", 3), "trainer_spec.model_type is Word"),
        (lambda m: setattr(m.pieces[5], "piece", m.pieces[6].piece), r"pieces\[6\].piece .* repeats pieces\[5\]"),
        (lambda m: setattr(m.pieces[0], "type", 1), "hold 0 unknown"),
        (lambda m: setattr(m.trainer_spec, "bos_id", 10**6), "trainer_spec.bos_id is 1000000"),
        (lambda m: setattr(m.pieces[3 + 0x41], "type", 1), "lack byte pieces for bytes 0x41"),
        (lambda m: m.ClearField("pieces"), "pieces is empty"),
    ],
)
def test_malformed_models_name_the_field(tmp_path, edit, expected):
    data = _model_with(mistral_model("tokenizer.model.v1").read_bytes(), edit)
    path = tmp_path / "bad.model"
    path.write_bytes(data)
    with pytest.raises(toklane.TokenizerLoadError, match=expected) as info:
        toklane.load_tokenizer(path)
    assert "\n" not in str(info.value)


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(edits=st.lists(st.tuples(st.floats(0, 1), st.integers(0, 255), st.integers(1, 40)), min_size=1, max_size=5))
def test_mutated_models_load_or_fail_cleanly(tmp_path, edits):
    data = bytearray(mistral_model("tokenizer.model.v1").read_bytes())
    for where, byte, size in edits:
        if not data:
            break
        at = int(where * (len(data) - 1))
        if size < 20:
            data[at] = byte
        elif size < 30:
            del data[at : at + size]
        else:
            data = data[:at]
    path = tmp_path / f"m{abs(hash(bytes(data)))}.model"
    path.write_bytes(bytes(data))
    try:
        tok = toklane.load_tokenizer(path)
    except toklane.TokenizerLoadError as exc:
        assert "\n" not in str(exc)
        return
    text = "Hello world café 😀 <s>   x=1 == 2"
    ids = tok.encode(text)
    tok.decode(ids)
    # a model that loads is encoded as the library encodes it, on whichever engine took it (scores, types
    # and pieces mutated: the compiled merges' refusals and priorities)
    sp = spm.SentencePieceProcessor(model_proto=bytes(data))
    assert tok.encode(text, split_special_tokens=True) == sp.encode(text), tok.engine_reason
