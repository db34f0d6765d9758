"""A one-page Markdown report: what ran where, the summary table, and the figures."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from pyomo_puzzles.report import catalogue, scores, tables
from pyomo_puzzles.report import counts as count_report
from pyomo_puzzles.report import formulations
from pyomo_puzzles.report import figures as figures_module
from pyomo_puzzles.report.measure import DEFAULT, Statistics, without_own_clock

MAX_CELL = 160
"""Longer environment values are cut to this many characters (the full data is in its file)."""

FIGURE_CAPTIONS = {
    "runtime": "The time measure per instance and method (median over repeats, log scale), one panel per family; "
               "colour: solver, marker: formulation (never a cross). An x marks a run not solved, drawn at the time limit "
               "(dashed line); an exclamation mark there, a run that ended in an error. "
               "A star before a name marks a generated instance. A time of 0 (CBC's clock counts hundredths of a "
               "second) is drawn at the axis' floor, 1 µs.",
    "performance_profile": "Performance profile (Dolan and Moré) per family: fraction of instances a "
                           "method solved within a factor tau of the best method's time; grey band: the virtual "
                           "best method (the best of all methods on each instance).",
    "cactus": "Instances solved within time t, per method, one panel per family; grey band: the virtual best "
              "method; dashed line: the time limit.",
    "scaling": "The time measure against instance size, one panel per family and kind of instance (the "
               "family's size unit); x: not solved (at the limit); exclamation mark: ended in an error.",
    "variability": "Spread of the time measure over seeds and permutations: per instance and method, the range "
                   "(bar) and the median (marker).",
    "where_the_time_goes": "Where the time goes: per family and method, the mean solved run split into its "
                           "parts (load, the solver's one-off start-up spread over the runs, build, a staged "
                           "formulation's stage generation (its own work between models, such as settling parts "
                           "without a solver), compiling the model into the matrix every solver is handed, "
                           "handing it over and reading the answer back, the solver's own time, decode, check, "
                           "and the framework's bookkeeping between them), as "
                           "shares of the total written at the right. A star marks a solver without a clock of "
                           "its own: its whole call is shown as solver time.",
    "progress": "Incumbent (solid) and bound (dashed) over the solver's own time per method, on the "
                "optimisation instances where that tells most: those some method did not prove optimal within the "
                "time limit (dashed grey), then those whose fastest proof took longest; a marker at a method's last "
                "point. Runs that ended in an error or gave a wrong answer are left out (their objective is not "
                "trusted). HiGHS, SCIP, Gurobi and CPLEX report each new incumbent and bound as they come (callbacks); the other "
                "solvers their end only. Every run's primal and primal-dual integrals (Berthold 2013), computed "
                "from these traces the same way for every solver, are in tables/runs.csv.",
    "size_time": "Model size against time: each run's time against the number of nonzeros of its formulation's "
                 "matrix on that instance (tables/models.csv: the compiled matrix every solver is handed; for a "
                 "formulation solved in stages, summed over the stages whose parts were built), one panel per "
                 "family, log axes; x: not solved (at the limit). A formulation's LP strength is in the "
                 "Formulations table.",
}
"""Each figure's caption in the methods view; `figure_caption` adds the measure the figure ranks by."""

BEST_OF_SOLVERS_NOTE = ("each formulation's best of the solvers: per instance the best time of any solver that ran it, "
                        "solved if any of them solved it")
