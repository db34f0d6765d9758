"""The benchmark library (issue 29): the families' catalogues, `pyomo-puzzles library`, the
reference file, selection by band in an experiment, and the MPS export read back by HiGHS.

Ground truth, independent of the catalogues and of integer programming:
* a Rubik scramble's distance is in its name (``..._depth_12_1``, ``library/depth13_...``),
  found by the breadth-first tables (2x2x2) and meeting in the middle (3x3x3; at 13: more
  than 12 there, and a scramble of 13 moves) when it was generated;
* the shipped packing puzzles have tilings (ground_truth.md: pentominoes 6x10 2,339, 5x12
  1,010, 4x15 368, 3x20 2 up to symmetry; Soma 240; L-tromino cube 111; IQ Twist empty
  board 5,992), so their feasibility model's optimum is 0; a generated board is decided by
  dancing links (exact cover search, no integer programming);
* two, three or four sets of the pentominoes tile a board made of boards one set tiles
  (10x12, 8x15, 6x20; 12x15, 10x18, 6x30; 10x24);
* a board the checkerboard colouring forbids (the 35 hexominoes on 15x14) has no tiling: the
  argument is computed again here from the data file;
* an Instant Insanity tower generated with a planted solution is solvable; one generated
  unsolvable was proved so by the generator.
"""

from __future__ import annotations

import dataclasses
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
import yaml

from pyomo_puzzles.core import instances, library, registry, run
from pyomo_puzzles.errors import DataError, UserError
from pyomo_puzzles.experiment import ConfigError, expand_instances
from pyomo_puzzles.families.instant_insanity import design
from pyomo_puzzles.families.packing.polyominoes import colouring_proof

PACKING_TILINGS_UP_TO_SYMMETRY = {"pentominoes/6x10": 2339, "pentominoes/5x12": 1010, "pentominoes/4x15": 368,
                                  "pentominoes/3x20": 2, "soma_cube": 240, "l_tromino_cube": 111,
                                  "iq_twist/empty": 1498, "iq_twist/empty_no_flips": 440}

OPEN_SOURCE_MIP_SOLVERS = ("highs", "scip", "cbc", "glpk")
"""The solvers whose virtual best makes a band (docs/library.md)."""

SETS_OF_ONE_SET_TILINGS = {
    "library/polyominoes_copies2_height12_order5_width10_seed1": "two 10x6 tilings, one above the other",
    "library/polyominoes_copies2_height15_order5_width8_seed1": "two 4x15 tilings side by side",
    "library/polyominoes_copies2_height20_order5_width6_seed1": "two 6x10 tilings, one above the other",
    "library/polyominoes_copies3_height15_order5_width12_seed1": "three 12x5 tilings, one above the other",
    "library/polyominoes_copies3_height18_order5_width10_seed1": "three 10x6 tilings, one above the other",
    "library/polyominoes_copies3_height30_order5_width6_seed1": "three 6x10 tilings, one above the other",
    "library/polyominoes_copies4_height24_order5_width10_seed1": "four 10x6 tilings, one above the other"}
"""Two or three sets of the pentominoes on a board that tilings of one set fill side by side."""


def catalogue_items(question: str | None = "solve") -> list[dict]:
    """Every catalogue entry asking `question` (solve, count; None: both), read with plain YAML
    (not through `core.library`)."""
    items = []
    for fam in registry.families().values():
        if fam.library is not None:
            items += [dict(item, family=fam.name) for item in yaml.safe_load(fam.library.read_text())["instances"]]
    return [i for i in items if question is None or i.get("question", "solve") == question]


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pyomo_puzzles", *args], capture_output=True, text=True)


def test_every_shipped_family_has_a_library_with_medium_instances():
    items = catalogue_items()
    assert {i["family"] for i in items} == {"packing", "instant_insanity", "instant_insanity_design", "rubik"}
    assert Counter(i["band"] for i in items)["medium"] >= 3


