"""Pictures of Instant Insanity towers: the four long sides side by side, bottom cube at
the bottom, each square in its colour and labelled with the colour's initial (so the
picture reads without colour vision too)."""

from __future__ import annotations

from pathlib import Path

from matplotlib.patches import Rectangle

from pyomo_puzzles.contract.pictures import new_figure
from pyomo_puzzles.contract.pictures import colour_of, palette
from pyomo_puzzles.families.instant_insanity.spec import CubeSet


def _brightness(rgb) -> float:
    return 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2]


def draw(spec: CubeSet, solution: dict, path: Path) -> None:
    fallback = dict(zip(spec.colours, palette(len(spec.colours))))
    fill = {name: colour_of(name, fallback[name]) for name in spec.colours}
    n = len(solution["stack"])
    fig = new_figure(figsize=(4.8, 0.25 + 0.55 * n))
    axes = fig.subplots(1, 4, squeeze=False)
    for side, ax in enumerate(axes[0]):
        for level, entry in enumerate(solution["stack"]):
            name = entry["sides"][side]
            ax.add_patch(Rectangle((0, level), 1, 1, facecolor=fill[name], edgecolor="black", linewidth=1))
            ax.text(0.5, level + 0.5, name[:1].upper(), ha="center", va="center", fontsize=8,
                    color="white" if _brightness(fill[name]) < 0.5 else "black")
            if side == 0:
                ax.text(-0.15, level + 0.5, f"cube {entry['cube']}", ha="right", va="center", fontsize=7)
        ax.set_xlim(-0.05, 1.05)
        ax.set_ylim(-0.05, n + 0.05)
        ax.set_aspect("equal")
        ax.axis("off")
        ax.set_title(f"side {side + 1}", fontsize=8)
    fig.suptitle(spec.title or "Instant Insanity", fontsize=9, y=1.04)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, bbox_inches="tight", dpi=200)
