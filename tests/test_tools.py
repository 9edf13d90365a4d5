"""tools/: development scripts of the source repository, kept out of the installed package."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from toklane.tokenizer import irregular

ROOT = Path(__file__).resolve().parents[1]


def test_irregular_table_prints_the_stored_entries():
    """The generator prints, as Python source, the entries the runtime module stores (one quicktok
    encoding, one ranks file with irregular tokens), and the runtime module holds no generator."""
    proc = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "irregular_table.py"), "cl100k_base", "qwen3.6"],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    printed = ast.literal_eval("{" + proc.stdout + "}")
    assert len(printed) == 2
    assert printed == {key: irregular._STORED[key] for key in printed}
    assert not hasattr(irregular, "print_stored")


def test_irregular_table_refuses_an_unknown_name():
    proc = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "irregular_table.py"), "no-such"], capture_output=True, text=True
    )
    assert proc.returncode == 2 and "not in the table: no-such" in proc.stderr
