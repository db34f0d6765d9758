"""The report package on a hand-made runs table whose numbers are worked out by hand."""

from __future__ import annotations

import math
import shutil
import struct

import matplotlib as mpl
import numpy as np
import pandas as pd
import pytest

from pyomo_puzzles.core import pictures
from pyomo_puzzles.report import catalogue, figures, page, tables
from pyomo_puzzles.report.measure import Statistics

LIMIT = 10.0


def run(instance: str, solver: str, formulation: str, status: str, wall: float, checked=None, repeat: int = 1,
        **extra) -> dict:
    """A run whose solver took all of its wall time: every time measure gives `wall` (the
    measures themselves are tested in test_time_measure.py)."""
    row = {"puzzle": instance.split("/")[0], "instance": instance, "formulation": formulation, "solver": solver,
           "repeat": repeat, "solver_version": f"{solver} 1.0", "status": status, "checked": checked,
           "killed": False, "wall_time": wall, "build_time": 0.0, "solver_time": wall, "nodes": np.nan,
           "objective": np.nan, "bound": np.nan, "time_limit": LIMIT, "threads": 1, "message": "",
           "size": np.nan, "size_label": None, "known_solvable": None, "known_objective": np.nan}
    row.update(extra)
    return row


@pytest.fixture
def runs() -> pd.DataFrame:
    """Method A = highs / placement, B = cbc / cell_assignment, three packing instances.

    censored times  A: p1 1.0, p2 3.0, p3 7.0 (infeasible: solved)
                    B: p1 0.5, p2 timeout -> 10, p3 error -> 10
    """
    return pd.DataFrame([
        run("packing/p1", "highs", "placement", "optimal", 1.0, True, known_solvable=True, size=4.0,
            size_label="board cells"),
        run("packing/p2", "highs", "placement", "optimal", 3.0, True, known_solvable=True, known_objective=5.0,
            objective=5.0 + 5e-7, size=6.0, size_label="board cells"),
        run("packing/p3", "highs", "placement", "infeasible", 7.0, None, known_solvable=False, size=8.0,
            size_label="board cells"),
        run("packing/p1", "cbc", "cell_assignment", "optimal", 0.5, True, known_solvable=True, size=4.0,
            size_label="board cells"),
        run("packing/p2", "cbc", "cell_assignment", "time_limit", 10.4, None, killed=True, known_solvable=True,
            known_objective=5.0, size=6.0, size_label="board cells"),
        run("packing/p3", "cbc", "cell_assignment", "error", 0.2, None, known_solvable=False, size=8.0,
            size_label="board cells"),
    ])


def row_of(summary: pd.DataFrame, solver: str) -> pd.Series:
    rows = summary[summary["solver"] == solver]
    assert len(rows) == 1
    return rows.iloc[0]


# --- definitions ---------------------------------------------------------------------------

def test_solved_needs_a_checked_optimum_or_a_proof_of_infeasibility():
    frame = pd.DataFrame({"status": ["optimal", "optimal", "optimal", "infeasible", "feasible", "time_limit", "error"],
                          "checked": [True, False, None, None, True, True, None]})
    assert tables.solved(frame).tolist() == [True, False, False, True, False, False, False]


def test_censored_time_is_the_measured_time_if_solved_else_the_limit(runs):
    assert tables.censored_time(runs).tolist() == [1.0, 3.0, 7.0, 0.5, 10.0, 10.0]


def test_a_run_without_a_limit_is_censored_at_the_largest_limit_of_the_table():
    frame = pd.DataFrame([run("packing/a", "glpk", "placement", "time_limit", 3.0, time_limit=20.0),
                          run("packing/b", "glpk", "placement", "error", 1.0, time_limit=None)])
    assert tables.censored_time(frame).tolist() == [20.0, 20.0]


