"""Snakemake script: see pyomo_puzzles.jobs.write_environment."""

from pyomo_puzzles.jobs import write_environment

write_environment(snakemake)  # noqa: F821 - provided by Snakemake
