"""Names users type: HF repo ids resolve to a bundled vocabulary only where it is that repo's vocabulary
(checked by its facts: piece count, control ids, ids equal to the model vendor's own tokenizer), and the
ids of close families whose vocabulary differs get a one-line answer saying which file to pass."""

from __future__ import annotations

import pytest

import toklane
from tests.references import CORPUS, find_package
from toklane.tokenizer.registry import NotBundledError

# Control ids of Mistral-7B-Instruct-v0.3 (its tokenizer_config.json; mistral-common's v3 tokenizer).
MISTRAL_V3_CONTROL = {
    "<unk>": 0,
    "<s>": 1,
    "</s>": 2,
    "[INST]": 3,
    "[/INST]": 4,
    "[TOOL_CALLS]": 5,
    "[AVAILABLE_TOOLS]": 6,
    "[/AVAILABLE_TOOLS]": 7,
    "[TOOL_RESULTS]": 8,
    "[/TOOL_RESULTS]": 9,
}


@pytest.fixture(scope="module")
def mistral_data():
    pytest.importorskip("sentencepiece")
    try:
        return find_package("mistral_common") / "data"
    except AssertionError:
        pytest.skip("mistral-common is not installed")


@pytest.mark.parametrize(
    ("spec", "name", "file", "size"),
    [
        ("mistralai/Mistral-7B-Instruct-v0.3", "mistral-v3", "mistral_instruct_tokenizer_240323.model.v3", 32_768),
        ("mistralai/Mistral-7B-v0.3", "mistral-v3", "mistral_instruct_tokenizer_240323.model.v3", 32_768),
        ("mistralai/Mixtral-8x22B-Instruct-v0.1", "mistral-v3", "mistral_instruct_tokenizer_240323.model.v3", 32_768),
        ("mistralai/Mistral-7B-Instruct-v0.1", "mistral-v1", "tokenizer.model.v1", 32_000),
        ("mistralai/Mistral-7B-Instruct-v0.2", "mistral-v1", "tokenizer.model.v1", 32_000),
        ("mistralai/Mixtral-8x7B-Instruct-v0.1", "mistral-v1", "tokenizer.model.v1", 32_000),
        ("mistral-v2", "mistral-v2", "mistral_instruct_tokenizer_240216.model.v2", 32_768),
        ("mistral-v7", "mistral-v7", "mistral_instruct_tokenizer_241114.model.v7", 32_768),
    ],
)
def test_mistral_repo_ids_resolve_to_their_own_vocabulary(mistral_data, spec, name, file, size):
    from mistral_common.tokens.tokenizers.sentencepiece import SentencePieceTokenizer

    tok = toklane.load_tokenizer(spec)
    assert tok.name == name and tok is toklane.load_tokenizer(name) and tok.engine == "compiled"
    assert tok.vocab_size == size and tok.bos_token_ids == (1,) and tok.eos_token_ids == (2,)
    if name != "mistral-v1":
        for piece, i in MISTRAL_V3_CONTROL.items():
            assert tok.token_to_id(piece) == i, piece
    vendor = SentencePieceTokenizer(str(mistral_data / file))  # mistral-common's own tokenizer
    assert vendor.n_words == size
    for text in CORPUS:
        ids = vendor.encode(text, bos=False, eos=False)
        assert tok.encode(text, split_special_tokens=True) == ids, text
        assert tok.decode(ids) == vendor.decode(ids)


@pytest.mark.parametrize(
    "spec",
    [
        "deepseek-ai/DeepSeek-V3",
        "deepseek-ai/DeepSeek-V3-0324",
        "deepseek-ai/DeepSeek-V3.1",
        "deepseek-ai/DeepSeek-R1",
        "deepseek-ai/DeepSeek-R1-0528",
        "deepseek-ai/DeepSeek-R1-Distill-Qwen-7B",
        "meta-llama/Llama-2-7b-chat-hf",
        "google/gemma-2-9b-it",
    ],
)
def test_close_families_with_another_vocabulary_say_which_file_to_pass(spec):
    with pytest.raises(NotBundledError) as info:
        toklane.load_tokenizer(spec)
    message = str(info.value)
    assert "\n" not in message and "is not bundled" in message and "tokenizer.json" in message
    assert isinstance(info.value, toklane.UnknownTokenizerError)
    assert toklane.tokenizer.registry.resolve_name(spec) is None


def test_deepseek_v3_is_not_the_bundled_vocabulary():
    """The fact behind the answer above: DeepSeek-V3's added tokens end at 128814 (<｜tool▁sep｜>), and the
    bundled deepseek-v4 holds more (so "<think>" is one token here and text there)."""
    tok = toklane.load_tokenizer("deepseek-v4")
    assert tok.special_tokens["<｜tool▁sep｜>"] == 128814
    assert tok.special_tokens["<think>"] == 128821 and max(tok.special_tokens.values()) > 128814


def test_other_ids_get_the_generic_answer():
    with pytest.raises(toklane.UnknownTokenizerError) as info:
        toklane.load_tokenizer("someorg/SomeModel-7B")
    assert not isinstance(info.value, NotBundledError) and "tokenizer.json" in str(info.value)