def test_shifted_geometric_mean_by_hand():
    assert tables.SHIFT_SECONDS == 1.0
    # (1+1)(3+1)(7+1) = 64, cube root 4, minus the shift
    assert tables.shifted_geometric_mean([1.0, 3.0, 7.0]) == pytest.approx(3.0, abs=1e-12)
    assert tables.shifted_geometric_mean([0.0, 0.0]) == pytest.approx(0.0, abs=1e-12)
    assert tables.shifted_geometric_mean([3.0], shift=2.0) == pytest.approx(3.0)
    assert math.isnan(tables.shifted_geometric_mean([]))
    assert math.isnan(tables.shifted_geometric_mean([1.0, math.nan]))


# --- summary -------------------------------------------------------------------------------

def test_licence_and_memory_limits_are_counted_apart():
    """A run a size-limited licence refused says nothing about speed: counted, not timed.
    A memory-limited run is unsolved and counts at the time limit like a timeout."""
    frame = pd.DataFrame([run("packing/a", "gurobi", "placement", "optimal", 1.0, checked=True, time_limit=10.0),
                          run("packing/b", "gurobi", "placement", "licence_limit", 0.1, time_limit=10.0),
                          run("packing/c", "gurobi", "placement", "memory_limit", 2.0, time_limit=10.0)])
    row = tables.summary(frame).iloc[0]
    assert (row["runs"], row["solved"], row["licence_limits"], row["memory_limits"], row["errors"]) == (3, 1, 1, 1, 0)
    assert row["sgm_time"] == pytest.approx((2 * 11) ** 0.5 - 1)  # 1 s and 10 s (memory limit), shift 1
    assert row["median_time"] == pytest.approx(5.5)



def test_summary_numbers_by_hand(runs):
    summary = tables.summary(runs)
    assert list(summary.columns) == list(tables.SUMMARY_COLUMNS)
    assert summary["solver"].tolist() == ["cbc", "highs"]  # sorted
    a, b = row_of(summary, "highs"), row_of(summary, "cbc")
    assert (a["formulation"], a["runs"], a["instances"], a["solved"], a["timeouts"], a["errors"]) == \
        ("placement", 3, 3, 3, 0, 0)
    assert (b["formulation"], b["runs"], b["instances"], b["solved"], b["timeouts"], b["errors"]) == \
        ("cell_assignment", 3, 3, 1, 1, 1)
    assert a["sgm_time"] == pytest.approx(64 ** (1 / 3) - 1)          # = 3
    assert b["sgm_time"] == pytest.approx((1.5 * 11 * 11) ** (1 / 3) - 1)  # 0.5, 10, 10 shifted by 1
    assert b["sgm_time"] == pytest.approx(4.6619, abs=1e-4)  # 5.6619 ** 3 = 181.50
    assert a["median_time"] == 3.0
    assert b["median_time"] == 10.0
    # A: p1 solvable & optimal, p2 objective 5 + 5e-7 (within 1e-6), p3 unsolvable & infeasible
    assert (a["known_checked"], a["known_mismatch"]) == (3, 0)
    # B: only p1 gave an answer (the timeout and the error are not judged)
    assert (b["known_checked"], b["known_mismatch"]) == (1, 0)


def test_known_answer_mismatches():
    frame = pd.DataFrame([
        run("x/solvable_said_infeasible", "s", "f", "infeasible", 1.0, None, known_solvable=True),
        run("x/unsolvable_said_optimal", "s", "f", "optimal", 1.0, None, known_solvable=False),  # nothing checked
        run("x/wrong_objective", "s", "f", "optimal", 1.0, True, known_objective=5.0, objective=6.0),
        run("x/close_objective", "s", "f", "optimal", 1.0, True, known_objective=5.0, objective=5.0 + 5e-7),
        run("x/objective_known_said_infeasible", "s", "f", "infeasible", 1.0, None, known_objective=5.0),
        run("x/timeout", "s", "f", "time_limit", 10.0, None, known_solvable=True),
        run("x/nothing_known", "s", "f", "optimal", 1.0, True),
        run("x/unsolvable_said_infeasible", "s", "f", "infeasible", 1.0, None, known_solvable=False),
        # a checked solution proves the known answer wrong: a data problem, which judges no run
        run("x/unsolvable_but_checked", "s", "f", "optimal", 1.0, True, known_solvable=False),
    ])
    assert tables.known_agreement(frame).tolist() == [
        "mismatch", "mismatch", "mismatch", "agree", "mismatch", None, None, "agree", None]
    row = tables.summary(frame).iloc[0]
    assert (row["known_checked"], row["known_mismatch"]) == (2, 4)


