"""The scores benchmark suites rank by, instances too easy to rank anything, and the A/A noise.

Per family, a *method* is a solver / formulation pair, and each method's time on an
instance is the median of its repeats' censored times by the configured measure (see
`pyomo_puzzles.report.figures.instance_times`; solved: a strict majority of its repeats).
Scores compare methods on the same instances. Where the methods of a family have times on
different instances (a formulation applies to some instances only; a size-limited licence
refused some runs), the scores are taken over the instance set that keeps the most
(methods x instances): the instances of one method, and every method with a time on all of
them. A note names the methods and the instances left out, and why; the report pages show it
and the family's LaTeX table has it in its caption. The scores:

* ``sgm``: the shifted geometric mean of the times, scaled so that the best method is 1
  (Mittelmann's benchmarks of optimisation software); the *virtual best* (on every
  instance the best time of any method) is a row of its own, at or below 1.
* ``par2``: the mean time with every unsolved instance counted at twice the time limit
  (PAR-2, the SAT competitions' score).
* ``borda``: the MiniZinc Challenge's complete score: on every instance each method meets
  every other; the one that solved it when the other did not scores 1, when both solved it
  they share 1 in proportion to the other's time (t_other / (t_self + t_other)), when
  neither did, neither scores. Higher is better. A wrong answer is unsolved.
* ``solved_by_all``: the scaled SGM over only the instances every method solved (the mode
  of solver-benchmark's reports), so that time-outs do not dominate the comparison.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from pyomo_puzzles.report import tables
from pyomo_puzzles.report.figures import VIRTUAL_BEST, instance_times, method_label
from pyomo_puzzles.report.measure import DEFAULT, Statistics

EXPLANATIONS = {
    "sgm": "SGM (scaled): the shifted geometric mean of the time per instance, divided by the best method's, so "
           "that the best method is 1 and 2 means twice as slow (Mittelmann's benchmarks); the virtual best takes "
           "on every instance the best time of any method.",
    "par2": "PAR-2 [s]: the mean time per instance with every unsolved instance counted at twice the time limit "
            "(the SAT competitions' score); lower is better.",
    "borda": "Borda: the MiniZinc Challenge's complete score. On each instance each method meets every other: "
             "solving it when the other did not scores 1; when both solved it they share the point in proportion "
             "to the other's time; higher is better, at most (methods - 1) per instance.",
    "solved_by_all": "Solved by all: the scaled SGM over only the instances every method solved (as "
                     "solver-benchmark reports it), so that time-outs do not dominate; the count says over how many.",
}

SCORE_COLUMNS = {"sgm": ["sgm", "sgm_scaled"], "par2": ["par2"], "borda": ["borda"],
                 "solved_by_all": ["solved_by_all_instances", "solved_by_all_sgm", "solved_by_all_scaled"]}


def _licence_refused(runs: pd.DataFrame) -> set[tuple[str, str, str]]:
    """(puzzle, instance, method) with runs refused by a size-limited licence."""
    refused = runs[tables._column(runs, "status") == "licence_limit"]
    return {(str(p), str(i), method_label(s, f))
            for p, i, s, f in zip(refused["puzzle"], refused["instance"], refused["solver"], refused["formulation"])}


def _family_instances(runs: pd.DataFrame) -> dict[str, set[str]]:
    """Every family's instances, those whose runs a licence refused included."""
    frame = pd.DataFrame({"puzzle": tables._column(runs, "puzzle").fillna("?").astype(str),
                          "instance": tables._column(runs, "instance").astype(str)})
    return {puzzle: set(group["instance"]) for puzzle, group in frame.groupby("puzzle", sort=True)}


def _scored(times: pd.DataFrame) -> tuple[frozenset[str], list[str]]:
    """The instances and methods a family's scores are taken over: the instance set of one
    method, with every method that has a time on all of it, the one with the most
    (methods x instances; ties: more instances)."""
    sets = {m: frozenset(g["instance"]) for m, g in times.groupby("method", sort=True)}
    best: tuple[int, int, frozenset[str], list[str]] | None = None
    for candidate in set(sets.values()):
        methods = sorted(m for m, found in sets.items() if candidate <= found)
        key = (len(methods) * len(candidate), len(candidate))
        if best is None or key > best[:2]:
            best = (*key, candidate, methods)
    return (best[2], best[3]) if best else (frozenset(), [])


def _grid(times: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame, pd.Series]:
    """Time, solved and time limit per instance (rows) and method (columns), over the
    instances every method has a time on."""
    time = times.pivot(index="instance", columns="method", values="time").dropna()
    solved = times.pivot(index="instance", columns="method", values="solved").reindex(time.index).astype(bool)
    limit = times.groupby("instance")["time_limit"].max().reindex(time.index)
    return time, solved, limit