def test_reference_answers_agree_with_the_independent_ground_truth():
    for entry in library.library_entries():
        stem = entry.name.split("/", 1)[1]
        if entry.family == "rubik":
            distance = int(re.search(r"depth_?(\d+)", stem).group(1))  # depth_12_1, library/depth12_...
            assert (entry.answer.status, entry.answer.objective) == ("optimal", distance), entry
        elif entry.family == "packing":
            data = instances.load(entry.name).raw
            if stem in PACKING_TILINGS_UP_TO_SYMMETRY:
                solvable = PACKING_TILINGS_UP_TO_SYMMETRY[stem] > 0
            elif stem in SETS_OF_ONE_SET_TILINGS:
                solvable = True
            elif data.get("known") == {"solutions": 0}:  # the data file's proof, computed again here
                width, height = data["board"]["size"]
                board = {(x, y) for x in range(width) for y in range(height)} - {tuple(c) for c in
                                                                                   data["board"].get("holes", [])}
                pieces = [p["cells"] for p in data["pieces"] for _ in range(p.get("count", 1))]
                assert colouring_proof(board, pieces) is not None
                solvable = False
            else:  # a generated board: dancing links, the family's non-IP method, decides
                record = run.run(entry.name, None, "dlx", time_limit=120, isolate=False)
                assert record.status in ("optimal", "infeasible"), record.message
                solvable = record.status == "optimal" and record.checked is True
            expected = ("optimal", 0) if solvable else ("infeasible", None)
            assert (entry.answer.status, entry.answer.objective) == expected, entry
        elif entry.family == "instant_insanity_design":
            data = instances.load(entry.name).raw
            assert entry.answer.status == "optimal", entry
            if "number_of_cubes" in data:  # the question itself: a set exists (the census's 354 sets)
                assert entry.answer.objective == 0, entry
            elif len(data["cubes"]) == 4:  # the census of every set of four cubes, computed again here
                expected = design.fewest_repaints(data["cubes"], tuple(data["towers"]))["repaints"]
                assert entry.answer.objective == expected, entry
        else:
            solvable = instances.load(entry.name).raw["known"]["solvable"]
            assert entry.answer.status == ("optimal" if solvable else "infeasible"), entry
        if entry.band == "beyond":  # no method within the limit: the answer is known another way
            assert entry.sources and all(s.startswith("the data file") for s in entry.sources), entry
        else:
            assert len(entry.sources) >= 2, f"{entry.name}: one source only"  # two independent methods


PUBLISHED_COUNTS = {"packing/l_tromino_cube": (5328, 111), "packing/soma_cube": (11520, 240),
                    "packing/pentominoes/3x20": (8, 2), "packing/pentominoes/4x15": (1472, 368),
                    "packing/pentominoes/5x12": (4040, 1010), "packing/pentominoes/6x10": (9356, 2339),
                    "packing/iq_twist/empty": (5992, 1498), "instant_insanity/parker_brothers": (8, 2)}
"""(solutions, up to symmetry) from ground_truth.md: exhaustive search or exact cover, and published."""


def test_every_counting_answer_is_the_published_count():
    counts = library.library_entries(questions=("count",))
    assert {e.family for e in counts} == {"packing", "instant_insanity"} and len(counts) >= 6
    for entry in counts:
        if entry.name in PUBLISHED_COUNTS:
            assert (entry.answer.solutions, entry.answer.classes) == PUBLISHED_COUNTS[entry.name], entry.name
        else:  # the design questions: the exhaustive census of cube sets (design.py) wrote them into the file
            known = instances.load(entry.name).raw["known"]
            assert (entry.answer.solutions, entry.answer.classes) == (known["solutions"],
                                                                      known["solutions_up_to_symmetry"]), entry.name
        assert entry.up_to_symmetry and len(entry.sources) >= 3, entry.name  # two counting methods and the figure
    soma = library.reference_count("packing/soma_cube", up_to_symmetry=True)
    assert (soma.solutions, soma.classes) == (11520, 240)
    assert library.reference_count("packing/soma_cube", up_to_symmetry=False).solutions == 11520
    assert library.reference_answer("packing/soma_cube") is None or \
        library.reference_answer("packing/soma_cube").solutions is None  # the solve question's, not the count's


def test_an_experiment_counts_the_library_s_counting_questions_by_band():
    from pyomo_puzzles.experiment import count_jobs

    config = {"counts": {"instances": [{"library": "medium", "families": ["packing"]}], "formulations": ["placement"],
                         "solvers": ["scip"], "methods": ["native"], "up_to_symmetry": True, "time_limit": 60}}
    medium = {i["name"] for i in catalogue_items("count") if i["band"] == "medium" and i["family"] == "packing"}
    assert "packing/soma_cube" in medium
    jobs = count_jobs(config, report=lambda _: None)
    assert {j.instance for j in jobs} == medium and {(j.solver, j.method) for j in jobs} == {("scip", "native")}
    config["counts"]["up_to_symmetry"] = False  # the library counts up to symmetry only
    with pytest.raises(ConfigError, match=r"counts\.instances\[0\].*no medium counting question of all solutions"):
        count_jobs(config, report=lambda _: None)


