"""`toklane models --sizes`: sizes come from the bundled table's metadata (nothing is loaded),
and that metadata matches every loaded bundled tokenizer."""

from __future__ import annotations

import json
import subprocess
import sys

import toklane
from toklane.tokenizer.registry import bundled_table


def test_sizes_metadata_matches_every_loaded_tokenizer():
    for entry in bundled_table():
        tok = toklane.load_tokenizer(entry.name)
        loaded = (tok.vocab_size, len(tok), len(tok.special_tokens))
        assert (entry.vocab_size, entry.tokens, entry.special_tokens) == loaded, entry.name


def test_models_sizes_loads_no_tokenizer():
    # The CLI imports the registry in a child process; any tokenizer it loaded would be in the cache.
    code = (
        "import io, contextlib, json, sys\n"
        "from toklane import cli\n"
        "from toklane.tokenizer.registry import cache_info\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out):\n"
        "    rc = cli.main(['models', '--sizes', '--json'])\n"
        "print(json.dumps({'rc': rc, 'rows': json.loads(out.getvalue()), 'cache': cache_info()}))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["rc"] == 0
    rows = {r["name"]: r for r in result["rows"]}
    assert rows["cl100k_base"]["vocab_size"] == 100_277 and rows["cl100k_base"]["tokens"] == 100_261
    assert rows["qwen3.6"]["special_tokens"] == 33
    assert set(rows) == set(toklane.bundled_names())
    assert result["cache"] == {"named": 0, "paths": 0, "objects": 0}