def _borda(time: pd.DataFrame, solved: pd.DataFrame) -> pd.Series:
    """The MiniZinc complete score of each method, summed over instances."""
    t, s = time.to_numpy(dtype=float), solved.to_numpy(dtype=bool)
    score = np.zeros(t.shape[1])
    for i in range(t.shape[1]):
        for j in range(t.shape[1]):
            if i == j:
                continue
            only_i = s[:, i] & ~s[:, j]
            both = s[:, i] & s[:, j]
            total = t[:, i] + t[:, j]
            share = np.where(total > 0, t[:, j] / np.where(total > 0, total, 1.0), 0.5)
            score[i] += only_i.sum() + share[both].sum()
    return pd.Series(score, index=time.columns)


def _scaled(values: pd.Series) -> pd.Series:
    best = values.drop(VIRTUAL_BEST, errors="ignore").min()
    return values / best if best and not math.isnan(best) else values * math.nan


def _family_scores(time: pd.DataFrame, solved: pd.DataFrame, limit: pd.Series, stats: Statistics) -> pd.DataFrame:
    best = time.where(solved).min(axis=1).fillna(time.min(axis=1))  # nobody solved it: censored as they are
    with_best = time.assign(**{VIRTUAL_BEST: best})
    solved_best = solved.assign(**{VIRTUAL_BEST: solved.any(axis=1)})
    sgm = with_best.apply(lambda column: tables.shifted_geometric_mean(column, stats.shift))
    par2 = with_best.where(solved_best, 2 * limit, axis=0).mean()
    all_solved = solved.all(axis=1)
    sgm_all = with_best[all_solved].apply(lambda column: tables.shifted_geometric_mean(column, stats.shift))
    return pd.DataFrame({
        "instances": len(time), "solved": solved_best.sum().astype(int), "sgm": sgm, "sgm_scaled": _scaled(sgm),
        "par2": par2, "borda": _borda(time, solved).reindex(with_best.columns),
        "solved_by_all_instances": int(all_solved.sum()), "solved_by_all_sgm": sgm_all,
        "solved_by_all_scaled": _scaled(sgm_all),
    })


def score_table(runs: pd.DataFrame, stats: Statistics = DEFAULT) -> tuple[pd.DataFrame, list[str]]:
    """The selected scores per family and method (tidy: puzzle, method, solver, formulation,
    instances, solved, then the columns of each score in `stats.scores`), the virtual best
    last in each family; and notes on the methods and instances left out, each starting with
    its family's name."""
    table, notes = _scores_and_notes(runs, stats)
    return table, [f"{puzzle}: {note}" for puzzle, family in notes.items() for note in family]


def _scores_and_notes(runs: pd.DataFrame, stats: Statistics) -> tuple[pd.DataFrame, dict[str, list[str]]]:
    """`score_table`, with the notes by family."""
    refused = _licence_refused(runs)
    times = instance_times(runs[tables._column(runs, "status") != "licence_limit"], stats)
    frames, notes = [], {}
    for puzzle, family_instances in _family_instances(runs).items():
        group = times[times["puzzle"] == puzzle]
        instances, methods = _scored(group)
        time, solved, limit = _grid(group[group["method"].isin(methods) & group["instance"].isin(instances)])
        if time.empty or time.shape[1] < 2:
            notes[puzzle] = ["no scores (fewer than two methods with times on common instances)."]
            continue
        notes[puzzle] = _left_out(puzzle, group, family_instances, set(time.index), methods, refused)
        table = _family_scores(time, solved, limit, stats)
        named = group.drop_duplicates("method").set_index("method")
        table.insert(0, "solver", [named["solver"].get(m, "") for m in table.index])
        table.insert(1, "formulation", [named["formulation"].get(m, "") for m in table.index])
        table.index.name = "method"
        order = sorted(time.columns, key=lambda m: (table.at[m, "sgm_scaled"], m)) + [VIRTUAL_BEST]
        frames.append(table.loc[order].reset_index().assign(puzzle=puzzle))
    chosen = [c for score in stats.scores for c in SCORE_COLUMNS[score]]
    columns = ["puzzle", "method", "solver", "formulation", "instances", "solved", *chosen]
    if not frames:
        return pd.DataFrame(columns=columns), notes
    return pd.concat(frames, ignore_index=True)[columns], notes


