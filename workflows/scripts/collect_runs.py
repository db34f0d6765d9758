"""Snakemake script: see pyomo_puzzles.workflow.collect_runs."""

from pyomo_puzzles.workflow import collect_runs

collect_runs(snakemake)  # noqa: F821 - provided by Snakemake
