"""The benchmark library: instances in difficulty bands, each with a reference answer.

Each family (shipped or plugin) may keep a catalogue of its library instances: the YAML
file its `Family.library` names. The instances themselves are ordinary data files of the
family (shipped instances, named ``family/stem``); the catalogue adds what was measured
about each:

* ``band``: by the virtual best of the calibration (the fastest solved run over the
  calibration's solvers and the family's formulations, threads 1, by the time to build the
  model and solve it, ``build_and_solve``: see `pyomo_puzzles.report.calibration`):
  ``easy`` (< 1 s), ``medium`` (1-60 s), ``hard`` (60-600 s), ``beyond`` (no method within
  the calibration's limit; the answer is known another way);
* ``times``: each calibrated method's time (``solver/formulation``; ``null``: not solved
  within the limit), and its ``calibration``: command, machine, solver versions, threads,
  limit, time measure, date; ``limits`` names the methods run with a lower limit than
  ``time_limit`` (a calibration may give the other methods the quickest method's time as
  their limit: a slower method cannot change the virtual best, so ``null`` there means
  "not within its own limit");
* ``answer``: the reference answer (``status: optimal`` with its ``objective``, or
  ``status: infeasible``; ``solutions`` where the instance is a counting question), and
  ``sources``: the independent methods (or published figure, or proof) that gave it.

An entry is a question about its instance: ``question: solve`` (the default: find an optimum
or prove there is none) or ``question: count`` (enumerate every solution, with
``up_to_symmetry`` saying whether the count is of the family's symmetry classes). A counting
entry's times are each counting method's (``solver/formulation/method``, ``method`` being
``nogood`` or ``native``: `core.counting`), measured by the count's own clock (``measure:
count``: building the model and every solve, start-up excluded), and its answer states
``solutions`` (and ``classes`` up to symmetry). One instance may be in the library once per
question.

`solu_text` writes the whole library's answers as one reference file in the spirit of
MIPLIB's ``.solu`` (``=opt=``, ``=inf=``, and ``=count=`` and ``=classes=`` for counts).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from pyomo_puzzles.core import instances, registry, stated
from pyomo_puzzles.errors import DataError, UserError

BANDS = ("easy", "medium", "hard", "beyond")
"""The difficulty bands, easiest first."""
BAND_LIMITS = {"easy": 1.0, "medium": 60.0, "hard": 600.0}
"""The virtual best's time (seconds) below which an instance is in the band."""
BAND_FLOOR = {"easy": 0.0, "medium": BAND_LIMITS["easy"], "hard": BAND_LIMITS["medium"], "beyond": BAND_LIMITS["hard"]}
"""The virtual best's time (seconds) from which an instance is in the band."""

QUESTIONS = ("solve", "count")
"""What a library entry asks of its instance: an optimum (or a proof of none), or every solution."""
CALIBRATION_SOLVERS = ("highs", "scip", "cbc", "glpk")
"""The open-source MIP solvers whose virtual best places an instance in a band."""
COUNT_METHODS = ("nogood", "native")
"""How a solver counts (`core.counting`): a solve per solution with no-good cuts, or its own enumeration."""

