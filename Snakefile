# pyomo-puzzles experiment pipeline: the configured matrix (instances x formulations x
# solvers x repeats), one run record per cell, a tidy table of all runs, summary tables
# (CSV, LaTeX), figures (PDF, PNG) and a report page, all under the results folder.
# Run:  snakemake --cores 2                 (default: workflows/config/default.yaml)
#       snakemake --cores 2 --configfile workflows/config/smoke.yaml
#       snakemake --profile workflows/profiles/slurm     (on a SLURM cluster)

import os
import sys

from snakemake.utils import min_version

min_version("9.0")


# The shipped default experiment, unless a configuration file is given (--configfile): that
# file is then the whole configuration (with --config on top), never merged onto the default.
if not workflow.overwrite_configfiles:

    configfile: os.path.join(workflow.basedir, "workflows/config/default.yaml")  # also with -s from elsewhere


include: "workflows/rules/common.smk"


report: "workflows/report/workflow.rst"  # snakemake --report: the flagged figures, tables and chapter


# On a cluster these run where Snakemake runs, not as cluster jobs: they take a second or two
# of one core (the generated instances, the environment record, the solution pictures, the
# tables, figures and report page from the records), while a cluster job costs its queue wait, two Snakemake
# start-ups and a status check, and they sit at the start and the end of the workflow's
# chain, where nothing else can run beside them.
localrules:
    generate_instances,
    environment,
    pictures,
    report,
    report_page,
    chapter_pdf,
include: "workflows/rules/solve.smk"
include: "workflows/rules/report.smk"


rule all:
    input:
        f"{RESULTS}/report.md",
        f"{RESULTS}/report.html",
        f"{RESULTS}/tables/runs.csv",
        f"{RESULTS}/latex/chapter.tex",
        [f"{RESULTS}/latex/experiment.pdf"] if CHAPTER_PDF else [],
        pictures(),
    default_target: True


onstart:
    # One pipeline per results folder (Snakemake's own lock is per working directory), and
    # Snakemake's rerun flags passed on to the batches, which otherwise keep unchanged records.
    try:
        RESULTS_LOCK = experiment.lock_results(RESULTS)
    except UserError as error:
        print(f"pyomo-puzzles: error: {error}", file=sys.stderr)
        sys.exit(2)
    os.environ[experiment.FORCE_VARIABLE] = experiment.forced_batches(workflow.dag_settings)


onsuccess:
    print(f"Report: {RESULTS}/report.md   tables: {RESULTS}/tables/   figures: {RESULTS}/figures/")
