"""Two results folders side by side: per puzzle, formulation and solver, is B faster or slower
than A, how sure is that, and did any answer change?

Only instances run in both folders (with the same puzzle, formulation and solver) are
compared, as pairs. Per instance the time is the shifted geometric mean over its runs
(seeds, permutations, repeats) of the censored time of `pyomo_puzzles.report.tables` by the
chosen measure (`pyomo_puzzles.report.measure`; the solver's own time by default):
unsolved runs count at their time limit, runs refused by a size-limited licence are left
out. The ratio is SGM(B) / SGM(A) over the paired instances (above 1: B is slower), with a
percentile bootstrap interval over instances and a two-sided paired Wilcoxon signed-rank
test on the per-instance times (see `pyomo_puzzles.report.statistics`).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd

from pyomo_puzzles.core.files import write_text_atomic
from pyomo_puzzles.core.results import folder_runs
from pyomo_puzzles.errors import UserError
from pyomo_puzzles.report import statistics
from pyomo_puzzles.report.measure import DEFAULT, Statistics
from pyomo_puzzles.report.tables import (
    OBJECTIVE_TOLERANCE,
    SHIFT_SECONDS,
    censored_time,
    fit_to_width,
    format_seconds,
    latex_escape,
    shifted_geometric_mean,
    solved,
)

RESAMPLES = 2000
"""Bootstrap resamples (over instances) of each ratio's interval."""

LEVEL = 0.95
"""Confidence level of each ratio's interval."""

GROUP = ["puzzle", "formulation", "solver"]

COLUMNS = ("puzzle", "formulation", "solver", "instances", "sgm_a", "sgm_b", "ratio", "ratio_low", "ratio_high",
           "wilcoxon_p", "answer_changed", "solved_only_a", "solved_only_b", "solver_version_a", "solver_version_b")

_TEXT_HEADERS = {"puzzle": "Puzzle", "formulation": "Formulation", "solver": "Solver", "instances": "Instances",
                 "sgm_a": "SGM A [s]", "sgm_b": "SGM B [s]", "ratio": "B/A", "ci": "CI",
                 "wilcoxon_p": "Wilcoxon p", "answer_changed": "Answers changed",
                 "solved_only_a": "Solved only A", "solved_only_b": "Solved only B"}
_TEXT_COLUMNS = ("puzzle", "formulation", "solver", "instances", "sgm_a", "sgm_b", "ratio", "ci", "wilcoxon_p",
                 "answer_changed", "solved_only_a", "solved_only_b")
_LEFT_ALIGNED = ("puzzle", "formulation", "solver")


# --- per instance --------------------------------------------------------------------------

def _answer(status: str, objective) -> tuple[str, float]:
    """What a solved run says: ("infeasible", nan) or ("optimal", its objective or nan)."""
    try:
        value = float(objective)
    except (TypeError, ValueError):
        value = math.nan
    return status, (math.nan if status == "infeasible" else value)


def _same_answer(x: tuple[str, float], y: tuple[str, float]) -> bool:
    """Same status and, where both have an objective, objectives within the tables' tolerance."""
    if x[0] != y[0]:
        return False
    if math.isnan(x[1]) or math.isnan(y[1]):
        return True
    return abs(x[1] - y[1]) <= OBJECTIVE_TOLERANCE * max(1.0, abs(x[1]), abs(y[1]))


def _answer_changed(answers_a: list, answers_b: list) -> bool:
    """Whether the solved runs of the two folders disagree (some answer has no match in the
    other folder); False if either folder solved the instance in no run."""
    if not answers_a or not answers_b:
        return False
    return (any(not any(_same_answer(x, y) for y in answers_b) for x in answers_a)
            or any(not any(_same_answer(x, y) for x in answers_a) for y in answers_b))


def instance_table(runs: pd.DataFrame, stats: Statistics = DEFAULT) -> pd.DataFrame:
    """One row per (puzzle, formulation, solver, instance) of a runs table: ``time`` (the
    SGM of its runs' censored times), ``solved`` (in any run) and ``answers`` (of its solved
    runs). Runs refused by a size-limited licence are left out."""
    table = runs[GROUP + ["instance", "status", "objective"]].assign(time=censored_time(runs, stats), solved=solved(runs))
    table = table[table["status"] != "licence_limit"]
    rows = []
    for key, group in table.groupby(GROUP + ["instance"], sort=True, dropna=False):
        done = group[group["solved"]]
        rows.append({**dict(zip(GROUP + ["instance"], key)),
                     "time": shifted_geometric_mean(group["time"], stats.shift),
                     "solved": bool(group["solved"].any()),
                     "answers": [_answer(s, o) for s, o in zip(done["status"], done["objective"])]})
    return pd.DataFrame(rows, columns=GROUP + ["instance", "time", "solved", "answers"])