def test_write_summary_csv_and_booktabs_latex(runs, tmp_path):
    summary = tables.summary(runs)
    csv, tex = tables.write_summary(summary, tmp_path / "summary.csv", tmp_path / "tables" / "summary.tex")
    back = pd.read_csv(csv)
    assert back["solver"].tolist() == ["cbc", "highs"]
    assert back["sgm_time"].tolist() == pytest.approx(summary["sgm_time"].tolist())
    text = tex.read_text()
    for rule in ("\\toprule", "\\midrule", "\\bottomrule", "\\begin{table}", "\\end{table}", "\\label{",
                 "\\caption{"):
        assert rule in text
    assert text.index("\\toprule") < text.index("\\midrule") < text.index("\\bottomrule")
    assert "$s = 1$" in text and "shift" in text and "count at the time limit" in text
    assert "cell\\_assignment" in text and "cell_assignment" not in text.replace("cell\\_assignment", "")
    # one body row per method, with the rounded hand-computed times
    body = text[text.index("\\midrule"):text.index("\\bottomrule")].splitlines()[1:]
    assert body[0].split("&")[0].strip() == "cbc" and "4.66" in body[0] and "10.0" in body[0]
    assert body[1].split("&")[0].strip() == "highs" and "3.00" in body[1]
    assert text.count("\\\\") == 2 + 2  # two header rows, two body rows


def test_latex_escape():
    assert tables.latex_escape("a_b & 50% #1 $x$") == r"a\_b \& 50\% \#1 \$x\$"


# --- figure data ---------------------------------------------------------------------------

def test_performance_profile_by_hand(runs):
    # best: p1 0.5 (B), p2 3 (A), p3 7 (A). Ratios A: 2, 1, 1. B: 1, inf, inf.
    data = figures.performance_profile_data(runs, taus=[1.0, 1.5, 2.0, 100.0])
    got = {(m, t): f for m, t, f in zip(data["method"], data["tau"], data["fraction"])}
    a, b = "highs / placement", "cbc / cell_assignment"
    assert got[(a, 1.0)] == pytest.approx(2 / 3)
    assert got[(a, 1.5)] == pytest.approx(2 / 3)
    assert got[(a, 2.0)] == pytest.approx(1.0)
    assert got[(b, 1.0)] == pytest.approx(1 / 3)
    assert got[(b, 100.0)] == pytest.approx(1 / 3)  # unsolved never count
    default = figures.performance_profile_data(runs)
    assert sorted(default["tau"].unique()) == [1.0, 2.0]  # breakpoints: 1 and each finite ratio


def test_performance_profile_leaves_out_instances_a_method_does_not_apply_to(runs):
    # was: an instance a formulation does not apply to (no run) counted as a failure
    fewer = runs[~((runs["solver"] == "highs") & (runs["instance"] == "packing/p1"))]
    data = figures.performance_profile_data(fewer, taus=[1.0])
    by_method = data.set_index("method")
    assert by_method.loc["highs / placement", "fraction"] == pytest.approx(2 / 2)  # p2, p3 best; p1 not run
    assert tuple(by_method.loc["highs / placement", ["instances", "of"]]) == (2, 3)
    assert by_method.loc["cbc / cell_assignment", "fraction"] == pytest.approx(1 / 3)  # p1 best, p2 and p3 unsolved
    ratios = figures.performance_ratios(fewer).set_index(["instance", "method"])
    assert not ratios.loc[("packing/p1", "highs / placement"), "applies"]
    assert np.isnan(ratios.loc[("packing/p1", "highs / placement"), "ratio"])
    assert np.isinf(ratios.loc[("packing/p2", "cbc / cell_assignment"), "ratio"])  # ran, not solved


