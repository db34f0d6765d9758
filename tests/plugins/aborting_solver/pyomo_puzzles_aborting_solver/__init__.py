"""A solver adapter plugin whose library takes its process down: every solve raises SIGABRT,
as CBC 2.935 does now and then at its time limit. For the tests of what survives such a crash
(PYTHONPATH=tests/plugins/aborting_solver)."""

from __future__ import annotations

import faulthandler
import os
import signal

from pyomo_puzzles.contract.solvers import Adapter, Options, register_solver


class AbortingSession:
    def __init__(self, form, settings) -> None:
        self.settings = settings

    def add_rows(self, rows) -> None:  # a persistent session's: nothing kept, the solve aborts anyway
        pass

    def set_bounds(self, columns, lower, upper) -> None:
        pass

    def solve(self):
        faulthandler.disable()  # the process dies quietly, as a C library's abort leaves it
        os.kill(os.getpid(), signal.SIGABRT)


@register_solver
class Aborting(Adapter):
    name = "aborting"
    summary = "a solver whose library aborts its process in every solve (a test plugin)"
    options = Options(time_limit="none")

    def availability(self) -> tuple[bool, str]:
        return True, "aborting 1.0"

    def matrix_session(self, form, settings, persistent: bool = False) -> AbortingSession:
        return AbortingSession(form, settings)