# --- the comparison ------------------------------------------------------------------------

def _groups(runs: pd.DataFrame) -> set[tuple]:
    return set(runs[GROUP].itertuples(index=False, name=None))


def _versions_named(runs: pd.DataFrame) -> str | None:
    """The solver versions the run records name ("; " between several), None if none."""
    return "; ".join(sorted(set(runs["solver_version"].dropna().astype(str)))) or None


def _solver_versions(runs: pd.DataFrame) -> dict[tuple, str | None]:
    """Per (puzzle, formulation, solver), the solver versions its run records name."""
    return {key: _versions_named(group) for key, group in runs.groupby(GROUP, sort=False, dropna=False)}


def _compare_group(group: tuple, pairs: pd.DataFrame, shift: float) -> dict:
    times_a = dict(zip(pairs["instance"], pairs["time_a"]))
    times_b = dict(zip(pairs["instance"], pairs["time_b"]))
    ratio, low, high = statistics.sgm_ratio_ci(times_a, times_b, shift, resamples=RESAMPLES, level=LEVEL)
    p_value = statistics.wilcoxon_p(times_a, times_b)
    return {
        **dict(zip(GROUP, group)), "instances": len(pairs),
        "sgm_a": shifted_geometric_mean(pairs["time_a"], shift),  # NaN without pairs
        "sgm_b": shifted_geometric_mean(pairs["time_b"], shift),
        "ratio": ratio, "ratio_low": low, "ratio_high": high,
        "wilcoxon_p": math.nan if p_value is None else p_value,
        "answer_changed": sum(_answer_changed(x, y) for x, y in zip(pairs["answers_a"], pairs["answers_b"])),
        "solved_only_a": int((pairs["solved_a"] & ~pairs["solved_b"]).sum()),
        "solved_only_b": int((pairs["solved_b"] & ~pairs["solved_a"]).sum()),
    }


def _read(folder: str | Path) -> pd.DataFrame:
    runs = folder_runs(folder)
    if runs.empty:
        raise UserError(f"{folder}: no run records under its 'runs' folder")
    return runs


def compare_folders(folder_a: str | Path, folder_b: str | Path, stats: Statistics = DEFAULT) -> pd.DataFrame:
    """Compare the runs of two results folders; one row per (puzzle, formulation, solver)
    that both have, sorted.

    Columns: ``instances`` (instances run in both: the pairs), ``sgm_a`` / ``sgm_b`` (SGM
    over the pairs of the per-instance times, seconds), ``ratio`` = sgm_b / sgm_a (above 1:
    B is slower) with ``ratio_low`` / ``ratio_high`` (95 % percentile bootstrap over the
    pairs, `RESAMPLES` resamples, seed 0), ``wilcoxon_p`` (two-sided paired signed-rank
    test on the per-instance times; NaN when there is nothing to test),
    ``answer_changed`` (pairs whose solved runs disagree: optimal against infeasible, or
    objectives apart by more than 1e-6 relative to max(1, |objective|)), ``solved_only_a``
    / ``solved_only_b`` (pairs solved in some run of one folder and in no run of the other).
    The folders and settings are in ``attrs``. Raises `UserError` for a folder that is not a
    results folder, and for two folders with no instance run the same way in both.
    """
    runs_a, runs_b = _read(folder_a), _read(folder_b)
    common = sorted(_groups(runs_a) & _groups(runs_b))
    if not common:
        raise UserError(f"{folder_a} and {folder_b} have no puzzle, formulation and solver in common")
    shift = stats.shift
    pairs = instance_table(runs_a, stats).merge(instance_table(runs_b, stats), on=GROUP + ["instance"],
                                                suffixes=("_a", "_b"))
    if pairs.empty:
        raise UserError(f"{folder_a} and {folder_b} have no instance run with the same formulation and solver")
    by_group = dict(iter(pairs.groupby(GROUP, sort=False, dropna=False)))
    versions_a, versions_b = _solver_versions(runs_a), _solver_versions(runs_b)
    rows = [{**_compare_group(group, by_group.get(group, pairs.iloc[:0]), shift),
             "solver_version_a": versions_a.get(group), "solver_version_b": versions_b.get(group)}
            for group in common]
    table = pd.DataFrame(rows, columns=list(COLUMNS))
    table.attrs = {"folder_a": str(folder_a), "folder_b": str(folder_b), "shift": shift, "time": stats.time,
                   "resamples": RESAMPLES, "level": LEVEL,
                   "versions": version_differences(folder_a, folder_b, runs_a, runs_b),
                   "versions_unknown": [f"{side} has no environment.json: its package versions are not known"
                                        for side, folder in (("A", folder_a), ("B", folder_b))
                                        if _environment(folder) is None]}
    return table


