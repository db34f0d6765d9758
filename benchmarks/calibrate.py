"""Calibrate benchmark-library instances from a calibration experiment's results folder.

A calibration is an ordinary experiment (`benchmarks/calibration/*.yaml`): candidate
instances on the open-source MIP solvers with threads 1 over the family's formulations.
This script reads its runs table and prints, per instance, the band of the virtual best,
each method's time (building the model and solving it), the answer the runs agree on and the methods
that gave it (`pyomo_puzzles.report.calibration`). With ``--write`` the entries go into the
families' library catalogues (`Family.library`; an entry of the same name is replaced);
with ``--adopt`` a generated instance is first copied into its family's instance folder
(``library/<stem>.yaml``, its ``source`` naming the framework version that made it), since
the library holds data files, never generators to run again.

Run:  snakemake --cores 1 --configfile benchmarks/calibration/first_pass.yaml
      snakemake --cores 1 --configfile benchmarks/calibration/second_pass.yaml
      python benchmarks/calibrate.py results-calibration-first-pass results-calibration-second-pass \
          --configfile benchmarks/calibration/first_pass.yaml \
          --configfile benchmarks/calibration/second_pass.yaml [--witness RESULTS] [--write] [--adopt]

A hard candidate costs up to an hour of solver time at the hard band's 600 s limit, so a calibration
may run in stages: the solver likeliest to be quickest at 600 s, then the others with its time as their
limit (a slower method cannot change the virtual best); the entry names those methods' lower limits
(``calibration.limits``). Or a race: every solver with a limit below 600 s, enough wherever one of them
solves the instance within it. An entry's date is the day of its calibration's latest run.

An instance outside the easy band gets an entry only where every open-source MIP solver
(``--solvers``, by default HiGHS, SCIP, CBC and GLPK) ran on every formulation that ran on it:
a folder of one stage alone, or of one solver, places nothing above easy.

``--witness RESULTS``: runs of methods outside the calibration (dancing links, CP-SAT) on the
same instances give their answers further sources (two independent methods where the MIP
solvers found it once), never times or bands.

Counting questions (``--question count``) come from the folders' count records (an experiment's
``counts:`` section): each is banded by the quickest complete count of the ``--solvers`` by the
count's own clock, above ``easy`` only where every one of them counted on every formulation by
every method it has (no-good cuts; its own enumeration where it has one); the other solvers'
counts (dancing links) are witnesses. A count run with a lower limit than the calibration's (a
second stage) is named in ``calibration.limits``, as for solving (`calibrate_counts`).
"""

from __future__ import annotations

import argparse
import datetime
import json
import shutil
import sys
from pathlib import Path

import pandas as pd
import yaml

from pyomo_puzzles.core import instances, library, registry
from pyomo_puzzles.core import solvers as solvers_module
from pyomo_puzzles.core.files import data_file_yaml
from pyomo_puzzles.report.calibration import calibrate, calibrate_counts
from pyomo_puzzles.version import __version__

OPEN_SOURCE_MIP_SOLVERS = ("highs", "scip", "cbc", "glpk")
"""The solvers whose virtual best places an instance in a band (README, "Benchmark library")."""

HEADER = """\
# The {family} family's instances in the pyomo-puzzles benchmark library (issue 29).
# Each entry: its band by the virtual best of the calibration (easy < 1 s, medium 1-60 s,
# hard 60-600 s, beyond: no method within 600 s), each calibrated method's time (building
# the model and solving it, seconds; null: not solved within the limit), how it was measured, the
# reference answer and the independent methods that gave it. Written by
# benchmarks/calibrate.py from a calibration experiment (see benchmarks/calibration/).
"""


def latest_day(runs: pd.DataFrame) -> str:
    """The day (ISO date) of the latest run of a runs table."""
    return max(str(moment) for moment in runs["started_at"].dropna())[:10]


def calibration_block(folders: list[tuple[str, str]], days: dict[str, str], skipped: list[str] = ()) -> dict:
    """The calibration's facts from the results folders' environment records (and their configurations);
    `days`: each folder's latest run day."""
    environments = [json.loads((Path(results) / "environment.json").read_text()) for results, _ in folders]
    first = environments[0]
    used = {name for env in environments for name in env["config"]["solvers"]}
    versions = {name: version for env in environments for name, version in env["solvers"].items() if name in used}
    runs = " && ".join(f"snakemake --cores 1 --configfile {configfile}" for _, configfile in folders)
    again = " ".join([results for results, _ in folders] + [f"--configfile {configfile}" for _, configfile in folders]
                     + [f"--skip {name}" for name in skipped])
    return {"command": f"{runs} && python benchmarks/calibrate.py {again} --write",
            "machine": f"{first['cpu']}, {first['cores']} cores, {first['memory_gib']} GiB, {first['os']}",
            "solvers": dict(sorted(versions.items())),
            "threads": int(first["config"]["threads"]),
            "time_limit": float(max(env["config"]["time_limit"] for env in environments)),
            "measure": "build_and_solve", "date": max(days[results] for results, _ in folders), "framework_version": __version__}


