"""Corpus scale (issue 15): count and pre-tokenize a JSONL corpus, toklane beside HF datasets and tiktoken.

One table, one run, on a generated multilingual JSONL corpus (English, Chinese, Japanese,
Russian, Arabic, emoji and Python code; records of varied length; fixed seed; cached under
``$TMPDIR/toklane-bench-corpus/`` so a re-run does not regenerate it):

* toklane ``count_corpus`` and ``tokenize_corpus`` (Parquet shards) with 1 and all workers;
* HF ``datasets``: ``load_dataset("json")`` + ``map(batched=True, num_proc=...)`` with the same
  tokenizer through ``tokenizers`` (qwen3.6's ranks converted to a tokenizer.json), producing
  ``input_ids`` + ``num_tokens`` (tokenize) or ``num_tokens`` only (count); its seconds include
  the JSON load, shown separately too;
* tiktoken ``encode_ordinary_batch`` (num_threads = cores) for cl100k_base and o200k_base,
  beside toklane ``count_corpus`` on the same encodings.

Every job runs in a fresh subprocess; its peak memory is the sampled sum of the RSS of its whole
process tree (/proc). Exactness: every job's total token count is compared with toklane's, the
ids written by toklane tokenize and HF map are compared in full (a CRC of all ids in order), and
the ids of every peer on a sample of records are compared with toklane's. Scaling (all workers
against one, per core) and toklane count's peak memory at two corpus sizes are printed after.

    python benchmarks/corpus.py [--size-mb 500] [--quick] [--repeat 3] [--cache-dir DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import print_table

SEED = 15
CORPUS_VERSION = 1  # bump when the generator changes: the cached files are named after it
TEXT_FIELD = "text"
MODEL = "qwen3.6"
SAMPLE_RECORDS = 2000

# ----------------------------------------------------------------------------- the corpus

_ZH = (
    "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说产种面而方"
    "后多定行学法所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都两体制机当使点从业本去把性好应开"
    "它合还因由其些然前外天政四日那社义事平形相全表间样与关各重新线内数正心反你明看原又么利比或但质气第向道命此"
    "变条只没结解问意建月公无系军很情者最立代想已通并提直题党程展五果料象员革位入常文总次品式活设及管特件长求老"
    "头基资边流路级少图山统接知较将组见计别她手角期根论运农指几九区强放决西被干做必战先回则任取据处队南给色光门"
    "即保治北造百规热领七海口东导器压志世金增争济阶油思术极交受联什认六共权收证改清己美再采转更单风切打白教速花"
    "词元模型向量训练数据语言计算研究"
)
_KANA = (
    "あいうえおかきくけこさしすせそたちつてとなにぬねのはひふへほまみむめもやゆよらりるれろわをん"
    "がぎぐげござじずぜぞだぢづでどばびぶべぼぱぴぷぺぽゃゅょっ"
    "アイウエオカキクケコサシスセソタチツテトナニヌネノハヒフヘホマミムメモヤユヨラリルレロワヲン"
    "ガギグゲゴザジズゼゾダヂヅデドバビブベボパピプペポャュョッー"
)
_RU_CONSONANTS = "бвгджзклмнпрстфхцчшщ"
_RU_VOWELS = "аеиоуыэюяё"
_AR_LETTERS = "ابتثجحخدذرزسشصضطظعغفقكلمنهويةىء"
_EMOJI = (
    "🚀",
    "🔥",
    "👍",
    "❤️",
    "😂",
    "🎉",
    "✅",
    "🤖",
    "👩‍💻",
    "👨‍👩‍👧‍👦",
    "🇫🇷",
    "🇯🇵",
    "🏳️‍🌈",
    "👍🏽",
    "🙏",
    "✨",
    "🌍",
    "📈",
    "⚠️",
    "🧪",
)
_PHRASES = {
    "en": ("The quick brown fox jumps over the lazy dog.", "Tokenizers split text into units."),
    "zh": ("分词器把文本切分成词元。", "今天天气很好，我们去公园散步吧。"),
    "ja": ("トークナイザーはテキストを分割します。", "東京は日本の首都です。"),
    "ru": ("Токенизатор разбивает текст на токены.", "Москва — столица России."),
    "ar": ("المحلل اللغوي يقسم النص إلى وحدات.", "مرحبا بالعالم!"),
}
_KINDS = ("en", "code", "zh", "ja", "ru", "ar", "mixed")
_KIND_WEIGHTS = (30, 25, 10, 8, 8, 7, 12)


def _stdlib_sources() -> str:
    """Real Python code (the standard library's own modules, sorted), about 4 MB."""
    root = Path(os.__file__).parent
    parts, size = [], 0
    for path in sorted(root.glob("*.py")):
        text = path.read_text(encoding="utf-8", errors="replace")
        parts.append(text)
        size += len(text)
        if size > 4_000_000:
            break
    return "".join(parts)


class _Generator:
    """Deterministic records: Zipf-distributed words per script, real code, varied lengths."""

    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.code = _stdlib_sources()
        english = sorted(set(re.findall(r"\b[a-z]{2,14}\b", self.code)))
        self.words = {
            "en": english,
            "zh": self._invent(lambda: "".join(self.rng.choices(_ZH, k=self.rng.randint(1, 3))), 6000),
            "ja": self._invent(
                lambda: (
                    "".join(self.rng.choices(_KANA, k=self.rng.randint(2, 5)))
                    + "".join(self.rng.choices(_ZH, k=self.rng.randint(0, 2)))
                ),
                6000,
            ),
            "ru": self._invent(
                lambda: "".join(
                    self.rng.choice(_RU_CONSONANTS) + self.rng.choice(_RU_VOWELS) for _ in range(self.rng.randint(1, 4))
                ),
                8000,
            ),
            "ar": self._invent(lambda: "".join(self.rng.choices(_AR_LETTERS, k=self.rng.randint(2, 7))), 8000),
        }
        # Zipf: word i is drawn with weight 1/(i+1), as in natural text.
        self.cum = {}
        for lang, words in self.words.items():
            self.rng.shuffle(words)
            total, cum = 0.0, []
            for i in range(len(words)):
                total += 1.0 / (i + 1)
                cum.append(total)
            self.cum[lang] = cum

    def _invent(self, make: Any, n: int) -> list[str]:
        return sorted({make() for _ in range(n)})

    def _sentence(self, lang: str) -> str:
        rng = self.rng
        if rng.random() < 0.05:
            return rng.choice(_PHRASES[lang])
        words = rng.choices(self.words[lang], cum_weights=self.cum[lang], k=rng.randint(4, 28))
        if rng.random() < 0.15:
            words.insert(rng.randrange(len(words)), str(rng.randint(0, 10 ** rng.randint(1, 7))))
        if rng.random() < 0.08:
            words.insert(rng.randrange(len(words)), rng.choice(_EMOJI))
        if lang in ("zh", "ja"):
            return "".join(words) + rng.choice("。。，！？")
        text = " ".join(words)
        end = "." if lang != "ar" else rng.choice((".", "،", "؟"))
        return text[0].upper() + text[1:] + end + (" " if rng.random() < 0.85 else "\n")

    def _prose(self, lang: str, nbytes: int) -> str:
        parts, size = [], 0
        while size < nbytes:
            s = self._sentence(lang)
            parts.append(s)
            size += len(s.encode())
        return "".join(parts)

    def _code(self, nbytes: int) -> str:
        start = self.code.find("\n", self.rng.randrange(len(self.code) - 1)) + 1
        return self.code[start : start + nbytes] or self.code[:nbytes]

    def record(self, i: int) -> dict[str, Any]:
        rng = self.rng
        kind = rng.choices(_KINDS, weights=_KIND_WEIGHTS)[0]
        nbytes = int(min(200_000, max(20, rng.lognormvariate(6.9, 1.1))))  # median ~1 KB, mean ~1.8 KB
        if kind == "code":
            text = self._code(nbytes)
        elif kind == "mixed":
            langs = rng.sample(("en", "zh", "ja", "ru", "ar"), k=rng.randint(2, 4))
            text = "".join(self._prose(lang, nbytes // len(langs)) + rng.choice(_EMOJI) + "\n" for lang in langs)
            if rng.random() < 0.5:
                text += "```python\n" + self._code(nbytes // 3) + "\n```\n"
        else:
            text = self._prose(kind, nbytes)
        return {"id": i, "lang": kind, TEXT_FIELD: text}


def corpus_path(cache_dir: Path, size_mb: float) -> Path:
    """The cached corpus of ``size_mb`` MB, generated (to a temporary name, then renamed) if absent."""
    path = cache_dir / f"corpus-v{CORPUS_VERSION}-seed{SEED}-{size_mb:g}mb.jsonl"
    if path.is_file():
        return path
    cache_dir.mkdir(parents=True, exist_ok=True)
    print(f"generating {path} ...", file=sys.stderr, flush=True)
    gen, target, size = _Generator(SEED), int(size_mb * 1_000_000), 0
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    with open(tmp, "w", encoding="utf-8") as f:
        i = 0
        while size < target:
            line = json.dumps(gen.record(i), ensure_ascii=False) + "\n"
            f.write(line)
            size += len(line.encode())
            i += 1
    os.replace(tmp, path)
    return path


def hf_tokenizer_json(cache_dir: Path, model: str = MODEL) -> Path:
    """``model``'s ranks and pattern as an HF tokenizer.json (transformers' TikTokenConverter; NFC
    normalizer where the family normalizes), cached beside the corpus."""
    path = cache_dir / f"{model}.tokenizer.json"
    if path.is_file():
        return path
    import base64

    from tokenizer import _ranks_of
    from tokenizers import normalizers
    from transformers.convert_slow_tokenizer import TikTokenConverter

    pattern, ranks, nfc = _ranks_of(model)
    with tempfile.TemporaryDirectory() as tmp:
        ranks_file = Path(tmp) / f"{model}.tiktoken"
        ranks_file.write_bytes(
            b"".join(base64.b64encode(t) + b" %d\n" % r for t, r in sorted(ranks.items(), key=lambda kv: kv[1]))
        )
        hf = TikTokenConverter(vocab_file=str(ranks_file), pattern=pattern).converted()
    if nfc:
        hf.normalizer = normalizers.NFC()
    cache_dir.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    hf.save(str(tmp))
    os.replace(tmp, path)
    return path


def tiktoken_encoding(name: str) -> Any:
    """tiktoken's own encoding (its file cache), else the same ranks and pattern built offline."""
    import tiktoken

    try:
        return tiktoken.get_encoding(name)
    except Exception:  # no network and no cached file: build it from the bundled ranks
        from tokenizer import _ranks_of

        pattern, ranks, _ = _ranks_of(name)
        return tiktoken.Encoding(name, pat_str=pattern, mergeable_ranks=ranks, special_tokens={})


# ----------------------------------------------------------------------------- jobs (each in a fresh process)


def _read_texts(path: str, batch: int) -> Any:
    texts: list[str] = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            texts.append(json.loads(line)[TEXT_FIELD])
            if len(texts) == batch:
                yield texts
                texts = []
    if texts:
        yield texts


def _crc_ids(crc: int, values: Any) -> int:
    import numpy as np

    return zlib.crc32(np.asarray(values, dtype=np.int32).tobytes(), crc)


def _crc_arrow_ids(tables: Any) -> int:
    crc = 0
    for table in tables:
        for chunk in table.column("input_ids").chunks:
            crc = _crc_ids(crc, chunk.flatten().to_numpy(zero_copy_only=False))
    return crc


def job(spec: dict[str, Any]) -> tuple[dict[str, Any], Any]:
    """Run one measured job; returns (result, a function computing the ids' CRC or None).
    Jobs with one worker are pinned to one core (the libraries' own threads included)."""
    tool, path, workers = spec["tool"], spec["path"], spec["workers"]
    if workers == 1:
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    tmp = spec["tmp"]
    if tool in ("toklane count", "toklane tokenize"):
        from toklane import corpus

        t0 = time.perf_counter()
        if tool == "toklane count":
            stats = corpus.count_corpus(path, spec["model"], text_field=TEXT_FIELD, workers=workers)
        else:
            stats = corpus.tokenize_corpus(
                path, os.path.join(tmp, "out"), spec["model"], text_field=TEXT_FIELD, workers=workers
            )
        seconds = time.perf_counter() - t0
        result = {"seconds": seconds, "records": stats.records, "tokens": stats.tokens}
        if tool == "toklane count":
            return result, None
        import pyarrow.parquet as pq

        def crc() -> int:
            # pyarrow directly: HF datasets' streaming reader left threads that aborted the
            # process at exit now and then ("terminate called without an active exception")
            return _crc_arrow_ids(pq.read_table(str(s), columns=["input_ids"]) for s in stats.shards)

        return result, crc
    if tool.startswith("datasets"):
        os.environ["TOKENIZERS_PARALLELISM"] = "false"  # one process per worker (num_proc), no rayon threads
        os.environ["HF_DATASETS_OFFLINE"] = "1"
        os.environ["HF_HUB_OFFLINE"] = "1"
        import datasets
        from tokenizers import Tokenizer

        datasets.disable_progress_bars()
        datasets.logging.set_verbosity_error()
        t0 = time.perf_counter()
        ds = datasets.load_dataset("json", data_files=path, split="train", cache_dir=tmp)
        t_load = time.perf_counter() - t0
        hf = Tokenizer.from_file(spec["tokenizer_json"])
        count_only = tool.endswith("count")

        def tokenize(batch: dict[str, list[Any]]) -> dict[str, list[Any]]:
            ids = [e.ids for e in hf.encode_batch(batch[TEXT_FIELD], add_special_tokens=False)]
            lengths = [len(x) for x in ids]
            return {"num_tokens": lengths} if count_only else {"input_ids": ids, "num_tokens": lengths}

        out = ds.map(
            tokenize,
            batched=True,
            num_proc=workers if workers > 1 else None,
            remove_columns=ds.column_names if count_only else None,
        )
        seconds = time.perf_counter() - t0
        tokens = int(out.data.column("num_tokens").to_numpy().sum())
        result = {"seconds": seconds, "load_seconds": t_load, "records": len(out), "tokens": tokens}
        return result, None if count_only else (lambda: _crc_arrow_ids([out.data]))
    if tool == "tiktoken":
        enc = tiktoken_encoding(spec["model"])
        t0 = time.perf_counter()
        records = tokens = 0
        for texts in _read_texts(path, 2000):
            for ids in enc.encode_ordinary_batch(texts, num_threads=workers):
                tokens += len(ids)
            records += len(texts)
        return {"seconds": time.perf_counter() - t0, "records": records, "tokens": tokens}, None
    raise SystemExit(f"unknown job {tool!r}")


def _child_main(spec_json: str) -> None:
    result, crc = job(json.loads(spec_json))
    print("DONE " + json.dumps(result), flush=True)  # the parent stops sampling memory here
    if crc is not None:
        print("CRC " + json.dumps(crc()), flush=True)


def _tree_rss(root: int) -> int:
    """Sum of the RSS of ``root`` and all its descendants (Linux /proc)."""
    parents: dict[int, int] = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                with open(f"/proc/{entry.name}/stat", "rb") as f:
                    stat = f.read()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat[stat.rindex(b")") + 2 :].split()[1])
    tree, frontier = {root}, [root]
    while frontier:
        pid = frontier.pop()
        for child, parent in parents.items():
            if parent == pid and child not in tree:
                tree.add(child)
                frontier.append(child)
    total, page = 0, os.sysconf("SC_PAGE_SIZE")
    for pid in tree:
        try:
            with open(f"/proc/{pid}/statm") as f:
                total += int(f.read().split()[1]) * page
        except OSError:
            pass
    return total


def run_job(spec: dict[str, Any]) -> dict[str, Any]:
    """``spec`` in a fresh interpreter; adds ``peak_rss`` (sampled until the timed part ends) and ``crc``."""
    with tempfile.TemporaryDirectory(prefix="toklane-bench-job-") as tmp, tempfile.TemporaryFile("w+") as err:
        spec = {**spec, "tmp": tmp}
        proc = subprocess.Popen(
            [sys.executable, __file__, "--job", json.dumps(spec)], stdout=subprocess.PIPE, stderr=err, text=True
        )
        lines: list[str] = []
        done = threading.Event()

        def read() -> None:
            assert proc.stdout is not None
            for line in proc.stdout:
                lines.append(line)
                if line.startswith("DONE "):
                    done.set()
            done.set()

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        peak = 0
        while not done.is_set():
            peak = max(peak, _tree_rss(proc.pid))
            done.wait(0.05)
        reader.join()
        if proc.wait() != 0:
            err.seek(0)
            raise SystemExit(f"job {spec['tool']} ({spec['model']}, {spec['workers']}) failed:\n{err.read()[-3000:]}")
        result = json.loads(next(line for line in lines if line.startswith("DONE "))[5:])
        crc = [json.loads(line[4:]) for line in lines if line.startswith("CRC ")]
        return {**spec, **result, "peak_rss": peak, "crc": crc[0] if crc else None}


# ----------------------------------------------------------------------------- exactness on a sample


def _first_difference(tok: Any, ours: list[int], theirs: list[int]) -> str:
    i = next((i for i, (a, b) in enumerate(zip(ours, theirs, strict=False)) if a != b), min(len(ours), len(theirs)))
    return f"{tok.decode(ours[max(0, i - 2) : i + 3])!r}: toklane {ours[i : i + 3]}, peer {theirs[i : i + 3]}"


def sample_exactness(path: Path, tokenizer_json: Path, n: int = SAMPLE_RECORDS) -> tuple[bool, str]:
    """(all equal, a line saying so): every peer's ids against toklane's on ``n`` records spread
    over the corpus; a difference is shown with its first differing tokens."""
    from tokenizers import Tokenizer

    import toklane

    with open(path, encoding="utf-8") as f:
        lines = f.readlines()
    step = max(1, len(lines) // n)
    texts = [json.loads(line)[TEXT_FIELD] for line in lines[::step][:n]]
    del lines
    hf = Tokenizer.from_file(str(tokenizer_json))
    checks = {
        (MODEL, "HF tokenizers"): [e.ids for e in hf.encode_batch(texts, add_special_tokens=False)],
        **{
            (name, "tiktoken"): tiktoken_encoding(name).encode_ordinary_batch(texts)
            for name in ("cl100k_base", "o200k_base")
        },
    }
    problems = []
    for (model, peer), peer_ids in checks.items():
        tok = toklane.load_tokenizer(model)
        ours = tok.encode_batch(texts)
        bad = [i for i, (a, b) in enumerate(zip(ours, peer_ids, strict=True)) if list(a) != list(b)]
        if bad:
            first = _first_difference(tok, list(ours[bad[0]]), list(peer_ids[bad[0]]))
            problems.append(f"{peer} {model}: {len(bad)} of {len(texts)} records differ, first at {first}")
    peers = ", ".join(f"{p} {m}" for m, p in checks)
    if problems:
        return False, f"ids equal: NO ({len(texts)} records; " + "; ".join(problems) + ")"
    return True, f"ids equal: yes ({len(texts)} records; {peers})"


# ----------------------------------------------------------------------------- the run


def _fmt_mb(n: float) -> str:
    return f"{n / 1e6:,.0f} MB" if n >= 10e6 else f"{n / 1e6:.2f} MB"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=float, default=500.0, help="corpus size in MB (default 500)")
    parser.add_argument("--quick", action="store_true", help="a ~5 MB corpus, each job run once")
    parser.add_argument(
        "--cache-dir",
        default=str(Path(tempfile.gettempdir()) / "toklane-bench-corpus"),
        help="where the generated corpora and the HF tokenizer.json are kept (default: $TMPDIR/toklane-bench-corpus)",
    )
    parser.add_argument(
        "--repeat", type=int, help="runs of each toklane qwen3.6 job, the fastest kept (default 3; --quick: 1)"
    )
    parser.add_argument("--job", help=argparse.SUPPRESS)  # internal: one measured job, in a fresh process
    args = parser.parse_args()
    if args.job:
        _child_main(args.job)
        return
    size_mb = 5.0 if args.quick else args.size_mb
    if args.repeat is None:
        args.repeat = 1 if args.quick else 3
    cache = Path(args.cache_dir)
    path = corpus_path(cache, size_mb)
    small = corpus_path(cache, size_mb / 5)
    tok_json = hf_tokenizer_json(cache)
    nbytes = path.stat().st_size
    cores = len(os.sched_getaffinity(0))
    exact, exact_line = sample_exactness(path, tok_json)

    base = {"path": str(path), "model": MODEL, "tokenizer_json": str(tok_json)}
    specs: list[dict[str, Any]] = []
    for tool in ("toklane count", "toklane tokenize", "datasets count", "datasets tokenize"):
        for w in (1, cores):
            specs.append({**base, "tool": tool, "workers": w})
    for name in ("cl100k_base", "o200k_base"):
        specs.append({**base, "tool": "toklane count", "model": name, "workers": cores})
        specs.append({**base, "tool": "tiktoken", "model": name, "workers": cores})
    # toklane's qwen3.6 jobs (the scaling rows) run --repeat times and keep the fastest: one run
    # on a shared machine varies by 10-30%, and the machine's speed drifts over minutes, so the
    # rounds are interleaved (1 worker, all workers, 1, all, ...) for the two sides of a scaling
    # ratio to meet the same conditions. The peers' jobs (minutes each) run once.
    repeated = [k for k, spec in enumerate(specs) if spec["tool"].startswith("toklane") and spec["model"] == MODEL]
    runs: dict[int, list[dict[str, Any]]] = {k: [] for k in range(len(specs))}
    order = [k for _ in range(args.repeat) for k in repeated] + [k for k in range(len(specs)) if k not in repeated]
    for k in order:
        spec = specs[k]
        t0 = time.perf_counter()
        runs[k].append(run_job(spec))
        print(
            f"{spec['tool']} {spec['model']} x{spec['workers']}: {time.perf_counter() - t0:.1f} s",
            file=sys.stderr,
            flush=True,
        )
    results = [min(runs[k], key=lambda r: r["seconds"]) for k in range(len(specs))]
    small_run = run_job({**base, "path": str(small), "tool": "toklane count", "workers": cores})

    by_key = {(r["tool"], r["model"], r["workers"]): r for r in results}
    ours_for = {"datasets count": "toklane count", "datasets tokenize": "toklane tokenize", "tiktoken": "toklane count"}
    rows, verdicts, token_problems, crc_problems = [], [], [], []
    for r in results:
        rps, mbps = r["records"] / r["seconds"], nbytes / 1e6 / r["seconds"]
        ratio = ""
        if r["tool"] in ours_for:
            ours = by_key[(ours_for[r["tool"]], r["model"], r["workers"])]
            speedup = r["seconds"] / ours["seconds"]
            ratio = f"{speedup:.2f}x"
            verdicts.append(speedup > 1)
            if (ours["records"], ours["tokens"]) != (r["records"], r["tokens"]):
                ratio += " NOT EXACT"
                token_problems.append(
                    f"{r['tool']} x{r['workers']} {r['model']}: {r['records']:,} records / {r['tokens']:,} tokens, "
                    f"toklane {ours['records']:,} / {ours['tokens']:,}"
                )
        if r["crc"] is not None and r["crc"] != by_key[("toklane tokenize", r["model"], r["workers"])]["crc"]:
            crc_problems.append(f"{r['tool']} x{r['workers']}")
        seconds = f"{r['seconds']:.1f}"
        if "load_seconds" in r:
            seconds += f" (load {r['load_seconds']:.1f})"
        rows.append(
            (
                r["tool"],
                r["model"],
                r["workers"],
                seconds,
                f"{rps:,.0f}",
                f"{mbps:.1f}",
                _fmt_mb(r["peak_rss"]),
                ratio,
            )
        )
    tokens_line = "token totals equal: " + ("yes" if not token_problems else "NO (" + "; ".join(token_problems) + ")")
    crc_line = "tokenize ids equal (CRC of all ids, toklane shards vs HF map output): " + (
        "yes" if not crc_problems else "NO (" + ", ".join(crc_problems) + ")"
    )
    print_table(
        f"corpus: {nbytes / 1e6:,.0f} MB JSONL, {results[0]['records']:,} records, "
        f"{by_key[('toklane count', MODEL, cores)]['tokens']:,} {MODEL} tokens; "
        "seconds include reading the JSON and loading the tokenizer (datasets: HF load_dataset('json') + "
        "map(batched=True, num_proc=workers) through tokenizers, its load shown apart; tiktoken: built before); "
        f"toklane's qwen3.6 rows: the fastest of {args.repeat} interleaved runs, the others: one",
        ["tool", "tokenizer", "workers", "seconds", "records/s", "MB/s", "peak RSS (tree)", "toklane/peer"],
        rows,
        note=f"{cores} cores; shared machine: compare ratios, not absolutes. {exact_line}; {tokens_line}; {crc_line}",
    )
    scaling = []
    for tool in ("toklane count", "toklane tokenize", "datasets count", "datasets tokenize"):
        one, many = by_key[(tool, MODEL, 1)], by_key[(tool, MODEL, cores)]
        speedup = one["seconds"] / many["seconds"]
        scaling.append(
            (tool, f"{speedup:.2f}x", f"{speedup / cores:.2f}", "met" if speedup >= 0.85 * cores else "MISSED")
        )
    big = by_key[("toklane count", MODEL, cores)]
    print_table(
        f"scaling: {cores} workers vs 1 ({MODEL})",
        ["job", "speedup", "per core", "target >= 0.85 x cores"],
        scaling,
    )
    print(
        f"toklane count peak memory, {cores} workers: {_fmt_mb(small_run['peak_rss'])} on "
        f"{_fmt_mb(small.stat().st_size)}, {_fmt_mb(big['peak_rss'])} on {_fmt_mb(nbytes)} "
        f"(x{big['peak_rss'] / small_run['peak_rss']:.2f} for x{nbytes / small.stat().st_size:.1f} input)"
    )
    print(f"toklane faster than the peer in {sum(verdicts)} of {len(verdicts)} rows")
    if not exact or token_problems or crc_problems:
        raise SystemExit("corpus.py: toklane's ids differ from a peer's (see the table's caption)")


if __name__ == "__main__":
    main()
