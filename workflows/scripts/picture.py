"""Snakemake script: solve the experiment's shipped instances and draw their checked solutions."""

from pyomo_puzzles.jobs import draw_instances

draw_instances(snakemake)  # noqa: F821 - provided by Snakemake
