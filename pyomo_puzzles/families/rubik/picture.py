"""Pictures of cube solutions: the net before and after, and the move sequence."""

from __future__ import annotations

from pathlib import Path

from matplotlib.patches import Rectangle

from pyomo_puzzles.contract.pictures import new_figure
from pyomo_puzzles.contract.pictures import colour_of
from pyomo_puzzles.families.rubik import cube

FACE_COLOURS = {"U": "white", "R": "red", "F": "green", "D": "yellow", "L": "orange", "B": "blue"}
NET = {"U": (1, 2), "L": (0, 1), "F": (1, 1), "R": (2, 1), "B": (3, 1), "D": (1, 0)}  # (column, row) of each face


def _net(ax, state, n: int, title: str) -> None:
    for f, face in enumerate(cube.FACES):
        fx, fy = NET[face]
        for k in range(n * n):
            row, col = divmod(k, n)
            colour = colour_of(FACE_COLOURS[cube.FACES[int(state[f * n * n + k])]], "grey")
            ax.add_patch(Rectangle((fx * n + col, fy * n + (n - 1 - row)), 1, 1, facecolor=colour,
                                   edgecolor="black", linewidth=0.8))
    ax.set_xlim(-0.2, 4 * n + 0.2)
    ax.set_ylim(-0.2, 3 * n + 0.2)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(title, fontsize=8)


def draw(spec, solution: dict, path: Path) -> None:
    n = spec.size
    after = cube.apply(spec.array(), solution["moves"], n)
    fig = new_figure(figsize=(5.8, 2.4))
    axes = fig.subplots(1, 2)
    _net(axes[0], spec.array(), n, "scrambled")
    _net(axes[1], after, n, "after " + (" ".join(solution["moves"]) or "no move"))
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, bbox_inches="tight", dpi=200)
