# From run records to the tidy table, summary tables, figures, the report and the chapter in
# one job (each job pays Python, pandas and matplotlib start-up once), and the HTML page in another.


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
    output:
        **parquet_output(),
        csv=f"{RESULTS}/tables/runs.csv",
        summary_csv=report(f"{RESULTS}/tables/summary.csv", caption="../report/summary.rst", category="Tables"),
        summary_tex=f"{RESULTS}/tables/summary.tex",
        scores=report(f"{RESULTS}/tables/scores.csv", caption="../report/scores.rst", category="Tables"),
        figure_list=f"{RESULTS}/figures.json",
        figures=report(directory(f"{RESULTS}/figures"), patterns=["{name}.png"], caption="../report/figures.rst",
                       category="Figures"),
        counts=f"{RESULTS}/tables/counts.csv",
        models=report(f"{RESULTS}/tables/models.csv", caption="../report/models.rst", category="Tables"),
        models_tex=f"{RESULTS}/tables/models.tex",
        progress=f"{RESULTS}/tables/progress.csv",
        report=f"{RESULTS}/report.md",
        chapter=f"{RESULTS}/latex/chapter.tex",
        document=f"{RESULTS}/latex/experiment.tex",
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


# The HTML page: the report's results with the solution pictures embedded, which are drawn
# beside the report job (both read only the records).
rule report_page:
    input:
        manifests=manifests(),
        counts=count_records(),
        models=model_records(),
        environment=f"{RESULTS}/environment.json",
        figure_list=f"{RESULTS}/figures.json",
        pictures=pictures(),
    output:
        html=report(f"{RESULTS}/report.html", caption="../report/report_page.rst", category="Report page"),
    params:
        results=lambda w, output: os.path.dirname(output.html),
        statistics=config["statistics"],
        compare_with=config.get("compare_with"),
        left_out=LEFT_OUT,
    log:
        f"{RESULTS}/logs/report_page.log",
    conda:
        "../envs/pyomo-puzzles.yaml"
    script:
        "../scripts/report_page.py"


# The chapter compiled with latexmk, where TeX is installed (config chapter.pdf).
rule chapter_pdf:
    input:
        chapter=f"{RESULTS}/latex/chapter.tex",
        document=f"{RESULTS}/latex/experiment.tex",
    output:
        pdf=report(f"{RESULTS}/latex/experiment.pdf", caption="../report/chapter.rst", category="Thesis chapter"),
    log:
        f"{RESULTS}/logs/chapter_pdf.log",
    conda:
        "../envs/pyomo-puzzles.yaml"
    script:
        "../scripts/chapter_pdf.py"
