"""Snakemake script: see pyomo_puzzles.workflow.write_report."""

from pyomo_puzzles.workflow import write_report

write_report(snakemake)  # noqa: F821 - provided by Snakemake