def test_cactus_data_by_hand(runs):
    data = figures.cactus_data(runs)
    a = data[data["method"] == "highs / placement"]
    b = data[data["method"] == "cbc / cell_assignment"]
    assert a["solved"].tolist() == [1, 2, 3] and a["time"].tolist() == [1.0, 3.0, 7.0]
    assert b["solved"].tolist() == [1] and b["time"].tolist() == [0.5]
    assert set(data["puzzle"]) == {"packing"}


def test_repeats_are_combined_by_median_and_majority():
    frame = pd.DataFrame([
        run("packing/q", "highs", "placement", "optimal", 1.0, True, repeat=1),
        run("packing/q", "highs", "placement", "optimal", 2.0, True, repeat=2),
        run("packing/q", "highs", "placement", "optimal", 6.0, True, repeat=3),
        run("packing/q", "cbc", "placement", "optimal", 4.0, True, repeat=1),
        run("packing/q", "cbc", "placement", "time_limit", 10.1, None, repeat=2),
        run("packing/q", "cbc", "placement", "time_limit", 10.1, None, repeat=3),
    ])
    times = figures.instance_times(frame).set_index("method")
    assert times.loc["highs / placement", "time"] == 2.0 and times.loc["highs / placement", "solved"]
    assert times.loc["cbc / placement", "time"] == 10.0 and not times.loc["cbc / placement", "solved"]
    assert times.loc["cbc / placement", "repeats"] == 3


# --- figures -------------------------------------------------------------------------------

def _png_width(path) -> int:
    with open(path, "rb") as handle:
        head = handle.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">I", head[16:20])[0]


def _assert_pdf_and_png(paths, stem) -> None:
    assert [p.name for p in paths] == [f"{stem.name}.pdf", f"{stem.name}.png"]
    pdf, png = paths
    assert pdf.stat().st_size > 1000 and pdf.read_bytes()[:5] == b"%PDF-"
    assert png.stat().st_size > 1000
    assert _png_width(png) == int(418.25 / 72.27 * 200)  # text width at 200 dpi


@pytest.mark.parametrize("draw", [figures.runtime_per_instance, figures.performance_profile, figures.cactus,
                                  figures.scaling], ids=lambda f: f.__name__)  # variability: below
def test_figures_write_pdf_and_png(runs, tmp_path, draw):
    stem = tmp_path / "figs" / draw.__name__
    before = mpl.rcParams["font.size"]
    _assert_pdf_and_png(draw(runs, figures.FigureStyle(font_size=before + 1), stem), stem)
    assert mpl.rcParams["font.size"] == before  # the style does not leak into global rcParams


@pytest.fixture
def seeded(runs) -> pd.DataFrame:
    """The runs table twice more with other seeds and times (the variability figure's case)."""
    return pd.concat([runs.assign(seed=1), runs.assign(seed=2, wall_time=runs["wall_time"] * 1.5),
                      runs.assign(seed=3, wall_time=runs["wall_time"] * 0.7)], ignore_index=True)


@pytest.mark.parametrize("name, draw", catalogue.FIGURES, ids=[name for name, _ in catalogue.FIGURES])
@pytest.mark.parametrize("width, size, view", [(418.25, 9, "methods"), (345.0, 11, "methods"),
                                               (455.24, 10, "methods"), (418.25, 9, "formulations"),
                                               (345.0, 11, "formulations")])
def test_figures_are_the_text_width_in_the_font_size_and_inside(seeded, tmp_path, name, draw, width, size, view):
    style = figures.FigureStyle(text_width_pt=width, font_size=size, view=view)
    seen = []
    figures.INSPECTORS.append(lambda figure: seen.append((figure.get_figwidth(), figures.layout_problems(figure, style))))
    try:
        paths = draw(seeded, style, tmp_path / name)
    finally:
        figures.INSPECTORS.pop()
    assert len(seen) == 1 and len(paths) == 2
    figure_width, problems = seen[0]
    assert figure_width == pytest.approx(width / 72.27) and problems == []
    assert _png_width(paths[1]) == int(width / 72.27 * 200)


