"""Snakemake script: see pyomo_puzzles.jobs.write_report_page."""

from pyomo_puzzles.jobs import write_report_page

write_report_page(snakemake)  # noqa: F821 - provided by Snakemake