def test_every_band_agrees_with_its_calibrated_times():
    for item in catalogue_items(None):
        solved = [t for t in item["times"].values() if t is not None]
        best = min(solved) if solved else None
        if item["band"] == "easy":
            assert best < 1
        elif item["band"] == "medium":
            assert 1 <= best < 60
        elif item["band"] == "hard":
            assert 60 <= best < 600
        else:
            assert best is None or best >= 600
        assert item["calibration"]["threads"] == 1 and item["calibration"]["solvers"]
        if item["band"] != "easy":  # a method left out might have been quicker: only easy cannot be lowered
            formulations = {method.split("/")[1] for method in item["times"]}
            expected = {f"{s}/{f}" for s in OPEN_SOURCE_MIP_SOLVERS for f in formulations}
            if item.get("question") == "count":  # every solver by no-good cuts, SCIP by its own counter too
                expected = {f"{m}/nogood" for m in expected} | {f"scip/{f}/native" for f in formulations}
            assert expected <= set(item["times"]), item["name"]
        floor = {"easy": 0, "medium": 1, "hard": 60, "beyond": 600}[item["band"]]
        for method, limit in item["calibration"].get("limits", {}).items():  # stopped early: not below the band
            assert item["times"][method] is not None or limit >= floor, (item["name"], method, limit)


def test_the_listing_counts_each_family_s_bands():
    done = cli("library")
    assert done.returncode == 0, done.stderr
    items = catalogue_items(None)
    expected = Counter((i["family"], i.get("question", "solve"), i["band"]) for i in items)
    rows = {tuple(line.split()[:2]): [int(n) for n in line.split()[2:]] for line in done.stdout.splitlines()
            if re.fullmatch(r"\s+[a-z_]+\s+(solve|count)(\s+\d+){4}", line)}
    assert rows == {(family, question): [expected[family, question, band] for band in library.BANDS]
                    for family, question, _ in expected}
    for item in items:
        label = item["name"] + (" (count up to symmetry)" if item.get("up_to_symmetry") else
                                " (count)" if item.get("question") == "count" else "")
        assert re.search(rf"^\s+{re.escape(label)}\s+{item['band']}\s", done.stdout, re.M), label


def test_the_reference_file_states_every_answer(tmp_path):
    solu = tmp_path / "library.solu"
    done = cli("library", "--solu", str(solu))
    assert done.returncode == 0, done.stderr
    lines = [line for line in solu.read_text().splitlines() if not line.startswith("#")]
    expected = []
    for item in catalogue_items(None):
        answer = item["answer"]
        if item.get("question") == "count":
            expected.append(f"=count= {item['name']} {answer['solutions']}")
            if "classes" in answer:
                expected.append(f"=classes= {item['name']} {answer['classes']}")
        else:
            expected.append(f"=inf= {item['name']}" if answer["status"] == "infeasible"
                            else f"=opt= {item['name']} {answer['objective']:g}")
    assert sorted(lines) == sorted(expected)


def test_a_medium_sample_agrees_with_a_fresh_run_on_highs_and_scip():
    """The two medium instances the calibration found quickest, solved again on HiGHS and SCIP."""
    medium = sorted(library.library_entries(["medium"]), key=lambda e: e.best[1])[:2]
    assert len(medium) == 2
    for entry in medium:
        formulation = entry.best[0].split("/")[1]
        for solver in ("highs", "scip"):
            record = run.run(entry.name, formulation, solver, time_limit=120, threads=1)
            assert record.status == entry.answer.status, (entry.name, solver, record.message)
            if record.status == "optimal":
                assert record.checked is True and record.objective == pytest.approx(entry.answer.objective)


def test_the_exported_library_loads_in_highs_with_the_reference_answers(tmp_path):
    import highspy

    out = tmp_path / "export"
    done = cli("library", "--export", str(out), "--instance", "instant_insanity/random_*",
               "--instance", "packing/l_tromino_cube")
    assert done.returncode == 0, done.stderr
    answers = {}
    for line in (out / "library.solu").read_text().splitlines():
        if line.startswith("=opt="):
            answers[line.split()[1]] = ("optimal", float(line.split()[2]))
        elif line.startswith("=inf="):
            answers[line.split()[1]] = ("infeasible", None)
    models = sorted(out.glob("*/*.mps"))
    assert {p.name for p in models} == {
        "random_6_unsolvable.rotations.mps", "random_6_unsolvable.opposite_pairs.mps",
        "random_8_solvable.rotations.mps", "random_8_solvable.opposite_pairs.mps",
        "l_tromino_cube.placement.mps", "l_tromino_cube.placement_unreduced.mps",
        "l_tromino_cube.cell_assignment.mps"}
    assert "README.md" in {p.name for p in out.iterdir()} and len(answers) == 3
    for mps in models:
        name = f"{mps.parent.name}/" + mps.name.split(".")[0].replace("__", "/")
        highs = highspy.Highs()
        highs.setOptionValue("output_flag", False)
        highs.setOptionValue("threads", 1)
        assert highs.readModel(str(mps)) == highspy.HighsStatus.kOk
        highs.run()
        status, objective = answers[name]
        if status == "infeasible":
            assert highs.getModelStatus() == highspy.HighsModelStatus.kInfeasible, mps.name
        else:
            assert highs.getModelStatus() == highspy.HighsModelStatus.kOptimal, mps.name
            assert highs.getInfo().objective_function_value == pytest.approx(objective, abs=1e-6)


