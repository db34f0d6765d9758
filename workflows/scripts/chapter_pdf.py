"""Snakemake script: see pyomo_puzzles.jobs.compile_chapter."""

from pyomo_puzzles.jobs import compile_chapter

compile_chapter(snakemake)  # noqa: F821 - provided by Snakemake