def test_one_colour_per_solver_in_every_figure_and_folder():
    """Colour = solver, fixed for the shipped solvers: the same whatever else was run."""
    assert figures.solver_colour("highs") != figures.solver_colour("scip")
    assert len({figures.solver_colour(s) for s in figures.SOLVER_COLOUR_INDEX}) == len(figures.SOLVER_COLOUR_INDEX)
    one = figures.encoding(pd.DataFrame([run("packing/a", "scip", "placement", "optimal", 1.0, True)]),
                           figures.FigureStyle())
    two = figures.encoding(pd.DataFrame([run("packing/a", s, "placement", "optimal", 1.0, True)
                                         for s in ("highs", "cbc", "scip")]), figures.FigureStyle())
    assert one.spec("packing", "scip", "placement")["color"] == two.spec("packing", "scip", "placement")["color"]


def test_figures_select_order_and_label_methods(runs, tmp_path):
    style = figures.FigureStyle(solvers=["cbc", "highs"], formulations=["placement"], labels={"highs": "HiGHS"})
    codes = figures.encoding(figures.select_runs(runs, style), style)
    assert codes.solvers == ["highs"] and codes.formulations == {"packing": ["placement"]}
    assert codes.label("highs") == "HiGHS"
    labels = []
    figures.INSPECTORS.append(lambda figure: labels.extend(t.get_text() for t in figure.legends[0].get_texts()))
    try:
        figures.cactus(runs, style, tmp_path / "cactus")
    finally:
        figures.INSPECTORS.pop()
    assert "HiGHS" in labels and "cbc" not in labels and "cell_assignment" not in labels


def test_runtime_figure_tells_errors_from_time_outs(runs, tmp_path):
    # was: an error drawn as a time-out mark. B on p2 ran out of time, B on p3 failed.
    data = figures.instance_times(runs).set_index(["instance", "method"])
    b = "cbc / cell_assignment"
    assert not data.loc[("packing/p2", b), "error"] and data.loc[("packing/p3", b), "error"]
    assert not data["error"][data["solved"]].any()
    drawn = []

    def markers(figure):
        for ax in figure.axes:
            for collection in ax.collections:
                drawn.append((collection.get_paths()[0].vertices.round(3).tobytes(), len(collection.get_offsets())))
        drawn.append(("legend", [t.get_text() for t in figure.legends[0].get_texts()]))

    figures.INSPECTORS.append(markers)
    try:
        figures.runtime_per_instance(runs, figures.FigureStyle(), tmp_path / "runtime")
    finally:
        figures.INSPECTORS.pop()
    assert figures.ERROR_LABEL in drawn[-1][1] and figures.TIMEOUT_LABEL in drawn[-1][1]
    from matplotlib.markers import MarkerStyle

    def shape(marker):
        return MarkerStyle(marker).get_path().transformed(MarkerStyle(marker).get_transform()).vertices

    counts = {}
    for vertices, n in drawn[:-1]:
        for name, marker in (("error", figures.ERROR_MARKER), ("timeout", figures.TIMEOUT_MARKER)):
            if n and vertices == shape(marker).round(3).tobytes():
                counts[name] = counts.get(name, 0) + n
    assert counts == {"error": 1, "timeout": 1}, counts


@pytest.fixture
def two_families_with_dlx() -> pd.DataFrame:
    """Packing and queens, each with an integer program on HiGHS and its dlx reference method,
    whose runs are filed under the formulation exact_cover in both families."""
    return pd.DataFrame([
        run("packing/a", "highs", "placement", "optimal", 1.0, True),
        run("packing/a", "dlx", "exact_cover", "optimal", 0.1, True),
        run("packing/b", "highs", "placement", "time_limit", 10.2),
        run("packing/b", "dlx", "exact_cover", "optimal", 0.2, True),
        run("queens/eight", "highs", "rows", "optimal", 0.5, True),
        run("queens/eight", "dlx", "exact_cover", "optimal", 0.1, True),
    ])


