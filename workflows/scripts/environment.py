"""Snakemake script: see pyomo_puzzles.workflow.write_environment."""

from pyomo_puzzles.workflow import write_environment

write_environment(snakemake)  # noqa: F821 - provided by Snakemake