def _left_out(puzzle: str, times: pd.DataFrame, instances: set[str], scored: set[str], methods: list[str],
              refused: set[tuple[str, str, str]]) -> list[str]:
    """A note naming the methods and the instances of a family left out of its scores, and why
    (`instances`: all of the family's; `scored`: those the scores are over)."""
    total = len(instances)
    refused_methods = {method for p, _, method in refused if p == puzzle}
    reasons = []
    for method, group in times[~times["method"].isin(methods)].groupby("method", sort=True):
        count = group["instance"].nunique()
        why = ("a size-limited licence refused some of its runs" if method in refused_methods
               else "its formulation applies to some instances only")
        reasons.append(f"{method} ({why}: times on {count} of {total})")
    dropped = _instances_left_out(puzzle, times, instances - scored, methods, refused)
    if not reasons and not dropped:
        return []
    sentences = [f"scores over {len(scored)} of its {total} instances, those every scored method has a time on."]
    sentences += [f"Methods left out: {'; '.join(reasons)}."] if reasons else []
    sentences += [f"Instances left out: {'; '.join(dropped)}."] if dropped else []
    return [" ".join(sentences)]


def _instances_left_out(puzzle: str, times: pd.DataFrame, dropped: set[str], methods: list[str],
                        refused: set[tuple[str, str, str]]) -> list[str]:
    """The instances left out of a family's scores, those with one reason together: the scored
    methods without a time on them (a licence refused their runs, or they did not run)."""
    timed = set(zip(times["instance"], times["method"]))
    by_reason: dict[str, list[str]] = {}
    for instance in sorted(dropped):
        if not any(i == instance for i, _ in timed):
            why = "no method has a time" + (": a size-limited licence refused the runs"
                                            if any(r[:2] == (puzzle, instance) for r in refused) else "")
        else:
            missing = [m + (" (refused by its licence)" if (puzzle, instance, m) in refused else "")
                       for m in methods if (instance, m) not in timed]
            why = f"no time from {', '.join(missing)}"
        by_reason.setdefault(why, []).append(instance)
    return [f"{_some(names)} ({why})" for why, names in by_reason.items()]


def _some(names: list[str], shown: int = 5) -> str:
    """The first few names, and how many more."""
    more = f" and {len(names) - shown} more" if len(names) > shown else ""
    return ", ".join(names[:shown]) + more


def explanations(stats: Statistics = DEFAULT) -> list[str]:
    """One sentence per selected score, in the order configured."""
    return [EXPLANATIONS[score] for score in stats.scores]


_FORMATS = {"sgm": tables.format_seconds, "par2": tables.format_seconds, "solved_by_all_sgm": tables.format_seconds,
            "sgm_scaled": lambda v: f"{v:.2f}", "solved_by_all_scaled": lambda v: f"{v:.2f}",
            "borda": lambda v: f"{v:.1f}"}
_HEADERS = {"method": "Method", "instances": "Instances", "solved": "Solved", "sgm": "SGM [s]",
            "sgm_scaled": "SGM scaled", "par2": "PAR-2 [s]", "borda": "Borda",
            "solved_by_all_instances": "Solved by all", "solved_by_all_sgm": "SGM on those [s]",
            "solved_by_all_scaled": "scaled"}


def formatted(table: pd.DataFrame) -> pd.DataFrame:
    """The scores of one family as strings with readable headers ("--" where a score has no value)."""
    shown = table.drop(columns=["puzzle", "solver", "formulation"])
    cells = {}
    for column in shown.columns:
        fmt = _FORMATS.get(column, lambda v: f"{int(v)}" if isinstance(v, (int, np.integer, float)) else str(v))
        cells[_HEADERS.get(column, column)] = ["--" if (isinstance(v, float) and math.isnan(v)) else fmt(v)
                                               for v in shown[column]]
    return pd.DataFrame(cells)


def scores_latex(table: pd.DataFrame, puzzle: str, stats: Statistics = DEFAULT, notes: Sequence[str] = ()) -> str:
    """The scores of one family as a booktabs table (needs booktabs and graphicx); `notes`, the
    family's notes on what was left out (`score_table`'s without the family's name), open its
    caption."""
    rows = table[table["puzzle"] == puzzle]
    cells = formatted(rows)
    scope = [f"{puzzle}: {note}" for note in notes] or [
        f"{puzzle}: scores per method over the {int(rows['instances'].iloc[0])} instances every method has a time on."]
    sentences = [*scope, stats.sentence(), *explanations(stats)]
    caption = " ".join(tables.latex_escape(sentence) for sentence in sentences)
    lines = ["% requires \\usepackage{booktabs}", "\\begin{table}[htbp]", "  \\centering", "  \\small",
             f"  \\caption{{{caption}}}", f"  \\label{{tab:scores-{puzzle}}}",
             "  \\begin{tabular}{l" + "r" * (len(cells.columns) - 1) + "}", "    \\toprule",
             "    " + " & ".join(tables.latex_escape(c) for c in cells.columns) + " \\\\", "    \\midrule"]
    lines += ["    " + " & ".join(tables.latex_escape(v) for v in row) + " \\\\" for row in cells.itertuples(index=False)]
    lines += ["    \\bottomrule", "  \\end{tabular}", "\\end{table}", ""]
    return tables.fit_to_width("\n".join(lines))


