"""The slow tier names real files and tests: a renamed one would silently join the fast tier."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import SLOW_FILES, SLOW_PARAMS, SLOW_TESTS

ROOT = Path(__file__).resolve().parents[1]


def test_every_slow_file_and_test_exists():
    for path in SLOW_FILES:
        assert (ROOT / path).is_file(), path
    for nodeid in (*SLOW_TESTS, *SLOW_PARAMS):
        path, _, name = nodeid.partition("::")
        tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
        names = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
        assert name in names, nodeid


def test_slow_params_name_real_cases():
    """A slow case named by its id (SLOW_PARAMS) is among its test's cases: tests/conftest.py stops a
    collection that has the test's cases but not the id."""
    import pytest

    from tests.conftest import pytest_collection_modifyitems

    class Item:
        def __init__(self, nodeid: str) -> None:
            self.nodeid, self.marks = nodeid, []

        def add_marker(self, mark) -> None:
            self.marks.append(mark)

    key = "tests/server/test_fairness.py::test_small_requests_keep_their_p99_during_a_worst_case_request"
    items = [Item(f"{key}[{n}]") for n in ("qwen3", *sorted(SLOW_PARAMS[key]))]
    pytest_collection_modifyitems(None, items)
    assert [bool(i.marks) for i in items] == [False] + [True] * len(SLOW_PARAMS[key])
    with pytest.raises(pytest.UsageError, match="has no case"):
        pytest_collection_modifyitems(None, items[:2])


def test_example_counts_follow_the_hypothesis_profile():
    """One switch sizes every property test (tests/profiles.py): no test reads an environment variable
    for its example count, and the profiles scale them as documented."""
    from hypothesis import settings

    from tests.profiles import examples

    readers = [
        str(path.relative_to(ROOT))
        for path in (ROOT / "tests").rglob("*.py")
        if any(var in path.read_text() for var in ("TOKLANE_EXAMPLES", "TOKLANE_FUZZ_EXAMPLES"))
        and path.name != "test_tiers.py"
    ]
    assert readers == []
    assert examples(100) == settings().max_examples and examples(1) == 1
    assert settings.get_profile("dev").max_examples * 4 == settings.get_profile("ci").max_examples
    assert settings.get_profile("ci").deadline is None