def test_an_experiment_takes_the_library_by_band():
    names, generated = expand_instances([{"library": "medium", "families": ["packing"]}])
    assert not generated
    assert names == sorted(i["name"] for i in catalogue_items() if i["family"] == "packing" and i["band"] == "medium")
    names, _ = expand_instances([{"library": ["easy", "medium"]}])
    assert set(names) == {i["name"] for i in catalogue_items() if i["band"] in ("easy", "medium")}
    with pytest.raises(ConfigError, match=r"instances\[0\].*'sudoku_x' has no benchmark library"):
        expand_instances([{"library": "medium", "families": ["sudoku_x"]}])


def test_a_wrong_option_or_catalogue_is_one_line(tmp_path):
    done = cli("library", "--band", "tough")
    assert done.returncode == 2 and done.stderr.strip().count("\n") == 0 and "'tough'" in done.stderr
    bad = tmp_path / "library.yaml"
    good = yaml.safe_load(registry.family("packing").library.read_text())
    item = dict(good["instances"][0])
    item["bnad"] = item.pop("band")
    bad.write_text(yaml.safe_dump({"instances": [item]}))
    with pytest.raises(DataError) as error:
        library.read_catalogue("packing", bad)
    assert str(error.value) == f"{bad}: field 'instances[0].bnad': unknown field"
    item["band"] = item.pop("bnad")
    item["name"] = "packing/no_such_board"
    bad.write_text(yaml.safe_dump({"instances": [item]}))
    with pytest.raises(DataError, match=r"instances\[0\]\.name.*no shipped instance"):
        library.read_catalogue("packing", bad)


def test_the_pipeline_labels_runs_by_the_library_s_reference_answers(tmp_path):
    """A generated board's data file states no answer: the library's reference answer makes an
    'infeasible' claim on it a wrong answer, and a checked tiling agrees with it."""
    import pandas as pd

    from pyomo_puzzles.core.results import _instance_facts
    from pyomo_puzzles.report import tables

    name = next(i["name"] for i in catalogue_items() if i["name"].startswith("packing/library/"))
    assert "known" not in instances.load(name).raw
    facts = _instance_facts(name, str(tmp_path))
    assert facts["known_solvable"] is True and facts["known_objective"] == 0
    runs = pd.DataFrame([
        {"instance": name, "puzzle": "packing", "solver": "highs", "formulation": "placement", "status": "infeasible",
         "checked": None, "objective": None, **facts},
        {"instance": name, "puzzle": "packing", "solver": "scip", "formulation": "placement", "status": "optimal",
         "checked": True, "objective": 0.0, **facts}])
    alone = tables.wrong_answers(runs.iloc[:1])  # no other run to contradict it: the library does
    catalogue = registry.family("packing").library
    entries = yaml.safe_load(catalogue.read_text())["instances"]  # the entry's place in its catalogue, read plainly
    index = next(k for k, item in enumerate(entries) if item["name"] == name and item.get("question", "solve") == "solve")
    assert alone[0] == f"contradicts the instance's known answer ({catalogue}: field 'instances[{index}].answer.status')"
    assert list(tables.solved(runs)) == [False, True]


def test_a_band_that_its_times_contradict_is_refused(tmp_path):
    bad = tmp_path / "library.yaml"
    item = next(i for i in yaml.safe_load(registry.family("packing").library.read_text())["instances"]
                if i["band"] == "easy")
    item["band"] = "hard"
    bad.write_text(yaml.safe_dump({"instances": [item]}))
    with pytest.raises(DataError, match=r"instances\[0\]\.band.*'hard', but its calibrated times make it 'easy'"):
        library.read_catalogue("packing", bad)


