"""The picture of a solved grid: givens in black, the digits the solver filled in blue and
italic (told apart without colour), box borders thick."""

from __future__ import annotations

from pathlib import Path

FILLED = "#0072B2"  # blue of the Okabe-Ito palette (colour-blind safe)


def draw(spec, solution: dict, path: Path) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg  # own canvas: no global backend
    from matplotlib.figure import Figure

    n = spec.n
    fig = Figure(figsize=(0.32 * n + 0.2, 0.32 * n + 0.2))
    FigureCanvasAgg(fig)
    ax = fig.add_axes((0.02, 0.02, 0.96, 0.96))
    for r, c in spec.cells:
        given = (r, c) in spec.givens
        ax.text(c - 0.5, r - 0.5, solution["grid"][r - 1][c - 1], ha="center", va="center", fontsize=10,
                color="black" if given else FILLED, fontweight="bold" if given else "normal",
                fontstyle="normal" if given else "italic")
    for k in range(n + 1):
        width = 1.6 if k % spec.box == 0 else 0.5
        ax.plot([0, n], [k, k], color="black", linewidth=width)
        ax.plot([k, k], [0, n], color="black", linewidth=width)
    ax.set_xlim(-0.05, n + 0.05)
    ax.set_ylim(n + 0.05, -0.05)
    ax.set_aspect("equal")
    ax.axis("off")
    fig.savefig(path, dpi=150)
