"""The figures' views (issue 56.10): per method, or per formulation as its virtual best over the
solvers. The numbers are worked out here from hand-made runs tables, not by the module's code."""

from __future__ import annotations

import itertools
import statistics
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from matplotlib.colors import to_rgba

from conftest import ROOT
from pyomo_puzzles.report import catalogue, figures, page, progress_figure, size_figure

LIMIT = 10.0
SOLVED = ("optimal", "infeasible")


def run(instance: str, solver: str, formulation: str, status: str, seconds: float, repeat: int = 1,
        **extra) -> dict:
    """A run whose every time measure is `seconds`; an optimum is checked (solved)."""
    row = {"puzzle": instance.split("/")[0], "instance": instance, "formulation": formulation, "solver": solver,
           "seed": np.nan, "permutation": 0, "repeat": repeat, "solver_version": f"{solver} 1.0", "status": status,
           "checked": True if status == "optimal" else None, "killed": False, "wall_time": seconds,
           "build_time": 0.0, "solver_time": seconds, "nodes": np.nan, "threads": 1, "message": "",
           "objective": np.nan, "bound": np.nan,
           "objective_sense": None, "time_limit": LIMIT, "size": np.nan, "size_label": None,
           "known_solvable": None, "known_objective": np.nan}
    row.update(extra)
    return row


SOLVERS = ("highs", "cbc", "scip")
FORMULATIONS = ("placement", "rotations")
INSTANCES = tuple(f"packing/p{i}" for i in range(1, 7))


@pytest.fixture
def study() -> pd.DataFrame:
    """Three solvers x two formulations x six instances, three repeats each, with times and
    statuses drawn from a fixed seed, then three cells set by hand:

    - p5 / rotations: no solver solved it (two time-outs, one error): unsolved, not an error;
    - p6 / rotations: every solver ended in an error: an error;
    - p6 / placement: solved by scip alone, in two of its three repeats (a majority)."""
    rng = np.random.default_rng(56)
    rows = []
    for instance, solver, formulation, repeat in itertools.product(INSTANCES, SOLVERS, FORMULATIONS, (1, 2, 3)):
        status = rng.choice(["optimal", "optimal", "optimal", "time_limit", "error"])
        seconds = float(rng.uniform(0.01, 5.0)) if status != "time_limit" else LIMIT + 0.3
        rows.append(run(instance, solver, formulation, str(status), seconds, repeat))
    table = pd.DataFrame(rows)
    by_hand = {
        ("packing/p5", "rotations"): {"highs": ["time_limit"] * 3, "cbc": ["error"] * 3, "scip": ["time_limit"] * 3},
        ("packing/p6", "rotations"): {s: ["error"] * 3 for s in SOLVERS},
        ("packing/p6", "placement"): {"highs": ["time_limit"] * 3, "cbc": ["error", "time_limit", "error"],
                                      "scip": ["optimal", "time_limit", "optimal"]},
    }
    for (instance, formulation), statuses in by_hand.items():
        for solver, each in statuses.items():
            for repeat, status in enumerate(each, start=1):
                at = ((table["instance"] == instance) & (table["formulation"] == formulation)
                      & (table["solver"] == solver) & (table["repeat"] == repeat))
                seconds = LIMIT + 0.3 if status == "time_limit" else 0.5 * repeat
                table.loc[at, ["status", "checked", "wall_time", "solver_time"]] = [
                    status, True if status == "optimal" else None, seconds, seconds]
    return table


def method_cells(runs: pd.DataFrame) -> dict:
    """Per (instance, solver, formulation), worked out here: (median censored time over the
    repeats, solved by a strict majority, error: unsolved and most unsolved repeats erred)."""
    cells = {}
    for row in runs.itertuples():
        cells.setdefault((row.instance, row.solver, row.formulation), []).append(row)
    out = {}
    for key, repeats in cells.items():
        solved = [r.status in SOLVED for r in repeats]
        times = [r.solver_time if ok else r.time_limit for r, ok in zip(repeats, solved)]
        unsolved = len(repeats) - sum(solved)
        errors = sum(r.status == "error" for r in repeats)
        majority = sum(solved) > len(repeats) / 2
        out[key] = (statistics.median(times), majority, not majority and errors > unsolved / 2)
    return out