def test_a_formulation_of_two_families_is_one_legend_entry_with_one_marker(two_families_with_dlx, tmp_path):
    # was: exact_cover listed twice, with two markers, one per family's dlx (every figure
    # builds its legend by the same function: one figure is drawn here)
    legends = []
    figures.INSPECTORS.append(lambda figure: legends.append(figure.legends[0]))
    try:
        figures.runtime_per_instance(two_families_with_dlx, figures.FigureStyle(), tmp_path / "runtime")
    finally:
        figures.INSPECTORS.pop()
    labels = [text.get_text() for text in legends[0].get_texts()]
    assert [labels.count(f) for f in ("exact_cover", "placement", "rows")] == [1, 1, 1], labels
    codes = figures.encoding(two_families_with_dlx, figures.FigureStyle())
    marker = codes.spec("packing", "dlx", "exact_cover")["marker"]
    assert codes.spec("queens", "dlx", "exact_cover")["marker"] == marker  # the same in both panels
    assert legends[0].legend_handles[labels.index("exact_cover")].get_marker() == marker


def test_no_formulation_is_marked_like_a_time_out():
    # was: the seventh formulation of a figure got the filled X, which reads as the time-out's x
    names = [f"f{k:02d}" for k in range(30)]
    frame = pd.DataFrame([run(f"p{k % 3}/a", "highs", name, "optimal", 1.0, True) for k, name in enumerate(names)])
    codes = figures.encoding(frame, figures.FigureStyle())
    marks = [codes.spec(f"p{k % 3}", "highs", name) for k, name in enumerate(names)]
    crosses = {figures.TIMEOUT_MARKER, figures.ERROR_MARKER, "x", "X", "+", "P"}
    assert not {m["marker"] for m in marks} & crosses
    assert len({(m["marker"], m["linestyle"]) for m in marks}) == len(names)  # no two alike


def test_scaling_names_the_error_mark_it_draws(runs, tmp_path):
    labels = []
    figures.INSPECTORS.append(lambda figure: labels.extend(t.get_text() for t in figure.legends[0].get_texts()))
    try:
        figures.scaling(runs, figures.FigureStyle(), tmp_path / "scaling")  # cbc fails on p3
    finally:
        figures.INSPECTORS.pop()
    assert figures.ERROR_LABEL in labels and figures.TIMEOUT_LABEL in labels


def test_scaling_joins_only_instances_of_one_kind(runs, tmp_path):
    one_size = runs.assign(size=5.0)  # every instance the same size: no series to draw
    assert figures.scaling(one_size, figures.FigureStyle(), tmp_path / "s1") == []
    kinds = runs.assign(size_label=["a", "b", "c", "a", "b", "c"])  # three kinds of one size each
    assert figures.scaling(kinds, figures.FigureStyle(), tmp_path / "s2") == []
    assert len(figures.scaling(runs, figures.FigureStyle(), tmp_path / "s3")) == 2  # one kind, sizes 4, 6, 8


def test_variability_only_where_seeds_or_permutations_were_run(runs, seeded, tmp_path):
    assert figures.variability(runs, figures.FigureStyle(), tmp_path / "v0") == []
    assert len(figures.variability(seeded, figures.FigureStyle(), tmp_path / "v1")) == 2


def test_scaling_without_sizes_writes_nothing(runs, tmp_path):
    assert figures.scaling(runs.assign(size=np.nan), figures.FigureStyle(), tmp_path / "scaling") == []
    assert list(tmp_path.iterdir()) == []


def test_latex_requested_without_latex_falls_back_to_mathtext(runs, tmp_path, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name, *args, **kwargs: None)
    style = figures.FigureStyle(latex=True)
    with pytest.warns(RuntimeWarning, match="latex"):
        paths = figures.performance_profile(runs, style, tmp_path / "profile")
    assert style.usetex is False
    assert style.rc_params()["text.usetex"] is False and style.rc_params()["font.family"] == "serif"
    _assert_pdf_and_png(paths, tmp_path / "profile")


