"""Write an instance's Pyomo data (.dat) and its model (LP, MPS) for use outside the framework.

The .dat file loads back into the same AbstractModel with
``model.create_instance('file.dat')``, so a run can be reproduced without this package's
loader.
"""

from __future__ import annotations

from pathlib import Path

import pyomo.environ as pyo

from pyomo_puzzles.core import instances, library
from pyomo_puzzles.core.files import write_atomic, write_text_atomic
from pyomo_puzzles.core.instances import Instance
from pyomo_puzzles.core.models import choose_formulation, pyomo_build_log_held
from pyomo_puzzles.errors import UserError


def _token(value) -> str:
    if isinstance(value, tuple):
        return "(" + ",".join(_token(v) for v in value) + ")"
    if isinstance(value, str):  # a quote inside is doubled: Pyomo's .dat reader reads a backslash as itself
        return '"' + value.replace('"', '""') + '"'
    return repr(value)


def _index(key, separator: str = ",") -> str:
    """An index as a set subscript (``1,2``) or, with ``separator=" "``, as a param row's key
    (``1 2``: a comma there is a syntax error in a .dat file)."""
    return separator.join(_token(k) for k in key) if isinstance(key, tuple) else _token(key)


def dat_text(abstract: pyo.AbstractModel, data: dict) -> str:
    """AMPL-style .dat text for Pyomo data {None: {name: values}} of `abstract`."""
    lines = [f"# Pyomo data for model {abstract.name}"]
    for name, values in data[None].items():
        component = getattr(abstract, name)
        if isinstance(component, pyo.Set):
            if None in values:
                lines.append(f"set {name} := " + " ".join(_token(v) for v in values[None]) + " ;")
            else:
                for key, members in values.items():
                    lines.append(f"set {name}[{_index(key)}] := " + " ".join(_token(v) for v in members) + " ;")
        elif None in values:
            lines.append(f"param {name} := {_token(values[None])} ;")
        elif not values:  # Pyomo cannot read `param p := ;` back (IndexError); no line gives it no values too
            lines.append(f"# param {name}: no values")
        else:
            body = " ".join(f"{_index(k, ' ')} {_token(v)}" for k, v in values.items())
            lines.append(f"param {name} := {body} ;")
    return "\n".join(lines) + "\n"


def export(instance: Instance, formulation: str | None, out_dir: Path,
           formats: tuple[str, ...] = ("dat", "lp", "mps")) -> list[Path]:
    """Write the requested files to `out_dir`; returns their paths."""
    form = choose_formulation(instance, formulation)
    if form.stages is not None:
        raise UserError(f"formulation '{form.name}' is solved as a sequence of models (stages), not one model: "
                        "export another formulation")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    stem = f"{instance.name.replace('/', '__')}.{form.name}"
    abstract = form.build_model()
    data = form.model_data(instance.spec)
    written = []
    if "dat" in formats:
        path = out_dir / f"{stem}.dat"
        write_text_atomic(path, dat_text(abstract, data))
        written.append(path)
    with pyomo_build_log_held():
        concrete = abstract.create_instance(data=data)
    for fmt in ("lp", "mps"):
        if fmt in formats:
            path = out_dir / f"{stem}.{fmt}"
            write_atomic(path, lambda tmp: concrete.write(str(tmp), io_options={"symbolic_solver_labels": True}))
            written.append(path)
    return written


LIBRARY_README = """\
# pyomo-puzzles benchmark library (MPS export)

Combinatorial puzzles as integer programs, in difficulty bands measured by the virtual
best of open-source MIP solvers (threads 1, building the model and solving it): easy (< 1 s), medium
(1-60 s), hard (60-600 s), beyond (no method within 600 s; the answer known another way).

- `<family>/<instance>.<formulation>.mps`: one model per instance and formulation (free
  MPS with readable names, written by Pyomo). Formulations solved as a sequence of models
  are not exported.
- `library.solu`: the reference answers (`=opt= NAME OBJECTIVE`, `=inf= NAME`, and for
  counting questions `=count= NAME N` solutions and `=classes= NAME N` up to the puzzle's
  symmetries), one per instance and question, whatever the formulation: every formulation
  of an instance has the same optimum. A counting question asks for every solution of the
  same model (enumerate them, e.g. with no-good cuts, and count).
- `library.tsv`: instance, family, question (solve, count, count up to symmetry), band, the
  virtual best's time and method, the answer, and the independent methods that gave it.

Written by `pyomo-puzzles library --export DIR` (pyomo-puzzles {version}).
"""


def export_library(entries: list, out_dir: Path, version: str) -> tuple[list[Path], list[str]]:
    """Every entry's model in every formulation that applies and is one model, as MPS under
    `out_dir/<family>/`, with the reference file ``library.solu``, an index ``library.tsv``
    and a README. Returns the files written and what was left out, with why."""
    out_dir = Path(out_dir)
    written, left_out = [], []
    for name_of_instance in dict.fromkeys(e.name for e in entries):  # a count and a solve question: one model
        instance = instances.load(name_of_instance)
        for name, form in instance.family.formulations.items():
            why = "solved as a sequence of models" if form.stages is not None else form.applies_to(instance.spec)
            if why:
                left_out.append(f"{instance.name} / {name}: {why}")
                continue
            for path in export(instance, name, out_dir / instance.family.name, ("mps",)):
                target = path.with_name(path.name.removeprefix(f"{instance.family.name}__"))
                path.replace(target)
                written.append(target)
    solu = out_dir / "library.solu"
    write_text_atomic(solu, library.solu_text(entries))
    index = out_dir / "library.tsv"
    rows = ["instance\tfamily\tquestion\tband\tbest_seconds\tbest_method\tanswer\tsources"]
    for entry in entries:
        best = entry.best
        question = "count up to symmetry" if entry.up_to_symmetry else entry.question
        rows.append("\t".join([entry.name, entry.family, question, entry.band, "" if best is None else f"{best[1]:g}",
                               "" if best is None else best[0], entry.answer_text, "; ".join(entry.sources)]))
    write_text_atomic(index, "\n".join(rows) + "\n")
    readme = out_dir / "README.md"
    write_text_atomic(readme, LIBRARY_README.format(version=version))
    return [*written, solu, index, readme], left_out
