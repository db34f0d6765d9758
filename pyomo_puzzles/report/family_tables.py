"""One LaTeX table per family, ready to ``\\input``: formulations as rows, solvers as column
groups (runs solved, shifted geometric mean of the time), the best mean of each row in bold.

The caption states the shift of the mean and how unsolved runs count (at the time limit,
or PAR k). Runs refused by a size-limited licence are left out, as in the summary table.
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from pyomo_puzzles.report import tables

COLUMNS = ("puzzle", "formulation", "solver", "runs", "solved", "sgm_time")


def family_summary(runs: pd.DataFrame, shift: float = tables.SHIFT_SECONDS, par: float = 1.0) -> pd.DataFrame:
    """Tidy: one row per (puzzle, formulation, solver) with runs, solved and the SGM."""
    status = tables._column(runs, "status")
    timed = runs[status != "licence_limit"]
    frame = pd.DataFrame({
        "puzzle": tables._column(timed, "puzzle").astype(str),
        "formulation": tables._column(timed, "formulation").astype(str),
        "solver": tables._column(timed, "solver").astype(str),
        "solved": tables.solved(timed), "time": tables.censored_time(timed, par),
    })
    rows = [{"puzzle": p, "formulation": f, "solver": s, "runs": len(group), "solved": int(group["solved"].sum()),
             "sgm_time": tables.shifted_geometric_mean(group["time"], shift)}
            for (p, f, s), group in frame.groupby(["puzzle", "formulation", "solver"], sort=True)]
    return pd.DataFrame(rows, columns=list(COLUMNS))


def caption(puzzle: str, shift: float, par: float) -> str:
    return (f"{tables.latex_escape(puzzle)}: runs solved (optimal with a checked solution, or proven "
            f"infeasible) and the shifted geometric mean (SGM) of the wall time in seconds, per formulation "
            f"and solver; {tables.unsolved_treatment(par)}. {tables.sgm_definition(shift)} "
            "The best SGM of each row is in bold.")


def _cell_pair(entry: pd.Series | None, best: float) -> list[str]:
    if entry is None:
        return ["--", "--"]
    sgm = entry["sgm_time"]
    text = tables.format_seconds(sgm)
    bold = not math.isnan(sgm) and math.isclose(sgm, best, rel_tol=1e-12)
    return [f"{entry['solved']}/{entry['runs']}", f"\\textbf{{{text}}}" if bold else text]


def family_latex(table: pd.DataFrame, puzzle: str, shift: float = tables.SHIFT_SECONDS, par: float = 1.0,
                 labels: dict[str, str] | None = None) -> str:
    """The booktabs table of one family (needs ``\\usepackage{booktabs}``)."""
    labels = labels or {}
    rows = table[table["puzzle"] == puzzle]
    solvers = list(dict.fromkeys(rows["solver"]))
    formulations = list(dict.fromkeys(rows["formulation"]))
    name = lambda text: tables.latex_escape(labels.get(text, text))  # noqa: E731
    lines = ["% requires \\usepackage{booktabs}", "\\begin{table}[htbp]", "  \\centering", "  \\small",
             "  \\setlength{\\tabcolsep}{4pt}", f"  \\caption{{{caption(puzzle, shift, par)}}}",
             f"  \\label{{tab:{puzzle}}}", "  \\begin{tabular}{l" + "rr" * len(solvers) + "}", "    \\toprule",
             "    & " + " & ".join(f"\\multicolumn{{2}}{{c}}{{{name(s)}}}" for s in solvers) + " \\\\",
             "    " + " ".join(f"\\cmidrule(lr){{{2 + 2 * i}-{3 + 2 * i}}}" for i in range(len(solvers))),
             "    Formulation & " + " & ".join(["solved & SGM"] * len(solvers)) + " \\\\", "    \\midrule"]
    for formulation in formulations:
        entries = {r["solver"]: r for _, r in rows[rows["formulation"] == formulation].iterrows()}
        best = min((e["sgm_time"] for e in entries.values() if not math.isnan(e["sgm_time"])), default=math.nan)
        cells = [cell for s in solvers for cell in _cell_pair(entries.get(s), best)]
        lines.append(f"    {name(formulation)} & " + " & ".join(cells) + " \\\\")
    lines += ["    \\bottomrule", "  \\end{tabular}", "\\end{table}", ""]
    return "\n".join(lines)


def write_family_tables(runs: pd.DataFrame, directory: str | Path, shift: float = tables.SHIFT_SECONDS,
                        par: float = 1.0, labels: dict[str, str] | None = None) -> list[Path]:
    """``family_<puzzle>.tex`` for every family of the runs, and ``families.csv`` (tidy)."""
    directory = Path(directory)
    table = family_summary(runs, shift, par)
    written = []
    for puzzle in sorted(table["puzzle"].unique()):
        path = directory / f"family_{puzzle}.tex"
        tables._write_text(path, family_latex(table, puzzle, shift, par, labels))
        written.append(path)
    csv = directory / "families.csv"
    tables._write_text(csv, table.to_csv(index=False))
    return [csv, *written]