def test_the_formulation_view_is_the_best_of_the_solvers_per_instance(study):
    cells = method_cells(study)
    drawn = figures.formulation_times(study).set_index(["instance", "formulation"])
    assert len(drawn) == len(INSTANCES) * len(FORMULATIONS)
    assert set(drawn["solver"]) == {figures.BEST_OF_SOLVERS}
    for instance, formulation in itertools.product(INSTANCES, FORMULATIONS):
        mine = [cells[(instance, solver, formulation)] for solver in SOLVERS]
        solved_times = [time for time, solved, _ in mine if solved]
        row = drawn.loc[(instance, formulation)]
        assert bool(row["solved"]) == bool(solved_times), (instance, formulation)
        if solved_times:
            assert row["time"] == pytest.approx(min(solved_times)), (instance, formulation)
        assert bool(row["error"]) == (not solved_times and all(error for _, _, error in mine)), (instance, formulation)
    # the cells set by hand
    assert not drawn.loc[("packing/p5", "rotations"), "solved"] and not drawn.loc[("packing/p5", "rotations"), "error"]
    assert not drawn.loc[("packing/p6", "rotations"), "solved"] and drawn.loc[("packing/p6", "rotations"), "error"]
    assert drawn.loc[("packing/p6", "placement"), "solved"]
    assert drawn.loc[("packing/p6", "placement"), "time"] == pytest.approx(statistics.median([0.5, LIMIT, 1.5]))


def test_an_instance_no_solver_of_a_formulation_solved_is_unsolved_in_every_figure_of_the_view(study):
    ratios = figures.performance_ratios(study, view=figures.FORMULATIONS).set_index(["instance", "method"])
    rotations = figures.method_label(figures.BEST_OF_SOLVERS, "rotations")
    assert ratios.loc[("packing/p5", rotations), "ratio"] == np.inf
    assert ratios.loc[("packing/p6", rotations), "ratio"] == np.inf
    cactus = figures.cactus_data(study, view=figures.FORMULATIONS)
    times = figures.formulation_times(study)
    for formulation in FORMULATIONS:
        solved = times[(times["formulation"] == formulation) & times["solved"]]
        curve = cactus[cactus["method"] == figures.method_label(figures.BEST_OF_SOLVERS, formulation)]
        assert curve["time"].tolist() == sorted(solved["time"].tolist())
    # the virtual best over everything is the same in both views: one instance solved by nobody at most
    methods = figures.performance_ratios(study, view=figures.METHODS)
    assert (methods.groupby("instance")["best"].min().to_dict()
            == pytest.approx(ratios.reset_index().groupby("instance")["best"].min().to_dict()))


@pytest.mark.parametrize("pairs, expected", [
    ([("highs", "placement"), ("cbc", "placement"), ("highs", "rotations"), ("cbc", "rotations")], "formulations"),
    ([("highs", "placement"), ("cbc", "rotations")], "formulations"),  # two of each in the family
    ([("highs", "placement"), ("cbc", "placement"), ("scip", "placement")], "methods"),  # one formulation
    ([("highs", "placement"), ("highs", "rotations")], "methods"),  # one solver: its best is itself
])
def test_auto_picks_the_formulation_view_where_the_runs_compare_formulations(pairs, expected):
    runs = pd.DataFrame([run("packing/p1", s, f, "optimal", 1.0) for s, f in pairs])
    assert figures.resolve_view(runs) == expected
    assert figures.resolve_view(runs, "methods") == "methods"
    assert figures.resolve_view(runs, "formulations") == "formulations"
    assert figures.resolved_style(runs, figures.FigureStyle()).view == expected


