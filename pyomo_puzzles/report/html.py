"""A one-file HTML report: overview, environment, per-family summaries, figures, counts,
an optional comparison, and the solution pictures.

The page is self-contained so that it can be mailed or opened offline: no scripts, no
external style sheets or fonts, and every image embedded as a base64 ``data:`` URI. The
only links lead to the figures' PDFs next to it in the results folder.
"""

from __future__ import annotations

import base64
import html
import math
import os
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import quote

import pandas as pd

from pyomo_puzzles.core.files import write_text_atomic
from pyomo_puzzles.core.results import picture_run, picture_source
from pyomo_puzzles.report import family_tables, scores, tables
from pyomo_puzzles.report import counts as count_report
from pyomo_puzzles.report import formulations
from pyomo_puzzles.report.compare import versions_text
from pyomo_puzzles.report.figures import METHODS, view_sentence
from pyomo_puzzles.report.measure import DEFAULT, Statistics
from pyomo_puzzles.report.page import failures_markdown, figure_caption, flatten_environment, measurement_notes

TITLE = "Solver comparison"

STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", Arial, sans-serif;
       font-size: 16px; line-height: 1.45; color: #222; background: #fff;
       max-width: 1100px; margin: 0 auto; padding: 1rem 1.5rem; }
h1, h2, h3 { line-height: 1.2; }
h2 { border-bottom: 1px solid #ddd; padding-bottom: .2rem; margin-top: 2rem; }
code { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: .9em; }
.table-wrap { overflow-x: auto; margin: .5rem 0 1.2rem; }
table { border-collapse: collapse; font-size: .9rem; }
caption { caption-side: top; text-align: left; font-size: .9rem; color: #444; padding-bottom: .3rem; }
th, td { border: 1px solid #ccc; padding: .25rem .55rem; text-align: left; vertical-align: top; }
th { background: #f3f4f6; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
td small { color: #555; }
table.environment td { overflow-wrap: anywhere; }
table.compact { font-size: .78rem; }
table.compact th, table.compact td { padding: .2rem .35rem; }
table.compact td:first-child { overflow-wrap: anywhere; min-width: 12rem; max-width: 16rem; }
table.environment td:first-child { white-space: nowrap; }
figure { margin: 1.2rem 0; }
img { max-width: 100%; height: auto; }
figcaption { font-size: .9rem; color: #444; }
.pictures { display: flex; flex-wrap: wrap; gap: 1rem; }
.pictures figure { margin: 0; max-width: 100%; }
"""


# --- cells and tables ------------------------------------------------------------------------

def cell_text(value: object) -> str:
    """A value as escaped cell text: empty for None / NaN, floats to about four digits."""
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA:
        return ""
    if isinstance(value, float):
        return html.escape(f"{value:.4g}")
    return html.escape(str(value))


def html_table(frame: pd.DataFrame, caption: str | None = None, css_class: str | None = None,
               right: Sequence[bool] | None = None) -> str:
    """A DataFrame (no index) as an HTML table in a horizontally scrolling box (for tables
    wider than the page); numeric columns right-aligned (or those `right` says, per column).
    Cells and headers are escaped here."""
    numeric = list(right) if right is not None else [
        pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(frame[c]) for c in frame.columns]
    # <wbr>: long snake_case headers may wrap at their underscores instead of widening the table
    head = "".join(f"<th>{html.escape(str(c)).replace('_', '_<wbr>')}</th>" for c in frame.columns)
    rows = []
    for row in frame.itertuples(index=False):
        cells = "".join(f'<td class="num">{cell_text(v)}</td>' if right else f"<td>{cell_text(v)}</td>"
                        for v, right in zip(row, numeric))
        rows.append(f"<tr>{cells}</tr>")
    class_attr = f' class="{html.escape(css_class)}"' if css_class else ""
    caption_html = f"<caption>{html.escape(caption)}</caption>" if caption else ""
    return (f'<div class="table-wrap"><table{class_attr}>{caption_html}<thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table></div>")


def png_data_uri(path: Path) -> str:
    """The PNG file as a ``data:image/png;base64,...`` URI."""
    return "data:image/png;base64," + base64.b64encode(Path(path).read_bytes()).decode("ascii")


def _section(heading: str, body: str) -> str:
    return f"<section><h2>{html.escape(heading)}</h2>\n{body}\n</section>"


def _distinct(runs: pd.DataFrame, column: str) -> list[str]:
    if column not in runs.columns:
        return []
    return sorted(runs[column].dropna().astype(str).unique())


# --- sections --------------------------------------------------------------------------------

def _marked(text: str) -> str:
    """Escaped text with Markdown's **bold** as <strong>."""
    parts = html.escape(text).split("**")
    return "".join(f"<strong>{part}</strong>" if k % 2 else part for k, part in enumerate(parts))


def overview_html(results_dir: Path, runs: pd.DataFrame, stats: Statistics = DEFAULT) -> str:
    """How many runs, instances, solvers, formulations and families, and where they are."""
    counts = [("runs", len(runs))] + [(f"{name}s", len(_distinct(runs, name)))
                                      for name in ("instance", "solver", "formulation")]
    items = "".join(f"<li>{n} {html.escape(what)}</li>" for what, n in counts)
    families = ", ".join(_distinct(runs, "puzzle")) or "none"
    return (f"<p>Results folder: <code>{html.escape(str(results_dir))}</code></p>\n<ul>{items}"
            f"<li>families: {html.escape(families)}</li></ul>\n"
            f"<p>{html.escape(tables.definitions(stats))}</p>"
            + "".join(f"\n<p>{_marked(note)}</p>" for note in measurement_notes(runs, stats))
            + data_problems_html(tables.data_problems(runs), tables.DATA_PROBLEMS_NOTE)
            + wrong_answers_html(runs) + failures_html(runs) + matrix_check_html(runs))


def matrix_check_html(runs: pd.DataFrame) -> str:
    """Whether the solvers of each instance and formulation got the same matrix, or nothing."""
    compared, differing = tables.matrix_disagreements(runs)
    if not compared:
        return ""
    groups = f"{compared} group" + ("" if compared == 1 else "s")
    if not differing:
        return f"\n<p><strong>One matrix:</strong> in each of the {groups} of runs compared, {tables.MATRIX_NOTE}.</p>"
    items = "".join(f"<li>{html.escape(line)}</li>" for line in differing)
    return (f'\n<p class="wrong"><strong>Different matrices</strong> in {len(differing)} of {groups} of runs, '
            f"where {html.escape(tables.MATRIX_NOTE)}:</p>\n<ul>{items}</ul>")


def failures_html(runs: pd.DataFrame) -> str:
    """The runs that ended in an error or at the memory limit, with their messages (as the
    Markdown report lists them), or nothing."""
    lines = failures_markdown(runs)
    if not lines:
        return ""
    items = "".join(f"<li>{html.escape(line.removeprefix('- '))}</li>" for line in lines[3:])
    return f'\n<p class="wrong">{_marked(lines[1])}</p>\n<ul>{items}</ul>'


def wrong_answers_html(runs: pd.DataFrame) -> str:
    """The runs whose answer is wrong (`tables.wrong_answers`), or nothing."""
    if runs.empty:
        return ""
    reasons = tables.wrong_answers(runs)
    bad = runs[reasons.notna()]
    if bad.empty:
        return ""
    items = "".join(f"<li>{html.escape(str(row['instance']))}: {html.escape(str(row['solver']))} / "
                    f"{html.escape(str(row['formulation']))} says {html.escape(str(row['status']))}: "
                    f"{html.escape(reasons[index])}</li>" for index, row in bad.iterrows())
    count = f"{len(bad)} wrong answer" + ("" if len(bad) == 1 else "s")
    return (f'\n<p class="wrong"><strong>{count}</strong> (not solved in any statistic or figure):</p>'
            f"\n<ul>{items}</ul>")


def data_problems_html(problems: pd.DataFrame, note: str) -> str:
    """Known answers proved wrong (rows: instance, problem), or nothing."""
    if problems.empty:
        return ""
    items = "".join(f"<li>{html.escape(str(row.instance))}: {html.escape(str(row.problem))}</li>"
                    for row in problems.itertuples())
    count = f"{len(problems)} data problem" + ("" if len(problems) == 1 else "s")
    return f'\n<p class="data-problems"><strong>{count}</strong> ({html.escape(note)}):</p>\n<ul>{items}</ul>'


def environment_html(environment: dict) -> str:
    """The environment record as a key / value table (nested keys flattened as in report.md)."""
    rows = pd.DataFrame(flatten_environment(environment or {}), columns=["key", "value"])
    return html_table(rows, css_class="environment") if len(rows) else "<p>(not recorded)</p>"


def family_summaries(runs: pd.DataFrame, summary: pd.DataFrame,
                     stats: Statistics = DEFAULT) -> dict[str, tuple[pd.DataFrame, str]]:
    """Per family, a table: one row per formulation, one column per solver, cells "solved/runs"
    and the SGM time, with the sentence saying over which instances (as the LaTeX family
    tables, `family_tables.shown`). Taken from `summary` when it is
    `family_tables.family_summary`'s table, else computed from `runs` by that function."""
    if set(family_tables.COLUMNS) <= set(summary.columns):
        long = summary[list(family_tables.COLUMNS)]
    elif {"puzzle", "solver", "formulation", "instance"} <= set(runs.columns):
        long = family_tables.family_summary(runs, stats)
    else:
        return {}
    grids = {}
    for puzzle in sorted(long["puzzle"].unique()):
        rows, coverage = family_tables.shown(long, puzzle)
        grids[str(puzzle)] = (_solver_grid(rows), coverage)
    return grids


def _solver_grid(rows: pd.DataFrame) -> pd.DataFrame:
    """Formulations down, solvers across; an empty cell where a pair did not run."""
    cells = rows.assign(cell=[_summary_cell(r.solved, r.runs, r.sgm_time) for r in rows.itertuples()])
    grid = cells.pivot(index="formulation", columns="solver", values="cell").sort_index()
    return grid.reindex(sorted(grid.columns), axis=1)


def _summary_cell(solved: int, runs: int, sgm: float) -> str:
    """Escaped cell markup: "solved/runs" over the SGM time."""
    return f"{int(solved)}/{int(runs)}<br><small>{html.escape(tables.format_seconds(sgm))} s</small>"


def _grid_html(puzzle: str, grid: pd.DataFrame, coverage: str = "") -> str:
    head = "<th>formulation</th>" + "".join(f"<th>{html.escape(str(s))}</th>" for s in grid.columns)
    body = "".join(
        f"<tr><th>{html.escape(str(formulation))}</th>"
        + "".join(f'<td class="num">{cell if isinstance(cell, str) else ""}</td>' for cell in row) + "</tr>"
        for formulation, row in zip(grid.index, grid.itertuples(index=False)))
    note = f"<p>{html.escape(coverage)}</p>" if coverage else ""
    return (f"<h3>{html.escape(puzzle)}</h3>\n{note}<div class=\"table-wrap\"><table>"
            f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>")


def summary_html(runs: pd.DataFrame, summary: pd.DataFrame, stats: Statistics = DEFAULT) -> str:
    """One solver-by-formulation table per family."""
    grids = family_summaries(runs, summary, stats)
    if not grids:
        return "<p>(no runs)</p>"
    return (f"<p>Per family: runs solved / runs, and below it the SGM {html.escape(stats.name)}, per solver "
            f"(columns) and formulation (rows). {html.escape(stats.sentence())}</p>\n" + "\n".join(_grid_html(p, g, c) for p, (g, c) in grids.items()))


def _relative_href(path: Path, start: Path) -> str:
    return quote(Path(os.path.relpath(Path(path).resolve(), start.resolve())).as_posix())


def figure_html(png: Path, out_dir: Path, stats: Statistics = DEFAULT, view: str = METHODS) -> str:
    """A figure's PNG embedded, its caption (file name and what it shows in the resolved
    `view`), and a link to its PDF if there is one."""
    if not png.exists():
        return f"<p>Figure {html.escape(png.name)} is missing.</p>"
    pdf = png.with_suffix(".pdf")
    link = f' (<a href="{html.escape(_relative_href(pdf, out_dir))}">PDF</a>)' if pdf.exists() else ""
    text = figure_caption(png.stem, stats, view)
    caption = f": {html.escape(text)}" if text else ""
    return (f'<figure class="figure"><img src="{png_data_uri(png)}" alt="{html.escape(png.name)}">'
            f"<figcaption>{html.escape(png.name)}{link}{caption}</figcaption></figure>")


def figures_html(figure_paths: Sequence[Path], out_dir: Path, stats: Statistics = DEFAULT,
                 view: str | None = None) -> str:
    """Every PNG among `figure_paths`, in the order given, after the resolved `view` they were
    drawn in (None: the methods view, not named)."""
    pngs = [Path(p) for p in figure_paths if Path(p).suffix.lower() == ".png"]
    named = f"<p>{html.escape(view_sentence(view))}</p>\n" if view and pngs else ""
    return named + ("\n".join(figure_html(p, out_dir, stats, view or METHODS) for p in pngs)
                    or "<p>(no figures)</p>")


def scores_html(runs: pd.DataFrame, stats: Statistics = DEFAULT) -> str:
    """What each selected score means, then one table per family (see `scores`)."""
    table, notes = scores.score_table(runs, stats)
    explained = "".join(f"<li>{html.escape(text)}</li>" for text in scores.explanations(stats))
    parts = [f"<p>{html.escape(stats.sentence())} Per family, over the instances every scored method has a time on (a note names any method or instance left out); the "
             "virtual best takes the best time of any method on every instance.</p>", f"<ul>{explained}</ul>"]
    parts += [f"<p>{html.escape(note)}</p>" for note in notes]
    for puzzle in sorted(table["puzzle"].unique()):
        cells = scores.formatted(table[table["puzzle"] == puzzle])
        parts.append(f"<h3>{html.escape(puzzle)}</h3>" + html_table(cells, right=[c != "Method" for c in cells.columns]))
    return "\n".join(parts)


def picture_name(path: Path, results_dir: Path) -> str:
    """The instance a picture shows: its path under ``pictures/`` without ``.png``."""
    try:
        return Path(path).relative_to(Path(results_dir) / "pictures").with_suffix("").as_posix()
    except ValueError:
        return Path(path).stem


def pictures_html(pictures: Sequence[Path], results_dir: Path, runs: pd.DataFrame | None = None) -> str:
    """Each solution picture embedded, named by its instance and by the run it shows: the
    best checked run of the instance (`core.results.picture_run`, as the pictures job chose)."""
    figures = []
    for path in sorted(map(Path, pictures)):
        name = picture_name(path, results_dir)
        caption = html.escape(name)
        if runs is not None and len(runs) and "instance" in runs:
            chosen = picture_run(runs[runs["instance"] == name].to_dict("records"))
            caption += "<br>" + html.escape(f"from {picture_source(chosen)}" if chosen else "no checked solution")
        figures.append(f'<figure class="picture"><img src="{png_data_uri(path)}" alt="{html.escape(name)}">'
                       f"<figcaption>{caption}</figcaption></figure>")
    return f'<div class="pictures">{"".join(figures)}</div>'


def comparison_html(comparison: pd.DataFrame) -> str:
    """The comparison with another results folder, after what differs in their software."""
    lines = versions_text(comparison)
    versions = ""
    if lines:
        items = "".join(f"<li>{html.escape(line.removeprefix('  - '))}</li>" for line in lines[1:])
        versions = f"<p>{html.escape(lines[0])}</p>" + (f"<ul>{items}</ul>" if items else "")
    return versions + (html_table(comparison) if len(comparison) else "<p>(empty)</p>")


def left_out_html(left_out: Sequence[str] | None) -> str:
    """The cells of the matrix left out, each with why (`page.left_out_markdown`), or nothing."""
    if not left_out:
        return ""
    items = "".join(f"<li>{html.escape(line)}</li>" for line in left_out)
    count = f"{len(left_out)} cell" + ("" if len(left_out) == 1 else "s")
    return (f"\n<p><strong>Left out</strong> ({count} of the matrix: the method cannot answer the instance; no "
            f"runs, in no table or score):</p>\n<ul>{items}</ul>")


# --- the page --------------------------------------------------------------------------------

def render_html(results_dir: Path, runs: pd.DataFrame, summary: pd.DataFrame, figure_paths: Sequence[Path],
                environment: dict, out_dir: Path, counts: pd.DataFrame | None = None,
                comparison: pd.DataFrame | None = None, pictures: Sequence[Path] | None = None,
                stats: Statistics = DEFAULT, left_out: Sequence[str] | None = None,
                models: pd.DataFrame | None = None, view: str | None = None) -> str:
    """The whole page as a string (see `write_html`)."""
    sections = [_section("Overview", overview_html(results_dir, runs, stats) + left_out_html(left_out)),
                _section("Summary per family", summary_html(runs, summary, stats))]
    if stats.scores and len(runs):
        sections.append(_section("Scores", scores_html(runs, stats)))
    if models is not None and len(models):
        sections.append(_section("Formulations", _formulations_html(models, runs, stats)))
    sections.append(_section("Figures", figures_html(figure_paths, out_dir, stats, view)))
    if counts is not None and len(counts):
        agreeing = count_report.agreement(counts)
        # the explanations as paragraphs: a caption is as wide as its table, and a wide table scrolls
        body = f"<p>{html.escape(count_report.INTRO)}</p>\n" + html_table(count_report.shown(counts))
        body += data_problems_html(count_report.data_problems(counts), count_report.DATA_PROBLEMS_NOTE)
        if len(agreeing):
            body += ("\n<p>Agreement of the methods that counted one instance (complete counts: solutions, classes "
                     "and digest).</p>\n" + html_table(agreeing))
        sections.append(_section("Counts", body))
    if comparison is not None:
        sections.append(_section("Comparison", comparison_html(comparison)))
    if pictures:
        sections.append(_section("Solutions", "<p>Each instance drawn from its best checked run (the best objective; a "
                                              "proven optimum first).</p>\n" + pictures_html(pictures, results_dir, runs)))
    sections.append(_section("Environment", environment_html(environment)))  # reference: last
    return ('<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{html.escape(TITLE)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
            f"<h1>{html.escape(TITLE)}</h1>\n" + "\n".join(sections) + "\n</body>\n</html>\n")


def _formulations_html(models: pd.DataFrame, runs: pd.DataFrame, stats: Statistics) -> str:
    body = f"<p>{html.escape(formulations.caption(models))}</p>\n"
    for note, compared in ((formulations.COMPARISON_NOTE, formulations.comparison(models, runs, stats)),
                           (formulations.SOLVER_COMPARISON_NOTE, formulations.solver_comparison(models, runs, stats))):
        if len(compared):  # a dozen columns: the compact style keeps them within the page
            cells = formulations.comparison_cells(compared, stats)
            body += (f"<p>{html.escape(note)}</p>\n" + html_table(
                cells, css_class="compact", right=[c not in ("Family", "Formulation", "Solver") for c in cells]) + "\n")
    return body + html_table(formulations.shown(models), css_class="compact")


def _write_atomic(path: Path, text: str) -> None:
    """Write atomically with the umask's mode (see `core.files`)."""
    write_text_atomic(path, text)


def write_html(results_dir: Path, runs: pd.DataFrame, summary: pd.DataFrame, figure_paths: Sequence[Path],
               environment: dict, out: Path, counts: pd.DataFrame | None = None,
               comparison: pd.DataFrame | None = None, pictures: Sequence[Path] | None = None,
               stats: Statistics = DEFAULT, left_out: Sequence[str] | None = None,
               models: pd.DataFrame | None = None, view: str | None = None) -> Path:
    """Write the self-contained HTML report to `out` (normally ``report.html``) and return it.

    Sections: overview (with the cells `left_out` when they ran), environment, a
    solver-by-formulation summary per family, the figures (each PNG of `figure_paths`
    embedded, its PDF linked, after the resolved `view` they were drawn in), the counts and the `comparison` table when given, and the
    solution `pictures` (PNG paths) named by instance.
    """
    out = Path(out)
    page = render_html(Path(results_dir), runs, summary, figure_paths, environment, out.parent,
                       counts=counts, comparison=comparison, pictures=pictures, stats=stats, left_out=left_out,
                       models=models, view=view)
    _write_atomic(out, page)
    return out
