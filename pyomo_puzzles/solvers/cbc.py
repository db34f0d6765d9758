"""CBC (COIN-OR branch and cut), the ``cbc`` executable through Pyomo's shell interface.

Installed from Debian's ``coinor-cbc``; the pip builds of CBC (``cbcbox``, the one inside
PuLP) misreport versions and bounds to Pyomo, so none is used. ``sec`` counts CPU seconds
over all threads unless ``timeMode=elapsed``.
"""

from __future__ import annotations

from pyomo_puzzles.contract.solvers import Adapter, Options, RunSettings, register_solver
from pyomo_puzzles.solvers._common import find_executable
from pyomo_puzzles.solvers._legacy import LegacySession, bounded_subproblems, executable_version


def cbc_options(settings: RunSettings) -> dict:
    options: dict = {}
    if settings.time_limit is not None:
        options.update(sec=settings.time_limit, timeMode="elapsed")
    if settings.threads:
        options["threads"] = settings.threads
    if settings.seed is not None:
        options["randomCbcSeed"] = settings.seed
    if settings.gap is not None:
        options["ratioGap"] = settings.gap
    return options


@register_solver
class Cbc(Adapter):
    name = "cbc"
    summary = "COIN-OR CBC, executable (Debian coinor-cbc)"
    rank = 20
    executable = "cbc"
    options = Options(time_limit="sec with timeMode=elapsed", threads="threads", seed="randomCbcSeed",
                      gap="ratioGap")

    def availability(self) -> tuple[bool, str]:
        if find_executable(self.executable) is None:
            return False, f"executable '{self.executable}' not found on PATH (run 'bash bootstrap.sh setup')"
        return True, executable_version("CBC", "cbc")

    def session(self, model, settings: RunSettings, persistent: bool = False) -> LegacySession:
        return LegacySession("cbc", "cbc", model, settings, cbc_options, nodes=bounded_subproblems)