FORMULATION_VIEW_CAPTIONS = {
    "runtime": "The time measure per instance and formulation, " + BEST_OF_SOLVERS_NOTE + " (median over "
               "repeats first, log scale), one panel per family; colour, marker and line style: formulation (never "
               "a cross). An x marks an instance no solver of the formulation solved, drawn at the time limit "
               "(dashed line); an exclamation mark there, one on which every solver ended in an error. "
               "A star before a name marks a generated instance. A time of 0 (CBC's clock counts hundredths of a "
               "second) is drawn at the axis' floor, 1 µs.",
    "performance_profile": "Performance profile (Dolan and Moré) per family, one curve per formulation, "
                           + BEST_OF_SOLVERS_NOTE + ": fraction of instances it solved within a factor tau of the "
                           "best time; grey band: the virtual best method (the best of all methods on each "
                           "instance).",
    "cactus": "Instances solved within time t per formulation, " + BEST_OF_SOLVERS_NOTE + ", one panel per "
              "family; grey band: the virtual best method; dashed line: the time limit.",
    "scaling": "The time measure against instance size per formulation, " + BEST_OF_SOLVERS_NOTE + ", one panel "
               "per family and kind of instance (the family's size unit); x: no solver of the formulation solved "
               "it (at the limit); exclamation mark: every solver ended in an error.",
    "size_time": "Model size against time per formulation, " + BEST_OF_SOLVERS_NOTE + ", against the number of "
                 "nonzeros of the formulation's matrix on that instance (tables/models.csv: the compiled matrix "
                 "every solver is handed; for a formulation solved in stages, summed over the stages whose parts "
                 "were built), one panel per family, log axes; x: no solver of the formulation solved it (at the "
                 "limit). A formulation's LP strength is in the Formulations table.",
    "progress": "Per formulation, the best of the solvers (the virtual best over its solvers' runs): the best "
                "incumbent (solid, filled markers) and the best bound (dashed, open markers) any of them had by "
                "each solver time t, by the objective's sense, until they meet (the optimum proved); on the "
                "optimisation instances where "
                "that tells most: those some method did not prove optimal within the time limit (dashed grey), "
                "then those whose fastest proof took longest. Runs that ended in an error or gave a wrong answer "
                "are left out (their objective is not trusted). HiGHS, SCIP, Gurobi and CPLEX report each new "
                "incumbent and bound as they come (callbacks); the other solvers their end only. Every run's "
                "primal and primal-dual integrals (Berthold 2013) are in tables/runs.csv.",
}
"""The captions of the figures that follow the view (`figures.FigureStyle.view`), in the formulation view."""
PER_METHOD_NOTE = "Per method (solver / formulation) in either view: it is about one method's runs."
"""Said, in the formulation view, of the figures that stay per method."""


def figure_caption(name: str, stats: Statistics = DEFAULT, view: str = figures_module.METHODS) -> str | None:
    """The caption of a figure in the resolved `view` (``methods`` or ``formulations``),
    naming the time measure where the figure ranks by it."""
    caption = FIGURE_CAPTIONS.get(name)
    if view == figures_module.FORMULATIONS and caption is not None:
        caption = FORMULATION_VIEW_CAPTIONS.get(name) or f"{caption} {PER_METHOD_NOTE}"
    if caption is None or name in ("where_the_time_goes", "progress"):
        return caption
    return f"{caption} {stats.sentence()}"


def markdown_cell(value: object) -> str:
    """A value as the text of one Markdown table cell (pipes escaped, one line)."""
    text = "" if value is None else str(value)
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\r", " ").replace("\n", " ")


