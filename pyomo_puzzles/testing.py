"""The conformance kit: checks a family against the contract (`docs/contract.md`).

In a plugin's test suite (pytest)::

    from pyomo_puzzles.testing import conformance_tests

    test_conformance = conformance_tests("sudoku")

makes one test per check, each named for what it checks:

- ``contract``: the `Family` object keeps the contract (hooks, arities, schema);
- ``schema``: a data file with an unknown, a missing or a retyped field is refused by a
  `DataError` that names that field (Pyomo itself would ignore a misspelt name);
- ``solve``: every formulation solves every instance that states a known answer (``known:``
  with ``solutions``, ``solvable`` or ``objective``, or the family's `known_objective`), on
  every installed solver, to a solution the checker accepts, with the known objective (and,
  where the family gives an `objective` hook, an objective the hook confirms: a formulation
  whose objective is not the puzzle's fails here);
- ``count``: where an instance states at most `count_up_to` solutions, every formulation that
  can enumerate finds exactly that many;
- ``orbits``: where such an instance's family states symmetries, the plain count (every
  solution enumerated on the model as built), the count through orbits (the formulation's
  `prepare_enumeration` restriction, each orbit counted whole) and the count up to symmetry
  agree on the number of solutions and on the digest of the set: a restriction that loses an
  orbit, or symmetry images that are not the family's symmetries, fail it;
- ``checker``: the checker accepts a solution and rejects it moved, dropped and duplicated
  (the family's `corruptions`, or generic edits of the solution's first list of parts), and
  answers (not crashes) on solutions that are not of its shape at all;
- ``symmetry``: every symmetry image of a solution is a solution, and the solution is one of
  its own images;
- ``export``: the ``.dat`` file written by `export` loads into the same model (its LP text
  is identical to the one built from the loader's data);
- ``picture``: the picture hook writes a PNG;
- ``size``: the size hook gives each instance None (no size) or a pair of a number and a unit.

Runs that the solver's licence refuses (``licence_limit``) are skipped with that reason;
so are checks whose hook the family does not have. `check_family` runs the same checks
outside pytest and returns what failed.
"""

from __future__ import annotations

import copy
import math
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Iterable

from pyomo_puzzles import api
from pyomo_puzzles.core import checking, export, instances, registry, solvers
from pyomo_puzzles.errors import DataError, UserError


class Skip(Exception):
    """A check that does not apply (the reason is the message)."""


@dataclass(frozen=True)
class Case:
    """One check of the kit: `run()` raises AssertionError if the family fails it."""

    id: str
    run: Callable[[], None]


# --- what the instances state ------------------------------------------------------------

def _known(instance) -> dict:
    """The instance's stated answer: solvable (bool) and objective (or None), if it states one."""
    known = instance.raw.get("known", {}) or {}
    objective = known.get("objective", instance.family.known_objective(instance.spec))
    solvable = known.get("solvable")
    if solvable is None and "solutions" in known:
        solvable = known["solutions"] > 0
    if solvable is None and objective is not None:
        solvable = True
    return {"solvable": solvable, "objective": objective, "solutions": known.get("solutions")}


def _instances(family, names: Iterable[str] | None) -> list:
    if names is None:
        names = [n for n in instances.shipped_instances() if n.split("/", 1)[0] == family.name]
    return [instances.load(name) for name in names]


def _installed_solvers() -> list[str]:
    return [name for name in solvers.names() if solvers.describe(name).available]


# --- the checks ----------------------------------------------------------------------------

def _check_contract(family) -> None:
    problems = registry.contract_problems(family)
    assert not problems, f"family '{family.name}' breaks the contract: " + "; ".join(problems)


def _expect_refused(data: dict, path: Path, field: str, what: str) -> None:
    try:
        instances.from_data(data, path)
    except DataError as error:
        named = error.field.replace("[", ".").split(".")[0]
        assert named == field, f"{what}: the error names field '{error.field}', not '{field}': {error}"
        return
    except UserError as error:
        raise AssertionError(f"{what}: refused without naming the field: {error}") from None
    raise AssertionError(f"{what}: the data file was accepted")