def test_auto_asks_it_of_each_family_and_of_the_runs_the_figures_show():
    # two formulations on one solver in one family, one formulation on two in another: nothing compared
    runs = pd.DataFrame([run("packing/p1", "highs", "placement", "optimal", 1.0),
                         run("packing/p1", "highs", "rotations", "optimal", 1.0),
                         run("queens/eight", "highs", "rows", "optimal", 1.0),
                         run("queens/eight", "cbc", "rows", "optimal", 1.0)])
    assert figures.resolve_view(runs) == "methods"
    both = pd.concat([runs, pd.DataFrame([run("packing/p1", "cbc", "placement", "optimal", 1.0)])])
    assert figures.resolve_view(both) == "formulations"
    assert figures.resolved_style(both, figures.FigureStyle(solvers=["highs"])).view == "methods"
    with pytest.raises(ValueError, match="formulation"):
        figures.resolve_view(runs, "formulation")


def _legends(draw, *args) -> list:
    seen = []
    figures.INSPECTORS.append(lambda figure: seen.append(figure.legends[0]))
    try:
        draw(*args)
    finally:
        figures.INSPECTORS.pop()
    return seen


@pytest.mark.parametrize("name, draw", [(n, d) for n, d in catalogue.FIGURES if n in ("runtime", "cactus",
                                                                                      "performance_profile")])
def test_a_figure_of_the_formulation_view_names_it_and_tells_formulations_apart_in_greyscale(study, tmp_path,
                                                                                              name, draw):
    [legend] = _legends(draw, study, figures.FigureStyle(), tmp_path / name)
    assert legend.get_title().get_text() == "formulation (best of the solvers)"
    labels = [text.get_text() for text in legend.get_texts()]
    assert not set(labels) & set(SOLVERS), labels
    handles = {label: handle for label, handle in zip(labels, legend.legend_handles)}
    marks = [(to_rgba(handles[f].get_color()), handles[f].get_marker(), str(handles[f].get_linestyle()))
             for f in FORMULATIONS]
    for part in range(3):  # colour, marker and line style each differ (lines: the legend of a figure of dots has none)
        if part < 2 or name != "runtime":
            assert len({mark[part] for mark in marks}) == len(FORMULATIONS), (part, marks)


def test_one_formulation_is_drawn_per_method_with_solver_colours(study, tmp_path):
    single = study[study["formulation"] == "placement"]
    [legend] = _legends(figures.cactus, single, figures.FigureStyle(), tmp_path / "cactus")
    labels = [text.get_text() for text in legend.get_texts()]
    assert legend.get_title().get_text() == "" and "solver:" in labels and set(SOLVERS) <= set(labels)


@pytest.mark.parametrize("view", ["methods", "formulations"])
@pytest.mark.parametrize("width, size", [(418.25, 9), (345.0, 11)])
def test_progress_and_size_figures_fit_in_both_views(study, traces, tmp_path, view, width, size):
    style = figures.FigureStyle(text_width_pt=width, font_size=size, view=view)
    models = pd.DataFrame([{"instance": i, "formulation": f, "nonzeros": 100 * (1 + k) + 50 * (f == "rotations")}
                           for k, i in enumerate(INSTANCES) for f in FORMULATIONS])
    seen = []
    figures.INSPECTORS.append(lambda figure: seen.append(figures.layout_problems(figure, style)))
    try:
        paths = progress_figure.progress_over_time(traces[0], traces[1], style, tmp_path / "progress")
        paths += size_figure.size_against_time(study, models, style, tmp_path / "size_time")
    finally:
        figures.INSPECTORS.pop()
    assert len(paths) == 4 and seen == [[], []]


# --- progress ---------------------------------------------------------------------------------

def brute_force_best(points: list[tuple], t: float, sense: str) -> tuple:
    """The best incumbent and the best bound any point at or before t holds, by the sense."""
    before = [p for p in points if p[0] <= t]
    incumbents = [p[1] for p in before if p[1] is not None]
    bounds = [p[2] for p in before if p[2] is not None]
    better, weaker = (min, max) if sense == "minimize" else (max, min)
    return (better(incumbents) if incumbents else None, weaker(bounds) if bounds else None)


