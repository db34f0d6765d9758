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

    enumeration = "populate (solution pool, intensity 4: every solution)"

    def enumerate(self, form, settings: RunSettings, found) -> tuple[str, str]:
        """CPLEX's populate on `form` (objective left out), enumerating every solution into
        its pool; the pool's points go to `found` once it has ended."""
        import cplex  # cplex: see availability

        rows: list[tuple[list, list]] = [([], []) for _ in form.row_lower]
        for j in range(len(form.columns)):
            for k in range(form.start[j], form.start[j + 1]):
                rows[form.index[k]][0].append(j)
                rows[form.index[k]][1].append(float(form.value[k]))
        senses, rhs, spans = [], [], []
        for lo, hi in zip(form.row_lower, form.row_upper):
            if lo == hi:
                senses.append("E"), rhs.append(float(lo)), spans.append(0.0)
            elif lo == -float("inf"):
                senses.append("L"), rhs.append(float(hi)), spans.append(0.0)
            elif hi == float("inf"):
                senses.append("G"), rhs.append(float(lo)), spans.append(0.0)
            else:
                senses.append("R"), rhs.append(float(lo)), spans.append(float(hi - lo))
        big = cplex.infinity
        try:
            with quiet_stdout():
                problem = cplex.Cplex()
                for stream in (problem.set_log_stream, problem.set_results_stream, problem.set_warning_stream):
                    stream(None)
                problem.variables.add(lb=[max(v, -big) for v in form.col_lower],
                                      ub=[min(v, big) for v in form.col_upper],
                                      types=[problem.variables.type.integer] * len(form.columns))
                problem.linear_constraints.add(lin_expr=[cplex.SparsePair(ind, val) for ind, val in rows],
                                               senses=senses, rhs=rhs, range_values=spans)
                parameters = problem.parameters
                parameters.mip.pool.intensity.set(4)
                parameters.mip.limits.populate.set(2_100_000_000)
                parameters.mip.pool.capacity.set(2_100_000_000)
                if settings.time_limit is not None:
                    parameters.timelimit.set(max(settings.time_limit, 0.01))
                if settings.threads:
                    parameters.threads.set(settings.threads)
                if settings.seed is not None:
                    parameters.randomseed.set(int(settings.seed))
                problem.populate_solution_pool()
        except cplex.exceptions.CplexError as error:
            message = licence_message(error)
            return ("licence_limit", message) if message else ("error", f"CPLEX: {first_line(error)}")
        status = problem.solution.get_status()
        for number in range(problem.solution.pool.get_num()):
            if not found(problem.solution.pool.get_values(number)):
                return "stopped", ""
        codes = problem.solution.status
        if status in (codes.optimal_populated, codes.optimal_populated_tolerance, codes.MIP_infeasible):
            return "complete", ""
        if status in (codes.MIP_time_limit_feasible, codes.MIP_time_limit_infeasible):
            return "time_limit", ""
        return "error", f"CPLEX's populate stopped: {problem.solution.get_status_string()}"

    def session(self, model, settings: RunSettings, persistent: bool = False) -> LegacySession:
        return LegacySession("cplex", "cplex_direct", model, settings, cplex_options, nodes=nodes_processed,
                             licence=licence_message, quiet_solver=True)