_WRONG_VALUES = ([], "not a number", 1.5, True, None, {"x": 1}, 7)


def _retyped(schema: dict, data: dict, key: str) -> Any:
    """A value of another type that the family's schema refuses for `key`, or Skip."""
    import jsonschema  # jsonschema, 0.2 s: paid when the schema case runs, not when the kit is imported

    validator = jsonschema.Draft202012Validator(schema)
    for value in _WRONG_VALUES:
        if type(value) is type(data[key]):
            continue
        if not validator.is_valid({**data, key: value}):
            return value
    raise Skip(f"the schema accepts any type for '{key}'")


def _check_schema(instance) -> None:
    data, path, schema = instance.raw, instance.path, instance.family.schema
    _expect_refused({**data, "no_such_field": 1}, path, "no_such_field", "an unknown field")
    for key in schema.get("required", []):
        if key != "puzzle" and key in data:
            _expect_refused({k: v for k, v in data.items() if k != key}, path, key, f"without '{key}'")
    for key in data:
        if key == "puzzle":
            continue
        try:
            value = _retyped(schema, data, key)
        except Skip:
            continue
        _expect_refused({**data, key: value}, path, key, f"'{key}' as {type(value).__name__}")


def _check_solve(instance, formulation: str, solver: str, time_limit: float) -> None:
    if solvers.is_known(solver):
        installed, detail = solvers.availability(solver)
        if not installed:
            raise Skip(f"{solver} not installed: {detail}")
    known = _known(instance)
    record = api.solve(instance, formulation, solver, time_limit=time_limit)
    where = f"{instance.name} [{formulation}] on {solver}"
    if record.status == "licence_limit":
        raise Skip(f"{solver}'s licence refuses this model: {record.message}")
    if known["solvable"] is False:
        assert record.status == "infeasible", f"{where}: {record.status} (the instance has no solution) {record.message}"
        return
    assert record.status == "optimal", f"{where}: {record.status} {record.message}".rstrip()
    assert record.checked, f"{where}: the solution failed the check: {record.check_errors[:1]}"
    if instance.family.objective is not None:
        assert record.objective_checked, f"{where}: the objective hook did not confirm the objective {record.objective}"
    if known["objective"] is not None:
        assert math.isclose(record.objective, known["objective"], abs_tol=1e-6), (
            f"{where}: objective {record.objective}, the instance states {known['objective']}")


def _check_count(instance, formulation: str, solver: str, time_limit: float) -> None:
    expected = _known(instance)["solutions"]
    result = api.count(instance, formulation, solver, time_limit=time_limit)
    assert result.complete, f"{instance.name} [{formulation}]: the count did not finish: {result.message}"
    assert result.solutions == expected, (
        f"{instance.name} [{formulation}]: {result.solutions} solutions, the instance states {expected}")


def _check_orbit_counts(instance, formulation: str, solver: str, time_limit: float) -> None:
    where = f"{instance.name} [{formulation}]"
    plain = api.count(instance, formulation, solver, time_limit=time_limit, symmetry=False)
    routes = {"enumerated plainly": plain}
    if registry.formulation(instance.family, formulation).prepare_enumeration is not None:
        routes["through orbits"] = api.count(instance, formulation, solver, time_limit=time_limit)
    routes["up to symmetry"] = api.count(instance, formulation, solver, time_limit=time_limit, up_to_symmetry=True)
    for route, result in routes.items():
        assert result.complete, f"{where}: the count {route} did not finish: {result.message}"
    for route, result in routes.items():
        assert result.solutions == plain.solutions, (
            f"{where}: {result.solutions} solutions {route}, {plain.solutions} enumerated plainly: the "
            "formulation's prepare_enumeration keeps less than one solution of every orbit, or the family's "
            "symmetry_images are not symmetries of the instance")
        assert result.digest == plain.digest, (
            f"{where}: the set found {route} differs from the one enumerated plainly (digests {result.digest} "
            f"and {plain.digest})")


@lru_cache(maxsize=None)
def _solution(name: str, time_limit: float) -> dict:
    """A checked solution of a shipped instance, or Skip."""
    record = api.solve(name, time_limit=time_limit, isolate=False)
    if record.solution is None or not record.checked:
        raise Skip(f"no checked solution of {name} to work on ({record.status})")
    return record.solution