@pytest.mark.parametrize("sense", ["minimize", "maximize"])
def test_the_virtual_best_trace_is_the_best_incumbent_and_bound_any_run_had_by_then(sense):
    flip = 1 if sense == "minimize" else -1  # a maximisation's values mirrored
    runs = [[(0.1, None, 1.0), (0.5, 30.0, 2.0), (2.0, 25.0, 20.0), (4.0, 25.0, 25.0)],
            [(0.2, 28.0, None), (0.3, 27.0, 3.0), (1.0, 26.0, 10.0), (6.0, 25.0, 25.0)],
            [(0.05, None, 0.5), (3.0, 24.0, 24.0)]]  # a third solver with its end only
    points = [(s, None if i is None else flip * i, None if b is None else flip * b) for r in runs for s, i, b in r]
    traces = pd.DataFrame(points, columns=["seconds", "incumbent", "bound"])
    best = progress_figure.virtual_best_trace(traces.sample(frac=1, random_state=3), sense)
    assert best["seconds"].tolist() == sorted({p[0] for p in points})
    for row in best.itertuples():
        incumbent, bound = brute_force_best(points, row.seconds, sense)
        assert (None if np.isnan(row.incumbent) else row.incumbent) == incumbent, row
        assert (None if np.isnan(row.bound) else row.bound) == bound, row
    assert best.iloc[-1][["incumbent", "bound"]].tolist() == [flip * 24.0, flip * 25.0]  # the best bound, not the last


WRONG = -3.0
"""The incumbent and bound of a run that ended in an error: better than the optimum, 5."""
CLAIMED = 6.5
"""The optimum a wrong answer claims (a checked solution of 5 was found)."""


@pytest.fixture
def traces() -> tuple[pd.DataFrame, pd.DataFrame]:
    """A minimisation (optimum 5) on two solvers x two formulations, and a run that ended in an
    error with a trace that claims -3 (its objective is not trusted), another that gave a wrong
    answer (claims optimal at 6.5, worse than a checked 5); the runs and the progress table."""
    rows, points = [], []
    plan = {("highs", "placement"): [(0.1, 9.0, 1.0), (0.4, 7.0, 3.0), (1.5, 5.0, 5.0)],
            ("cbc", "placement"): [(0.2, 8.0, 2.0), (0.8, 6.0, 4.0), (3.0, 5.0, 5.0)],
            ("highs", "rotations"): [(0.3, 10.0, 0.0), (5.0, 6.0, 4.5)],
            ("cbc", "rotations"): [(0.6, 7.5, 2.5), (10.0, 5.5, 4.0)]}
    for (solver, formulation), trace in plan.items():
        done = trace[-1][1] == trace[-1][2]
        rows.append(run("packing/p1", solver, formulation, "optimal" if done else "time_limit", trace[-1][0],
                        objective=trace[-1][1], bound=trace[-1][2], objective_sense="minimize",
                        objective_checked=True))
        points += [{"instance": "packing/p1", "formulation": formulation, "solver": solver, "seed": None,
                    "permutation": 0, "repeat": 1, "seconds": s, "incumbent": i, "bound": b} for s, i, b in trace]
    rows.append(run("packing/p1", "scip", "rotations", "error", 0.2, objective=WRONG, objective_sense="minimize"))
    points += [{"instance": "packing/p1", "formulation": "rotations", "solver": "scip", "seed": None,
                "permutation": 0, "repeat": 1, "seconds": 0.2, "incumbent": WRONG, "bound": WRONG}]
    rows.append(run("packing/p1", "scip", "placement", "optimal", 0.1, objective=CLAIMED, bound=CLAIMED,
                    objective_sense="minimize", objective_checked=True))
    points += [{"instance": "packing/p1", "formulation": "placement", "solver": "scip", "seed": 1.0,
                "permutation": np.nan, "repeat": 1, "seconds": 0.1, "incumbent": CLAIMED, "bound": CLAIMED}]
    runs = pd.DataFrame(rows)
    runs.loc[runs["solver"] == "scip", "seed"] = [np.nan, 1]  # the runs table: a float seed where one is missing
    return runs, pd.DataFrame(points)


