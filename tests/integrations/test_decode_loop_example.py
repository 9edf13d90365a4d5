"""``examples/decode_loop.py`` runs, and its two loops do what it claims."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "decode_loop.py"


def load_example():
    spec = importlib.util.spec_from_file_location("decode_loop_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_decode_loop_example_runs() -> None:
    done = subprocess.run([sys.executable, str(EXAMPLE)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "the budget forced </think>" in done.stdout


@pytest.mark.parametrize("hidden", ["torch", "transformers"])
def test_without_torch_or_transformers_the_example_says_what_to_install(hidden: str) -> None:
    block = (
        "import sys, runpy\n"
        "class Hide:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        f"        if name.partition('.')[0] == {hidden!r}:\n"
        "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
        "sys.meta_path.insert(0, Hide())\n"
        f"runpy.run_path({str(EXAMPLE)!r}, run_name='__main__')\n"
    )
    done = subprocess.run([sys.executable, "-c", block], capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        f"examples/decode_loop.py needs torch and transformers ({hidden} is not installed): "
        "pip install torch==2.13.0 transformers"
    ]


def test_hand_written_loop_matches_generate_and_the_helpers_agree() -> None:
    example = load_example()
    import toklane

    tok = toklane.load_tokenizer("qwen3.6")
    model = example.tiny_model(tok.vocab_size)
    prompt = example.prompt_ids(tok)
    ids = example.with_generate(tok, model, prompt)
    run = example.by_hand(tok, model, prompt)
    assert run["ids"] == ids  # the LogitsProcessors and the per-step helpers pick the same tokens

    end = tok.token_to_id("</think>")
    forced = run["forced_at"]
    assert ids[forced] == end and end not in ids[:forced] and run["reasoning_end"] == forced + 1
    think_open = len(prompt) - prompt[::-1].index(tok.token_to_id("<think>"))  # just past the prompt's <think>
    assert (len(prompt) - think_open) + forced == example.BUDGET  # thinking tokens, the prompt's counted

    assert run["text"] == tok.decode(ids)  # the incremental detokenizer equals one decode
    assert run["reasoning"] == tok.decode(ids[:forced])
    assert run["content"] == tok.decode(ids[forced + 1 :])