def test_the_shipped_library_configuration_plans_every_library_instance(tmp_path):
    config = Path(__file__).resolve().parents[1] / "workflows/config/library.yaml"
    done = subprocess.run([sys.executable, "-m", "snakemake", "-n", "--cores", "1", "--configfile", str(config),
                           "--config", f"results={tmp_path / 'results'}"],
                          cwd=config.parents[2], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    from pyomo_puzzles.experiment import expand_instances

    names, _ = expand_instances(yaml.safe_load(config.read_text())["instances"])
    assert set(names) == {i["name"] for i in catalogue_items()}
    assert "solve_batch" in done.stdout
    counted, _ = expand_instances(yaml.safe_load(config.read_text())["counts"]["instances"], counted=True)
    assert set(counted) == {i["name"] for i in catalogue_items("count")}
    assert re.search(r"^count\s+\d+", done.stdout, re.M)  # the counting questions' jobs, in the job stats
    package = Path(__file__).resolve().parents[1] / "pyomo_puzzles"
    shipped = [fam for fam in registry.families().values() if fam.library and package in fam.library.parents]
    planned = set(yaml.safe_load(config.read_text())["formulations"])
    for fam in shipped:  # "every formulation": a shipped family's formulation left out would go unmeasured
        assert set(fam.formulations) <= planned, (fam.name, set(fam.formulations) - planned)


def _run(instance: str, solver: str, status: str = "optimal", build: float = 0.5, call: float = 1.0,
         objective: float = 0.0) -> dict:
    """A run record's columns as the runs table has them (by hand: the calibration's arithmetic)."""
    return {"puzzle": instance.split("/")[0], "instance": instance, "formulation": "f", "solver": solver,
            "repeat": 1, "status": status, "checked": True if status == "optimal" else None,
            "wall_time": build + call + 0.2, "load_time": 0.1, "startup_time": None, "build_time": build,
            "call_time": call, "solver_time": call * 0.9, "decode_time": 0.05, "check_time": 0.05,
            "time_limit": 60.0, "objective": objective if status == "optimal" else float("nan"),
            "known_solvable": None, "known_objective": float("nan"), "size": float("nan"), "size_label": None}


def test_calibration_bands_by_the_virtual_best_and_witnesses_only_add_sources():
    """p/a: A 1.5 s, B 3.5 s (build + call) -> medium by A; a dancing-links witness in 0.1 s
    adds a source but neither a time nor the easy band. p/b: a witness that finds a solution
    where the calibrated solvers proved infeasibility leaves the instance uncalibrated."""
    import pandas as pd

    from pyomo_puzzles.report.calibration import calibrate

    runs = pd.DataFrame([_run("p/a", "A"), _run("p/a", "B", build=0.5, call=3.0),
                         _run("p/b", "A", status="infeasible"), _run("p/b", "B", status="infeasible")])
    witnesses = pd.DataFrame([_run("p/a", "dlx", build=0.05, call=0.05), _run("p/b", "dlx")])
    facts = {"p/a": {"time_limit": 60}, "p/b": {"time_limit": 60}}
    alone = {c.instance: c for c in calibrate(runs, facts)}
    assert alone["p/a"].entry["band"] == "medium" and alone["p/a"].entry["times"] == {"A/f": 1.5, "B/f": 3.5}
    assert alone["p/b"].entry["answer"] == {"status": "infeasible"} and len(alone["p/b"].entry["sources"]) == 2
    witnessed = {c.instance: c for c in calibrate(runs, facts, witnesses=witnesses)}
    entry = witnessed["p/a"].entry
    assert entry["band"] == "medium" and set(entry["times"]) == {"A/f", "B/f"}
    assert len(entry["sources"]) == 3 and any(s.startswith("dlx/f") for s in entry["sources"])
    assert witnessed["p/b"].entry is None and "others claimed infeasible" in witnessed["p/b"].skipped
    stated = runs.assign(known_solvable=runs["instance"] == "p/a")  # a bool column, as Parquet reads one back
    sources = {c.instance: c.entry["sources"] for c in calibrate(stated, facts)}
    assert "the data file's known answer (solvable)" in sources["p/a"]
    assert "the data file's known answer (solvable: false)" in sources["p/b"]


def test_a_staged_calibration_names_the_methods_run_with_the_quickest_time_as_their_limit():
    """Stage 1: A at 600 s solves p/h in 119.5 + 0.5 = 120 s; stage 2: B with a 121 s limit
    times out. The band is A's (hard), B's time is null, and the entry says B ran to 121 s only;
    the catalogue schema accepts the entry."""
    import pandas as pd

    from pyomo_puzzles.core.library import SCHEMA
    from pyomo_puzzles.report.calibration import calibrate

    runs = pd.DataFrame([{**_run("p/h", "a", build=0.5, call=119.5), "time_limit": 600.0},
                         {**_run("p/h", "b", status="time_limit", call=121.0), "time_limit": 121.0}])
    facts = {"p/h": {"command": "c", "machine": "m", "solvers": {"a": "1", "b": "2"}, "threads": 1,
                     "time_limit": 600.0, "date": "2026-11-26"}}
    entry = calibrate(runs, facts)[0].entry
    assert entry["band"] == "hard" and entry["times"] == {"a/f": 120.0, "b/f": None}
    assert entry["calibration"]["limits"] == {"b/f": 121.0} and entry["calibration"]["time_limit"] == 600.0
    import jsonschema

    jsonschema.validate({"instances": [entry]}, SCHEMA)
    alone = calibrate(runs[runs["solver"] == "a"], facts)[0].entry
    assert "limits" not in alone["calibration"]


def test_a_method_cut_short_below_the_band_edge_leaves_the_instance_uncalibrated():
    """A solves p/h in 120 s (hard: from 60 s); B, stopped at 30 s unsolved, might have taken 45 s
    (medium), so p/h gets no entry; stopped at 60 s it cannot have been under 60 s: hard."""
    import pandas as pd

    from pyomo_puzzles.report.calibration import calibrate

    facts = {"p/h": {"command": "c", "machine": "m", "solvers": {"a": "1", "b": "2"}, "threads": 1,
                     "time_limit": 600.0, "date": "2026-11-26"}}

    def calibrated(b_limit: float):
        runs = pd.DataFrame([{**_run("p/h", "a", build=0.5, call=119.5), "time_limit": 600.0},
                             {**_run("p/h", "b", status="time_limit", call=b_limit), "time_limit": b_limit}])
        return calibrate(runs, facts)[0]

    short = calibrated(30.0)
    assert short.entry is None and "b/f" in short.skipped and "60 s" in short.skipped
    edge = calibrated(60.0).entry
    assert edge["band"] == "hard" and edge["calibration"]["limits"] == {"b/f": 60.0}


def test_a_band_above_easy_needs_every_calibration_solver_on_every_formulation_run():
    """p/m: A solves it in 2 s (build + call), B did not run: B might have taken 0.5 s, so no
    entry, naming B/f; with B's run (5 s) it is medium by A. p/e: A alone in 0.5 s is easy, which
    no method left out could lower."""
    import pandas as pd

    from pyomo_puzzles.report.calibration import calibrate

    facts = {"p/m": {"time_limit": 60}, "p/e": {"time_limit": 60}}
    alone = pd.DataFrame([_run("p/m", "A", build=0.5, call=1.5), _run("p/e", "A", build=0.1, call=0.4)])
    found = {c.instance: c for c in calibrate(alone, facts, solvers=["A", "B"])}
    assert found["p/m"].entry is None and "B/f" in found["p/m"].skipped and "A/f" not in found["p/m"].skipped
    assert found["p/e"].entry["band"] == "easy" and found["p/e"].entry["times"] == {"A/f": 0.5}
    both = pd.concat([alone, pd.DataFrame([_run("p/m", "B", build=1.0, call=4.0)])], ignore_index=True)
    entry = {c.instance: c for c in calibrate(both, facts, solvers=["A", "B"])}["p/m"].entry
    assert entry["band"] == "medium" and entry["times"] == {"A/f": 2.0, "B/f": 5.0}


def _count_item(**changes) -> dict:
    """A counting question as a catalogue states it (the L-tromino cube: 5,328 tilings, 111 up
    to its 48 symmetries, ground_truth.md)."""
    item = {"name": "packing/l_tromino_cube", "question": "count", "up_to_symmetry": True, "band": "medium",
            "times": {"highs/placement/nogood": 1.6, "scip/placement/native": None},
            "calibration": {"command": "c", "machine": "m", "solvers": {"highs": "1"}, "threads": 1,
                            "time_limit": 120.0, "measure": "count", "date": "2026-11-26"},
            "answer": {"status": "optimal", "objective": 0, "solutions": 5328, "classes": 111},
            "sources": ["highs/placement/nogood (complete count)", "dlx/dlx/native (complete count)"]}
    item.update(changes)
    return item


def test_a_counting_question_is_an_entry_of_its_own_beside_the_solve_question(tmp_path):
    path = tmp_path / "library.yaml"
    solve = next(i for i in yaml.safe_load(registry.family("packing").library.read_text())["instances"]
                 if i["name"] == "packing/l_tromino_cube")
    path.write_text(yaml.safe_dump({"instances": [solve, _count_item()]}))
    entries = library.read_catalogue("packing", path)
    count = next(e for e in entries if e.question == "count")
    assert (count.up_to_symmetry, count.answer.solutions, count.answer.classes) == (True, 5328, 111)
    assert count.label == "packing/l_tromino_cube (count up to symmetry)"
    assert count.answer_text == "5328 solutions (111 up to symmetry)" and count.best == ("highs/placement/nogood", 1.6)
    lines = library.solu_text(list(entries)).splitlines()
    assert "=count= packing/l_tromino_cube 5328" in lines and "=classes= packing/l_tromino_cube 111" in lines
    assert "=opt= packing/l_tromino_cube 0" in lines
    twice = tmp_path / "twice.yaml"  # another file: catalogues are read once per path
    twice.write_text(yaml.safe_dump({"instances": [_count_item(), _count_item()]}))
    with pytest.raises(DataError, match=r"instances\[1\]\.name.*\(count up to symmetry\)' is listed twice"):
        library.read_catalogue("packing", twice)


@pytest.mark.parametrize("changes, field", [
    ({"times": {"highs/placement": 1.6}}, "times"),                      # a solve method in a count
    ({"answer": {"status": "optimal", "objective": 0}}, "answer.solutions"),
    ({"answer": {"status": "optimal", "objective": 0, "solutions": 5328}}, "answer.classes"),
    ({"question": "solve", "times": {"highs/placement": 1.6}}, "up_to_symmetry"),
    ({"calibration": dict(_count_item()["calibration"], measure="build_and_solve")}, "calibration.measure"),
])
def test_a_wrong_counting_question_is_refused_naming_its_field(tmp_path, changes, field):
    path = tmp_path / "library.yaml"
    path.write_text(yaml.safe_dump({"instances": [_count_item(**changes)]}))
    with pytest.raises(DataError) as error:
        library.read_catalogue("packing", path)
    assert f"field 'instances[0].{field}'" in str(error.value)


def _count(instance: str, solver: str, method: str = "nogood", elapsed: float = 2.0, complete: bool = True,
           solutions: int = 8, classes: int = 2, digest: str = "d1", formulation: str = "f") -> dict:
    """A count record's columns as `calibrate` reads them (by hand: the calibration's rules)."""
    return {"instance": instance, "formulation": formulation, "solver": solver, "method": method,
            "up_to_symmetry": True, "complete": complete, "solutions": solutions, "classes": classes,
            "digest": digest, "elapsed": elapsed, "known_solutions": 8, "known_classes": 2}


def test_counting_questions_are_banded_by_the_calibration_s_counting_methods_only():
    """p/m: a counts in 2.0 s and b's own enumeration in 1.5 s (medium by b); a dancing-links
    count in 0.01 s is a source, never a time. p/x: b's native count did not run: no entry.
    p/d: two complete counts with different digests: no entry. p/u: nothing finished."""
    import pandas as pd

    from pyomo_puzzles.core.library import SCHEMA
    from pyomo_puzzles.report.calibration import calibrate_counts

    methods_of = {"a": ("nogood",), "b": ("nogood", "native")}
    rows = [_count("p/m", "a"), _count("p/m", "b", elapsed=30.0, complete=False), _count("p/m", "b", "native", 1.5),
            _count("p/m", "dlx", "native", 0.01, formulation="dlx"),
            _count("p/x", "a"), _count("p/x", "b"),
            _count("p/d", "a"), _count("p/d", "b"), _count("p/d", "b", "native", digest="d2"),
            _count("p/u", "a", complete=False), _count("p/u", "b", complete=False), _count("p/u", "b", "native",
                                                                                           complete=False)]
    facts = {name: {"command": "c", "machine": "m", "solvers": {"a": "1"}, "threads": 1, "time_limit": 120.0,
                    "measure": "build_and_solve", "date": "2026-11-26"} for name in ("p/m", "p/x", "p/d", "p/u")}
    found = {c.instance: c for c in calibrate_counts(pd.DataFrame(rows), facts, methods_of)}
    entry = found["p/m"].entry
    assert entry["band"] == "medium" and entry["question"] == "count" and entry["up_to_symmetry"] is True
    assert entry["times"] == {"a/f/nogood": 2.0, "b/f/native": 1.5, "b/f/nogood": None}
    assert entry["answer"] == {"status": "optimal", "objective": 0, "solutions": 8, "classes": 2}
    assert "dlx/dlx/native (complete count)" in entry["sources"] and len(entry["sources"]) == 4  # + the data file
    assert entry["calibration"]["measure"] == "count"
    import jsonschema

    jsonschema.validate({"instances": [entry]}, SCHEMA)
    assert found["p/x"].entry is None and "b/f/native did not count it" in found["p/x"].skipped
    assert found["p/d"].entry is None and "disagree" in found["p/d"].skipped
    assert found["p/u"].entry is None and "within 120 s" in found["p/u"].skipped


def test_a_staged_count_calibration_names_the_lower_limits_and_refuses_one_cut_short():
    """Stage 1: b's counter finishes p/h in 127.7 s (limit 600); stage 2: every other method with
    the hard band's lower edge (60 s) as its limit, b's counter again among them (unfinished):
    hard by b, the others' limits named. A method stopped at 30 s might have been quicker than
    60 s: no entry."""
    import pandas as pd

    from pyomo_puzzles.report.calibration import calibrate_counts

    methods_of = {"a": ("nogood",), "b": ("nogood", "native")}
    facts = {"p/h": {"command": "c", "machine": "m", "solvers": {"a": "1"}, "threads": 1, "time_limit": 600.0,
                     "date": "2026-11-26"}}

    def calibrated(a_limit: float):
        rows = [{**_count("p/h", "b", "native", 127.7), "time_limit": 600.0},
                {**_count("p/h", "b", "native", 60.0, complete=False), "time_limit": 60.0},
                {**_count("p/h", "b", "nogood", 60.0, complete=False), "time_limit": 60.0},
                {**_count("p/h", "a", "nogood", a_limit, complete=False), "time_limit": a_limit}]
        return calibrate_counts(pd.DataFrame(rows), facts, methods_of)[0]

    entry = calibrated(60.0).entry
    assert entry["band"] == "hard" and entry["times"] == {"a/f/nogood": None, "b/f/native": 127.7, "b/f/nogood": None}
    assert entry["calibration"]["limits"] == {"a/f/nogood": 60.0, "b/f/nogood": 60.0}
    short = calibrated(30.0)
    assert short.entry is None and "a/f/nogood counted with a limit of 30 s" in short.skipped


def test_the_environment_record_names_the_solvers_that_only_count():
    """A solver in `counts.solvers` alone is part of the experiment: its version is recorded
    (the counting calibration's entries name it)."""
    from pyomo_puzzles import experiment

    schema = Path(__file__).resolve().parents[1] / "workflows/schemas/config.schema.yaml"
    config = experiment.validate_config({"instances": ["packing/pentominoes/3x20"], "formulations": ["placement"],
                                         "solvers": ["highs"], "counts": {
                                             "instances": ["packing/pentominoes/3x20"], "formulations": ["placement"],
                                             "solvers": ["scip", "dlx"]}}, schema)
    solvers = experiment.environment(config, Path("."))["solvers"]
    assert set(solvers) == {"highs", "scip", "dlx"} and solvers["scip"].startswith("SCIP ")


def test_an_instance_whose_size_hook_gives_none_is_listed_without_a_size():
    # was: TypeError ('NoneType' object is not subscriptable), a traceback. The queens plugin's
    # size is the board's side (8 for queens/eight); its weighted boards have none.
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent / "plugins" / "queens")}
    done = subprocess.run([sys.executable, "-m", "pyomo_puzzles", "library", "--family", "queens"],
                          capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    sizes = {line.split()[0]: line.split()[5] for line in done.stdout.splitlines() if line.startswith("  queens/")}
    assert sizes == {"queens/eight": "8", "queens/five_weighted": "-"}


@pytest.mark.parametrize("size, words", [
    (lambda spec: 27, "returned 27, not None or (number, unit)"),
    (lambda spec: ("27", "cells"), "returned ('27', 'cells'), not None or (number, unit)"),
    (lambda spec: (float("nan"), "cells"), "returned (nan, 'cells'), not None or (number, unit)"),
    (lambda spec: (True, "cells"), "returned (True, 'cells'), not None or (number, unit)"),
    (lambda spec: spec.no_such_field, "raised AttributeError:"),
])
def test_a_size_hook_that_gives_no_size_and_no_pair_is_one_line_naming_the_family(size, words):
    instance = instances.load("packing/l_tromino_cube")
    fam = dataclasses.replace(instance.family, size=size)  # a copy, not registered
    with pytest.raises(UserError) as error:
        fam.size_of(instance.spec)
    assert str(error.value).startswith(f"family 'packing': its size hook {words}"), str(error.value)


def test_a_size_hook_gives_none_for_no_size_or_a_pair():
    instance = instances.load("packing/l_tromino_cube")
    for size, expected in ((lambda spec: None, None), (lambda spec: [27, "cells"], (27, "cells")),
                           (lambda spec: (2.5, "cells"), (2.5, "cells"))):
        assert dataclasses.replace(instance.family, size=size).size_of(instance.spec) == expected
    assert instance.family.size_of(instance.spec) is None  # packing has no size hook