# --- the software each folder was made with --------------------------------------------------

def _environment(folder: str | Path) -> dict | None:
    """A results folder's environment record (`experiment.environment`), None without one."""
    try:
        record = json.loads((Path(folder) / "environment.json").read_text())
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) else None


def _differ(what: str, a, b) -> list[str]:
    return [] if a == b else [f"{what}: {'none' if a is None else a} in A, {'none' if b is None else b} in B"]


def _lock_lines(side: str, lock: dict | None) -> list[str]:
    """What is not as locked in one folder's environment."""
    if not lock or lock.get("installed_as_locked", True):
        return []
    changed = [f"{name} {v['installed']} (locked {', '.join(v['locked'])})"
               for name, v in (lock.get("not_as_locked") or {}).items()]
    changed += [f"{name} {version} (not in the lock)" for name, version in (lock.get("not_in_lock") or {}).items()]
    return [f"{side}'s packages are not all the locked ones: {', '.join(changed)}"]


def _off_lock(lock: dict | None) -> tuple:
    """What of one folder's environment is not as locked (the same in both folders: no difference)."""
    lock = lock or {}
    return (json.dumps(lock.get("not_as_locked") or {}, sort_keys=True),
            json.dumps(lock.get("not_in_lock") or {}, sort_keys=True))


def _framework_words(framework: dict | None) -> str | None:
    """pyomo-puzzles's version and commit in one folder's environment ("0.1.0 at 3f1b691c0a2e
    with uncommitted changes"); None where the folder does not say (made before it did)."""
    if not framework:
        return None
    words = str(framework.get("version"))
    if framework.get("commit"):
        words += f" at {framework['commit'][:12]}"
        if framework.get("uncommitted_changes"):
            words += " with uncommitted changes"
    return words


def version_differences(folder_a: str | Path, folder_b: str | Path, runs_a: pd.DataFrame,
                        runs_b: pd.DataFrame) -> list[str]:
    """One line per difference in the software that made the two folders: the versions the
    run records of a solver name, and from each folder's ``environment.json`` the lock's
    digest, packages not as locked (where the two folders differ in them), pyomo-puzzles's
    own version and commit, package versions, Python, and the solver executables'
    distribution packages (where both folders have ``environment.json``). An empty list:
    the same versions in both, as far as both folders say."""
    lines = []
    for solver in sorted(set(runs_a["solver"]) & set(runs_b["solver"])):
        lines += _differ(f"solver {solver}", _versions_named(runs_a[runs_a["solver"] == solver]),
                         _versions_named(runs_b[runs_b["solver"] == solver]))
    env_a, env_b = _environment(folder_a), _environment(folder_b)
    if env_a is None or env_b is None:
        return lines
    lock_a, lock_b = env_a.get("lock") or {}, env_b.get("lock") or {}
    lines += _differ("lock file sha256", (lock_a.get("sha256") or "")[:12] or None,
                     (lock_b.get("sha256") or "")[:12] or None)
    if _off_lock(lock_a) != _off_lock(lock_b):  # the same packages outside the lock in both is no difference
        lines += _lock_lines("A", lock_a) + _lock_lines("B", lock_b)
    lines += _differ("pyomo-puzzles", _framework_words(env_a.get("framework")),
                     _framework_words(env_b.get("framework")))
    packages_a, packages_b = env_a.get("packages") or {}, env_b.get("packages") or {}
    for name in sorted(set(packages_a) | set(packages_b)):
        lines += _differ(f"package {name}", packages_a.get(name), packages_b.get(name))
    lines += _differ("Python", env_a.get("python"), env_b.get("python"))
    executables_a, executables_b = env_a.get("solver_executables") or {}, env_b.get("solver_executables") or {}
    for name in sorted(set(executables_a) & set(executables_b)):
        package = [f"{e.get('package')} {e.get('version')}" if e.get("package") else e.get("path")
                   for e in (executables_a[name], executables_b[name])]
        lines += _differ(f"executable of {name}", *package)
    return lines


