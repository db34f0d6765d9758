"""IBM CPLEX, in-process through the ``cplex`` package and Pyomo's ``cplex_direct`` interface.
An optional extra: ``pip install pyomo-puzzles[cplex]``.

The pip package is the Community Edition: models of up to 1,000 variables and 1,000
constraints; a larger model is the outcome ``licence_limit`` with CPLEX's message (error
1016), never an error. With a full installation nothing changes here. Enumeration re-reads
the model at each solve (Pyomo's classic persistent interface does not see new cuts by
itself).
"""

from __future__ import annotations

from pyomo_puzzles.contract.solvers import Adapter, Options, RunSettings, register_solver
from pyomo_puzzles.solvers._common import first_line, quiet_stdout
from pyomo_puzzles.solvers._legacy import LegacySession


def cplex_options(settings: RunSettings) -> dict:
    """Pyomo's cplex_direct turns ``a_b_c`` into the parameter ``a.b.c``."""
    options: dict = {}
    if settings.time_limit is not None:
        options["timelimit"] = settings.time_limit
    if settings.threads:
        options["threads"] = settings.threads
    if settings.seed is not None:
        options["randomseed"] = int(settings.seed)
    if settings.gap is not None:
        options["mip_tolerances_mipgap"] = settings.gap
    return options


def nodes_processed(results, opt) -> int | None:
    try:
        return int(opt._solver_model.solution.progress.get_num_nodes_processed())
    except Exception:  # noqa: BLE001 - an LP or a failed solve has no node count
        return None


def licence_message(error: BaseException) -> str | None:
    text = first_line(error)
    return f"CPLEX: {text}" if "1016" in text or "Community Edition" in text else None


@register_solver
class Cplex(Adapter):
    name = "cplex"
    summary = "IBM CPLEX, in-process (cplex; optional extra [cplex])"
    rank = 60
    options = Options(time_limit="timelimit", threads="threads", seed="randomseed", gap="mip.tolerances.mipgap",
                      notes="Community Edition: at most 1,000 variables and constraints")

    def availability(self) -> tuple[bool, str]:
        try:
            import cplex  # cplex: only when asked whether CPLEX is available
        except ImportError:
            return False, "Python package 'cplex' not installed (pip install 'pyomo-puzzles[cplex]')"
        with quiet_stdout():
            version = cplex.Cplex().get_version()
        return True, f"CPLEX {version}"

    def session(self, model, settings: RunSettings, persistent: bool = False) -> LegacySession:
        return LegacySession("cplex", "cplex_direct", model, settings, cplex_options, nodes=nodes_processed,
                             licence=licence_message, quiet_solver=True)