_METHOD = {"type": "string", "pattern": "^[a-z0-9_:.-]+/[a-z0-9_]+(/(nogood|native))?$"}
_CALIBRATION = {
    "type": "object",
    "additionalProperties": False,
    "required": ["command", "machine", "solvers", "threads", "time_limit", "measure", "date"],
    "properties": {
        "command": {"type": "string", "minLength": 1},
        "machine": {"type": "string", "minLength": 1},
        "solvers": {"type": "object", "minProperties": 1, "additionalProperties": {"type": "string"}},
        "threads": {"type": "integer", "minimum": 1},
        "time_limit": {"type": "number", "exclusiveMinimum": 0},
        "limits": {"type": "object", "minProperties": 1, "propertyNames": _METHOD,
                   "additionalProperties": {"type": "number", "exclusiveMinimum": 0}},
        "measure": {"enum": ["solver", "build_and_solve", "wall", "count"]},
        "date": {"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"},
        "framework_version": {"type": "string"},
    },
}
SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": ["instances"],
    "properties": {
        "instances": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["name", "band", "times", "calibration", "answer", "sources"],
                "properties": {
                    "name": {"type": "string", "pattern": "^[a-z_][a-z0-9_]*/[A-Za-z0-9_./-]+$"},
                    "question": {"enum": list(QUESTIONS), "default": "solve"},
                    "up_to_symmetry": {"type": "boolean", "description": "a count of symmetry classes"},
                    "band": {"enum": list(BANDS)},
                    "times": {"type": "object", "minProperties": 1,
                              "propertyNames": _METHOD,
                              "additionalProperties": {"type": ["number", "null"], "minimum": 0}},
                    "calibration": _CALIBRATION,
                    "answer": {
                        "type": "object",
                        "additionalProperties": False,
                        "required": ["status"],
                        "properties": {
                            "status": {"enum": ["optimal", "infeasible"]},
                            "objective": {"type": "number"},
                            "solutions": {"type": "integer", "minimum": 0},
                            "classes": {"type": "integer", "minimum": 0},
                        },
                    },
                    "sources": {"type": "array", "minItems": 1, "items": {"type": "string", "minLength": 1}},
                },
            },
        },
    },
}
"""The catalogue file's schema (every field checked before anything is read from it)."""


@dataclass(frozen=True)
class Answer:
    """A reference answer: ``optimal`` with its objective, or ``infeasible``; the number of
    solutions (and of their symmetry classes) where the instance is a counting question."""

    status: str
    objective: float | None = None
    solutions: int | None = None
    classes: int | None = None

    def text(self) -> str:
        """"optimal 10", "infeasible", "optimal 0, 2339 solutions"; a count: "9356 solutions
        (2339 up to symmetry)"."""
        if self.classes is not None:
            return f"{self.solutions} solutions ({self.classes} up to symmetry)"
        words = self.status if self.objective is None else f"{self.status} {_number(self.objective)}"
        return words if self.solutions is None else f"{words}, {self.solutions} solutions"


@dataclass(frozen=True)
class Entry:
    """One library instance, as its family's catalogue states it."""

    family: str
    name: str
    band: str
    times: dict[str, float | None]
    answer: Answer
    sources: tuple[str, ...]
    calibration: dict = field(compare=False)
    catalogue: Path = field(compare=False)
    question: str = "solve"
    up_to_symmetry: bool = False

    @property
    def key(self) -> tuple[str, str, bool]:
        """What makes the entry one of its catalogue: its instance and its question."""
        return self.name, self.question, self.up_to_symmetry

    @property
    def label(self) -> str:
        """The instance, and the question where it is a count: "packing/soma_cube (count up to symmetry)"."""
        if self.question == "solve":
            return self.name
        return f"{self.name} (count{' up to symmetry' if self.up_to_symmetry else ''})"

    @property
    def answer_text(self) -> str:
        """The answer in words: "optimal 10", "infeasible", "5328 solutions (111 up to symmetry)"."""
        if self.question == "count" and self.answer.classes is None:
            return f"{self.answer.solutions} solutions"
        return self.answer.text()

    @property
    def best(self) -> tuple[str, float] | None:
        """The virtual best: (method, seconds) of the fastest calibrated method, or None."""
        solved = [(seconds, method) for method, seconds in self.times.items() if seconds is not None]
        return None if not solved else min(solved)[::-1]


def band_of(seconds: float | None, limit: float) -> str:
    """The band of an instance whose virtual best took `seconds` (None: none solved it
    within the calibration's `limit`)."""
    if seconds is None or math.isnan(seconds):
        return "beyond" if limit >= BAND_LIMITS["hard"] else "unknown"
    return next((band for band, below in BAND_LIMITS.items() if seconds < below), "beyond")


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def catalogue_files() -> dict[str, Path]:
    """Each registered family's catalogue file, by family name (families without one left out)."""
    return {name: fam.library for name, fam in sorted(registry.families().items()) if fam.library is not None}


def unwritten_catalogues() -> dict[str, Path]:
    """The families that name a catalogue file not written yet (the normal state of a new
    plugin, until `calibrate --write` writes it): an empty catalogue, said where listed."""
    return {name: path for name, path in catalogue_files().items() if not Path(path).exists()}


