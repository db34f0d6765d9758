"""Snakemake script: see pyomo_puzzles.workflow.draw_figures."""

from pyomo_puzzles.workflow import draw_figures

draw_figures(snakemake)  # noqa: F821 - provided by Snakemake