def test_style_apply_sets_rcparams():
    with mpl.rc_context():
        figures.FigureStyle(font_size=11).apply()
        assert mpl.rcParams["pdf.fonttype"] == 42
        assert mpl.rcParams["font.size"] == 11
        assert mpl.rcParams["text.usetex"] is False


# --- page ----------------------------------------------------------------------------------

def test_write_report(runs, tmp_path):
    out_dir = tmp_path / "report"
    figs = figures.cactus(runs, figures.FigureStyle(), out_dir / "figures" / "cactus")
    environment = {"python": "3.11.7", "solvers": {"highs": "1.15.1", "cbc": "2.10.8"},
                   "config": {"instances": ["packing/p1", "packing/p2"], "time_limit": 10}}
    summary = tables.summary(runs)
    out = page.write_report(tmp_path, runs, summary, figs, environment, out_dir / "report.md")
    text = out.read_text()
    assert text.startswith("# ")
    assert "| solvers.highs | 1.15.1 |" in text and "| config.instances | packing/p1, packing/p2 |" in text
    assert "| highs | placement | 3 | 3 | 3 | 0 | 0 | 0 | 0 | 3.00 | 3.00 | 3 | 0 |" in text
    assert "| cbc | cell_assignment | 3 | 3 | 1 | 1 | 1 | 0 | 0 | 4.66 | 10.0 | 1 | 0 |" in text
    assert "![Cactus](figures/cactus.png)" in text and "[PDF](figures/cactus.pdf)" in text
    assert "s = 1 s" in text


def test_the_layout_check_finds_a_text_outside_or_of_another_size():
    style = figures.FigureStyle()
    with style.context():
        figure = figures._new_figure(style, 0.5)
        ax = figure.add_subplot()
        ax.plot([1, 2], [1, 2])
        assert figures.layout_problems(figure, style) == []
        figure.text(1.05, 0.5, "outside")
        ax.set_title("too big", fontsize=14)
        problems = figures.layout_problems(figure, style)
    assert any("reach outside" in p for p in problems) and any("'too big' is 14 pt" in p for p in problems)


# --- the picture of an instance no run solved ---------------------------------------------

SEVEN_SOLVERS = ", ".join(f"time_limit on {s}" for s in ("cbc", "cpsat", "glpk", "gurobi", "highs", "scip"))


@pytest.mark.parametrize("name, why", [
    ("queens/eight", "no run found a checked solution: time_limit on highs"),
    ("packing/library/polyominoes_order6_copies1_width15_height14",
     f"no run found a checked solution: {SEVEN_SOLVERS}, licence_limit on cplex"),
    ("packing/pentominoes/6x10", "no run found a checked solution: " + ", ".join([SEVEN_SOLVERS] * 4)),
])
def test_the_no_solution_picture_shows_its_whole_message(name, why):
    # was: one line per part, cut off at both sides of the 4.5 in figure
    figure = pictures.no_solution_figure(name, why)
    figure.canvas.draw()
    shown = "".join(text.get_text() for text in figure.texts if text.get_visible())
    assert "".join(shown.split()) == "".join(f"{name}: no solution to draw ({why})".split())
    drawn = figure.get_tightbbox(figure.canvas.get_renderer())
    width, height = figure.get_size_inches()
    assert drawn.x0 >= 0 and drawn.y0 >= 0 and drawn.x1 <= width and drawn.y1 <= height, (drawn.bounds, width, height)


# --- per-family tables ---------------------------------------------------------------------