def _drawn_lines(runs: pd.DataFrame, progress: pd.DataFrame, view: str, stem: Path) -> list:
    lines = []
    figures.INSPECTORS.append(lambda figure: lines.extend(line for ax in figure.axes for line in ax.get_lines()))
    try:
        progress_figure.progress_over_time(runs, progress, figures.FigureStyle(view=view), stem)
    finally:
        figures.INSPECTORS.pop()
    return lines


def test_runs_that_ended_in_an_error_or_a_wrong_answer_leave_no_trace(traces):
    runs, progress = traces
    kept = progress_figure.trusted_progress(runs, progress)
    assert set(kept["solver"]) == {"highs", "cbc"} and len(kept) == len(progress) - 2


@pytest.mark.parametrize("view", ["methods", "formulations"])
def test_the_progress_figure_draws_no_untrusted_value_in_either_view(traces, tmp_path, view):
    values = {float(y) for line in _drawn_lines(*traces, view, tmp_path / "progress") for y in line.get_ydata()}
    assert values and WRONG not in values and CLAIMED not in values and 5.0 in values


def test_the_formulation_views_progress_is_its_virtual_best_in_its_colour(traces, tmp_path):
    runs, progress = traces
    codes = figures.encoding(runs, figures.FigureStyle(), figures.FORMULATIONS)
    lines = _drawn_lines(runs, progress, "formulations", tmp_path / "progress")
    expected = {  # by hand: per formulation the best incumbent (min) and bound (max) of highs and cbc by t
        "placement": {"-": [9.0, 8.0, 7.0, 6.0, 5.0], "--": [1.0, 2.0, 3.0, 4.0, 5.0]},  # proved at 1.5 s
        "rotations": {"-": [10.0, 7.5, 6.0, 5.5], "--": [0.0, 2.5, 4.5]},
    }
    for formulation, curves in expected.items():
        colour = to_rgba(codes.marks[formulation]["color"])
        for style, values in curves.items():
            [step] = [line for line in lines if to_rgba(line.get_color()) == colour
                      and line.get_drawstyle() == "steps-post" and line.get_linestyle() == style]
            assert list(step.get_ydata())[:-1] == values, (formulation, style)
    placement_end = max(x for line in lines if to_rgba(line.get_color()) == to_rgba(codes.marks["placement"]["color"])
                        for x in line.get_xdata())
    assert placement_end == 1.5  # the curves end where the optimum was proved


# --- configuration and report ----------------------------------------------------------------

def test_a_misspelt_view_is_refused_in_one_line_naming_the_option_exit_2(tmp_path):
    done = subprocess.run([str(Path(sys.executable).parent / "snakemake"), "-n", "--cores", "1", "--configfile",
                           "workflows/config/smoke.yaml", "--config", f"results={tmp_path / 'results'}",
                           "figures={view: formulation}"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2, done.stderr[-2000:]
    ours = [line for line in done.stderr.splitlines() if line.startswith("pyomo-puzzles")]
    assert len(ours) == 1 and "configuration key 'figures.view'" in ours[0] and "formulations" in ours[0], ours
    assert "Traceback" not in done.stderr and not (tmp_path / "results").exists()


def test_the_view_is_defaulted_to_auto():
    import yaml

    from pyomo_puzzles import experiment

    config = yaml.safe_load((ROOT / "workflows/config/smoke.yaml").read_text())
    checked = experiment.validate_config(config, ROOT / "workflows/schemas/config.schema.yaml")
    assert checked["figures"]["view"] == "auto" == figures.FigureStyle().view
    assert figures.FigureStyle(**checked["figures"]).view == "auto"


def test_captions_and_report_name_the_view(study, tmp_path):
    for name in ("runtime", "performance_profile", "cactus", "scaling", "size_time", "progress"):
        assert "best of the solvers" in page.figure_caption(name, view="formulations"), name
        assert "best of the solvers" not in page.figure_caption(name, view="methods"), name
    for name in ("variability", "where_the_time_goes"):
        assert page.PER_METHOD_NOTE in page.figure_caption(name, view="formulations")
    out = page.build_report(study, tmp_path, {}, tmp_path / "report")
    text = out.read_text()
    assert figures.view_sentence("formulations") in text
    assert "formulation (best of the solvers)" not in figures.view_sentence("methods")