def adopt(name: str, folders: list[str]) -> str:
    """Copy the generated instance `name` (``generated/<generator>/<stem>``) from the results
    folder that made it into its family's ``library/`` folder; its new name."""
    _, generator, stem = name.split("/", 2)
    source = next(p for p in (Path(f) / "instances" / generator / f"{stem}.yaml" for f in folders) if p.exists())
    data = yaml.safe_load(source.read_text())
    family = data["puzzle"]
    new_stem = stem if generator == family else f"{generator}_{stem}"
    target = registry.family(family).instances_dir / "library" / f"{new_stem}.yaml"
    target.parent.mkdir(exist_ok=True)
    data["source"] = f"{data.get('source', 'generated')} (pyomo-puzzles {__version__})"
    target.write_text(data_file_yaml(data))
    return f"{family}/library/{new_stem}"


def write_entries(entries: list[dict]) -> None:
    by_family: dict[str, list[dict]] = {}
    for entry in entries:
        by_family.setdefault(entry["name"].split("/", 1)[0], []).append(entry)
    for family, new in by_family.items():
        path = registry.family(family).library
        if path is None:
            print(f"family {family} names no library catalogue (Family.library): not written", file=sys.stderr)
            continue
        old = yaml.safe_load(path.read_text())["instances"] if path.exists() else []
        keys = {_key(e) for e in new}
        merged = sorted([e for e in old if _key(e) not in keys] + new,
                        key=lambda e: (e.get("question", "solve") != "solve", library.BANDS.index(e["band"]), e["name"]))
        path.write_text(HEADER.format(family=family) + yaml.safe_dump({"instances": merged}, sort_keys=False,
                                                                       width=100))
        print(f"wrote {len(new)} entries into {path} ({len(merged)} in all)")


def _key(entry: dict) -> tuple:
    """An entry's instance and question: an entry of the same key is replaced."""
    return entry["name"], entry.get("question", "solve"), bool(entry.get("up_to_symmetry", False))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="+", help="the calibration experiments' results folders (their runs "
                                                   "are taken together: e.g. a second pass with more solvers)")
    parser.add_argument("--configfile", action="append", required=True,
                        help="each results folder's configuration, in the same order")
    parser.add_argument("--witness", action="append", default=[], metavar="RESULTS",
                        help="a results folder of other methods (dancing links, CP-SAT) on the same instances: "
                             "their answers are sources, never times or bands")
    parser.add_argument("--skip", action="append", default=[], metavar="INSTANCE",
                        help="an instance of the folders to leave out (a candidate whose second stage has not run)")
    parser.add_argument("--solvers", default=",".join(OPEN_SOURCE_MIP_SOLVERS),
                        help="comma-separated: the solvers that must have run on every formulation of an instance "
                             "placed above the easy band (default: %(default)s)")
    parser.add_argument("--question", choices=["solve", "count"], action="append",
                        help="calibrate only this question: solve (the runs) or count (the count records); "
                             "default: both")
    parser.add_argument("--write", action="store_true", help="write the entries into the families' catalogues")
    parser.add_argument("--adopt", action="store_true", help="copy generated instances into the library")
    args = parser.parse_args()
    if len(args.configfile) != len(args.results):
        parser.error("give one --configfile per results folder")
    folders = list(zip(args.results, args.configfile))
    for results in [*args.results, *args.witness]:
        if not (Path(results) / "tables/runs.parquet").is_file():
            parser.exit(2, f"{results}: no tables/runs.parquet (has its experiment finished?)\n")
    tables = [pd.read_parquet(Path(results) / "tables/runs.parquet") for results in args.results]
    days = {results: latest_day(table) for results, table in zip(args.results, tables)}
    tables = [table[~table["instance"].isin(args.skip)] for table in tables]
    runs = pd.concat(tables, ignore_index=True)
    # each instance's calibration: the facts of the folders that ran it (their solvers, their limit)
    where = {name: [f for f, table in zip(folders, tables) if (table["instance"] == name).any()]
             for name in runs["instance"].unique()}
    blocks = {tuple(pairs): calibration_block(pairs, days, args.skip) for pairs in map(tuple, where.values())}
    calibrations = {name: blocks[tuple(pairs)] for name, pairs in where.items()}
    shipped = instances.shipped_instances()
    entries = []
    if "solve" in (args.question or ["solve"]):
        print(f"{'instance':42s} {'band':7s} {'best':>9s}  {'method':26s} answer / why not")
    witnesses = pd.concat([pd.read_parquet(Path(results) / "tables/runs.parquet") for results in args.witness],
                          ignore_index=True) if args.witness else None
    solvers = [name for name in args.solvers.split(",") if name]
    questions = args.question or ["solve", "count"]
    for found in calibrate(runs, calibrations, witnesses=witnesses, solvers=solvers) if "solve" in questions else []:
        if found.entry is None:
            print(f"{found.instance:42s} {'-':7s} {'':>9s}  {'':26s} not calibrated: {found.skipped}")
            continue
        entry = found.entry
        best = min(((t, m) for m, t in entry["times"].items() if t is not None), default=None)
        answer = entry["answer"]["status"] + (f" {entry['answer']['objective']:g}" if "objective" in entry["answer"] else "")
        print(f"{found.instance:42s} {entry['band']:7s} {best[0] if best else float('nan'):9.3f}  "
              f"{best[1] if best else '-':26s} {answer} ({len(entry['sources'])} sources)")
        if found.instance.startswith("generated/"):
            if not args.adopt:
                continue
            entry["name"] = adopt(found.instance, args.results)
        elif found.instance not in shipped:
            continue
        entries.append(entry)
    if "count" in questions:
        entries += calibrate_count_questions(folders, days, args)
    if args.write:
        write_entries(entries)


