# From run records to the tidy table, summary tables, figures and the report page.


rule environment:
    output:
        environment=f"{RESULTS}/environment.json",
    params:
        config=config,
    log:
        f"{RESULTS}/logs/environment.log",
    conda:
        "../envs/pyomo-puzzles.yaml"
    script:
        "../scripts/environment.py"


rule collect_runs:
    input:
        manifests=manifests(),
    output:
        parquet=f"{RESULTS}/tables/runs.parquet",
        csv=f"{RESULTS}/tables/runs.csv",
    params:
        results=lambda w, output: os.path.dirname(os.path.dirname(output.parquet)),
    log:
        f"{RESULTS}/logs/collect_runs.log",
    conda:
        "../envs/pyomo-puzzles.yaml"
    script:
        "../scripts/collect_runs.py"


rule summary_tables:
    input:
        runs=f"{RESULTS}/tables/runs.parquet",
    output:
        csv=f"{RESULTS}/tables/summary.csv",
        tex=f"{RESULTS}/tables/summary.tex",
    log:
        f"{RESULTS}/logs/summary_tables.log",
    conda:
        "../envs/pyomo-puzzles.yaml"
    script:
        "../scripts/summary_tables.py"


rule figures:
    input:
        runs=f"{RESULTS}/tables/runs.parquet",
    output:
        manifest=f"{RESULTS}/figures/figures.json",
    params:
        style=config["figures"],
        directory=lambda w, output: os.path.dirname(output.manifest),
    log:
        f"{RESULTS}/logs/figures.log",
    conda:
        "../envs/pyomo-puzzles.yaml"
    script:
        "../scripts/figures.py"


rule report:
    input:
        runs=f"{RESULTS}/tables/runs.parquet",
        summary=f"{RESULTS}/tables/summary.csv",
        figures=f"{RESULTS}/figures/figures.json",
        environment=f"{RESULTS}/environment.json",
    output:
        report=f"{RESULTS}/report.md",
    params:
        results=lambda w, output: os.path.dirname(output.report),
    log:
        f"{RESULTS}/logs/report.log",
    conda:
        "../envs/pyomo-puzzles.yaml"
    script:
        "../scripts/report.py"
