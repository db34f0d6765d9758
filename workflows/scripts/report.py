"""Snakemake script: see pyomo_puzzles.jobs.write_report."""

from pyomo_puzzles.jobs import write_report

write_report(snakemake)  # noqa: F821 - provided by Snakemake
