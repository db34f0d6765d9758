"""The time measure the statistics rank by, the scores, the trivial-instance count, the A/A
noise and the parts of a run's time, on hand-made runs whose figures are worked out by hand."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import yaml

from conftest import ROOT, run_cli
from pyomo_puzzles import cli, experiment
from pyomo_puzzles.experiment import ConfigError
from pyomo_puzzles.report import figures, page, scores, tables, time_parts
from pyomo_puzzles.report.measure import DEFAULT, TIME_MEASURES, Statistics, measured_time

LIMIT = 10.0
SOLVER, BUILD_AND_SOLVE, WALL = (Statistics(time=t) for t in TIME_MEASURES)


def run(instance: str, solver: str, formulation: str, status: str = "optimal", wall: float = 1.0,
        solver_time: float | None = 0.5, build: float = 0.2, decode: float = 0.05, check: float = 0.05,
        **extra) -> dict:
    row = {"puzzle": instance.split("/")[0], "instance": instance, "formulation": formulation, "solver": solver,
           "repeat": 1, "status": status, "checked": status == "optimal", "wall_time": wall,
           "load_time": 0.1, "startup_time": None, "build_time": build, "solver_time": solver_time,
           "decode_time": decode, "check_time": check, "time_limit": LIMIT, "objective": np.nan,
           "known_solvable": None, "known_objective": np.nan, "size": np.nan, "size_label": None}
    row.update(extra)
    return row


# --- the measures ----------------------------------------------------------------------------

def test_each_measure_by_hand():
    """wall 1.0 = build 0.2 + call 0.7 + decode 0.05 + check 0.05; the solver's clock says 0.5.
    A solver without a clock (None) is measured by its call, 0.7."""
    runs = pd.DataFrame([run("p/a", "highs", "f"), run("p/a", "glpk", "f", solver_time=None)])
    assert measured_time(runs, SOLVER).tolist() == pytest.approx([0.5, 0.7])
    assert measured_time(runs, BUILD_AND_SOLVE).tolist() == pytest.approx([0.9, 0.9])
    assert measured_time(runs, WALL).tolist() == pytest.approx([1.0, 1.0])
    assert DEFAULT.time == "solver"  # a solver comparison ranks by the solvers' own time


def test_the_recorded_call_time_is_the_solver_call():
    """With call_time recorded (0.6: 0.1 lost between the parts), it is the call, not wall - parts."""
    runs = pd.DataFrame([run("p/a", "glpk", "f", solver_time=None, call_time=0.6)])
    assert measured_time(runs, SOLVER).tolist() == pytest.approx([0.6])
    assert measured_time(runs, BUILD_AND_SOLVE).tolist() == pytest.approx([0.8])


def test_a_record_with_only_a_wall_time_gives_it_under_every_measure():
    runs = pd.DataFrame([{"wall_time": 2.0, "status": "optimal", "checked": True}])
    for stats in (SOLVER, BUILD_AND_SOLVE, WALL):
        assert measured_time(runs, stats).tolist() == [2.0]


def test_unsolved_runs_are_censored_at_the_limit_under_every_measure():
    runs = pd.DataFrame([run("p/a", "highs", "f", status="time_limit", wall=10.2, solver_time=9.9)])
    for stats in (SOLVER, BUILD_AND_SOLVE, WALL, Statistics(par=2)):
        assert tables.censored_time(runs, stats).tolist() == [stats.par * LIMIT]


def test_the_measure_is_named_in_captions_headers_and_axes():
    runs = pd.DataFrame([run("p/a", "highs", "f"), run("p/b", "highs", "f")])
    for stats, name in ((SOLVER, "solver time"), (BUILD_AND_SOLVE, "build + solve time"), (WALL, "wall time")):
        summary = tables.summary(runs, stats)
        assert f"SGM {name} [s]" in tables.formatted_summary(summary, stats).columns
        latex = tables.summary_latex(summary, statistics=stats)
        assert f"{name.capitalize()} [s]" in latex and f"Times are the {name}" in latex
        assert f"Times are the {name}" in "\n".join(page.scores_markdown(runs, stats))
        assert stats.axis_label() == f"{name[0].upper()}{name[1:]} [s]"


def test_the_figures_label_their_time_axis_with_the_measure(tmp_path):
    runs = pd.DataFrame([run("p/a", "highs", "f"), run("p/b", "highs", "f", wall=2.0, solver_time=1.5)])
    labels = []
    figures.INSPECTORS.append(lambda figure: labels.extend(ax.get_ylabel() for ax in figure.axes))
    try:
        figures.runtime_per_instance(runs, figures.FigureStyle(), tmp_path / "runtime", BUILD_AND_SOLVE)
    finally:
        figures.INSPECTORS.pop()
    assert "Build + solve time [s]" in labels


def test_the_defaults_are_stated_once_for_the_schema_the_experiment_and_the_cli():
    schema = yaml.safe_load((ROOT / "workflows/schemas/config.schema.yaml").read_text())
    properties = schema["properties"]["statistics"]["properties"]
    defaults = {name: spec["default"] for name, spec in properties.items()}
    assert Statistics.from_config(defaults) == DEFAULT
    assert Statistics.from_config(experiment.STATISTICS_DEFAULTS) == DEFAULT
    assert tuple(properties["time"]["enum"]) == TIME_MEASURES == cli.COMPARE_MEASURES


def test_a_misspelt_measure_is_refused_naming_the_field(tmp_path):
    config = {"instances": ["packing/l_tromino_cube"], "formulations": ["placement"], "solvers": ["highs"],
              "statistics": {"time": "walltime"}}
    with pytest.raises(ConfigError, match="time"):
        experiment.validate_config(config, ROOT / "workflows/schemas/config.schema.yaml")
    result = run_cli("compare", tmp_path, tmp_path, "--time", "walltime")
    assert result.returncode == 2 and "--time" in result.stderr and "Traceback" not in result.stderr


# --- scores ----------------------------------------------------------------------------------

@pytest.fixture
def three_methods() -> pd.DataFrame:
    """Solver times (each solver's own clock) on three instances, limit 10 s:

            i1    i2    i3
        A   1     3     unsolved
        B   2     1     4
        C   1     unsolved  unsolved
    """
    rows = []
    for method, times in {"A": (1, 3, None), "B": (2, 1, 4), "C": (1, None, None)}.items():
        for k, t in enumerate(times, start=1):
            status = "optimal" if t is not None else "time_limit"
            rows.append(run(f"p/i{k}", method, "f", status=status, wall=(t or LIMIT) + 0.5, solver_time=t or LIMIT))
    return pd.DataFrame(rows)


def _sgm(values, shift=1.0) -> float:
    return float(np.exp(np.mean(np.log(np.asarray(values, dtype=float) + shift))) - shift)


def test_scores_by_hand(three_methods):
    table, notes = scores.score_table(three_methods)
    assert notes == []
    rows = table.set_index("method")
    sgm = {"A / f": _sgm([1, 3, 10]), "B / f": _sgm([2, 1, 4]), "C / f": _sgm([1, 10, 10]),
           "virtual best": _sgm([1, 1, 4])}
    best = min(value for method, value in sgm.items() if method != "virtual best")
    for method, value in sgm.items():
        assert rows.at[method, "sgm"] == pytest.approx(value)
        assert rows.at[method, "sgm_scaled"] == pytest.approx(value / best)
    assert rows.at["B / f", "sgm_scaled"] == pytest.approx(1.0)  # B is the best method
    assert rows.at["virtual best", "sgm_scaled"] < 1
    # PAR-2: unsolved at 20 s
    assert rows.at["A / f", "par2"] == pytest.approx((1 + 3 + 20) / 3)
    assert rows.at["C / f", "par2"] == pytest.approx((1 + 20 + 20) / 3)
    assert rows.at["virtual best", "par2"] == pytest.approx((1 + 1 + 4) / 3)
    # Borda: i1 A-B 2/3, A-C 1/2, B-A 1/3, B-C 1/3, C-A 1/2, C-B 2/3;
    # i2 A-B 1/4, A-C 1, B-A 3/4, B-C 1; i3 B beats both
    assert rows.at["A / f", "borda"] == pytest.approx(2 / 3 + 1 / 2 + 1 / 4 + 1)
    assert rows.at["B / f", "borda"] == pytest.approx(1 / 3 + 1 / 3 + 3 / 4 + 1 + 2)
    assert rows.at["C / f", "borda"] == pytest.approx(1 / 2 + 2 / 3)
    assert math.isnan(rows.at["virtual best", "borda"])
    # solved by all: only i1 (A 1, B 2, C 1)
    assert (rows["solved_by_all_instances"] == 1).all()
    assert rows.at["B / f", "solved_by_all_scaled"] == pytest.approx(_sgm([2]) / _sgm([1]))
    assert list(table["method"]) == ["B / f", "A / f", "C / f", "virtual best"]  # best scaled SGM first


def test_scores_follow_the_measure(three_methods):
    """Under the wall time every solved time is 0.5 s longer: the SGMs change with it."""
    rows = scores.score_table(three_methods, WALL)[0].set_index("method")
    assert rows.at["B / f", "sgm"] == pytest.approx(_sgm([2.5, 1.5, 4.5]))


def test_the_scores_shown_are_the_ones_configured(three_methods):
    table, _ = scores.score_table(three_methods, Statistics(scores=("par2",)))
    assert "par2" in table.columns and "sgm_scaled" not in table.columns and "borda" not in table.columns
    assert len(scores.explanations(Statistics(scores=("borda", "sgm")))) == 2
    with pytest.raises(ValueError, match="statistics.scores"):
        Statistics(scores=("par3",))


def test_methods_on_fewer_instances_are_left_out_and_named(three_methods):
    """D's formulation applies to i1 only: the scores keep A, B, C on three instances and say so."""
    frame = pd.concat([three_methods, pd.DataFrame([run("p/i1", "D", "g", solver_time=0.1)])], ignore_index=True)
    table, notes = scores.score_table(frame)
    assert set(table["method"]) == {"A / f", "B / f", "C / f", "virtual best"}
    assert len(notes) == 1 and "D / g" in notes[0] and "1 of 3" in notes[0]


def test_an_instance_left_out_of_the_scores_is_named_in_the_notes_and_the_caption(three_methods, tmp_path):
    """D and E apply to i1 and i2 only: five methods on two instances outweigh three on three,
    so i3 is left out though no method is; the notes and the LaTeX caption name it."""
    # was: no note at all, and a caption "over the 2 instances every method has a time on"
    partial = [run(f"p/i{k}", solver, "g", solver_time=0.1) for k in (1, 2) for solver in ("D", "E")]
    frame = pd.concat([three_methods, pd.DataFrame(partial)], ignore_index=True)
    table, notes = scores.score_table(frame)
    assert set(table["instances"]) == {2}
    assert len(notes) == 1 and "2 of its 3 instances" in notes[0] and "p/i3" in notes[0]
    assert "D / g" in notes[0] and "E / g" in notes[0]  # why: they have no time there
    scores.write_scores(frame, tmp_path)
    caption = (tmp_path / "scores_p.tex").read_text()
    assert "p/i3" in caption and "2 of its 3 instances" in caption


def test_an_instance_whose_runs_a_licence_refused_is_named_in_the_notes(three_methods):
    # was: left out of the scores and of the family's instance count, without a word
    refused = run("p/i4", "A", "f", status="licence_limit", solver_time=None)
    notes = scores.score_table(pd.concat([three_methods, pd.DataFrame([refused])], ignore_index=True))[1]
    assert len(notes) == 1 and "3 of its 4 instances" in notes[0] and "p/i4" in notes[0]
    assert "licence" in notes[0]


def test_a_wrong_answer_scores_as_unsolved(three_methods):
    """B claims i2 infeasible while A's solution there passed the checker: B loses i2."""
    frame = three_methods.astype({"checked": object})
    frame.loc[(frame["solver"] == "B") & (frame["instance"] == "p/i2"), "status"] = "infeasible"
    frame.loc[(frame["solver"] == "B") & (frame["instance"] == "p/i2"), "checked"] = None
    rows = scores.score_table(frame)[0].set_index("method")
    assert rows.at["B / f", "solved"] == 2 and rows.at["B / f", "par2"] == pytest.approx((2 + 20 + 4) / 3)


# --- trivial instances and A/A noise ---------------------------------------------------------

def test_trivial_instances_by_hand():
    """i1: every method under 0.1 s; i2: one method at 0.3 s; i3: one unsolved."""
    runs = pd.DataFrame([
        run("p/i1", "A", "f", solver_time=0.01), run("p/i1", "B", "f", solver_time=0.09),
        run("p/i2", "A", "f", solver_time=0.01), run("p/i2", "B", "f", solver_time=0.3),
        run("p/i3", "A", "f", solver_time=0.01), run("p/i3", "B", "f", status="time_limit", solver_time=9.9),
    ])
    assert scores.trivial_instances(runs) == (1, 3)
    assert scores.trivial_instances(runs, Statistics(trivial_below=0.5)) == (2, 3)
    assert scores.trivial_instances(runs, WALL) == (0, 3)  # every wall time is 1 s
    notes = page.measurement_notes(runs)
    assert any("1 of 3 instances are solved by every method in under 0.1 s of solver time" in n for n in notes)


def test_demanding_instances_by_hand():
    """The best method of i1 needs 0.5 s, of i2 2 s (the faster B failed its check), of i3 1 s;
    nothing solved i4 (it counts: it needs more than its limit); i5's only quick run is
    licence-refused, so its best solved run is the 3 s one."""
    runs = pd.DataFrame([
        run("p/i1", "A", "f", solver_time=0.5), run("p/i1", "B", "f", solver_time=4.0),
        run("p/i2", "A", "f", solver_time=2.0), run("p/i2", "B", "f", solver_time=0.2, checked=False),
        run("p/i3", "A", "f", solver_time=1.0),
        run("p/i4", "A", "f", status="time_limit", solver_time=9.9),
        run("p/i5", "A", "f", status="licence_limit", solver_time=0.0), run("p/i5", "B", "f", solver_time=3.0),
    ])
    assert scores.demanding_instances(runs) == (4, 5)
    assert scores.demanding_instances(runs, Statistics(demanding_from=2.5)) == (2, 5)
    # some method needs 1 s: i1 (B, 4 s), i2 (A, 2 s; B's failed check is not solved: counts), i3, i4, i5
    assert scores.separating_instances(runs) == (5, 5)
    assert scores.separating_instances(runs, Statistics(demanding_from=3.5)) == (3, 5)  # i1, i2 (B), i4
    notes = page.measurement_notes(runs)
    assert any("4 of 5 instances (80%) need at least 1 s of solver time from their best method" in n for n in notes)


def test_aa_noise_by_hand():
    """A on i1 twice (1 s, 1.5 s: ratio 1.5) and on i2 twice (2 s, 2 s: ratio 1); B ran once each."""
    runs = pd.DataFrame([
        run("p/i1", "A", "f", solver_time=1.0), run("p/i1", "A", "f", solver_time=1.5, repeat=2),
        run("p/i2", "A", "f", solver_time=2.0), run("p/i2", "A", "f", solver_time=2.0, repeat=2),
        run("p/i1", "B", "f", solver_time=1.0),
    ])
    table = scores.noise(runs)
    assert len(table) == 1
    row = table.iloc[0]
    assert (row.solver, row.instances) == ("A", 2)
    assert row.median_ratio == pytest.approx(1.25) and row.p90_ratio == pytest.approx(1.45)
    assert table.attrs["pooled"] == pytest.approx((1.25, 1.45, 2))
    assert any("A/A noise" in n and "1.25" in n for n in page.measurement_notes(runs))
    assert scores.noise(runs[runs["repeat"] == 1]).empty  # nothing ran twice: no estimate


# --- where the time goes ---------------------------------------------------------------------

def test_time_parts_by_hand(tmp_path):
    """HiGHS: call 0.7 = hand-over 0.2 + its own 0.5; start-up 0.4 paid by one of its two runs.
    GLPK: no clock of its own: its whole call is the solver's part."""
    runs = pd.DataFrame([run("p/a", "highs", "f", startup_time=0.4), run("p/b", "highs", "f"),
                         run("p/a", "glpk", "f", solver_time=None),
                         run("p/b", "glpk", "f", status="time_limit", solver_time=None)])
    table = time_parts.time_parts_table(runs).set_index("solver")
    highs, glpk = table.loc["highs"], table.loc["glpk"]
    assert highs.runs == 2 and glpk.runs == 1  # solved runs only
    assert (highs.load, highs.startup, highs.build, highs.handover, highs.solving, highs.decode, highs.check) == \
        pytest.approx((0.1, 0.2, 0.2, 0.2, 0.5, 0.05, 0.05))
    assert highs.total == pytest.approx(0.1 + 0.2 + 1.0) and highs.own_clock
    assert (glpk.handover, glpk.solving) == pytest.approx((0.0, 0.7)) and not glpk.own_clock
    labels = []
    figures.INSPECTORS.append(lambda figure: labels.extend(t.get_text() for ax in figure.axes
                                                         for t in ax.get_yticklabels()))
    try:
        paths = time_parts.where_the_time_goes(runs, figures.FigureStyle(), tmp_path / "parts")
    finally:
        figures.INSPECTORS.pop()
    assert [p.suffix for p in paths] == [".pdf", ".png"] and all(p.stat().st_size > 1000 for p in paths)
    assert "glpk / f*" in labels and "highs / f" in labels  # the star: no clock of its own
