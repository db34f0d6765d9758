"""`export`'s promise: the .dat file loads into the same model as the formulation's data
(`docs/contract.md`), also where a set or an indexed parameter is empty."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pyomo.environ as pyo

from conftest import ROOT
from pyomo_puzzles.core.export import dat_text


def _model() -> pyo.AbstractModel:
    model = pyo.AbstractModel(name="every_kind")
    model.CELLS = pyo.Set(dimen=2)
    model.ROWS = pyo.Set()
    model.MEMBERS = pyo.Set(model.ROWS)
    model.weight = pyo.Param(model.CELLS)
    model.cost = pyo.Param(model.ROWS)
    model.capacity = pyo.Param()
    model.name_of = pyo.Param(model.ROWS, within=pyo.Any)
    return model


def _contents(instance) -> dict:
    """Every set's members and every parameter's values, read from a concrete model."""
    return {"CELLS": sorted(instance.CELLS), "ROWS": sorted(instance.ROWS),
            "MEMBERS": {r: sorted(instance.MEMBERS[r]) for r in instance.ROWS},
            "weight": {k: pyo.value(v) for k, v in instance.weight.items()},
            "cost": {k: pyo.value(v) for k, v in instance.cost.items()},
            "capacity": pyo.value(instance.capacity),
            "name_of": {k: pyo.value(v) for k, v in instance.name_of.items()}}


def test_the_dat_file_loads_as_the_data_does_empty_parts_and_quotes_included(tmp_path):
    # was: `param weight :=  ;`, which Pyomo's data portal cannot read (IndexError), and a quote in a
    # string written as \" (Pyomo reads the backslash as itself: 'say \\', 'x')
    data = {None: {"CELLS": {None: []}, "ROWS": {None: [1, 2]}, "MEMBERS": {1: ["a b", 'say "x"'], 2: []},
                   "weight": {}, "cost": {1: 2.5, 2: -1}, "capacity": {None: 7}, "name_of": {1: "one", 2: "two"}}}
    path = tmp_path / "every_kind.dat"
    path.write_text(dat_text(_model(), data))
    from_dat = _contents(_model().create_instance(str(path)))
    assert from_dat == _contents(_model().create_instance(data=data))
    assert from_dat["weight"] == {} and from_dat["CELLS"] == [] and from_dat["MEMBERS"][2] == []


KIT_EXPORT = """
import json
from pyomo_puzzles.testing import conformance_cases, run_case
cases = conformance_cases("queens", instances=["queens/eight", "queens/five_weighted"], solvers=["highs"])
print(json.dumps({case.id: run_case(case) for case in cases if case.id.startswith("export-")}))
"""


def test_the_kits_export_check_passes_where_an_indexed_parameter_is_empty():
    # the queens plugin's unweighted boards have no weights; was: "raised IndexError: list index out of range"
    done = subprocess.run([sys.executable, "-c", KIT_EXPORT], capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(ROOT / "tests" / "plugins" / "queens")})
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"export-queens/eight-rows": None, "export-queens/five_weighted-rows": None}
