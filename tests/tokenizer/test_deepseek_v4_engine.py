"""DeepSeek-V4 on a ranked-BPE engine (tiktoken): ids equal to HF ``tokenizers``.

The bundled tokenizer replays DeepSeek-V4's three sequential isolated splits as
one pattern (:data:`toklane.tokenizer.deepseek_v4.PATTERN`) and its merges as
ranks. These tests compare it with ``tokenizers.Tokenizer.from_file`` on the
shared corpus, a few hundred KB of code, prose and text in many scripts, every
code point in several contexts, and hypothesis-generated text over the
characters where the splits and character classes meet.
"""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toklane
from tests.profiles import examples
from tests.references import CORPUS
from toklane.errors import TokenizerLoadError
from toklane.tokenizer import deepseek_v4
from toklane.tokenizer.compiled_pipelines import CompiledPipeline, compiled_pipeline

_hf: list = []


@pytest.fixture(scope="module")
def hf(deepseek_json):
    if not _hf:
        from tokenizers import Tokenizer

        _hf.append(Tokenizer.from_file(str(deepseek_json)))
    return _hf[0]


@pytest.fixture(scope="module")
def tok():
    return toklane.load_tokenizer("deepseek-v4")


def _hf_ids(hf, texts: list[str]) -> list[list[int]]:
    return [e.ids for e in hf.encode_batch(texts, add_special_tokens=False)]


def test_runs_on_the_compiled_encoder(tok):
    assert tok._backend.engine == "compiled"


def test_vocabulary_and_added_tokens_match(tok, hf):
    assert dict(tok.vocab) == hf.get_vocab(with_added_tokens=True)
    assert tok.vocab_size == 129280 == len(tok)
    added = hf.get_added_tokens_decoder()
    assert {t.content: i for i, t in added.items()} == dict(tok.special_tokens)  # every added token
    for i, t in added.items():
        assert tok.encode(t.content) == hf.encode(t.content, add_special_tokens=False).ids == [i]


def test_corpus_matches(tok, hf):
    for text in CORPUS:
        assert tok.encode(text) == hf.encode(text, add_special_tokens=False).ids, text
        assert tok.count(text) == len(tok.encode(text))
    assert tok.encode_batch(CORPUS) == _hf_ids(hf, CORPUS)


def test_split_special_tokens_matches(tok, hf, deepseek_json):
    from tokenizers import Tokenizer

    split = Tokenizer.from_file(str(deepseek_json))
    split.encode_special_tokens = True
    for text in CORPUS:
        assert tok.encode(text, split_special_tokens=True) == split.encode(text, add_special_tokens=False).ids


def test_add_special_tokens_matches(tok, hf):
    for text in CORPUS[:16]:
        assert tok.encode(text, add_special_tokens=True) == hf.encode(text, add_special_tokens=True).ids


def test_decode_matches(tok, hf):
    rng = random.Random(1)
    for _ in range(300):
        ids = [rng.randrange(tok.vocab_size) for _ in range(rng.randrange(1, 12))]
        assert tok.decode(ids) == hf.decode(ids, skip_special_tokens=False)
        assert tok.decode(ids, skip_special_tokens=True) == hf.decode(ids, skip_special_tokens=True)


# --------------------------------------------------------------------------- large corpus

