"""Snakemake script: a batch of runs, each record written atomically as it ends."""

from pyomo_puzzles.jobs import solve_batch

solve_batch(snakemake)  # noqa: F821 - provided by Snakemake
