"""Snakemake script: enumerate and count one instance's solutions."""

from pyomo_puzzles.jobs import count_to_record

count_to_record(snakemake)  # noqa: F821 - provided by Snakemake