# Sentences in many scripts, digits of several systems, marks, controls and
# whitespace mixes: where the digit, CJK and third splits meet.
_LINES = [
    "Le tokeniseur découpe le texte en unités; naïve façade, œuvre, Ærøskøbing.",
    "分词器把文本切分成词元。我们在2024年3月15日发布了V4版本，共有671B参数！",
    "トークナイザーはテキストを分割します。ひらがな・カタカナ゠ー゛゜ゟヿ㋿",
    "토크나이저는 텍스트를 나눕니다. 한국어 123번 문장입니다.",
    "Токенизатор разбивает текст на токены: 1 234 567,89 руб.",
    "Ο αναλυτής χωρίζει το κείμενο· ελληνικά ΑΒΓ αβγ ά έ.",
    "المحلل يقسم النص إلى رموز ١٢٣٤٥٦٧٨٩٠ ٫ ٬ ؟ «نص» مَرْحَبًا",
    "टोकनाइज़र पाठ को टोकन में विभाजित करता है। ०१२३४५६७८९ क्षत्रज्ञ",
    "বাংলা ০১২৩ ગુજરાતી ૧૨૩ தமிழ் ௧௨௩ ไทย ๑๒๓ ລາວ ໑໒໓ မြန်မာ ၁၂၃ ខ្មែរ ១២៣",
    "עברית עם ניקוד: שָׁלוֹם 123 ሰላም ኢትዮጵያ ፩፪፫ ᚠᚢᚦ ᎠᎡᎢ",
    "Fullwidth １２３ＡＢＣ！？ superscripts x²³¹⁴ subscripts H₂O ⅓ ⅕ ① ⑩ Ⅻ ⅻ 〇〡〢",
    "emoji 🚀🔥👍🏽 👨‍👩‍👧‍👦 🇫🇷 ❤️ 1️⃣ #️⃣ keycap; math 𝟘𝟙𝟚 𝐀𝐁𝐂 ∑∫√∞≠≤",
    "combining: e\u0301 a\u0308\u0323 \u0301alone 1\u0301 \u4e00\u0301 \u3099 \u309a \u20dd \ufe0f",
    "controls:\x00\x01\x02 \x1b[31mred\x1b[0m \x7f\x80\x9f \u200b\u200c\u200d\u2060\ufeff\u00ad x\u200bx",
    "private \ue000\uf8ff \U000f0000 \U0010fffd unassigned \u0378\U000e0001\U000e0020\U000e007f",
    "spaces:\u00a0\u1680\u2000\u2001\u200a\u2028\u2029\u202f\u205f\u3000|\u3000\u3000中\u3000 1",
    "mixed\r\n\r\n  \r\n\t\t\n \n\n\r\r  x  \t 1 \t\u4e00 \u3000\n",
    "boundary \u4dff\u4e00\u9fa5\u9fa6\u9fff\u303f\u3040\u309f\u30a0\u30ff\u3100 \u3400\U00020000",
    "code: x=1;y=[a,b]; if(a<=b){return -1;} // 注释 # comment 0x1F 1e-9 3.14159",
    "numbers 1234567890 12 123 1234 12345 123456 1,234,567.890 ₁₂₃ ¹²³ ¼½¾ 𝟏𝟐𝟑 𒐀𒐁",
    "punct run !!!??? ... ——— «»‹› “”‘’ 「」『』【】 、。・ ,\n\n;:\r\n",
    "a.b,c!D?e-F_g'h\"i(j)k[l]m{n}o|p~q`r@s#t$u%v^w&x*y+z=A<B>C/D\\E:F;G",
]


def _large_corpus(limit: int = 400_000) -> list[str]:
    texts: list[str] = []
    size = 0
    for path in sorted((Path(__file__).parents[2] / "docs").rglob("*.md")):
        texts.append(path.read_text(encoding="utf-8", errors="replace"))
    root = Path(json.__file__).parent.parent
    rng = random.Random(7)
    sources = sorted(root.glob("*.py"))
    rng.shuffle(sources)
    for path in sources:
        texts.append(path.read_text(encoding="utf-8", errors="replace"))
        size += len(texts[-1])
        lines = rng.sample(_LINES, 6)
        texts.append("".join(line + rng.choice([" ", "\n", "\r\n", "\t", "", "  \n", "\n\n"]) for line in lines))
        if size >= limit:
            break
    return texts


def test_large_multilingual_and_code_corpus(tok, hf):
    texts = _large_corpus()
    assert sum(map(len, texts)) >= 300_000
    assert tok.encode_batch(texts) == _hf_ids(hf, texts)
    whole = "".join(texts[:40])  # one long text of code and scripts
    assert tok.encode(whole) == hf.encode(whole, add_special_tokens=False).ids


def test_lines_in_every_combination_of_neighbours(tok, hf):
    texts = [a + sep + b for a in _LINES for b in _LINES for sep in ("", " ", "\n", "1", "\u4e00", "\x00")]
    assert tok.encode_batch(texts) == _hf_ids(hf, texts)


