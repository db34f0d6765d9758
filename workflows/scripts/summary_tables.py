"""Snakemake script: see pyomo_puzzles.workflow.write_summary_tables."""

from pyomo_puzzles.workflow import write_summary_tables

write_summary_tables(snakemake)  # noqa: F821 - provided by Snakemake