@lru_cache(maxsize=None)
def read_catalogue(family: str, path: Path) -> tuple[Entry, ...]:
    """The entries of one family's catalogue, checked: a wrong field is a `DataError` naming
    the file and the field. A catalogue file not written yet holds no entries."""
    if not Path(path).exists():
        return ()
    data = instances.read_data_file(path)
    instances.validate(data, SCHEMA, path)
    shipped = instances.shipped_instances()
    entries = []
    for i, item in enumerate(data["instances"]):
        where = f"instances[{i}]"
        if not item["name"].startswith(f"{family}/"):
            raise DataError(path, f"{where}.name", f"{item['name']!r} is not an instance of family '{family}'")
        if item["name"] not in shipped:
            raise DataError(path, f"{where}.name", f"no shipped instance {item['name']!r}")
        answer = Answer(**item["answer"])
        if answer.status == "optimal" and answer.objective is None:
            raise DataError(path, f"{where}.answer.objective", "an optimal answer states its objective")
        question = item.get("question", "solve")
        _check_question(path, where, item, question, answer)
        _check_against_the_data_file(path, where, answer, question, bool(item.get("up_to_symmetry", False)),
                                     shipped[item["name"]])
        entry = Entry(family, item["name"], item["band"], dict(item["times"]), answer, tuple(item["sources"]),
                      item["calibration"], path, question, bool(item.get("up_to_symmetry", False)))
        measured = band_of(entry.best[1] if entry.best else None, item["calibration"]["time_limit"])
        if measured != entry.band:
            raise DataError(path, f"{where}.band", f"{entry.band!r}, but its calibrated times make it {measured!r}")
        entries.append(entry)
    keys = [e.key for e in entries]
    if len(set(keys)) != len(keys):
        twice = next(k for k in keys if keys.count(k) > 1)
        raise DataError(path, f"instances[{keys.index(twice, keys.index(twice) + 1)}].name",
                        f"{entries[keys.index(twice)].label!r} is listed twice")
    return tuple(entries)


def _check_question(path: Path, where: str, item: dict, question: str, answer: Answer) -> None:
    """A counting entry times counting methods and states its count; a solve entry neither."""
    counting = question == "count"
    for method in item["times"]:
        if (method.count("/") == 2) != counting:
            raise DataError(path, f"{where}.times", f"{method!r}: a {question} entry's methods are "
                            + ("solver/formulation/method (nogood or native)" if counting else "solver/formulation"))
    if counting and answer.solutions is None:
        raise DataError(path, f"{where}.answer.solutions", "a counting entry states its number of solutions")
    if counting and item.get("up_to_symmetry") and answer.classes is None:
        raise DataError(path, f"{where}.answer.classes", "a count up to symmetry states its number of classes")
    if not counting and "up_to_symmetry" in item:
        raise DataError(path, f"{where}.up_to_symmetry", "only a counting entry (question: count) counts up to "
                        "symmetry")
    if counting and item["calibration"]["measure"] != "count":
        raise DataError(path, f"{where}.calibration.measure", "a counting entry is measured by the count's clock "
                        "(count)")


def _check_against_the_data_file(path: Path, where: str, answer: Answer, question: str, up_to_symmetry: bool,
                                 data_file: Path) -> None:
    """A reference answer that contradicts what its instance's data file states in `known:`
    is a `DataError` naming the catalogue's field and the data file's: one of the two is
    wrong, and the library must not export either as a reference."""
    figures = instances.read_data_file(data_file).get("known")
    if question == "count":
        count = stated.stated_count(figures, data_file, up_to_symmetry)
        for field, mine, theirs, source in (("solutions", answer.solutions, count.solutions, count.solutions_from),
                                            ("classes", answer.classes, count.classes, count.classes_from)):
            if mine is not None and theirs is not None and mine != theirs:
                raise DataError(path, f"{where}.answer.{field}", f"{mine}, but {source} states {theirs}")
        return
    solve = stated.stated_answer(figures, data_file)
    if solve.solvable is not None and (answer.status == "optimal") != solve.solvable:
        raise DataError(path, f"{where}.answer.status", f"{answer.status}, but {solve.solvable_from} states "
                        + ("a solution" if solve.solvable else "no solution"))
    if answer.status == "infeasible" and solve.objective is not None:
        raise DataError(path, f"{where}.answer.status", f"infeasible, but {solve.objective_from} states the optimum "
                        f"{_number(solve.objective)}")
    if answer.status == "optimal" and solve.objective is not None and not stated.close(answer.objective,
                                                                                       solve.objective):
        raise DataError(path, f"{where}.answer.objective", f"{_number(answer.objective)}, but {solve.objective_from} "
                        f"states {_number(solve.objective)}")
    count = stated.stated_count(figures, data_file, False)
    if answer.solutions is not None and count.solutions is not None and answer.solutions != count.solutions:
        raise DataError(path, f"{where}.answer.solutions", f"{answer.solutions}, but {count.solutions_from} states "
                        f"{count.solutions}")


