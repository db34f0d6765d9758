"""The Formulations section: what each formulation is (its model's size, the strength of its LP
relaxation) beside how it did (runs solved, the shifted geometric mean of the time), per
family over the instances every formulation of the family ran on: the table a formulation
paper prints. Its rows come from ``tables/models.csv`` (`core.statistics`) and the runs.
"""

from __future__ import annotations

import math
import numbers
from pathlib import Path

import pandas as pd

from pyomo_puzzles.core.results import reference_objectives
from pyomo_puzzles.report import family_tables, tables
from pyomo_puzzles.report.measure import DEFAULT, Statistics

SHOWN = ["instance", "formulation", "stage", "parts", "variables", "binary", "integer", "continuous", "rows",
         "nonzeros", "lp_status", "lp_value", "lp_infeasible_parts", "reference_objective", "integrality_gap",
         "message"]
"""The columns of ``tables/models.csv`` the report shows (the CSV has them all)."""


def caption(models: pd.DataFrame) -> str:
    """How the models table was computed, and by which LP solver."""
    lp = sorted({str(s) for s in models.get("lp_solver", pd.Series(dtype=object)).dropna()}) or ["none installed"]
    return ("Each formulation's model as every solver is given it (the compiled matrix, before any presolve): "
            "variables by type, rows, nonzeros; its LP relaxation (integrality dropped) solved by "
            f"{', '.join(lp)}: status and value z_LP, and against the instance's known optimum z* the "
            "integrality gap |z* - z_LP| / max(|z*|, 1). A model without an objective has no gap: its LP tells "
            "only whether it proves the instance infeasible. A formulation solved in stages (iterative deepening) "
            "has a row per stage up to the optimum: sizes summed over the stage's parts, and the parts whose LP "
            "relaxation alone is infeasible (a stage without sizes: its parts counted, not built).")


def shown(models: pd.DataFrame) -> pd.DataFrame:
    """The models table as the report shows it: the columns in `SHOWN` that hold anything, as text."""
    columns = [c for c in SHOWN if c in models.columns and models[c].notna().any()]
    return models[columns].apply(lambda column: column.map(_cell))


def _median(values: pd.Series) -> float | None:
    numbers = pd.to_numeric(values, errors="coerce").dropna()
    return float(numbers.median()) if len(numbers) else None


def _one_model_rows(models: pd.DataFrame) -> pd.DataFrame:
    """Per (instance, formulation) one row: a one-model formulation's, or a staged one's stages summed."""
    rows = []
    for (instance, formulation), group in models.groupby(["instance", "formulation"], sort=False):
        staged = group["stage"].notna().any() if "stage" in group else False
        # min_count: a formulation none of whose stages was built has no size (not a size of 0)
        summed = {key: pd.to_numeric(group[key], errors="coerce").sum(min_count=1)
                  for key in ("variables", "rows", "nonzeros")}
        relaxed = group[group["lp_infeasible_parts"].notna()]  # stages whose parts were relaxed, not only counted
        parts = pd.to_numeric(relaxed["parts"], errors="coerce").sum()
        infeasible = pd.to_numeric(relaxed["lp_infeasible_parts"], errors="coerce").sum() if staged else math.nan
        rows.append({"instance": instance, "formulation": formulation, **summed,
                     "integrality_gap": pd.to_numeric(group["integrality_gap"], errors="coerce").iloc[0]
                     if not staged else math.nan,
                     "lp_settled_share": infeasible / parts if staged and parts else math.nan})
    return pd.DataFrame(rows)


def root_gap_closed(runs: pd.DataFrame, models: pd.DataFrame) -> pd.Series:
    """Per run, the share of the LP gap its root node closed, (z_root - z_LP) / (z* - z_LP): z_LP
    from the models table (one model per formulation), z* the instance's reference optimum
    (`core.results.reference_objectives`); None where one is missing or the LP has no gap."""
    one_model = models[models["stage"].isna()] if "stage" in models else models
    lp = {(str(i), str(f)): v for i, f, v in zip(one_model["instance"], one_model["formulation"],
                                                   one_model["lp_value"]) if pd.notna(v)}
    references = reference_objectives(runs.to_dict("records"))
    closed = []
    for instance, formulation, root in zip(runs["instance"], runs["formulation"], runs["root_bound"]):
        z_lp, optimum = lp.get((str(instance), str(formulation))), references.get(instance)
        if z_lp is None or optimum is None or root is None or pd.isna(root) or abs(optimum - z_lp) <= 1e-9:
            closed.append(None)
        else:
            closed.append((float(root) - z_lp) / (optimum - z_lp))
    return pd.Series(closed, index=runs.index, dtype=object)