def test_family_table_by_hand(runs):
    """highs / placement: 1, 3, 7 s, all solved; cbc / placement: 0.5 s and two timeouts at 10 s.
    SGM (s = 1): highs exp(mean(ln 2, ln 4, ln 8)) - 1 = 3; cbc exp(mean(ln 1.5, ln 11, ln 11)) - 1."""
    from pyomo_puzzles.report import family_tables

    cbc = runs[runs["solver"] == "cbc"].assign(formulation="placement")
    frame = pd.concat([runs[runs["solver"] == "highs"], cbc], ignore_index=True)
    table = family_tables.family_summary(frame).query("scope == 'common'").set_index("solver")
    assert table.loc["highs", "solved"] == 3 and table.loc["highs", "sgm_time"] == pytest.approx(3.0)
    cbc_sgm = math.exp((math.log(1.5) + 2 * math.log(11)) / 3) - 1
    assert table.loc["cbc", "solved"] == 1 and table.loc["cbc", "sgm_time"] == pytest.approx(cbc_sgm)
    par10 = family_tables.family_summary(frame, Statistics(shift=10.0, par=10)).query("scope == 'common'").set_index("solver")
    assert par10.loc["cbc", "sgm_time"] == pytest.approx(math.exp((math.log(10.5) + 2 * math.log(110)) / 3) - 10)
    latex = family_tables.family_latex(family_tables.family_summary(frame), "packing", labels={"highs": "HiGHS"})
    assert "placement & 1/3 & 4.66 & 3/3 & \\textbf{3.00} \\\\" in latex  # cbc first (sorted), best in bold
    assert "\\multicolumn{2}{c}{HiGHS}" in latex and "\\toprule" in latex and "\\bottomrule" in latex
    assert "$s = 1$\\,s" in latex and "count at the time limit" in latex
    assert "PAR10" in family_tables.family_latex(family_tables.family_summary(frame, Statistics(par=10)), "packing",
                                                 Statistics(par=10))


def test_family_table_compares_formulations_over_the_instances_both_apply_to(runs):
    """cell_assignment runs on p1 only (it applies to nothing else): the table compares both
    formulations on p1 (highs / placement 1 s, cbc / cell_assignment 0.5 s) and says so; the
    CSV keeps placement over its three instances too (SGM 3, as in the table by hand above).
    Was: placement's mean over three instances against cell_assignment's over one."""
    from pyomo_puzzles.report import family_tables

    partial = runs[(runs["solver"] == "highs") | (runs["instance"] == "packing/p1")]
    table = family_tables.family_summary(partial)
    latex = family_tables.family_latex(table, "packing")
    assert "placement & -- & -- & 1/1 & \\textbf{1.00} \\\\" in latex, latex
    assert "cell\\_assignment & 1/1 & \\textbf{0.500} & -- & -- \\\\" in latex, latex
    assert ("Formulations compared over the 1 instance every one of them applies to (they apply to: "
            "cell\\_assignment to 1, placement to 3") in latex
    every = table[(table["scope"] == "all") & (table["formulation"] == "placement")].iloc[0]
    assert (every["instances"], every["solved"], every["sgm_time"]) == (3, 3, pytest.approx(3.0))
    same = family_tables.family_latex(family_tables.family_summary(runs), "packing")
    assert "compared over" not in same  # both apply to all three


def test_latex_tables_compile_and_fit_the_page(runs, tmp_path):
    """The tables \\input into an article compile with pdflatex and none is wider than the
    text (a wide table is scaled to the line width). Needs pdflatex (texlive), else skipped."""
    import subprocess

    from pyomo_puzzles.report import family_tables

    if shutil.which("pdflatex") is None:
        pytest.skip("pdflatex not installed (Debian: texlive-latex-base, texlive-latex-recommended)")
    wide = pd.concat([runs.assign(solver=f"solver_{k}") for k in range(10)], ignore_index=True)  # 10 column groups
    family_tables.write_family_tables(wide, tmp_path)
    tables.write_summary(tables.summary(runs), tmp_path / "summary.csv", tmp_path / "summary.tex")
    (tmp_path / "doc.tex").write_text("\\documentclass{article}\\usepackage{booktabs,graphicx}\\begin{document}"
                                      "\\input{family_packing.tex}\\input{family_packing.tex}\\input{summary.tex}"
                                      "\\end{document}\n")
    done = subprocess.run(["pdflatex", "-interaction=nonstopmode", "doc.tex"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-2000:]
    assert "Overfull \\hbox" not in done.stdout
