# pyomo-puzzles main workflow: solve the configured instances with every configured
# formulation and installed solver, check each solution, and draw a picture of each.
# Run:  snakemake --cores 2                 (default: workflows/config/default.yaml)
#       snakemake --cores 2 --configfile workflows/config/smoke.yaml

from pathlib import Path

from snakemake.utils import min_version, validate

min_version("9.0")


configfile: "workflows/config/default.yaml"


validate(config, "workflows/schemas/config.schema.yaml")


include: "workflows/rules/common.smk"
include: "workflows/rules/solve.smk"


rule all:
    input:
        f"{RESULTS}/summary.md",
        pictures(),
    default_target: True


onsuccess:
    summary = Path(f"{RESULTS}/summary.md")
    if summary.exists():
        print(summary.read_text())
        print(f"Run records: {RESULTS}/runs/   pictures: {RESULTS}/pictures/")