def test_every_code_point_in_context(tok, hf):
    """Character classes (\\s, \\p{N}, \\p{L}, \\p{M}, \\p{P}, \\p{S}) agree between
    Oniguruma and fancy-regex: every BMP and SMP code point (and a sample of the
    others) beside letters, digits, CJK, punctuation, spaces and newlines."""
    cps = [c for c in range(0x20000) if not 0xD800 <= c < 0xE000]
    cps += [*range(0x20000, 0xE0000, 97), *range(0xE0000, 0xE0200), *range(0xE0200, 0x110000, 31)]
    for k in range(0, len(cps), 4000):
        texts = [f"a{c}b {c}{c} 1{c}1 \n{c}\n!{c}! \u4e00{c}\u4e00  {c}x{c}" for c in map(chr, cps[k : k + 4000])]
        assert tok.encode_batch(texts) == _hf_ids(hf, texts), hex(cps[k])


# --------------------------------------------------------------------------- hypothesis

_TRICKY = (
    list("0123456789٠١٢٣٤٥٦٧٨٩०१२३४५६७८९１２３⁰¹²³₀₁₂½Ⅻ〇𝟘")
    + list("\u4e00\u9fa5\u9fa6\u4dff\u3040\u3041\u309f\u30a0\u30fb\u30fc\u30ff\u3100\u3002\u300c")
    + list("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~¡¿—«»“”、。・€$^+<=>|~©°")
    + list("\u0301\u0308\u0323\u3099\u309a\u20dd\u0903\ufe0f")
    + list("\r\n\t \u3000\u00a0\u2028\u2029\u0085\u000b\u000c\u200b\u200d\ufeff\u00ad")
    + [chr(c) for c in range(0x20)]
    + list("aZsStTxé한Ωжअع😀\ue000\u0378")
    + ["\r\n", "  ", "'s", "ab", "123", "\u4e00\u4e01", "<｜User｜>", "<think>"]
)


@settings(max_examples=examples(1500), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.lists(st.sampled_from(_TRICKY), max_size=40).map("".join))
def test_tricky_text_matches(tok, hf, text):
    assert tok.encode(text) == hf.encode(text, add_special_tokens=False).ids


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(max_size=60))
def test_any_text_matches(tok, hf, text):
    assert tok.encode(text) == hf.encode(text, add_special_tokens=False).ids


# --------------------------------------------------------------------------- construction


def _data(deepseek_json) -> dict:
    return json.loads(Path(deepseek_json).read_text(encoding="utf-8"))


def test_the_bundled_file_is_the_one_the_pattern_reproduces(deepseek_json):
    data = _data(deepseek_json)
    assert compiled_pipeline(data) == CompiledPipeline(deepseek_v4.PATTERN, None, "DeepSeek-V4's pre-tokeniser")
    changed = copy.deepcopy(data)
    changed["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"] = r"\p{N}"
    assert compiled_pipeline(changed) is None
    changed = copy.deepcopy(data)
    changed["normalizer"] = {"type": "NFD"}
    assert compiled_pipeline(changed) is None
    changed["normalizer"] = {"type": "NFC"}  # (read, but its FIM tokens are matched in the NFC text)
    nfc = compiled_pipeline(changed)
    assert (nfc.pattern, nfc.form) == (deepseek_v4.PATTERN, "NFC") and "NFC-normalised" in nfc.refusal
    changed = copy.deepcopy(data)
    changed["added_tokens"][0]["lstrip"] = True
    assert "single_word/lstrip/rstrip" in compiled_pipeline(changed).refusal


def test_merges_that_are_not_in_id_order_are_refused(deepseek_json):
    model = _data(deepseek_json)["model"]
    ranks = deepseek_v4.ranks(model, "x")
    assert len(ranks) == 127997 and min(ranks.values()) == 3 and max(ranks.values()) == 127999
    swapped = dict(model, merges=[model["merges"][1], model["merges"][0], *model["merges"][2:]])
    with pytest.raises(TokenizerLoadError):
        deepseek_v4.ranks(swapped, "x")
    with pytest.raises(TokenizerLoadError):
        deepseek_v4.ranks(dict(model, ignore_merges=True), "x")


def test_long_text_matches(tok, hf):
    text = ("x = 1  # 注释\n" + " " * 300 + "\t1\n") * 2000
    assert len(text) > 600_000  # past the length where long whitespace runs are looked for
    assert tok.encode(text) == hf.encode(text, add_special_tokens=False).ids