def count_records(results: str) -> pd.DataFrame:
    """The count records of a results folder (``counts/**.json``), one row each, with the limit
    its configuration gave every count."""
    limit = json.loads((Path(results) / "environment.json").read_text())["config"].get("counts", {}).get("time_limit")
    rows = []
    for path in sorted((Path(results) / "counts").rglob("*.json")):
        record = json.loads(path.read_text())
        rows.append({key: record.get(key) for key in ("instance", "formulation", "solver", "method",
                                                      "up_to_symmetry", "complete", "solutions", "classes",
                                                      "digest", "elapsed", "known_solutions", "known_classes")})
        rows[-1]["day"] = datetime.date.fromtimestamp(path.stat().st_mtime).isoformat()
        rows[-1]["time_limit"] = limit
    return pd.DataFrame(rows)


def calibrate_count_questions(folders: list[tuple[str, str]], days: dict[str, str], args) -> list[dict]:
    """The counting questions of the folders' count records (`calibrate_counts`), printed; the
    entries to write (generated instances are not counted: counting takes shipped ones)."""
    tables = {results: count_records(results) for results, _ in folders}
    tables = {results: table for results, table in tables.items() if len(table)}
    if not tables:
        return []
    counts = pd.concat(tables.values(), ignore_index=True)
    counts = counts[~counts["instance"].isin(args.skip)]
    calibrations = {}
    for name in counts["instance"].unique():
        pairs = [(results, configfile) for results, configfile in folders
                 if results in tables and (tables[results]["instance"] == name).any()]
        count_days = {results: tables[results]["day"].max() for results, _ in pairs}
        block = calibration_block(pairs, count_days, args.skip)
        environments = [json.loads((Path(r) / "environment.json").read_text()) for r, _ in pairs]
        used = {solver for env in environments for solver in env["config"]["counts"]["solvers"]}
        versions = {solver: version for env in environments for solver, version in env["solvers"].items()
                    if solver in used}
        calibrations[name] = dict(block, solvers=dict(sorted(versions.items())),
                                  command=block["command"].replace(" --write", " --question count --write"),
                                  time_limit=float(max(env["config"]["counts"]["time_limit"] for env in environments)))
    methods_of = {}
    for name in (n for n in args.solvers.split(",") if n):
        adapter = solvers_module.adapter(name)
        methods_of[name] = ("nogood", "native") if adapter.enumeration is not None else ("nogood",)
    print(f"\n{'counting question':42s} {'band':7s} {'best':>9s}  {'method':32s} answer / why not")
    entries = []
    for found in calibrate_counts(counts, calibrations, methods_of):
        if found.entry is None:
            print(f"{found.instance:42s} {'-':7s} {'':>9s}  {'':32s} not calibrated: {found.skipped}")
            continue
        entry = found.entry
        best = min(((t, m) for m, t in entry["times"].items() if t is not None), default=None)
        answer = entry["answer"]
        print(f"{found.instance:42s} {entry['band']:7s} {best[0]:9.3f}  {best[1]:32s} {answer['solutions']} solutions"
              + (f", {answer['classes']} up to symmetry" if "classes" in answer else "")
              + f" ({len(entry['sources'])} sources)")
        entries.append(entry)
    return entries


if __name__ == "__main__":
    main()
