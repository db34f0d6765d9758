"""Pictures of Instant Insanity designs: the painted cubes (faces 1..6, a repainted face
hatched and marked with the colour it started as) beside each tower asked for (the four long
sides, bottom cube at the bottom). Every square carries its colour's initial, so the picture
reads without colour vision too."""

from __future__ import annotations

from pathlib import Path

from matplotlib.patches import Rectangle

from pyomo_puzzles.contract.pictures import colour_of, new_figure, palette
from pyomo_puzzles.families.instant_insanity.designs.spec import DesignSpec


def _ink(rgb) -> str:
    return "white" if 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2] < 0.5 else "black"


def _square(ax, x, y, name, fill, repainted_from=None):
    ax.add_patch(Rectangle((x, y), 1, 1, facecolor=fill[name], edgecolor="black", linewidth=1,
                           hatch="///" if repainted_from else None))
    if not repainted_from:
        ax.text(x + 0.5, y + 0.5, name[:1].upper(), ha="center", va="center", fontsize=8, color=_ink(fill[name]))
        return
    # on a hatched square the letters stand on white, so that they read over the hatching
    label = {"facecolor": "white", "edgecolor": "none", "pad": 0.6}
    ax.text(x + 0.5, y + 0.42, name[:1].upper(), ha="center", va="center", fontsize=8, fontweight="bold", bbox=label)
    ax.text(x + 0.94, y + 0.92, f"was {repainted_from[:1].upper()}", ha="right", va="top", fontsize=4.5, bbox=label)


def _cubes_panel(ax, spec: DesignSpec, cubes, fill) -> None:
    for i, cube in enumerate(cubes):
        for f, name in enumerate(cube):
            start = spec.start[i][f] if spec.repaint else None
            _square(ax, f, i, name, fill, start if start and start != name else None)
        ax.text(-0.15, i + 0.5, f"cube {i + 1}", ha="right", va="center", fontsize=7)
    for f in range(6):
        ax.text(f + 0.5, len(cubes) + 0.15, f"{f + 1}", ha="center", va="bottom", fontsize=7)
    ax.set_title("faces (hatched: repainted)" if spec.repaint else "faces", fontsize=8, pad=12)
    _frame(ax, 6, len(cubes))


def _tower_panel(ax, kind: str, tower, cubes, fill) -> None:
    for level, entry in enumerate(tower):
        for side in range(4):
            _square(ax, side, level, cubes[entry["cube"] - 1][entry["faces"][side] - 1], fill)
    for side in range(4):
        ax.text(side + 0.5, len(tower) + 0.15, f"side {side + 1}", ha="center", va="bottom", fontsize=6)
    ax.set_title(kind.replace("_", "-") + " tower", fontsize=8, pad=12)
    _frame(ax, 4, len(tower))


def _frame(ax, width: int, height: int) -> None:
    ax.set_xlim(-0.05, width + 0.05)
    ax.set_ylim(-0.05, height + 0.05)
    ax.set_aspect("equal")
    ax.axis("off")


def draw(spec: DesignSpec, solution: dict, path: Path) -> None:
    fallback = dict(zip(spec.colours, palette(len(spec.colours))))
    fill = {name: colour_of(name, fallback[name]) for name in spec.colours}
    kinds = [kind for kind in spec.towers if kind in solution["towers"]]
    fig = new_figure(figsize=(1.7 * (1.5 + len(kinds)) + 0.8, 0.9 + 0.4 * spec.n))
    axes = fig.subplots(1, 1 + len(kinds), squeeze=False, gridspec_kw={"width_ratios": [6] + [4] * len(kinds)})[0]
    _cubes_panel(axes[0], spec, solution["cubes"], fill)
    for ax, kind in zip(axes[1:], kinds):
        _tower_panel(ax, kind, solution["towers"][kind], solution["cubes"], fill)
    heading = spec.title or "Instant Insanity design"
    if spec.repaint:
        heading += f": {solution.get('repainted')} faces repainted"
    fig.suptitle(heading, fontsize=9, y=1.02)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, bbox_inches="tight", dpi=200)
