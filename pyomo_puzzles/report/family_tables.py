"""One LaTeX table per family, ready to ``\\input``: formulations as rows, solvers as column
groups (runs solved, shifted geometric mean of the time), the best mean of each row in bold.

The caption names the time measure, the shift of the mean and how unsolved runs count (at
the time limit, or PAR k). Runs refused by a size-limited licence are left out, as in the summary table.
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from pyomo_puzzles.report import statistics, tables
from pyomo_puzzles.report.measure import DEFAULT, Statistics

COLUMNS = ("puzzle", "formulation", "solver", "scope", "instances", "runs", "solved", "sgm_time")
"""``scope``: ``common`` (over the instances every formulation of the family in the runs
applies to: what the LaTeX table and the report show) or ``all`` (each formulation over
every instance it applies to)."""


def formulation_instances(runs: pd.DataFrame) -> dict[tuple[str, str], set[str]]:
    """(puzzle, formulation) -> the instances it ran on (those it applies to)."""
    frame = pd.DataFrame({"puzzle": tables._column(runs, "puzzle").astype(str),
                          "formulation": tables._column(runs, "formulation").astype(str),
                          "instance": tables._column(runs, "instance").astype(str)})
    return {key: set(group["instance"]) for key, group in frame.groupby(["puzzle", "formulation"], sort=True)}


def common_instances(runs: pd.DataFrame) -> dict[str, set[str]]:
    """Per puzzle, the instances every one of its formulations in the runs applies to."""
    common: dict[str, set[str]] = {}
    for (puzzle, _), found in formulation_instances(runs).items():
        common[puzzle] = common[puzzle] & found if puzzle in common else set(found)
    return common


def family_summary(runs: pd.DataFrame, stats: Statistics = DEFAULT) -> pd.DataFrame:
    """Tidy: one row per (puzzle, formulation, solver, scope) with instances, runs, solved
    and the SGM (see `COLUMNS` for the two scopes)."""
    status = tables._column(runs, "status")
    timed = runs[status != "licence_limit"]
    frame = pd.DataFrame({
        "puzzle": tables._column(timed, "puzzle").astype(str),
        "formulation": tables._column(timed, "formulation").astype(str),
        "solver": tables._column(timed, "solver").astype(str),
        "instance": tables._column(timed, "instance").astype(str),
        "solved": tables.solved(timed), "time": tables.censored_time(timed, stats),
    })
    common = common_instances(runs)
    in_common = pd.Series([i in common.get(p, ()) for p, i in zip(frame["puzzle"], frame["instance"])],
                          index=frame.index, dtype=bool)
    rows = []
    for scope, chosen in (("common", frame[in_common]), ("all", frame)):
        rows += [{"puzzle": p, "formulation": f, "solver": s, "scope": scope, "instances": group["instance"].nunique(),
                  "runs": len(group), "solved": int(group["solved"].sum()),
                  "sgm_time": tables.shifted_geometric_mean(group["time"], stats.shift)}
                 for (p, f, s), group in chosen.groupby(["puzzle", "formulation", "solver"], sort=True)]
    return pd.DataFrame(rows, columns=list(COLUMNS))


def shown(table: pd.DataFrame, puzzle: str) -> tuple[pd.DataFrame, str]:
    """The rows of `puzzle` a table shows: over the instances every formulation applies to
    where there is one, else each formulation over its own; and a sentence saying so for the
    caption (plain text; "" where every formulation applies to the same instances)."""
    rows = table[table["puzzle"] == puzzle]
    every, common = rows[rows["scope"] == "all"], rows[rows["scope"] == "common"]
    counts = every.groupby("formulation")["instances"].max()
    if counts.nunique() <= 1 and (common.empty or common["instances"].max() == counts.max()):
        return (common if not common.empty else every), ""
    applies = ", ".join(f"{f} to {n}" for f, n in counts.items())
    if common.empty:
        return every, (f"The formulations apply to different instances ({applies}) and to none in common: "
                       "each row is over its own instances, so rows are not comparable.")
    n = common["instances"].max()
    return common, (f"Formulations compared over the {n} instance{'s' if n != 1 else ''} every one of them "
                    f"applies to (they apply to: {applies}; families.csv, scope all, has each over all of its "
                    "instances).")


def caption(puzzle: str, stats: Statistics = DEFAULT, coverage: str = "", left_out: str = "") -> str:
    return (f"{tables.latex_escape(puzzle)}: runs solved (optimal with a checked solution, or proven "
            f"infeasible) and the shifted geometric mean (SGM) of the {stats.name} in seconds, per formulation "
            f"and solver; {tables.unsolved_treatment(stats.par)}. {tables.latex_escape(stats.sentence())} "
            f"{tables.sgm_definition(stats.shift)} The best SGM of each row over all of the row's instances is "
            "in bold."
            + (f" {tables.latex_escape(coverage)}" if coverage else "")
            + (f" {LEFT_OUT_MARK} {tables.latex_escape(left_out)}" if left_out else ""))


LEFT_OUT_MARK = "$^\\dagger$"
"""Marks an SGM over fewer instances than its row's others (a licence refused some runs): never bold."""


