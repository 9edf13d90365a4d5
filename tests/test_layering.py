"""The package's layering rules, read from its source: no private name is imported across packages
(a name a module keeps to itself stays its own; what another package needs is made public), and no
import cycle, counting the imports made inside functions (only ``if TYPE_CHECKING:`` imports, which
never run, may point anywhere)."""

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


def _modules() -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its ``__init__``)."""
    found = {}
    for path in SRC.rglob("*.py"):
        parts = ["toklane", *path.relative_to(SRC).with_suffix("").parts]
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _import_graph() -> dict[str, set[str]]:
    """Module -> the toklane modules it imports when it runs (at module level or inside a function)."""
    modules = _modules()
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        type_only = {
            id(inner)
            for node in ast.walk(tree)
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
            for inner in ast.walk(node)
        }
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        targets = set()
        for node in ast.walk(tree):
            if id(node) in type_only:
                continue
            if isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = package[: len(package) - (node.level - 1)] if node.level else []
                module = ".".join(base + (node.module.split(".") if node.module else []))
                for alias in node.names:  # (a submodule where the name is one, else the module)
                    full = f"{module}.{alias.name}"
                    targets.add(full if full in modules else module)
        resolved = set()
        for target in targets:
            while target and target not in modules:  # (a name in a module: the module; an extension: none)
                target = target.rpartition(".")[0]
            # (a module's own packages are imported before it anyway: importing from them closes no cycle)
            if target and target != name and not name.startswith(target + "."):
                resolved.add(target)
        graph[name] = resolved
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, ())))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def test_no_import_cycle():
    assert _cycles(_import_graph()) == []


def test_the_cycle_check_finds_a_cycle():
    graph = _import_graph()
    graph["toklane.tokenizer.core"].add("toklane.chat.render")  # (the back-arrow Tokenizer.apply_chat_template has)
    graph["toklane.chat.render"].add("toklane.tokenizer.core")
    assert any({"toklane.tokenizer.core", "toklane.chat.render"} <= set(c) for c in _cycles(graph))
