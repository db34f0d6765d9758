"""Snakemake script: a Markdown table of the run records."""

from pyomo_puzzles.workflow import summarise_records

summarise_records(snakemake)  # noqa: F821 - provided by Snakemake