def versions_text(df: pd.DataFrame) -> list[str]:
    """What a comparison says of the two folders' software, as lines for a terminal or a
    page: a heading, then the differences as items ("  - ...")."""
    differences, unknown = df.attrs.get("versions"), df.attrs.get("versions_unknown") or []
    if differences is None:
        return []
    if differences:
        heading = "Versions differ between A and B (a ratio then measures the software change too):"
    elif unknown:
        heading = "Versions: the run records name the same solver versions; not known beyond them:"
    else:
        heading = "Versions: A and B were made with the same solver and package versions."
    return [heading] + [f"  - {line}" for line in differences + unknown]


# --- writers -------------------------------------------------------------------------------

def _number(value) -> str:
    """A ratio or time for a cell (about three significant digits), '--' for NaN."""
    return format_seconds(float(value))


def _p_value(value) -> str:
    return "--" if pd.isna(value) else f"{float(value):.3g}"


def _interval(low, high) -> str:
    return "--" if pd.isna(low) or pd.isna(high) else f"[{_number(low)}, {_number(high)}]"


def _cells(row: pd.Series) -> dict[str, str]:
    return {"puzzle": str(row["puzzle"]), "formulation": str(row["formulation"]), "solver": str(row["solver"]),
            "instances": str(int(row["instances"])), "sgm_a": _number(row["sgm_a"]), "sgm_b": _number(row["sgm_b"]),
            "ratio": _number(row["ratio"]), "ci": _interval(row["ratio_low"], row["ratio_high"]),
            "wilcoxon_p": _p_value(row["wilcoxon_p"]), "answer_changed": str(int(row["answer_changed"])),
            "solved_only_a": str(int(row["solved_only_a"])), "solved_only_b": str(int(row["solved_only_b"]))}


def _level(df: pd.DataFrame) -> float:
    return df.attrs.get("level", LEVEL)


def _measure(df: pd.DataFrame) -> Statistics:
    return Statistics(time=df.attrs.get("time", DEFAULT.time))


def comparison_text(df: pd.DataFrame) -> str:
    """The comparison as an aligned table for a terminal, with a line saying what A and B
    are (when known) and a legend."""
    headers = dict(_TEXT_HEADERS, ci=f"{_level(df):.0%} CI")
    rows = [headers] + [_cells(row) for _, row in df.iterrows()]
    widths = {c: max(len(r[c]) for r in rows) for c in _TEXT_COLUMNS}

    def line(cells: dict[str, str]) -> str:
        return "  ".join(cells[c].ljust(widths[c]) if c in _LEFT_ALIGNED else cells[c].rjust(widths[c])
                         for c in _TEXT_COLUMNS).rstrip()

    lines = []
    if "folder_a" in df.attrs:
        lines.append(f"A: {df.attrs['folder_a']}   B: {df.attrs['folder_b']}")
    lines += [line(r) for r in rows]
    lines += versions_text(df)
    lines.append(f"Instances run in both; per instance the SGM (shift {df.attrs.get('shift', SHIFT_SECONDS):g} s) "
                 f"of its runs' {_measure(df).name}. B/A = SGM(B) / SGM(A), above 1: B slower; "
                 f"CI: percentile bootstrap over instances ({df.attrs.get('resamples', RESAMPLES)} resamples); "
                 "Wilcoxon p: two-sided signed-rank test on the per-instance times.")
    return "\n".join(lines)


