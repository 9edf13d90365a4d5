"""The slow tier names real files and tests: a renamed one would silently join the fast tier."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import SLOW_FILES, SLOW_TESTS

ROOT = Path(__file__).resolve().parents[1]


def test_every_slow_file_and_test_exists():
    for path in SLOW_FILES:
        assert (ROOT / path).is_file(), path
    for nodeid in SLOW_TESTS:
        path, _, name = nodeid.partition("::")
        tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
        names = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
        assert name in names, nodeid
