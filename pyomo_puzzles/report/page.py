"""A one-page Markdown report: what ran where, the summary table, and the figures."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from pyomo_puzzles.report import figures as figures_module
from pyomo_puzzles.report import tables

MAX_CELL = 160
"""Longer environment values are cut to this many characters (the full data is in its file)."""

FIGURE_CAPTIONS = {
    "runtime": "Wall time per instance (median over repeats, log scale), one panel per family; colour: "
               "solver, marker: formulation. An x marks a run not solved, drawn at the time limit (dashed line).",
    "performance_profile": "Performance profile (Dolan and Moré) per family: fraction of instances a "
                           "method solved within a factor tau of the best method's time; black: the virtual "
                           "best method (the best of all methods on each instance).",
    "cactus": "Instances solved within time t, per method, one panel per family; black: the virtual best method.",
    "scaling": "Wall time against instance size, one panel per family and kind of instance (the family's "
               "size unit); x: not solved (at the limit).",
    "variability": "Spread of the wall time over seeds and permutations: per instance and method, the range "
                   "(bar) and the median (marker).",
}


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


def summary_markdown(summary_df: pd.DataFrame) -> str:
    """The summary table (see `tables.summary`) as Markdown, numbers right-aligned."""
    cells = tables.formatted_summary(summary_df)
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


def figures_markdown(figure_paths: Sequence[Path], out_dir: Path) -> list[str]:
    """For each figure: a heading, its PNG embedded and a link to its PDF (relative to out_dir)."""
    given = {Path(p) for p in figure_paths}
    lines: list[str] = []
    for stem in _figure_stems(figure_paths):
        png, pdf = stem.with_name(stem.name + ".png"), stem.with_name(stem.name + ".pdf")
        title = stem.name.replace("_", " ").capitalize()
        lines += [f"### {title}", ""]
        if png in given or png.exists():
            lines.append(f"![{title}]({_relative(png, out_dir)})")
        if pdf in given or pdf.exists():
            lines.append(f"[PDF]({_relative(pdf, out_dir)})")
        caption = FIGURE_CAPTIONS.get(stem.name)
        lines += ["", caption, ""] if caption else [""]
    return lines


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


def _overview(results_dir: Path, runs: pd.DataFrame, shift: float = tables.SHIFT_SECONDS,
              par: float = 1.0) -> list[str]:
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
    lines += ["", tables.definitions(shift, par).replace("A run is solved", "A run is *solved*")]
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


def write_report(results_dir: Path, runs: pd.DataFrame, summary: pd.DataFrame, figures: list[Path],
                 environment: dict, out: Path, counts: pd.DataFrame | None = None,
                 shift: float = tables.SHIFT_SECONDS, par: float = 1.0) -> Path:
    """Write the Markdown report to `out`: title, overview, environment table, summary table
    (with any wrong answers listed), and the figures (PNG embedded, PDF linked,
    paths relative to the page). Returns `out`."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    env_rows = pd.DataFrame(flatten_environment(environment or {}), columns=["key", "value"])
    lines = ["# Solver comparison", "", *_overview(Path(results_dir), runs, shift, par), "",
             "## Environment", "", markdown_table(env_rows) if len(env_rows) else "(not recorded)", "",
             "## Summary", "", summary_markdown(summary) if len(summary) else "(no runs)", *_wrong_answers(runs), ""]
    if counts is not None and len(counts):
        lines += ["## Counts", "", "Solutions enumerated by no-good cuts (classes: up to the instance's "
                  "symmetry), against the instance's known figures where it has them.", "",
                  markdown_table(counts.drop(columns=["message"], errors="ignore")), ""]
    if figures:
        lines += ["## Figures", "", *figures_markdown(figures, out.parent)]
    tables._write_text(out, "\n".join(lines).rstrip() + "\n")
    return out


def build_report(runs: pd.DataFrame, results_dir: Path, environment: dict, out_dir: Path | None = None,
                 style: figures_module.FigureStyle | None = None) -> Path:
    """Everything from a runs table into `out_dir` (default ``results_dir/report``):
    summary.csv, summary.tex, the figures (figures/*.pdf|png) and report.md. Returns report.md."""
    results_dir = Path(results_dir)
    out_dir = Path(out_dir) if out_dir is not None else results_dir / "report"
    table = tables.summary(runs)
    tables.write_summary(table, out_dir / "summary.csv", out_dir / "summary.tex")
    paths = figures_module.all_figures(runs, style or figures_module.FigureStyle(), out_dir / "figures")
    return write_report(results_dir, runs, table, paths, environment, out_dir / "report.md")