def root_gap(runs: pd.DataFrame) -> pd.Series:
    """Per run, the gap left at the end of its root node, |z* - z_root| / max(|z*|, 1), measured
    as the integrality gap is: beside the share of the LP gap the root closed, it tells a strong
    LP that had little to close (a small gap, little closed) from a weak one that closed little
    of much. None where the run has no root bound or the instance no reference optimum."""
    references = reference_objectives(runs.to_dict("records"))
    gaps = []
    for instance, root in zip(runs["instance"], tables._column(runs, "root_bound")):
        optimum = references.get(instance)
        if optimum is None or root is None or pd.isna(root):
            gaps.append(None)
        else:
            gaps.append(abs(optimum - float(root)) / max(abs(optimum), 1.0))
    return pd.Series(gaps, index=runs.index, dtype=object)


def _runs_frame(models: pd.DataFrame, runs: pd.DataFrame, stats: Statistics) -> pd.DataFrame:
    """The runs of formulations the models table has, one row each with what the comparison
    needs; runs a licence refused are left out (they say nothing of a formulation), and a run
    that ended in an error keeps no root gap or nodes (a wrong objective's bound is not the
    model's)."""
    frame = pd.DataFrame({
        "puzzle": tables._column(runs, "puzzle").astype(str),
        "formulation": tables._column(runs, "formulation").astype(str),
        "solver": tables._column(runs, "solver").astype(str),
        "instance": tables._column(runs, "instance").astype(str),
        "solved": tables.solved(runs), "time": tables.censored_time(runs, stats),
        "status": tables._column(runs, "status").astype(str),
        "gap_closed": pd.to_numeric(tables._column(runs, "root_gap_closed"), errors="coerce"),
        "root_gap": pd.to_numeric(root_gap(runs), errors="coerce"),
        "nodes": pd.to_numeric(tables._column(runs, "nodes"), errors="coerce"),
    })
    failed = frame["status"] == "error"  # a wrong objective's root bound and search are not the model's
    frame.loc[failed, ["gap_closed", "root_gap", "nodes"]] = math.nan
    with_statistics = set(zip(models["instance"].astype(str), models["formulation"].astype(str)))
    has_statistics = pd.Series([pair in with_statistics for pair in zip(frame["instance"], frame["formulation"])],
                               index=frame.index, dtype=bool)
    return frame[(frame["status"] != "licence_limit") & has_statistics]


def comparison(models: pd.DataFrame, runs: pd.DataFrame, stats: Statistics = DEFAULT) -> pd.DataFrame:
    """Tidy: per (puzzle, formulation), over the family's common instances (those every
    formulation of it ran on): instances, median variables, rows and nonzeros, median
    integrality gap, the share of staged parts the LP settles, and, over all the solvers' runs
    there, runs solved of runs and the SGM of the ranked time. What depends on the solver
    (root bounds, nodes) is in `solver_comparison`."""
    if models.empty or runs.empty:
        return pd.DataFrame()
    common = family_tables.common_instances(runs)
    sizes = _one_model_rows(models[models["message"].isna()] if "message" in models else models)
    frame = _runs_frame(models, runs, stats)
    rows = []
    for (puzzle, formulation), group in frame.groupby(["puzzle", "formulation"], sort=True):
        chosen = group[group["instance"].isin(common.get(puzzle, set()))]
        if chosen.empty:
            continue
        mine = sizes[(sizes["formulation"] == formulation) & sizes["instance"].isin(set(chosen["instance"]))] \
            if len(sizes) else sizes
        rows.append({"puzzle": puzzle, "formulation": formulation, "instances": chosen["instance"].nunique(),
                     "variables": _median(mine.get("variables", pd.Series(dtype=float))),
                     "rows": _median(mine.get("rows", pd.Series(dtype=float))),
                     "nonzeros": _median(mine.get("nonzeros", pd.Series(dtype=float))),
                     "integrality_gap": _median(mine.get("integrality_gap", pd.Series(dtype=float))),
                     "lp_settled_share": _median(mine.get("lp_settled_share", pd.Series(dtype=float))),
                     "runs": len(chosen), "solved": int(chosen["solved"].sum()),
                     "sgm_time": tables.shifted_geometric_mean(chosen["time"], stats.shift)})
    return pd.DataFrame(rows)