def comparison_caption(df: pd.DataFrame) -> str:
    """The LaTeX caption: the direction of the ratio, the shift, the bootstrap and the test."""
    shift, resamples = df.attrs.get("shift", SHIFT_SECONDS), df.attrs.get("resamples", RESAMPLES)
    folders = ""
    if "folder_a" in df.attrs:
        folders = (rf" (A: \texttt{{{latex_escape(df.attrs['folder_a'])}}}, "
                   rf"B: \texttt{{{latex_escape(df.attrs['folder_b'])}}})")
    differences = (df.attrs.get("versions") or []) + (df.attrs.get("versions_unknown") or [])
    versions = (" Versions differ between A and B, or are not known: " + latex_escape("; ".join(differences)) + "."
                if differences else "")
    return (
        f"Results folder B against A{folders}, per puzzle, formulation and solver, over the instances run in "
        f"both. Per instance, the time is the shifted geometric mean (SGM) of its runs' {_measure(df).name} "
        f"in seconds ({latex_escape(_measure(df).meaning)}) "
        rf"with shift $s = {shift:g}$\,s; runs not solved count at the time limit, runs refused by a "
        "size-limited licence are left out. Ratio: SGM of B over SGM of A (above 1: B is slower), with a "
        rf"{_level(df) * 100:g}\,\% percentile bootstrap interval ({resamples} resamples of the instances). "
        r"$p$: two-sided paired Wilcoxon signed-rank test on the per-instance times. Answers changed: "
        "instances whose solved runs disagree (optimal against infeasible, or another objective). "
        "Solved only: instances solved in one folder and in no run of the other." + versions
    )


_LATEX_LAYOUT = (  # cell: (group heading, column heading); neighbours with a heading share it
    ("puzzle", ("", "Puzzle")), ("formulation", ("", "Formulation")), ("solver", ("", "Solver")),
    ("instances", ("", "Instances")), ("sgm_a", ("SGM [s]", "A")), ("sgm_b", ("SGM [s]", "B")),
    ("ratio", ("Ratio B/A", "value")), ("ci", ("Ratio B/A", "CI")), ("wilcoxon_p", ("", "$p$")),
    ("answer_changed", ("", "Answers changed")), ("solved_only_a", ("Solved only", "A")),
    ("solved_only_b", ("Solved only", "B")),
)


def _latex_header() -> list[str]:
    """Group headings over \\cmidrule's, then the column headings."""
    heads = [head for _, head in _LATEX_LAYOUT]
    top, rules, start = [], [], 0
    while start < len(heads):
        end = start
        while heads[start][0] and end + 1 < len(heads) and heads[end + 1][0] == heads[start][0]:
            end += 1
        if heads[start][0]:
            top.append(f"\\multicolumn{{{end - start + 1}}}{{c}}{{{latex_escape(heads[start][0])}}}")
            rules.append(f"\\cmidrule(lr){{{start + 1}-{end + 1}}}")
        else:
            top.append("")
        start = end + 1
    bottom = [h if h.startswith("$") else latex_escape(h) for _, h in heads]
    return ["    " + " & ".join(top) + " \\\\", "    " + " ".join(rules), "    " + " & ".join(bottom) + " \\\\"]


def comparison_latex(df: pd.DataFrame, label: str = "tab:comparison") -> str:
    """A booktabs ``table`` (needs ``\\usepackage{booktabs}``) ready to ``\\input``."""
    columns = [c for c, _ in _LATEX_LAYOUT]
    spec = "".join("l" if c in _LEFT_ALIGNED else "r" for c in columns)
    lines = ["% requires \\usepackage{booktabs}", "\\begin{table}[htbp]", "  \\centering", "  \\small",
             "  \\setlength{\\tabcolsep}{4pt}", f"  \\caption{{{comparison_caption(df)}}}", f"  \\label{{{label}}}",
             f"  \\begin{{tabular}}{{{spec}}}", "    \\toprule", *_latex_header(), "    \\midrule"]
    for _, row in df.iterrows():
        cells = _cells(row)
        lines.append("    " + " & ".join(latex_escape(cells[c]) for c in columns) + " \\\\")
    lines += ["    \\bottomrule", "  \\end{tabular}", "\\end{table}", ""]
    return fit_to_width("\n".join(lines))


def _write_atomically(path: Path, text: str) -> None:
    """Write atomically with the umask's mode (see `core.files`)."""
    write_text_atomic(path, text)


def write_comparison(df: pd.DataFrame, csv_path: str | Path | None = None,
                     latex_path: str | Path | None = None) -> list[Path]:
    """Write the comparison as CSV (full precision) and / or a booktabs LaTeX table, each
    atomically; returns the paths written."""
    written = []
    if csv_path is not None:
        _write_atomically(Path(csv_path), df.to_csv(index=False))
        written.append(Path(csv_path))
    if latex_path is not None:
        _write_atomically(Path(latex_path), comparison_latex(df))
        written.append(Path(latex_path))
    return written