def _instance_solution(instance, time_limit: float) -> dict:
    if instance.path.is_file() and instance.name in api.list_instances():
        return copy.deepcopy(_solution(instance.name, time_limit))
    record = api.solve(instance, time_limit=time_limit, isolate=False)
    if record.solution is None or not record.checked:
        raise Skip(f"no checked solution of {instance.name} to work on ({record.status})")
    return record.solution


def _first_number_moved(part: Any) -> Any:
    """`part` with its first integer (depth first) increased by one, or None if it has none."""
    if isinstance(part, bool):
        return None
    if isinstance(part, int):
        return part + 1
    if isinstance(part, list):
        items = list(part)
        for i, item in enumerate(items):
            moved = _first_number_moved(item)
            if moved is not None:
                items[i] = moved
                return items
    if isinstance(part, dict):
        for key, item in part.items():
            moved = _first_number_moved(item)
            if moved is not None:
                return {**part, key: moved}
    return None


def generic_corruptions(solution: dict) -> dict[str, dict]:
    """The solution's first list of parts with one part moved (its first number increased by
    one), one dropped, and one duplicated."""
    key = next((k for k, v in solution.items() if isinstance(v, list) and v), None)
    if key is None:
        raise Skip("the solution has no list of parts for generic corruptions: give the Family 'corruptions'")
    parts = solution[key]
    wrong = {"dropped": {**solution, key: parts[:-1]},
             "duplicated": {**solution, key: parts + [copy.deepcopy(parts[0])]}}
    moved = _first_number_moved(parts[0])
    if moved is not None:
        wrong["moved"] = {**solution, key: [moved] + parts[1:]}
    return wrong


def _check_checker(instance, time_limit: float) -> None:
    family = instance.family
    solution = _instance_solution(instance, time_limit)
    assert checking.check_solution(instance, solution) == [], f"{instance.name}: the checker rejects a checked solution"
    corrupt = family.corruptions or (lambda spec, s: generic_corruptions(s))
    wrong = corrupt(instance.spec, copy.deepcopy(solution))
    assert wrong, f"{instance.name}: no corrupted solutions to try"
    for what, bad in wrong.items():
        assert checking.check_solution(instance, bad), (
            f"{instance.name}: the checker accepts the solution with a part {what}")
    for garbage in ({}, {"no_such_field": [1, 2]}, {key: None for key in solution}):
        errors = checking.check_solution(instance, garbage)
        assert errors and all(isinstance(e, str) for e in errors), (
            f"{instance.name}: the checker accepts {garbage!r} or answers with something else than messages")


def _check_symmetry(instance, time_limit: float) -> None:
    family = instance.family
    solution = _instance_solution(instance, time_limit)
    images = family.symmetry()(instance.spec, solution)
    keys = {family.solution_key(image) for image in images}
    assert family.solution_key(solution) in keys, f"{instance.name}: a solution is not among its own symmetry images"
    for image in images:
        errors = checking.check_solution(instance, image)
        assert not errors, f"{instance.name}: a symmetry image is not a solution: {errors[0]}"


def _check_export(instance, formulation: str) -> None:
    form = registry.formulation(instance.family, formulation)
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder)
        dat = export.export(instance, formulation, out, ("dat",))[0]
        from_dat = form.build_model().create_instance(str(dat))
        from_data = form.build_model().create_instance(data=form.model_data(instance.spec))
        texts = []
        for name, model in (("dat", from_dat), ("data", from_data)):
            path = out / f"{name}.lp"
            model.write(str(path), io_options={"symbolic_solver_labels": True})
            texts.append(path.read_text())
        assert texts[0] == texts[1], f"{instance.name} [{formulation}]: the model read from {dat.name} differs"


def _check_picture(instance, time_limit: float) -> None:
    solution = _instance_solution(instance, time_limit)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "solution.png"
        instance.family.drawing()(instance.spec, solution, path)
        assert path.is_file() and path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", (
            f"{instance.name}: the picture hook wrote no PNG to {path.name}")


