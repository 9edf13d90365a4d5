"""Run one fuzz target under atheris (libFuzzer).

    python -m tests.fuzz parsers -max_total_time=3600          # a long run
    python -m tests.fuzz loader crash-1f2e...                   # replay a crash file
    python -m tests.fuzz --list

toklane is instrumented for coverage; libFuzzer options pass through
(``-runs=N``, ``-max_total_time=S``, ``-jobs=N``, a corpus directory).
A failing input is written as ``crash-<sha1>`` in the working directory.
"""

from __future__ import annotations

import sys

import atheris

with atheris.instrument_imports(include=["toklane"]):
    import toklane  # noqa: F401  (instrumented before the targets import it)

from .targets import TARGETS, warm_up

RSS_LIMIT_MB = 8192


def main(argv: list[str]) -> None:
    if len(argv) < 2 or argv[1] in ("-h", "--help", "--list") or argv[1] not in TARGETS:
        print(__doc__.strip(), "\n\ntargets:", ", ".join(TARGETS), file=sys.stderr)
        sys.exit(0 if len(argv) >= 2 and argv[1] in ("-h", "--help", "--list") else 2)
    target = TARGETS[argv[1]]
    # Import every lazily loaded toklane module now, so each is instrumented.
    with atheris.instrument_imports(include=["toklane"]):
        import toklane.decoding
        import toklane.parsing  # noqa: F401
    warm_up(argv[1])
    options = argv[2:]
    if not any(o.startswith("-rss_limit_mb=") for o in options):
        options.append(f"-rss_limit_mb={RSS_LIMIT_MB}")  # the parsers target holds ~20 tokenizers (~3.6 GB)
    atheris.Setup([argv[0], *options], target)
    atheris.Fuzz()


if __name__ == "__main__":
    main(sys.argv)