def licence_refusals(runs: pd.DataFrame, puzzle: str) -> str:
    """Which runs of `puzzle` a size-limited licence refused, in words for a caption ("" for none):
    they are left out of the times, so those solvers' SGMs are over fewer instances."""
    refused = runs[(tables._column(runs, "status") == "licence_limit")
                   & (tables._column(runs, "puzzle").astype(str) == puzzle)]
    if refused.empty:
        return ""
    by_method = refused.groupby(["solver", "formulation"], sort=True)["instance"].apply(
        lambda names: ", ".join(sorted({str(n).removeprefix(f"{puzzle}/") for n in names})))
    listed = "; ".join(f"{solver} / {formulation} on {names}" for (solver, formulation), names in by_method.items())
    return (f"Over fewer instances: the runs a size-limited licence refused are left out ({listed}); such an SGM "
            "is not compared for bold.")


def _cell_pair(entry: pd.Series | None, best: float, full: int) -> list[str]:
    if entry is None:
        return ["--", "--"]
    sgm = entry["sgm_time"]
    text = tables.format_seconds(sgm)
    if entry["instances"] < full:
        return [f"{entry['solved']}/{entry['runs']}", f"{text}{LEFT_OUT_MARK}"]
    bold = not math.isnan(sgm) and math.isclose(sgm, best, rel_tol=1e-12)
    return [f"{entry['solved']}/{entry['runs']}", f"\\textbf{{{text}}}" if bold else text]


def family_latex(table: pd.DataFrame, puzzle: str, stats: Statistics = DEFAULT,
                 labels: dict[str, str] | None = None, left_out: str = "") -> str:
    """The booktabs table of one family (needs ``\\usepackage{booktabs}``). The best SGM of a
    row is bold among the solvers that have a time on all of the row's instances; one over
    fewer (a licence refused some runs, `left_out` says which) is marked, never bold."""
    labels = labels or {}
    rows, coverage = shown(table, puzzle)
    solvers = sorted(set(rows["solver"]))  # the same column order in every results folder
    formulations = list(dict.fromkeys(rows["formulation"]))
    name = lambda text: tables.latex_escape(labels.get(text, text))  # noqa: E731
    lines = ["% requires \\usepackage{booktabs}", "\\begin{table}[htbp]", "  \\centering", "  \\small",
             "  \\setlength{\\tabcolsep}{4pt}", f"  \\caption{{{caption(puzzle, stats, coverage, left_out)}}}",
             f"  \\label{{tab:{puzzle}}}", "  \\begin{tabular}{l" + "rr" * len(solvers) + "}", "    \\toprule",
             "    & " + " & ".join(f"\\multicolumn{{2}}{{c}}{{{name(s)}}}" for s in solvers) + " \\\\",
             "    " + " ".join(f"\\cmidrule(lr){{{2 + 2 * i}-{3 + 2 * i}}}" for i in range(len(solvers))),
             "    Formulation & " + " & ".join(["solved & SGM"] * len(solvers)) + " \\\\", "    \\midrule"]
    for formulation in formulations:
        entries = {r["solver"]: r for _, r in rows[rows["formulation"] == formulation].iterrows()}
        full = max(e["instances"] for e in entries.values())
        best = min((e["sgm_time"] for e in entries.values() if not math.isnan(e["sgm_time"])
                    and e["instances"] == full), default=math.nan)
        cells = [cell for s in solvers for cell in _cell_pair(entries.get(s), best, full)]
        lines.append(f"    {name(formulation)} & " + " & ".join(cells) + " \\\\")
    lines += ["    \\bottomrule", "  \\end{tabular}", "\\end{table}", ""]
    return tables.fit_to_width("\n".join(lines))


def write_family_tables(runs: pd.DataFrame, directory: str | Path, stats: Statistics = DEFAULT,
                        labels: dict[str, str] | None = None) -> list[Path]:
    """``family_<puzzle>.tex`` for every family of the runs, and ``families.csv`` (tidy)."""
    directory = Path(directory)
    table = family_summary(runs, stats)
    written = []
    for puzzle in sorted(table["puzzle"].unique()):
        path = directory / f"family_{puzzle}.tex"
        tables._write_text(path, family_latex(table, puzzle, stats, labels, licence_refusals(runs, puzzle)))
        written.append(path)
    csv = directory / "families.csv"
    tables._write_text(csv, table.to_csv(index=False))
    return [csv, *written]


