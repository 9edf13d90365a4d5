"""toklane.switches: each environment switch has one meaning, read in one place."""

from __future__ import annotations

import pytest

from toklane import switches


@pytest.mark.parametrize(
    "value, on",
    [(None, False), ("", False), ("0", False), ("1", True), ("yes", True), ("false", True), (" 0", True)],
)
def test_pure_python_is_on_for_any_value_but_empty_and_zero(monkeypatch, value, on):
    if value is None:
        monkeypatch.delenv("TOKLANE_PURE_PYTHON", raising=False)
    else:
        monkeypatch.setenv("TOKLANE_PURE_PYTHON", value)
    assert switches.pure_python() is on


@pytest.mark.parametrize(
    "value, limit", [(None, None), ("", None), ("4", 4), ("1", 1), ("0", 1), ("-2", None), ("two", None), ("²", None)]
)
def test_thread_limit_from_the_environment(monkeypatch, value, limit):
    if value is None:
        monkeypatch.delenv("TOKLANE_THREADS", raising=False)
    else:
        monkeypatch.setenv("TOKLANE_THREADS", value)
    assert switches.thread_limit() == limit


def test_set_thread_limit_overrides_the_environment_in_process(monkeypatch):
    monkeypatch.setenv("TOKLANE_THREADS", "8")
    try:
        switches.set_thread_limit(1)
        assert switches.thread_limit() == 1
        switches.set_thread_limit(0)
        assert switches.thread_limit() == 1
    finally:
        switches.set_thread_limit(None)
    assert switches.thread_limit() == 8
