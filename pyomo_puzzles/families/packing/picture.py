"""Pictures of packing solutions.

2D boards: pieces in their colours (or a colour-blind-safe palette), piece labels, thick
lines between pieces, rings as open circles and pegs as dots, x to the right and y up.
3D boxes: a 3D view, the layers z = 0, 1, ... side by side, and the face clues if any.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from matplotlib.collections import LineCollection, PatchCollection
from matplotlib.patches import Circle, Rectangle

from pyomo_puzzles.contract.pictures import new_figure
from pyomo_puzzles.contract.pictures import colour_of, palette
from pyomo_puzzles.families.packing.spec import PackingSpec, face_cells

def _label(name: str, index: int, copies: int) -> str:
    if copies > 1:
        return str(index + 1)
    if len(name) <= 2:
        return name
    return name[0].upper() + "".join(ch for ch in name if ch.isdigit())


def _pieces_view(spec: PackingSpec, solution: dict):
    """owner array (index into the solution's pieces), face colours and labels."""
    owner = np.full(spec.size, -1, dtype=int)
    for index, entry in enumerate(solution["pieces"]):
        for cell in entry["cells"]:
            owner[tuple(cell)] = index
    fallback = palette(len(solution["pieces"]))
    faces = [colour_of(spec.piece(e["piece"]).colour, fallback[i]) for i, e in enumerate(solution["pieces"])]
    labels = [_label(e["piece"], i, spec.piece(e["piece"]).count) for i, e in enumerate(solution["pieces"])]
    return owner, faces, labels


def _draw_grid(ax, owner: np.ndarray, faces, labels, title: str) -> None:
    """Draw owner[x, y] with x to the right and y up: the cells as one collection, the
    borders between pieces as another (a patch and a line each took a fifth of a picture's
    time)."""
    width, height = owner.shape
    filled = [(x, y) for x in range(width) for y in range(height) if owner[x, y] >= 0]
    empty = [(x, y) for x in range(width) for y in range(height) if owner[x, y] < 0]
    ax.add_collection(PatchCollection([Rectangle(cell, 1, 1) for cell in filled], edgecolor="0.35", linewidth=0.5,
                                      facecolor=[faces[owner[cell]] for cell in filled]), autolim=False)
    if empty:
        ax.add_collection(PatchCollection([Rectangle(cell, 1, 1) for cell in empty], edgecolor="0.35", linewidth=0.5,
                                          facecolor="white", hatch="////"), autolim=False)
    for x, y in filled:
        ax.text(x + 0.5, y + 0.5, labels[owner[x, y]], ha="center", va="center", fontsize=7, color="0.1")
    borders = [[(x + 1, y), (x + 1, y + 1)] for x in range(width - 1) for y in range(height)
               if owner[x, y] != owner[x + 1, y]]
    borders += [[(x, y + 1), (x + 1, y + 1)] for x in range(width) for y in range(height - 1)
                if owner[x, y] != owner[x, y + 1]]
    ax.add_collection(LineCollection(borders, colors="black", linewidths=2.0), autolim=False)
    ax.add_patch(Rectangle((0, 0), width, height, fill=False, edgecolor="black", lw=2.0))
    ax.set_xlim(-0.05, width + 0.05)
    ax.set_ylim(-0.05, height + 0.05)
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])
    ax.set_title(title, fontsize=9)


def _draw_rings_and_pegs(ax, spec: PackingSpec, solution: dict, layer: int | None = None) -> None:
    """Rings as open circles, pegs as dots in their colours: one collection each (a patch
    added alone makes matplotlib recompute the axes' limits from its curve)."""
    def here(cell):
        return layer is None or cell[2] == layer

    rings = [Circle((cell[0] + 0.5, cell[1] + 0.5), 0.32) for entry in solution["pieces"]
             for cells in entry.get("marks", {}).values() for cell in cells if here(cell)]
    pegs = [req for req in spec.requirements if req.mark is not None and here(req.cell)]
    if rings:
        ax.add_collection(PatchCollection(rings, facecolor="none", edgecolor="black", linewidth=1.6), autolim=False)
    if pegs:
        ax.add_collection(PatchCollection([Circle((req.cell[0] + 0.5, req.cell[1] + 0.5), 0.16) for req in pegs],
                                          facecolor=[colour_of(req.colour, "white") for req in pegs],
                                          edgecolor="black", linewidth=1.0, zorder=3), autolim=False)


def _draw_face(ax, spec: PackingSpec, name: str, grid, owner, faces) -> None:
    rows, cols = len(grid), len(grid[0])
    cells = face_cells(spec.size, name, rows, cols)
    for (r, c), cell in cells.items():
        clue = grid[r][c]
        face = "white" if clue == "?" else colour_of(clue, "white")
        ax.add_patch(Rectangle((c, rows - 1 - r), 1, 1, facecolor=face, edgecolor="black", lw=0.8))
        if clue == "?":
            ax.text(c + 0.5, rows - 0.5 - r, "?", ha="center", va="center", fontsize=9)
    ax.set_xlim(0, cols)
    ax.set_ylim(0, rows)
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])
    ax.set_title(f"{name} clue", fontsize=9)


def _figure_2d(spec: PackingSpec, solution: dict):
    owner, faces, labels = _pieces_view(spec, solution)
    width, height = 0.55 * spec.size[0] + 0.6, 0.55 * spec.size[1] + 0.7
    fig = new_figure(figsize=(width, height))
    # margins set, not computed by tight_layout (a draw of its own: a third of a picture's time)
    fig.subplots_adjust(left=0.25 / width, right=1 - 0.25 / width, bottom=0.2 / height, top=1 - 0.45 / height)
    ax = fig.subplots()
    _draw_grid(ax, owner, faces, labels, spec.title)
    _draw_rings_and_pegs(ax, spec, solution)
    return fig


def _figure_3d(spec: PackingSpec, solution: dict):
    owner, faces, labels = _pieces_view(spec, solution)
    layers = spec.size[2]
    panels = 1 + layers + len(spec.faces)
    fig = new_figure(figsize=(1.9 * panels + 0.6, 2.8))
    ax3d = fig.add_subplot(1, panels, 1, projection="3d")
    filled = owner >= 0
    colours = np.empty(owner.shape, dtype=object)
    for index in np.ndindex(owner.shape):
        colours[index] = faces[owner[index]] if owner[index] >= 0 else None
    # matplotlib's voxels take (x, y, z) with z up: show our y (up) as the vertical axis
    ax3d.voxels(filled.transpose(0, 2, 1), facecolors=colours.transpose(0, 2, 1), edgecolor="black", linewidth=0.4)
    ax3d.set_box_aspect((spec.size[0], spec.size[2], spec.size[1]))
    ax3d.set_axis_off()
    ax3d.set_title("3D view", fontsize=9)
    for z in range(layers):
        ax = fig.add_subplot(1, panels, z + 2)
        _draw_grid(ax, owner[:, :, z], faces, labels, f"layer z = {z}")
        _draw_rings_and_pegs(ax, spec, solution, layer=z)
    for i, (name, grid) in enumerate(spec.faces.items()):
        _draw_face(fig.add_subplot(1, panels, layers + 2 + i), spec, name, grid, owner, faces)
    fig.suptitle(spec.title, fontsize=10)
    return fig


def draw(spec: PackingSpec, solution: dict, path: Path) -> None:
    """Save a picture of `solution` to `path` (format from the suffix: png, pdf or svg)."""
    if spec.dim == 2:
        fig = _figure_2d(spec, solution)
    else:
        fig = _figure_3d(spec, solution)
        fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=150)