# --- variability: runs that differ only by seed, permutation or repeat ------------------------

VARIABILITY_COLUMNS = ("puzzle", "formulation", "solver", "instances", "runs", "sgm_time", "sgm_low", "sgm_high",
                       "median_spread")


def varied(runs: pd.DataFrame) -> bool:
    """Whether some instance ran more than once with one solver and formulation."""
    keys = ["instance", "formulation", "solver"]
    return bool(len(runs)) and bool(runs.groupby(keys).size().gt(1).any())


def variability_table(runs: pd.DataFrame, stats: Statistics = DEFAULT) -> pd.DataFrame:
    """Per (puzzle, formulation, solver): the SGM over all runs with a percentile bootstrap
    interval over instances (all runs of a drawn instance come along), and the median over
    instances of the spread (slowest minus fastest run) of one instance's times."""
    timed = runs[tables._column(runs, "status") != "licence_limit"]
    frame = pd.DataFrame({"puzzle": tables._column(timed, "puzzle").astype(str),
                          "formulation": tables._column(timed, "formulation").astype(str),
                          "solver": tables._column(timed, "solver").astype(str),
                          "instance": tables._column(timed, "instance").astype(str),
                          "time": tables.censored_time(timed, stats)})
    rows = []
    for (puzzle, formulation, solver), group in frame.groupby(["puzzle", "formulation", "solver"], sort=True):
        by_instance = group.groupby("instance")["time"].apply(list)
        sgm, low, high = statistics.bootstrap_sgm_ci(by_instance, stats.shift, resamples=stats.resamples,
                                                     level=stats.level)
        rows.append({"puzzle": puzzle, "formulation": formulation, "solver": solver,
                     "instances": len(by_instance), "runs": len(group), "sgm_time": sgm, "sgm_low": low,
                     "sgm_high": high, "median_spread": statistics.median_spread(by_instance)})
    return pd.DataFrame(rows, columns=list(VARIABILITY_COLUMNS))


def variability_latex(table: pd.DataFrame, stats: Statistics = DEFAULT) -> str:
    """The variability table as booktabs LaTeX."""
    caption = (f"Runs that differ only by seed, permutation or repeat: the shifted geometric mean (SGM) of the "
               f"{stats.name} in seconds with a {100 * stats.level:g}\\,\\% percentile bootstrap interval over "
               f"instances ({stats.resamples} resamples; all runs of a drawn instance together), and the median "
               f"over instances of the spread (slowest minus fastest run). "
               f"{tables.unsolved_treatment(stats.par).capitalize()}. {tables.latex_escape(stats.sentence())} "
               f"{tables.sgm_definition(stats.shift)}")
    lines = ["% requires \\usepackage{booktabs}", "\\begin{table}[htbp]", "  \\centering", "  \\small",
             f"  \\caption{{{caption}}}", "  \\label{tab:variability}", "  \\begin{tabular}{lllrrrrr}",
             "    \\toprule", "    Family & Formulation & Solver & Instances & Runs & SGM & interval & spread \\\\",
             "    \\midrule"]
    for _, row in table.iterrows():
        interval = f"[{tables.format_seconds(row['sgm_low'])}, {tables.format_seconds(row['sgm_high'])}]"
        cells = [tables.latex_escape(row["puzzle"]), tables.latex_escape(row["formulation"]),
                 tables.latex_escape(row["solver"]), str(row["instances"]), str(row["runs"]),
                 tables.format_seconds(row["sgm_time"]), interval, tables.format_seconds(row["median_spread"])]
        lines.append("    " + " & ".join(cells) + " \\\\")
    lines += ["    \\bottomrule", "  \\end{tabular}", "\\end{table}", ""]
    return tables.fit_to_width("\n".join(lines))


def write_variability(runs: pd.DataFrame, directory: str | Path, stats: Statistics = DEFAULT) -> list[Path]:
    """``variability.csv`` and ``variability.tex`` where runs were repeated (else nothing)."""
    if not varied(runs):
        return []
    directory = Path(directory)
    table = variability_table(runs, stats)
    csv, tex = directory / "variability.csv", directory / "variability.tex"
    tables._write_text(csv, table.to_csv(index=False))
    tables._write_text(tex, variability_latex(table, stats))
    return [csv, tex]
