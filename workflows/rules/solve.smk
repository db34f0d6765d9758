# One run per (instance, formulation, solver, repeat): a run record, always written,
# also when the run times out or fails.


rule solve:
    output:
        record=f"{RESULTS}/runs/{{puzzle}}/{{name}}/{{formulation}}/{{solver}}/repeat{{repeat}}.json",
    params:
        time_limit=config["time_limit"],
        threads=config["threads"],
    wildcard_constraints:
        puzzle="[a-z_]+",
        repeat="[0-9]+",
    threads: 1
    conda:
        "../envs/pyomo-puzzles.yaml"
    log:
        f"{RESULTS}/logs/runs/{{puzzle}}/{{name}}/{{formulation}}/{{solver}}/repeat{{repeat}}.log",
    script:
        "../scripts/solve.py"


rule picture:
    output:
        picture=f"{RESULTS}/pictures/{{puzzle}}/{{name}}.png",
    params:
        solver="highs",
    wildcard_constraints:
        puzzle="[a-z_]+",
    conda:
        "../envs/pyomo-puzzles.yaml"
    log:
        f"{RESULTS}/logs/pictures/{{puzzle}}/{{name}}.log",
    script:
        "../scripts/picture.py"


rule summary:
    input:
        records=run_records(),
    output:
        table=f"{RESULTS}/summary.md",
    conda:
        "../envs/pyomo-puzzles.yaml"
    log:
        f"{RESULTS}/logs/summary.log",
    script:
        "../scripts/summary.py"