def write_scores(runs: pd.DataFrame, directory: str | Path, stats: Statistics = DEFAULT) -> list[Path]:
    """``scores.csv`` (tidy, full precision) and ``scores_<puzzle>.tex`` per family."""
    directory = Path(directory)
    table, notes = _scores_and_notes(runs, stats)
    csv = directory / "scores.csv"
    tables._write_text(csv, table.to_csv(index=False))
    written = [csv]
    for puzzle in sorted(table["puzzle"].unique()):
        path = directory / f"scores_{puzzle}.tex"
        tables._write_text(path, scores_latex(table, puzzle, stats, notes.get(puzzle, ())))
        written.append(path)
    return written


# --- instances that cannot rank, and the noise of one method against itself ------------------

def _timed_instances(runs: pd.DataFrame, stats: Statistics) -> pd.DataFrame:
    """`instance_times` of the runs a solver did not refuse for its licence."""
    return instance_times(runs[tables._column(runs, "status") != "licence_limit"], stats)


def trivial_instances(runs: pd.DataFrame, stats: Statistics = DEFAULT) -> tuple[int, int]:
    """(instances every method that ran them solved in under `stats.trivial_below` seconds of
    the measure, all instances), over all families; licence-refused runs left out."""
    times = _timed_instances(runs, stats)
    if times.empty:
        return 0, 0
    per_instance = times.groupby(["puzzle", "instance"]).agg(
        all_solved=("solved", "all"), slowest=("time", "max"))
    trivial = per_instance["all_solved"] & (per_instance["slowest"] < stats.trivial_below)
    return int(trivial.sum()), len(per_instance)


def demanding_instances(runs: pd.DataFrame, stats: Statistics = DEFAULT) -> tuple[int, int]:
    """(instances whose best method needs at least `stats.demanding_from` seconds of the
    measure, all instances), over all families; licence-refused runs left out. The best
    method is the virtual best: the fastest solved run; an instance no method solved needs
    more than its limit, so it counts."""
    return _instances_needing(runs, stats, "min")


def separating_instances(runs: pd.DataFrame, stats: Statistics = DEFAULT) -> tuple[int, int]:
    """(instances some method needs at least `stats.demanding_from` seconds of the measure for,
    all instances): the slowest method's time (a run not solved needs more than its limit, so
    it counts). Where the best method is quick and another is not, the instance still ranks
    the methods: a formulation comparison is made of such instances."""
    return _instances_needing(runs, stats, "max")


def _instances_needing(runs: pd.DataFrame, stats: Statistics, method: str) -> tuple[int, int]:
    """(instances whose fastest (`method` "min") or slowest ("max") method needs at least
    `stats.demanding_from` seconds, all instances); a run not solved needs more than its limit."""
    times = _timed_instances(runs, stats)
    if times.empty:
        return 0, 0
    needed = times["time"].where(times["solved"], float("inf"))
    per_instance = needed.groupby([times["puzzle"], times["instance"]]).agg(method)
    return int((per_instance >= stats.demanding_from).sum()), len(per_instance)


def noise(runs: pd.DataFrame, stats: Statistics = DEFAULT) -> pd.DataFrame:
    """A/A noise: per (puzzle, solver, formulation), over the instances it solved in at least
    two runs (repeats, seeds, permutations), the ratio slowest / fastest of those runs' times
    by the measure: its median and 90th percentile. Columns: puzzle, solver, formulation,
    instances, median_ratio, p90_ratio. Empty where nothing ran twice."""
    columns = ["puzzle", "solver", "formulation", "instances", "median_ratio", "p90_ratio"]
    is_solved = tables.solved(runs)
    frame = pd.DataFrame({"puzzle": tables._column(runs, "puzzle").astype(str),
                          "solver": tables._column(runs, "solver").astype(str),
                          "formulation": tables._column(runs, "formulation").astype(str),
                          "instance": tables._column(runs, "instance").astype(str),
                          "time": tables.censored_time(runs, stats)})[is_solved]
    keys = ["puzzle", "solver", "formulation"]
    spread = frame.groupby([*keys, "instance"])["time"].agg(["min", "max", "size"]).reset_index()
    spread = spread[spread["size"] >= 2]
    if spread.empty:
        return pd.DataFrame(columns=columns)
    spread["ratio"] = spread["max"].clip(lower=1e-6) / spread["min"].clip(lower=1e-6)
    rows = [{**dict(zip(keys, key)), "instances": len(group), "median_ratio": float(group["ratio"].median()),
             "p90_ratio": float(group["ratio"].quantile(0.9))} for key, group in spread.groupby(keys, sort=True)]
    table = pd.DataFrame(rows, columns=columns)
    table.attrs["pooled"] = (float(spread["ratio"].median()), float(spread["ratio"].quantile(0.9)), len(spread))
    return table
