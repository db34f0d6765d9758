"""Snakemake script: one formulation's size and LP relaxation on one instance."""

from pyomo_puzzles.jobs import model_statistics_to_record

model_statistics_to_record(snakemake)  # noqa: F821 - provided by Snakemake