def markdown_table(frame: pd.DataFrame, right: Sequence[bool] | None = None) -> str:
    """A GitHub-flavoured Markdown table of a DataFrame of strings (no index).

    Formatted here rather than by `DataFrame.to_markdown`, which needs the optional
    `tabulate` package. ``right``: per column, whether to right-align it.
    """
    right = list(right) if right is not None else [False] * len(frame.columns)
    lines = ["| " + " | ".join(markdown_cell(c) for c in frame.columns) + " |",
             "|" + "|".join("---:" if r else "---" for r in right) + "|"]
    lines += ["| " + " | ".join(markdown_cell(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join(lines)


def _value_text(value: object) -> str:
    if isinstance(value, (list, tuple)) and all(not isinstance(v, (dict, list, tuple)) for v in value):
        text = ", ".join(str(v) for v in value)
    elif isinstance(value, (dict, list, tuple)):
        text = json.dumps(value, sort_keys=True, default=str)
    else:
        text = "" if value is None else str(value)
    return text if len(text) <= MAX_CELL else text[:MAX_CELL - 1] + "…"


def flatten_environment(environment: dict) -> list[tuple[str, str]]:
    """(key, value) rows: top-level keys, nested dicts flattened one level as ``outer.inner``;
    deeper values are shown as compact JSON, cut to `MAX_CELL` characters."""
    rows = []
    for key, value in environment.items():
        if isinstance(value, dict) and value:
            rows += [(f"{key}.{inner}", _value_text(v)) for inner, v in value.items()]
        else:
            rows.append((str(key), _value_text(value)))
    return rows


def summary_markdown(summary_df: pd.DataFrame, stats: Statistics = DEFAULT) -> str:
    """The summary table (see `tables.summary`) as Markdown, numbers right-aligned."""
    cells = tables.formatted_summary(summary_df, stats)
    right = [pd.api.types.is_numeric_dtype(summary_df[c]) for c in summary_df.columns]
    return markdown_table(cells, right)


def _relative(path: Path, start: Path) -> str:
    return Path(os.path.relpath(Path(path).resolve(), start.resolve())).as_posix()


def _figure_stems(paths: Sequence[Path]) -> list[Path]:
    """Distinct figure stems (path without .pdf / .png), in the order given."""
    stems: list[Path] = []
    for path in map(Path, paths):
        stem = path.with_suffix("") if path.suffix.lower() in (".pdf", ".png") else path
        if stem not in stems:
            stems.append(stem)
    return stems


def figures_markdown(figure_paths: Sequence[Path], out_dir: Path, stats: Statistics = DEFAULT,
                     view: str | None = None) -> list[str]:
    """For each figure: a heading, its PNG embedded and a link to its PDF (relative to out_dir),
    and its caption in the resolved `view`, named first (None: the methods view, not named)."""
    given = {Path(p) for p in figure_paths}
    lines: list[str] = [figures_module.view_sentence(view), ""] if view else []
    for stem in _figure_stems(figure_paths):
        png, pdf = stem.with_name(stem.name + ".png"), stem.with_name(stem.name + ".pdf")
        title = stem.name.replace("_", " ").capitalize()
        lines += [f"### {title}", ""]
        if png in given or png.exists():
            lines.append(f"![{title}]({_relative(png, out_dir)})")
        if pdf in given or pdf.exists():
            lines.append(f"[PDF]({_relative(pdf, out_dir)})")
        caption = figure_caption(stem.name, stats, view or figures_module.METHODS)
        lines += ["", caption, ""] if caption else [""]
    return lines


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


def _overview(results_dir: Path, runs: pd.DataFrame, stats: Statistics = DEFAULT) -> list[str]:
    instances = tables._column(runs, "instance").nunique()
    puzzles = sorted(tables._column(runs, "puzzle").dropna().astype(str).unique())
    limits = sorted(tables._column(runs, "time_limit").dropna().unique())
    repeats = tables._column(runs, "repeat").dropna()
    lines = [f"Results: `{results_dir}`. {_plural(len(runs), 'run')} of {_plural(instances, 'instance')} "
             f"({', '.join(puzzles) or 'no puzzles'})"
             + (f", time limit {', '.join(f'{float(t):g}' for t in limits)} s" if limits else "")
             + (f", up to {_plural(int(repeats.max()), 'repeat')}" if len(repeats) else "") + "."]
    versions = (runs[["solver", "solver_version"]].dropna().drop_duplicates().sort_values("solver")
                if {"solver", "solver_version"} <= set(runs.columns) else pd.DataFrame())
    if len(versions):
        lines += ["", "Solver versions: " + "; ".join(f"{s}: {v}" for s, v in versions.itertuples(index=False)) + "."]
    lines += ["", tables.definitions(stats).replace("A run is solved", "A run is *solved*")]
    lines += [line for text in measurement_notes(runs, stats) for line in ("", text)]
    return lines


def measurement_notes(runs: pd.DataFrame, stats: Statistics = DEFAULT) -> list[str]:
    """Sentences on what the measurements can tell: solvers measured by their solver call,
    instances too easy to rank the methods, and the A/A noise where runs were repeated."""
    notes = []
    no_clock = sorted(set(runs.loc[without_own_clock(runs) & tables.solved(runs), "solver"].astype(str))) \
        if len(runs) else []
    if no_clock and stats.time == "solver":
        notes.append(f"No time of their own from {', '.join(no_clock)}: measured by the solver call on the "
                     "framework's clock (which includes handing the model over and reading the answer back).")
    clock = tables._column(runs, "solver_clock") if len(runs) else None
    by_call = sorted(set(runs.loc[(clock == "call") & tables.solved(runs), "solver"].astype(str))) \
        if clock is not None else []
    if by_call and stats.time == "solver":
        notes.append(f"No clock of their own in {', '.join(by_call)}: their solver time is the library's solve call "
                     "alone, timed by the framework around it (the hand-over of the model is not in it).")
    trivial, total = scores.trivial_instances(runs, stats)
    if total and trivial:
        share = "most" if trivial > total / 2 else "some"
        notes.append(f"**{trivial} of {_plural(total, 'instance')} are solved by every method in under "
                     f"{stats.trivial_below:g} s of {stats.name}**: {share} instances cannot rank the methods "
                     "(differences at that scale are start-up and timer noise; MIPLIB and the MiniZinc Challenge "
                     "leave such instances out of their benchmark sets).")
    demanding, total = scores.demanding_instances(runs, stats)
    if total:
        notes.append(f"**{demanding} of {_plural(total, 'instance')} ({demanding / total:.0%}) need at least "
                     f"{stats.demanding_from:g} s of {stats.name} from their best method** (the virtual best: the "
                     "fastest solved run; an instance no method solved counts): on those the methods differ "
                     "by their solving, not by start-up.")
        separating, _ = scores.separating_instances(runs, stats)
        notes.append(f"**{separating} of {_plural(total, 'instance')} ({separating / total:.0%}) need at least "
                     f"{stats.demanding_from:g} s from some method** (its slowest run; one not solved counts): "
                     "on those the methods, formulations among them, are told apart by more than start-up.")
    noise = scores.noise(runs, stats)
    if len(noise):
        median, p90, pairs = noise.attrs["pooled"]
        notes.append(f"A/A noise: one method on one instance, against itself over its repeated runs, differs by "
                     f"a median factor of {median:.2f} (90th percentile {p90:.2f}; {_plural(pairs, 'instance-method pair')}): "
                     "differences between methods smaller than that are within the noise.")
    return notes



def scores_markdown(runs: pd.DataFrame, stats: Statistics = DEFAULT) -> list[str]:
    """The scores section: what each score means, then one table per family."""
    if not stats.scores:
        return []
    table, notes = scores.score_table(runs, stats)
    lines = ["## Scores", "", f"{stats.sentence()} Per family, over the instances every scored method has a time on (a note names any method or instance left out); "
             "the virtual best takes the best time of any method on every instance.", ""]
    lines += [f"- {text}" for text in scores.explanations(stats)] + [""]
    lines += [line for note in notes for line in (note, "")]
    for puzzle in sorted(table["puzzle"].unique()):
        cells = scores.formatted(table[table["puzzle"] == puzzle])
        lines += [f"### {puzzle}", "", markdown_table(cells, [c != "Method" for c in cells.columns]), ""]
    return lines


def _wrong_answers(runs: pd.DataFrame) -> list[str]:
    """The runs whose answer is wrong (`tables.wrong_answers`), one line each."""
    if runs.empty:
        return []
    reasons = tables.wrong_answers(runs)
    bad = runs[reasons.notna()]
    if bad.empty:
        return []
    lines = ["", f"**{_plural(len(bad), 'wrong answer')}** (not solved in any statistic or figure):", ""]
    for index, row in bad.iterrows():
        objective = f" (objective {row['objective']:g})" if pd.notna(row.get("objective")) else ""
        lines.append(f"- {row['instance']}: {row['solver']} / {row['formulation']} says {row['status']}"
                     f"{objective}: {reasons[index]}")
    return lines


def failures_markdown(runs: pd.DataFrame) -> list[str]:
    """The runs that ended in an error or at the memory limit, each with its message
    (`tables.failed_runs`; the first `tables.FAILURES_SHOWN`, the rest counted)."""
    failed = tables.failed_runs(runs)
    if failed.empty:
        return []
    lines = ["", f"**{_plural(len(failed), 'failed run')}** (an error or the memory limit; not solved, counted at "
                 "the time limit), with the reason each gave:", ""]
    lines += [f"- {row.instance}: {row.solver} / {row.formulation}, {row.status}: {row.message}"
              for row in failed.head(tables.FAILURES_SHOWN).itertuples()]
    if len(failed) > tables.FAILURES_SHOWN:
        lines.append(f"- and {len(failed) - tables.FAILURES_SHOWN} more (tables/runs.csv, column message)")
    return lines


def left_out_markdown(left_out: list[str] | None) -> list[str]:
    """The cells of the matrix left out, each with why: planned so (the method cannot answer a
    named instance, `experiment.matrix`) or found so when a generated instance was made
    (`core.results.left_out`): no runs, in no table."""
    if not left_out:
        return []
    return ["", f"**Left out** ({_plural(len(left_out), 'cell')} of the matrix: the method cannot answer the "
            "instance; no runs, in no table or score):", "",
            *(f"- {line}" for line in left_out)]


def _data_problems(runs: pd.DataFrame) -> list[str]:
    """The known answers a checked solution proves wrong (`tables.data_problems`), one line each."""
    problems = tables.data_problems(runs)
    if problems.empty:
        return []
    return ["", f"**{_plural(len(problems), 'data problem')}** ({tables.DATA_PROBLEMS_NOTE}):", "",
            *(f"- {row.instance}: {row.problem}" for row in problems.itertuples())]


def _count_data_problems(counts: pd.DataFrame) -> list[str]:
    """The counts that found more solutions than the known count (`counts.data_problems`), one line each."""
    problems = count_report.data_problems(counts)
    if problems.empty:
        return []
    return [f"**{_plural(len(problems), 'data problem')}** ({count_report.DATA_PROBLEMS_NOTE}):", "",
            *(f"- {row.instance}: {row.problem}" for row in problems.itertuples()), ""]


def _matrix_check(runs: pd.DataFrame) -> list[str]:
    """Whether the solvers of each instance and formulation got the same matrix (`tables.matrix_disagreements`)."""
    compared, differing = tables.matrix_disagreements(runs)
    if not compared:
        return []
    if not differing:
        return ["", f"**One matrix:** in each of the {_plural(compared, 'group')} of runs compared, "
                    f"{tables.MATRIX_NOTE}."]
    return ["", f"**Different matrices** in {len(differing)} of {_plural(compared, 'group')} of runs, where "
                f"{tables.MATRIX_NOTE}:", "", *(f"- {line}" for line in differing)]


def write_report(results_dir: Path, runs: pd.DataFrame, summary: pd.DataFrame, figures: list[Path],
                 environment: dict, out: Path, counts: pd.DataFrame | None = None,
                 stats: Statistics = DEFAULT, left_out: list[str] | None = None,
                 models: pd.DataFrame | None = None, view: str | None = None) -> Path:
    """Write the Markdown report to `out`: title, overview, environment table, summary table
    (with any data problems, wrong answers, failed runs and their reasons and the cells
    `left_out` listed), the formulations
    (`models`: ``tables/models.csv``), counts, and the figures (PNG embedded, PDF linked, paths
    relative to the page) with the view they were drawn in (`view`, resolved). Returns `out`."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    env_rows = pd.DataFrame(flatten_environment(environment or {}), columns=["key", "value"])
    lines = ["# Solver comparison", "", *_overview(Path(results_dir), runs, stats), "",
             "## Environment", "", markdown_table(env_rows) if len(env_rows) else "(not recorded)", "",
             "## Summary", "", f"Ranked by {stats.name}: {stats.meaning}.", "",
             summary_markdown(summary, stats) if len(summary) else "(no runs)", *_data_problems(runs),
             *_wrong_answers(runs), *failures_markdown(runs), *left_out_markdown(left_out), *_matrix_check(runs), "",
             *(scores_markdown(runs, stats) if len(runs) else [])]
    if models is not None and len(models):
        lines += ["## Formulations", "", formulations.caption(models), ""]
        compared = formulations.comparison(models, runs, stats)
        if len(compared):
            lines += [formulations.COMPARISON_NOTE, "",
                      markdown_table(formulations.comparison_cells(compared, stats)), ""]
        by_solver = formulations.solver_comparison(models, runs, stats)
        if len(by_solver):
            lines += [formulations.SOLVER_COMPARISON_NOTE, "",
                      markdown_table(formulations.comparison_cells(by_solver, stats)), ""]
        lines += [markdown_table(formulations.shown(models)), ""]
    if counts is not None and len(counts):
        lines += ["## Counts", "", count_report.INTRO, "", markdown_table(count_report.shown(counts)), "",
                  *_count_data_problems(counts)]
        agreeing = count_report.agreement(counts)
        if len(agreeing):
            lines += ["Agreement of the methods that counted one instance (complete counts: solutions, "
                      "classes and digest):", "", markdown_table(agreeing), ""]
    if figures:
        lines += ["## Figures", "", *figures_markdown(figures, out.parent, stats, view)]
    tables._write_text(out, "\n".join(lines).rstrip() + "\n")
    return out


def build_report(runs: pd.DataFrame, results_dir: Path, environment: dict, out_dir: Path | None = None,
                 style: figures_module.FigureStyle | None = None, stats: Statistics = DEFAULT) -> Path:
    """Everything from a runs table into `out_dir` (default ``results_dir/report``):
    summary.csv, summary.tex, the figures (figures/*.pdf|png) and report.md. Returns report.md."""
    results_dir = Path(results_dir)
    out_dir = Path(out_dir) if out_dir is not None else results_dir / "report"
    table = tables.summary(runs, stats)
    tables.write_summary(table, out_dir / "summary.csv", out_dir / "summary.tex", statistics=stats)
    style = figures_module.resolved_style(runs, style or figures_module.FigureStyle())
    paths = catalogue.all_figures(runs, style, out_dir / "figures", stats)
    return write_report(results_dir, runs, table, paths, environment, out_dir / "report.md", stats=stats,
                        view=style.view)