def _check_size(instance) -> None:
    try:
        instance.family.size_of(instance.spec)
    except UserError as error:
        raise AssertionError(f"{instance.name}: {error}") from None


# --- the cases -----------------------------------------------------------------------------

def conformance_cases(family: str, *, instances: Iterable[str] | None = None,
                      solvers: Iterable[str] | None = None, formulations: Iterable[str] | None = None,
                      time_limit: float = 60.0, count_up_to: int = 10) -> list[Case]:
    """Every check of the kit for one family, as cases to run.

    `instances` (names or data-file paths; default: the family's shipped instances),
    `solvers` (default: every installed solver) and `formulations` (default: all of the
    family's) choose the scope; `time_limit` bounds each solve and count."""
    fam = registry.family(family)
    loaded = _instances(fam, instances)
    solver_names = list(solvers) if solvers is not None else _installed_solvers()
    forms = list(formulations) if formulations is not None else list(fam.formulations)
    cases = [Case("contract", lambda: _check_contract(fam))]
    if loaded:
        cases.append(Case(f"schema-{loaded[0].name}", lambda i=loaded[0]: _check_schema(i)))
    for inst in loaded:
        known = _known(inst)
        for name in forms:
            form = registry.formulation(fam, name)
            if form.applies_to(inst.spec):
                continue
            if known["solvable"] is not None:
                cases += [Case(f"solve-{inst.name}-{name}-{solver}",
                               lambda i=inst, f=name, s=solver: _check_solve(i, f, s, time_limit))
                          for solver in solver_names]
            if form.solution_vars is not None and known["solutions"] is not None and known["solutions"] <= count_up_to:
                cases.append(Case(f"count-{inst.name}-{name}",
                                  lambda i=inst, f=name: _check_count(i, f, solver_names[0], time_limit)))
                if fam.symmetry_images is not None:
                    cases.append(Case(f"orbits-{inst.name}-{name}",
                                      lambda i=inst, f=name: _check_orbit_counts(i, f, solver_names[0], time_limit)))
            if form.stages is None:
                cases.append(Case(f"export-{inst.name}-{name}", lambda i=inst, f=name: _check_export(i, f)))
        if fam.size is not None:
            cases.append(Case(f"size-{inst.name}", lambda i=inst: _check_size(i)))
        if known["solvable"] is not False:
            cases.append(Case(f"checker-{inst.name}", lambda i=inst: _check_checker(i, time_limit)))
            if fam.symmetry_images is not None:
                cases.append(Case(f"symmetry-{inst.name}", lambda i=inst: _check_symmetry(i, time_limit)))
            if fam.draw is not None:
                cases.append(Case(f"picture-{inst.name}", lambda i=inst: _check_picture(i, time_limit)))
    return cases


def run_case(case: Case) -> str | None:
    """Run one case: None if it passed, 'skipped: ...' or the failure's message."""
    try:
        case.run()
    except Skip as skip:
        return f"skipped: {skip}"
    except AssertionError as failure:
        return str(failure)
    except Exception as error:  # noqa: BLE001 - a hook that crashes fails its case
        return f"raised {type(error).__name__}: {error}".splitlines()[0]
    return None


def check_family(family: str, **scope: Any) -> dict[str, str]:
    """Run every case (see `conformance_cases` for the scope); returns the cases that did not
    pass, by id, with why (skipped ones start with 'skipped:')."""
    outcome = {case.id: run_case(case) for case in conformance_cases(family, **scope)}
    return {case_id: why for case_id, why in outcome.items() if why is not None}


def conformance_tests(family: str, **scope: Any):
    """A pytest test function, parametrised with one case per check (see `conformance_cases`).
    Assign it to a name starting with ``test_`` in a test module."""
    import pytest  # pytest, 0.2 s: check_family, run outside pytest, does not load it

    cases = conformance_cases(family, **scope)

    @pytest.mark.parametrize("case", cases, ids=[case.id for case in cases])
    def test_conformance(case: Case) -> None:
        try:
            case.run()
        except Skip as skip:
            pytest.skip(str(skip))

    return test_conformance
