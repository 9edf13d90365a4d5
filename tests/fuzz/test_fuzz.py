"""A short bounded run of every fuzz target (the long runs are documented in tests/fuzz/README.md)."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from .targets import TARGETS

ROOT = Path(__file__).resolve().parents[2]
SECONDS = int(os.environ.get("TOKLANE_FUZZ_SECONDS", "12"))


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_replays_random_inputs(name: str) -> None:
    """The targets themselves hold on plain random inputs (fast, in-process, no instrumentation)."""
    rnd = random.Random(name)
    for _ in range(150):
        TARGETS[name](rnd.randbytes(rnd.randrange(0, 400)))


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_bounded_fuzz_run(name: str, tmp_path: Path) -> None:
    """Coverage-guided: a few seconds of libFuzzer per target find no crash."""
    # No RSS limit: Linux keeps a process's peak RSS across exec, so the child would count pytest's.
    # The hang guard is generous: instrumenting toklane takes about a minute alone, more under load.
    cmd = [sys.executable, "-m", "tests.fuzz", name, f"-max_total_time={SECONDS}", "-seed=1", "-rss_limit_mb=0"]
    run = subprocess.run(cmd, cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True,
                         text=True, timeout=SECONDS + 300)  # fmt: skip
    crashes = sorted(
        p.name for p in tmp_path.glob("*-*") if p.name.split("-")[0] in ("crash", "oom", "timeout", "leak")
    )
    assert run.returncode == 0 and not crashes, run.stderr[-4000:]
