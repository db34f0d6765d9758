"""Snakemake script: generate the experiment's instances (seeded) into the results folder."""

from pyomo_puzzles.jobs import generate_instances

generate_instances(snakemake)  # noqa: F821 - provided by Snakemake
