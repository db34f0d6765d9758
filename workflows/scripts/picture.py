"""Snakemake script: solve an instance and draw its checked solution."""

from pyomo_puzzles.workflow import draw_instance

draw_instance(snakemake)  # noqa: F821 - provided by Snakemake
