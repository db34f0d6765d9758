"""Snakemake script: one run, its record written atomically (also for timeouts and errors)."""

from pyomo_puzzles.workflow import solve_to_record

solve_to_record(snakemake)  # noqa: F821 - provided by Snakemake
