"""Snakemake script: generate one instance (seeded) into the results folder."""

from pyomo_puzzles.workflow import generate_instance

generate_instance(snakemake)  # noqa: F821 - provided by Snakemake
