"""Every ``toklane ...`` command line in the README and docs/ parses with the CLI's own parser:
a flag the docs name exists, with a value of the right type (nothing is run)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from toklane.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
_FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.S | re.M)


def command_lines() -> list[tuple[str, str]]:
    """(file:line, command) for each ``toklane`` command in a fenced block (continuations joined)."""
    found = []
    for path in DOCS:
        text = path.read_text(encoding="utf-8")
        for block in _FENCE.finditer(text):
            first = text.count("\n", 0, block.start(1)) + 1
            lines = block.group(1).split("\n")
            k = 0
            while k < len(lines):
                at, line = k, lines[k]
                while line.endswith("\\") and k + 1 < len(lines):
                    k += 1
                    line = line[:-1] + " " + lines[k].strip()
                k += 1
                line = line.strip().removeprefix("$ ")
                for part in re.split(r"\s*(?:&&|\|\||;|\||&)\s*", line.split(" #", 1)[0]):
                    words = part.split()
                    while words and re.fullmatch(r"[A-Z_][A-Z0-9_]*=\S*", words[0]):
                        words = words[1:]  # environment variables before the command
                    if words and words[0] == "toklane":
                        found.append((f"{path.relative_to(ROOT)}:{first + at}", " ".join(words)))
    return found


COMMANDS = command_lines()


def test_the_docs_hold_commands():
    assert len(COMMANDS) >= 15, COMMANDS
    assert {c.split()[1] for _, c in COMMANDS} >= {"serve", "count", "tokenize", "parse"}


@pytest.mark.parametrize("where, command", COMMANDS, ids=[w for w, _ in COMMANDS])
def test_a_documented_command_line_parses(where, command, capsys):
    words = shlex.split(command.split(" #", 1)[0], comments=False)
    try:
        build_parser().parse_args(words[1:])
    except SystemExit as exc:
        err = capsys.readouterr().err.strip().splitlines()
        if exc.code == 0:  # --help / --version
            return
        pytest.fail(f"{where}: `{command}` does not parse: {err[-1] if err else exc}")
