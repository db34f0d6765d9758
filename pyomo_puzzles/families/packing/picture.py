"""Pictures of packing solutions: a 2D board, or a 3D box as a 3D view plus its layers."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import seaborn as sns  # noqa: E402

from pyomo_puzzles.families.packing.spec import PackingSpec  # noqa: E402


def piece_colours(n: int) -> list:
    """A colour-blind-safe palette (seaborn 'colorblind'), extended for many pieces."""
    base = sns.color_palette("colorblind", 10)
    return [base[i % 10] for i in range(n)] if n <= 10 else sns.color_palette("husl", n)


def _owner_grid(spec: PackingSpec, solution: dict) -> np.ndarray:
    owner = np.full(spec.size, -1, dtype=int)
    for index, entry in enumerate(solution["pieces"]):
        for cell in entry["cells"]:
            owner[tuple(cell)] = index
    return owner


def _draw_layer(ax, owner2d: np.ndarray, colours, title: str) -> None:
    rows, cols = owner2d.shape
    for r in range(rows):
        for c in range(cols):
            k = owner2d[r, c]
            face = colours[k] if k >= 0 else (1, 1, 1)
            ax.add_patch(plt.Rectangle((c, rows - 1 - r), 1, 1, facecolor=face, edgecolor="black", lw=0.6))
            if k >= 0:
                ax.text(c + 0.5, rows - 0.5 - r, str(k + 1), ha="center", va="center", fontsize=8)
    # thick lines between different pieces
    for r in range(rows):
        for c in range(cols):
            if c + 1 < cols and owner2d[r, c] != owner2d[r, c + 1]:
                ax.plot([c + 1, c + 1], [rows - 1 - r, rows - r], color="black", lw=2.2)
            if r + 1 < rows and owner2d[r, c] != owner2d[r + 1, c]:
                ax.plot([c, c + 1], [rows - 1 - r, rows - 1 - r], color="black", lw=2.2)
    ax.set_xlim(0, cols)
    ax.set_ylim(0, rows)
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])
    ax.set_title(title, fontsize=9)


def draw(spec: PackingSpec, solution: dict, path: Path) -> None:
    """Save a picture of `solution` to `path` (format from the suffix: png, pdf or svg)."""
    owner = _owner_grid(spec, solution)
    colours = piece_colours(len(solution["pieces"]))
    if spec.dim == 2:
        fig, ax = plt.subplots(figsize=(0.45 * spec.size[1] + 0.6, 0.45 * spec.size[0] + 0.8))
        _draw_layer(ax, owner, colours, spec.title)
    else:
        layers = spec.size[2]
        fig = plt.figure(figsize=(2.4 + 1.9 * layers, 2.8))
        ax3d = fig.add_subplot(1, layers + 1, 1, projection="3d")
        filled = owner >= 0
        faces = np.empty(owner.shape, dtype=object)
        for index in np.ndindex(owner.shape):
            faces[index] = colours[owner[index]] if owner[index] >= 0 else None
        ax3d.voxels(filled, facecolors=faces, edgecolor="black", linewidth=0.4)
        ax3d.set_box_aspect(spec.size)
        ax3d.set_axis_off()
        ax3d.set_title("3D view", fontsize=9)
        for z in range(layers):
            ax = fig.add_subplot(1, layers + 1, z + 2)
            _draw_layer(ax, owner[:, :, z], colours, f"layer z = {z}")
        fig.suptitle(spec.title, fontsize=10)
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=150)
    plt.close(fig)
