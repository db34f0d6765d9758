# From run records to the tidy table, summary tables, figures and the report page. One job
# does all of it (each job pays Python, pandas and matplotlib start-up once).


# Written after the runs and counts it describes, and again whenever any of them is redone
# (an upgraded solver, an edited plugin: its commit and uncommitted changes).
rule environment:
    input:
        manifests=manifests(),
        counts=count_records(),
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


rule report:
    input:
        manifests=manifests(),
        counts=count_records(),
        models=model_records(),
        environment=f"{RESULTS}/environment.json",
        pictures=pictures(),  # embedded in report.html, so drawn first
    output:
        **parquet_output(),
        csv=f"{RESULTS}/tables/runs.csv",
        summary_csv=f"{RESULTS}/tables/summary.csv",
        summary_tex=f"{RESULTS}/tables/summary.tex",
        scores=f"{RESULTS}/tables/scores.csv",
        figures=f"{RESULTS}/figures/figures.json",
        counts=f"{RESULTS}/tables/counts.csv",
        models=f"{RESULTS}/tables/models.csv",
        models_tex=f"{RESULTS}/tables/models.tex",
        progress=f"{RESULTS}/tables/progress.csv",
        report=f"{RESULTS}/report.md",
        html=f"{RESULTS}/report.html",
    params:
        results=lambda w, output: os.path.dirname(output.report),
        style=config["figures"],
        statistics=config["statistics"],
        compare_with=config.get("compare_with"),
        left_out=LEFT_OUT,
    log:
        f"{RESULTS}/logs/report.log",
    conda:
        "../envs/pyomo-puzzles.yaml"
    script:
        "../scripts/report.py"
