"""The layering rule of docs/architecture.md, checked on the package's own imports.

The contracts live in pyproject.toml (``[tool.importlinter]``) and are checked with
import-linter; these tests add what import-linter does not check by itself: every module
belongs to a layer, nothing imports the package's top level, the import graph has no
cycle, and an import placed inside a function says what start-up it saves.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "pyomo_puzzles"


@pytest.fixture(scope="module")
def graph():
    return grimp.build_graph("pyomo_puzzles", cache_dir=None)


@pytest.fixture(scope="module")
def contracts() -> list[dict]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]


def test_the_import_contracts_are_kept() -> None:
    """A broken contract fails with import-linter's report, which names the importing and the
    imported module of every upward import."""
    lint = Path(sys.executable).parent / "lint-imports"
    done = subprocess.run([str(lint), "--no-cache"], cwd=ROOT, capture_output=True, text=True)
    report = done.stdout[done.stdout.find("Contracts"):] if "Contracts" in done.stdout else done.stdout
    assert done.returncode == 0, report + done.stderr[-2000:]
    assert "0 broken" in done.stdout


def test_the_contracts_have_no_exceptions(contracts) -> None:
    for contract in contracts:
        assert not contract.get("ignore_imports"), f"contract {contract['id']} lists exceptions"
        assert contract.get("unmatched_ignore_imports_alerting", "error") == "error"


def _layer_members(contract: dict) -> set[str]:
    containers = contract.get("containers") or [""]
    names = set()
    for container in containers:
        for layer in contract["layers"]:
            for name in layer.replace(":", "|").split("|"):
                names.add(f"{container}.{name.strip()}" if container else name.strip())
    return names


def test_every_module_belongs_to_a_layer(graph, contracts) -> None:
    """A new module must be placed in the rule, or the rule would not check it."""
    members = set().union(*(_layer_members(c) for c in contracts if c["type"] == "layers"))
    unplaced = sorted(m for m in graph.modules if m != "pyomo_puzzles"
                      and not any(m == name or m.startswith(name + ".") for name in members)
                      and not (m in {"pyomo_puzzles.core"}))
    assert not unplaced, f"modules in no layer of pyproject.toml's [tool.importlinter]: {unplaced}"


def test_nothing_imports_the_top_level_package(graph) -> None:
    """`pyomo_puzzles/__init__.py` serves the API to notebooks; a module that imported it
    would depend on everything above it (the version is in `pyomo_puzzles.version`)."""
    assert not graph.find_modules_that_directly_import("pyomo_puzzles")


def test_the_import_graph_has_no_cycle(graph) -> None:
    cycles = _cycles({m: graph.find_modules_directly_imported_by(m) for m in graph.modules})
    assert not cycles, f"modules that import each other, directly or through others: {cycles}"


def _cycles(imports: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for start in sorted(imports):
        if start in index:
            continue
        work = [(start, iter(sorted(imports[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(imports[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
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


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def in_function_imports_without_a_reason(source: str) -> list[int]:
    """Line numbers of imports inside a function that carry no comment: on the import's own
    line, or on a comment line just above the block of imports it belongs to."""
    lines = source.splitlines()
    tree = ast.parse(source)
    found = set()
    for function in ast.walk(tree):
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found |= {node.lineno for node in ast.walk(function) if isinstance(node, (ast.Import, ast.ImportFrom))}
    return sorted(line for line in found if not _explained(lines, line))


def _explained(lines: list[str], line: int) -> bool:
    if "#" in lines[line - 1]:
        return True
    above = line - 1
    while above >= 1:
        text = lines[above - 1].strip()
        if text.startswith("#"):
            return True
        if text.startswith(("import ", "from ")):
            if "#" in text:
                return True
            above -= 1
            continue
        return False
    return False


def test_an_import_inside_a_function_says_what_start_up_it_saves() -> None:
    unexplained = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        lines = in_function_imports_without_a_reason(path.read_text(encoding="utf-8"))
        if lines:
            unexplained[str(path.relative_to(ROOT))] = lines
    assert not unexplained, ("imports inside functions without a comment saying what start-up they save "
                             f"(or move them to the top of the module): {unexplained}")


def test_the_import_comment_check_can_fail() -> None:
    bare = "def f():\n    import json\n    return json\n"
    explained = "def f():\n    import pandas  # 0.3 s: only the report pays for it\n    return pandas\n"
    block = "def f():\n    # matplotlib: only when drawing\n    import matplotlib\n    import numpy\n"
    assert in_function_imports_without_a_reason(bare) == [2]
    assert in_function_imports_without_a_reason(explained) == []
    assert in_function_imports_without_a_reason(block) == []
