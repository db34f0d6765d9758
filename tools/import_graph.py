"""Draw the package's import graph by layer (docs/architecture.png) and print it as text.

The layers are read from pyproject.toml's import-linter contracts, the imports from the code
(grimp, as import-linter reads them). Modules are drawn in rows, one row per layer, top
layer first; the families, the solver adapters, the contract and the report are drawn as
one node each. Every arrow points from the importer to the imported module: grey when it
goes down, blue inside a layer, red (and printed as such) when it goes up.

Run:  .venv/bin/python tools/import_graph.py [--png docs/architecture.png]
"""

from __future__ import annotations

import argparse
import tomllib
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parents[1]
GROUPED = ("pyomo_puzzles.families.", "pyomo_puzzles.solvers", "pyomo_puzzles.contract", "pyomo_puzzles.report")


def layers() -> list[list[str]]:
    """The rows, top first: the package's layers with core's own layers in place of `core`."""
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    outer = next(c for c in contracts if c["id"] == "layers")["layers"]
    inner = next(c for c in contracts if c["id"] == "core-layers")["layers"]
    rows = []
    for layer in outer:
        if layer.strip() == "pyomo_puzzles.core":
            rows += [[f"pyomo_puzzles.core.{n.strip()}" for n in row.replace(":", "|").split("|")] for row in inner]
        else:
            rows.append([n.strip() for n in layer.replace(":", "|").split("|")])
    return rows


def node(module: str) -> str:
    """The node a module is drawn as (core's own __init__, which holds nothing, is drawn with
    the lowest row of core)."""
    if module == "pyomo_puzzles.core":
        return "pyomo_puzzles.core.files"
    for prefix in GROUPED:
        if module.startswith(prefix):
            if prefix.endswith("."):  # one node per family
                return ".".join(module.split(".")[:3])
            return prefix
    return module


def edges(graph) -> set[tuple[str, str]]:
    found = set()
    for module in graph.modules:
        for imported in graph.find_modules_directly_imported_by(module):
            a, b = node(module), node(imported)
            if a != b:
                found.add((a, b))
    return found


def row_of(name: str, rows: list[list[str]]) -> int:
    if name == "pyomo_puzzles":  # the top-level package: `import pyomo_puzzles as pp` serves the API
        return -1
    for i, row in enumerate(rows):
        if any(name == m or name.startswith(m + ".") for m in row):
            return i
    raise KeyError(name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--png", default=str(ROOT / "docs/architecture.png"))
    args = parser.parse_args()
    graph = grimp.build_graph("pyomo_puzzles", cache_dir=None)
    rows = layers()
    found = edges(graph)
    nodes = sorted({n for e in found for n in e} | {node(m) for m in graph.modules})
    placed: dict[int, list[str]] = {}
    for name in nodes:
        placed.setdefault(row_of(name, rows), []).append(name)
    upward = sorted((a, b) for a, b in found if row_of(a, rows) > row_of(b, rows))
    print(f"{len(graph.modules)} modules, {len(found)} imports between the {len(nodes)} nodes drawn; "
          f"{len(upward)} upward")
    for a, b in upward:
        print(f"UPWARD: {a} -> {b}")
    for i in sorted(placed):
        short = [n.replace("pyomo_puzzles.", "") for n in placed[i]]
        print(f"L{len(rows) - 1 - i:<3d} {', '.join(short)}" if i >= 0 else f"top  {', '.join(short)}")
    for a, b in sorted(found):
        print(f"  {a.replace('pyomo_puzzles.', '')} -> {b.replace('pyomo_puzzles.', '')}")
    draw(placed, found, rows, Path(args.png))
    print(f"wrote {args.png}")


def draw(placed: dict[int, list[str]], found: set[tuple[str, str]], rows: list[list[str]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    height = len(rows) + 1  # and the top-level package above the layers
    position = {}
    for i, names in placed.items():
        for k, name in enumerate(names):
            position[name] = ((k + 1) / (len(names) + 1), height - 1 - i)
    figure, axes = plt.subplots(figsize=(14, 0.72 * height + 0.6))
    for a, b in sorted(found):
        (x1, y1), (x2, y2) = position[a], position[b]
        colour = "#d55e00" if y2 > y1 else ("#0173b2" if y2 == y1 else "#bbbbbb")
        axes.annotate("", xy=(x2, y2), xytext=(x1, y1),
                      arrowprops={"arrowstyle": "-|>", "color": colour, "lw": 0.7, "alpha": 0.8,
                                  "shrinkA": 9, "shrinkB": 9, "connectionstyle": "arc3,rad=0.08"})
    for name, (x, y) in position.items():
        axes.text(x, y, name.replace("pyomo_puzzles.", "").replace("core.", "core."), ha="center", va="center",
                  fontsize=7.5, bbox={"boxstyle": "round,pad=0.25", "fc": "white", "ec": "#555555", "lw": 0.6})
    for i in range(len(rows)):
        axes.text(-0.02, height - 1 - i, f"L{len(rows) - 1 - i}", ha="right", va="center", fontsize=8,
                  color="#555555")
        axes.axhline(height - 1 - i, color="#eeeeee", lw=6, zorder=-1)
    axes.set_xlim(-0.06, 1.0)
    axes.set_ylim(0.4, height + 0.6)
    axes.axis("off")
    axes.set_title("pyomo_puzzles imports: importer -> imported (grey: down, blue: same layer, red: up)",
                   fontsize=9)
    figure.tight_layout()
    figure.savefig(path, dpi=150)
    figure.savefig(path.with_suffix(".pdf"))


if __name__ == "__main__":
    main()
