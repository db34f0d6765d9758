# Runs in batches: one Python start-up per batch; every run's record is written atomically
# as soon as it ends (also for timeouts, kills and errors), and a resumed batch keeps the
# records of runs that finished before.


# Jobs that each take a fraction of a second do it in one job: every job pays about two
# seconds of Snakemake and Python start-up.
rule generate_instances:
    output:
        [g.path(RESULTS) for g in GENERATED],
    params:
        generated=GENERATED_SPECS,
        code=jobs.generators_digest(GENERATED_SPECS),  # an edited generator makes them again
    log:
        f"{RESULTS}/logs/instances.log",
    conda:
        "../envs/pyomo-puzzles.yaml"
    script:
        "../scripts/generate.py"


rule solve_batch:
    input:
        batch_inputs,
    output:
        manifest=f"{RESULTS}/batches/batch{{batch}}.json",
    params:
        runs=batch_runs,
        results=lambda w, output: os.path.dirname(os.path.dirname(output.manifest)),
        settings=SETTINGS,
        # what the runs depend on (instances, the formulation's and the family's code, package and solver versions):
        # a change reruns the batch, which redoes the changed runs and keeps the others
        fingerprint=batch_fingerprint,
    wildcard_constraints:
        batch="[0-9]+",
    threads: config["threads"]
    resources:
        runtime=lambda w: max(10, int(len(BATCHES[int(w.batch)]) * (config["time_limit"] + 15) / 60) + 5),
    log:
        f"{RESULTS}/logs/batches/batch{{batch}}.log",
    conda:
        "../envs/pyomo-puzzles.yaml"
    script:
        "../scripts/solve_batch.py"


# Drawn from the checked solutions in the runs' records: no instance is solved again for it.
rule pictures:
    input:
        manifests=manifests(),
    output:
        pictures(),
    params:
        instances=drawable(),
    log:
        f"{RESULTS}/logs/pictures.log",
    conda:
        "../envs/pyomo-puzzles.yaml"
    script:
        "../scripts/picture.py"


rule count:
    output:
        record=f"{RESULTS}/counts/{{instance}}/{{formulation}}/{{solver}}/{{method}}.json",
    params:
        up_to_symmetry=COUNT_SETTINGS["up_to_symmetry"],
        time_limit=COUNT_SETTINGS["time_limit"],
        every_feasible=COUNT_SETTINGS["every_feasible"],
        # what the count depends on (the instance, the formulation's and the family's code,
        # package and solver versions, its settings): a change counts again
        fingerprint=count_fingerprint,
    wildcard_constraints:
        instance="[a-z_]+/[A-Za-z0-9_./-]+",
        formulation="[a-z_]+",
        solver="[a-z_]+",
        method="nogood|native",
    resources:
        runtime=lambda w: int(config.get("counts", {}).get("time_limit", 600) / 60) + 15,
    log:
        f"{RESULTS}/logs/counts/{{instance}}/{{formulation}}/{{solver}}/{{method}}.log",
    conda:
        "../envs/pyomo-puzzles.yaml"
    script:
        "../scripts/count.py"


# Each formulation's size and LP relaxation on each instance, once, whatever solvers run it.
rule model_statistics:
    input:
        model_inputs,
    output:
        record=f"{RESULTS}/models/{{instance}}/{{formulation}}.json",
    params:
        job=lambda w: dataclasses.asdict(model_job(w)),
        settings=MODEL_SETTINGS,
        results=model_results,
        # what the statistics depend on (instance, code, versions, settings): a change computes them again
        fingerprint=model_fingerprint,
    wildcard_constraints:
        instance="[a-z_]+/[A-Za-z0-9_./-]+",
        formulation="[A-Za-z0-9_]+",
    resources:
        runtime=lambda w: 30,
    log:
        f"{RESULTS}/logs/models/{{instance}}/{{formulation}}.log",
    conda:
        "../envs/pyomo-puzzles.yaml"
    script:
        "../scripts/model_statistics.py"

