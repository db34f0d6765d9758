"""Lines of the solver adapters (`pyomo_puzzles/solvers/`), per file: all lines, and lines of
code (neither docstring, comment nor blank); with ``--compare REF`` the same at a git
revision, side by side.

Run:  python tools/solver_lines.py [--compare REF] [--folder pyomo_puzzles/solvers]
"""

from __future__ import annotations

import argparse
import ast
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def counts(sources: dict[str, str]) -> dict[str, tuple[int, int]]:
    """file -> (lines, lines of code)."""
    result = {}
    for name, text in sources.items():
        lines = text.splitlines()
        strings = set()
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
                strings.update(range(node.lineno, node.end_lineno + 1))
        other = sum(1 for number, line in enumerate(lines, 1)
                    if number not in strings and (not line.strip() or line.strip().startswith("#")))
        result[name] = (len(lines), len(lines) - len(strings) - other)
    return result


def sources_now(folder: str) -> dict[str, str]:
    return {path.name: path.read_text() for path in sorted((ROOT / folder).glob("*.py"))}


def sources_at(revision: str, folder: str) -> dict[str, str]:
    names = subprocess.run(["git", "-C", str(ROOT), "ls-tree", "--name-only", f"{revision}:{folder}"],
                           capture_output=True, text=True, check=True).stdout.split()
    return {name: subprocess.run(["git", "-C", str(ROOT), "show", f"{revision}:{folder}/{name}"],
                                 capture_output=True, text=True, check=True).stdout
            for name in names if name.endswith(".py")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compare", metavar="REF")
    parser.add_argument("--folder", default="pyomo_puzzles/solvers")
    args = parser.parse_args()
    now = counts(sources_now(args.folder))
    before = counts(sources_at(args.compare, args.folder)) if args.compare else {}
    label = f"at {args.compare}" if args.compare else ""
    print(f"{'file':20s} {'lines ' + label:>16s} {'lines now':>10s} {'code ' + label:>15s} {'code now':>9s}")
    for name in sorted(set(now) | set(before)):
        (a, c), (b, d) = before.get(name, (0, 0)), now.get(name, (0, 0))
        print(f"{name:20s} {a if before else '':>16} {b:>10} {c if before else '':>15} {d:>9}")
    total = [sum(v[i] for v in table.values()) for table in (before, now) for i in (0, 1)]
    print(f"{'total':20s} {total[0] if before else '':>16} {total[2]:>10} {total[1] if before else '':>15} {total[3]:>9}")


if __name__ == "__main__":
    main()
