"""The package's layering rules, read from its source: no private name is imported across packages
(a name a module keeps to itself stays its own; what another package needs is made public)."""

from __future__ import annotations

import ast
from pathlib import Path

import toklane

SRC = Path(toklane.__file__).parent
# toklane's compiled extensions and its lazy-import helper: private modules by name, shared on purpose.
_PRIVATE_MODULES = {"_bpe", "_gather", "_json", "_trie", "_lazy"}


def _imports_of_privates() -> list[str]:
    found = []
    for path in sorted(SRC.rglob("*.py")):
        package = ["toklane", *path.relative_to(SRC).parent.parts]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom):
                continue
            if node.level:
                source = package[: len(package) - (node.level - 1)] + (node.module.split(".") if node.module else [])
            else:
                source = (node.module or "").split(".")
            if source[0] != "toklane":
                continue
            for alias in node.names:
                name = alias.name
                if not name.startswith("_") or name.startswith("__") or name in _PRIVATE_MODULES:
                    continue
                # The imported module's package: the module itself where the name is a submodule.
                home = source if (SRC.joinpath(*source[1:], name).with_suffix(".py")).exists() else source[:-1]
                if home != package:
                    found.append(f"{path.relative_to(SRC)}:{node.lineno} imports {'.'.join(source)}.{name}")
    return found


def test_no_private_name_is_imported_across_packages():
    assert _imports_of_privates() == []
