# The experiment matrix, checked before anything runs (a typo stops here, one line naming
# the key), expanded into batches of runs; missing solvers are reported and skipped.
import dataclasses
import os

from pyomo_puzzles import experiment
from pyomo_puzzles import jobs
from pyomo_puzzles.errors import UserError

try:
    config = experiment.validate_config(config, workflow.source_path("../schemas/config.schema.yaml"))
    LEFT_OUT = []  # the cells of named instances a method cannot answer, each with why: listed by the report
    RUNS, GENERATED = experiment.matrix(config, report=lambda line: print(line, file=sys.stderr), left_out=LEFT_OUT)
    COUNTS = experiment.count_jobs(config, report=lambda line: print(line, file=sys.stderr))
    MODELS = experiment.model_jobs(config, RUNS)
    CHAPTER_PDF = experiment.chapter_pdf(config, report=lambda line: print(line, file=sys.stderr))
except UserError as error:
    print(f"pyomo-puzzles: error in the configuration: {error}", file=sys.stderr)
    sys.exit(2)

RESULTS = config["results"]

PARQUET = experiment.parquet_available(report=lambda line: print(line, file=sys.stderr))


def parquet_output():
    """tables/runs.parquet, where pyarrow (the [parquet] extra) is installed."""
    return {"parquet": f"{RESULTS}/tables/runs.parquet"} if PARQUET else {}
BATCHES = experiment.batches(RUNS, experiment.batch_size(config["batch"], len(RUNS)), config["order_seed"])
GENERATED_BY_NAME = {g.name: g for g in GENERATED}
GENERATED_SPECS = [{"generator": g.generator, "seed": g.seed, "options": dict(g.options)} for g in GENERATED]
SETTINGS = {**{key: config[key] for key in jobs.SETTINGS}, "processes": config["processes"]}
COUNT_SETTINGS = {key: config.get("counts", {}).get(key) for key in jobs.COUNT_SETTINGS}


def batch_runs(wildcards):
    return [dataclasses.asdict(r) for r in BATCHES[int(wildcards.batch)]]


def batch_fingerprint(wildcards):
    return jobs.batch_fingerprint(batch_runs(wildcards), RESULTS, SETTINGS)


def batch_inputs(wildcards):
    """The generated instance files a batch needs, and the data files it names by path."""
    batch = BATCHES[int(wildcards.batch)]
    names = {r.instance for r in batch}
    generated = {GENERATED_BY_NAME[n].path(RESULTS) for n in names if n in GENERATED_BY_NAME}
    return sorted(generated | {r.source for r in batch if r.source})


def manifests():
    return [f"{RESULTS}/batches/batch{i}.json" for i in range(len(BATCHES))]


def drawable():
    return experiment.drawable_instances(RUNS)


def pictures():
    return [f"{RESULTS}/pictures/{name}.png" for name in drawable()]


def count_fingerprint(wildcards):
    w = wildcards
    return jobs.count_digest(w.instance, w.formulation, w.solver, w.method, COUNT_SETTINGS)


def count_records():
    return [job.record_path(RESULTS) for job in COUNTS]


MODEL_SETTINGS = experiment.model_settings(config)
MODELS_BY_PATH = {job.record_path(RESULTS): job for job in MODELS}


def model_job(wildcards):
    """The statistics job of a models/<instance>/<formulation>.json path."""
    return MODELS_BY_PATH[f"{RESULTS}/models/{wildcards.instance}/{wildcards.formulation}.json"]


def model_inputs(wildcards):
    """The generated instance file or the data file a statistics job reads."""
    job = model_job(wildcards)
    if job.instance in GENERATED_BY_NAME:
        return [GENERATED_BY_NAME[job.instance].path(RESULTS)]
    return [job.source] if job.source else []


def model_fingerprint(wildcards):
    job = model_job(wildcards)
    return jobs.model_digest(job.instance, job.formulation, job.source, RESULTS, MODEL_SETTINGS)


def model_results(wildcards, output):
    """The results folder of a models/<instance>/<formulation>.json record (where generated instances are)."""
    return str(jobs.results_folder_of(output.record, wildcards.instance, "models"))


def model_records():
    return list(MODELS_BY_PATH)

