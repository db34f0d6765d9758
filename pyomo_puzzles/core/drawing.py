"""Figures for pictures, drawn without pyplot: each has its own Agg canvas, so drawing never
changes matplotlib's global backend (a notebook's inline backend keeps working)."""

from __future__ import annotations

from typing import Any


def new_figure(**options: Any):
    """A `matplotlib.figure.Figure` with its own Agg canvas (options as for `Figure`)."""
    # matplotlib: only when drawing (contract.pictures is imported by every family)
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(**options)
    FigureCanvasAgg(figure)
    return figure
