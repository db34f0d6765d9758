"""OR-Tools CP-SAT on the same integer program, a peer that is not a MIP solver.

OR-Tools and highspy bundle incompatible native libraries, so OR-Tools is never imported
here: the model is written as MPS and solved by a worker process (`_cpsat_worker`) that is
started at the first CP-SAT solve of a process and serves every later one (importing
OR-Tools costs about half a second, more than most models take to solve).
"""

from __future__ import annotations

import atexit
import importlib.util
import json
import logging
import os
import subprocess
import sys
import tempfile
import time

from pyomo_puzzles.contract.solvers import Adapter, Options, SolveOutcome, RunSettings, finite, register_solver


class _Worker:
    """The CP-SAT worker process of this Python process.

    A process forked from this one starts its own worker (two processes must not share one
    worker's pipes). A worker that died is replaced at the next solve. It stops when this
    process closes its input, at the latest when this process ends; a run killed by
    `core.isolation` takes its worker along (same process group).
    """

    def __init__(self) -> None:
        self._process = None
        self._owner = None
        self._errors = None

    def solve(self, request: dict) -> str | None:
        """Send one request; None when the worker wrote the result, else the reason it did not."""
        process = self._running()
        try:
            process.stdin.write(json.dumps(request) + "\n")
            process.stdin.flush()
            reply = process.stdout.readline().strip()
        except (BrokenPipeError, OSError):
            reply = ""
        if reply == "done":
            return None
        if reply:
            return reply.removeprefix("error: ")
        process.wait()
        self._process = None
        return f"the worker died (exit code {process.returncode}): {self._last_error_line()}"

    def _running(self):
        if self._process is not None and self._owner == os.getpid() and self._process.poll() is None:
            return self._process
        self._errors = tempfile.TemporaryFile(mode="w+", prefix="pyomo-puzzles-cpsat-")
        self._process = subprocess.Popen(
            [sys.executable, "-m", "pyomo_puzzles.solvers._cpsat_worker"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._errors, text=True)
        self._owner = os.getpid()
        atexit.register(self._stop, self._process)
        return self._process

    @staticmethod
    def _stop(process) -> None:
        """Close the worker's input (it then ends) and wait for it, briefly."""
        if process.poll() is None:
            process.stdin.close()
            try:
                process.wait(timeout=5)
            except Exception:
                process.kill()

    def _last_error_line(self) -> str:
        self._errors.seek(0)
        lines = self._errors.read().strip().splitlines()
        return lines[-1] if lines else "no message"


WORKER = _Worker()


class CpsatSession:
    def __init__(self, model, settings: RunSettings) -> None:
        self.model, self.settings = model, settings

    def solve(self) -> SolveOutcome:
        started = time.perf_counter()
        limit = self.settings.time_limit
        with tempfile.TemporaryDirectory(prefix="pyomo-puzzles-cpsat-") as tmp:
            mps, result = os.path.join(tmp, "model.mps"), os.path.join(tmp, "result.json")
            quiet = logging.getLogger("pyomo")
            level, quiet.level = quiet.level, logging.ERROR  # "constant objective" warning of the writer
            try:
                _, symbol_map_id = self.model.write(mps, format="mps", io_options={"symbolic_solver_labels": True})
            finally:
                quiet.setLevel(level)
            symbols = self.model.solutions.symbol_map[symbol_map_id].bySymbol
            failure = WORKER.solve({"mps": mps, "result": result, "time_limit": limit,
                                    "threads": self.settings.threads or 1, "seed": self.settings.seed,
                                    "gap": self.settings.gap})
            if failure is not None or not os.path.exists(result):
                return SolveOutcome("error", False, None, None, time.perf_counter() - started, None,
                                    f"CP-SAT failed: {failure or 'no result file'}")
            with open(result, encoding="utf-8") as handle:
                answer = json.load(handle)
        has_solution = bool(answer["values"])
        for name, value in answer["values"].items():
            var = symbols.get(name)
            if var is not None:
                var.set_value(value, skip_validation=True)
        status = answer["status"]
        ran_out = limit is not None and answer["seconds"] >= 0.99 * limit
        if status == "feasible" and ran_out:
            status = "time_limit"
        if status not in ("optimal", "feasible", "infeasible", "time_limit"):
            status = "time_limit" if ran_out else "error"
        return SolveOutcome(status, has_solution, finite(answer["objective"]), finite(answer["bound"]),
                            answer["seconds"], None,
                            "" if status != "error" else f"CP-SAT stopped with {answer['status']}")


@register_solver
class Cpsat(Adapter):
    name = "cpsat"
    summary = "OR-Tools CP-SAT on the same model (MPS, in a worker process of its own)"
    kind = "peer"
    rank = 10
    options = Options(time_limit="max_time_in_seconds", threads="num_workers", seed="random_seed",
                      gap="relative_gap_limit", notes="no node count")

    def availability(self) -> tuple[bool, str]:
        from importlib.metadata import version  # 20 ms: only when asked whether OR-Tools is installed

        if importlib.util.find_spec("ortools") is None:
            return False, "Python package 'ortools' not installed (pip install 'pyomo-puzzles[cpsat]')"
        return True, f"OR-Tools CP-SAT {version('ortools')}"

    def session(self, model, settings: RunSettings, persistent: bool = False) -> CpsatSession:
        return CpsatSession(model, settings)