def solver_comparison(models: pd.DataFrame, runs: pd.DataFrame, stats: Statistics = DEFAULT) -> pd.DataFrame:
    """Tidy: per (puzzle, formulation, solver), over the family's common instances: the median
    gap left at the root node (`root_gap`) and the median share of the LP gap the root closed,
    where the solver reports its root bound, the median nodes, runs solved of runs and the SGM
    of the ranked time. One row per solver: solvers count nodes and bound the root each their
    own way, so their medians are never pooled."""
    if models.empty or runs.empty:
        return pd.DataFrame()
    common = family_tables.common_instances(runs)
    frame = _runs_frame(models, runs, stats)
    rows = []
    for (puzzle, formulation, solver), group in frame.groupby(["puzzle", "formulation", "solver"], sort=True):
        chosen = group[group["instance"].isin(common.get(puzzle, set()))]
        if chosen.empty:
            continue
        rows.append({"puzzle": puzzle, "formulation": formulation, "solver": solver,
                     "instances": chosen["instance"].nunique(), "root_gap": _median(chosen["root_gap"]),
                     "gap_closed": _median(chosen["gap_closed"]), "nodes": _median(chosen["nodes"]),
                     "runs": len(chosen), "solved": int(chosen["solved"].sum()),
                     "sgm_time": tables.shifted_geometric_mean(chosen["time"], stats.shift)})
    return pd.DataFrame(rows)


COMPARISON_NOTE = ("Per family, over the instances every formulation of it ran on: the median model size "
                   "(a staged formulation's stages summed), the median integrality gap (models with an "
                   "objective), the median share of a staged formulation's parts its LP relaxation alone "
                   "proves infeasible, and over all solvers' runs the runs solved and the shifted geometric mean of "
                   "the ranked time.")

SOLVER_COMPARISON_NOTE = ("Per family, formulation and solver, over the same instances (solvers count nodes and "
                          "bound the root node each their own way: their medians are not pooled): the median gap "
                          "left at the root node, |z* - z_root| / max(|z*|, 1), and the median share of the LP gap "
                          "it closed, (z_root - z_LP) / (z* - z_LP), where the solver reports its root bound "
                          "(HiGHS, SCIP, Gurobi, CPLEX; a strong LP has little gap to close: read the two together), "
                          "the median nodes, the runs solved and the shifted geometric mean of the ranked time.")


def _cell(value) -> str:
    """A number as a reader wants it in a table: whole numbers with thousands separators, others
    to three significant digits; nothing as ``-``."""
    if value is None or isinstance(value, bool):
        return "-" if value is None else str(value)
    if isinstance(value, numbers.Integral):
        return f"{int(value):,}"
    if isinstance(value, numbers.Real):
        value = float(value)
        if math.isnan(value):
            return "-"
        if (value.is_integer() or abs(value) >= 1000) and abs(value) < 1e15:
            return f"{value:,.0f}"
        return f"{value:.3g}"
    return str(value)


def comparison_cells(table: pd.DataFrame, stats: Statistics = DEFAULT) -> pd.DataFrame:
    """The comparison as text cells, with readable headings."""
    headings = {"puzzle": "Family", "formulation": "Formulation", "solver": "Solver", "instances": "Instances",
                "variables": "Variables", "rows": "Rows", "nonzeros": "Nonzeros", "integrality_gap": "LP gap",
                "lp_settled_share": "Parts the LP settles", "root_gap": "Root gap", "gap_closed": "Root gap closed",
                "nodes": "Nodes", "runs": "Runs", "solved": "Solved",
                "sgm_time": f"SGM {stats.name} (s)"}
    cells = table.apply(lambda column: column.map(_cell))
    cells = cells[[c for c in headings if c in cells.columns and table[c].notna().any()]]
    return cells.rename(columns=headings)


def models_latex(models: pd.DataFrame) -> str:
    """``tables/models.tex``: the models table as a booktabs table (the columns the report shows)."""
    cells = shown(models).drop(columns=["message"], errors="ignore")
    if cells.empty or not len(cells.columns):  # models: false, or none measured: no table, still valid LaTeX
        return "% no models table: the experiment measured no model (configuration models: false, or none ran)\n"
    frame = cells
    spec = "".join("l" if c in ("instance", "formulation", "lp_status") else "r" for c in frame.columns)
    lines = ["% requires \\usepackage{booktabs}", "\\begin{table}[htbp]", "  \\centering", "  \\small",
             "  \\setlength{\\tabcolsep}{4pt}", f"  \\caption{{{tables.latex_escape(caption(models))}}}",
             "  \\label{tab:models}", f"  \\begin{{tabular}}{{{spec}}}", "    \\toprule",
             "    " + " & ".join(tables.latex_escape(c.replace("_", " ")) for c in frame.columns) + " \\\\",
             "    \\midrule"]
    lines += ["    " + " & ".join(tables.latex_escape(v) for v in row) + " \\\\" for _, row in cells.iterrows()]
    lines += ["    \\bottomrule", "  \\end{tabular}", "\\end{table}", ""]
    return tables.fit_to_width("\n".join(lines))


def write_models(models: pd.DataFrame, csv_path: str | Path, tex_path: str | Path) -> None:
    """``tables/models.csv`` (every column, full precision) and ``tables/models.tex``."""
    tables._write_text(Path(csv_path), models.to_csv(index=False))
    tables._write_text(Path(tex_path), models_latex(models))