def library_entries(bands: list[str] | None = None, families: list[str] | None = None,
                    questions: tuple[str, ...] = ("solve",)) -> list[Entry]:
    """The library's entries asking one of `questions` (by default the solve questions), by
    family and then by band and name; only those of `bands` and `families` where given (an
    unknown band or a family without a catalogue is a `UserError`)."""
    files = catalogue_files()
    for band in bands or []:
        if band not in BANDS:
            raise UserError(f"unknown band {band!r} (one of {', '.join(BANDS)})")
    for name in families or []:
        if name not in files:
            known = ", ".join(files) or "none"
            raise UserError(f"family {name!r} has no benchmark library (families with one: {known})")
    chosen = []
    for name, path in files.items():
        if families and name not in families:
            continue
        entries = read_catalogue(name, path)
        chosen += [e for e in entries if (not bands or e.band in bands) and e.question in questions]
    return sorted(chosen, key=lambda e: (e.family, QUESTIONS.index(e.question), BANDS.index(e.band), e.name,
                                         e.up_to_symmetry))


def reference_answer(name: str) -> Answer | None:
    """The library's reference answer for the instance `name`, or None if it is not in the library."""
    family = registry.find(name.partition("/")[0])  # that family only: no other plugin is imported
    if family is None or family.library is None:
        return None
    return next((e.answer for e in read_catalogue(family.name, family.library)
                 if e.name == name and e.question == "solve"), None)


def reference_count(name: str, up_to_symmetry: bool) -> Answer | None:
    """The library's reference count of the instance `name` (of its symmetry classes where
    `up_to_symmetry`, which also states all its solutions; else of all solutions), or None."""
    family = registry.find(name.partition("/")[0])
    if family is None or family.library is None:
        return None
    counts = [e for e in read_catalogue(family.name, family.library) if e.name == name and e.question == "count"]
    fitting = [e.answer for e in counts if e.up_to_symmetry == up_to_symmetry]
    if not up_to_symmetry:  # a count of classes states all the solutions too
        fitting += [e.answer for e in counts if e.up_to_symmetry]
    return fitting[0] if fitting else None


def solu_text(entries: list[Entry]) -> str:
    """The reference answers as a MIPLIB-style ``.solu`` file: ``=opt= NAME OBJECTIVE`` or
    ``=inf= NAME``, and for counting questions (this library's own lines) ``=count= NAME N``
    (all solutions) and ``=classes= NAME N`` (up to the family's symmetries)."""
    lines = ["# pyomo-puzzles benchmark library: reference answers (=opt= optimal objective, =inf= infeasible,",
             "# =count= number of solutions, =classes= number of solutions up to the family's symmetries).",
             "# Names are the instances' (family/stem).",
             "# Feasibility questions are stated with objective 0 (their models minimise a constant)."]
    for entry in entries:
        if entry.question == "count":
            lines.append(f"=count= {entry.name} {entry.answer.solutions}")
            if entry.answer.classes is not None:
                lines.append(f"=classes= {entry.name} {entry.answer.classes}")
        elif entry.answer.status == "infeasible":
            lines.append(f"=inf= {entry.name}")
        else:
            lines.append(f"=opt= {entry.name} {_number(entry.answer.objective)}")
            if entry.answer.solutions is not None:
                lines.append(f"=count= {entry.name} {entry.answer.solutions}")
    return "\n".join(dict.fromkeys(lines)) + "\n"
