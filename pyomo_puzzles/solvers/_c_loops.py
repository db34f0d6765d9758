"""C calls in loops compiled once per process (llvmlite, LLVM IR): an adapter hands a model
to a C library with one ctypes call per kind of C call, not one per row and column. Each C
function is checked against the prototype its loop calls (`CALLEES`). Without llvmlite of a
tested release (`TESTED`), where its LLVM rejects the IR, or with
``PYOMO_PUZZLES_COMPILED_LOOPS=off``, `loops` are the same loops made from Python; `path`
says which. Why: docs/solver_bindings.md.
"""

from __future__ import annotations

import ctypes
import os
from functools import lru_cache
from typing import Callable

import numpy as np

SWITCH = "PYOMO_PUZZLES_COMPILED_LOOPS"  # "off": the adapters call the C functions from Python
TESTED = ("0.50",)  # the llvmlite releases (major.minor) whose LLVM compiles this IR as measured
_TYPES = {"i": ("i32", np.int32, ctypes.c_int), "d": ("double", np.float64, ctypes.c_double)}  # IR, numpy, ctypes
EACH_KINDS = ("iidd", "id", "ii")  # `Loops.each`'s: GLPK's bounds (index, type, lower, upper), costs, column kinds


def _loads(*typed: tuple[str, str]) -> str:
    """IR that loads element %k of each (type, array) into ``%v.<array>``."""
    return "".join(f"  %p.{a} = getelementptr {t}, ptr %{a}, i64 %k\n  %v.{a} = load {t}, ptr %p.{a}\n"
                   for t, a in typed)


def _counted_loop(header: str, body: str) -> str:
    """``define void <header>``: `body` (IR of step %k) for each k < %n."""
    return f"""
define void {header} {{
entry:
  %none = icmp sle i64 %n, 0
  br i1 %none, label %done, label %loop
loop:
  %k = phi i64 [ 0, %entry ], [ %next, %loop ]
{body}  %next = add i64 %k, 1
  %more = icmp slt i64 %next, %n
  br i1 %more, label %loop, label %done
done:
  ret void
}}
"""


def _each_ir(kinds: str) -> str:
    """``each_<kinds>(fn, handle, n, a0, a1, ...)``: ``fn(handle, a0[k], a1[k], ...)`` for k < n."""
    typed = [(_TYPES[kind][0], f"a{i}") for i, kind in enumerate(kinds)]
    arrays, arguments = "".join(f", ptr %{a}" for _, a in typed), "".join(f", {t} %v.{a}" for t, a in typed)
    return _counted_loop(f"@each_{kinds}(ptr %fn, ptr %handle, i64 %n{arrays})",
                         f"{_loads(*typed)}  call void %fn(ptr %handle{arguments})\n")


_GATHER_IR = _counted_loop("@gather_double(ptr %fn, ptr %handle, i32 %first, i64 %n, ptr %out)", """\
  %offset = trunc i64 %k to i32
  %index = add i32 %first, %offset
  %value = call double %fn(ptr %handle, i32 %index)
  %slot = getelementptr double, ptr %out, i64 %k
  store double %value, ptr %slot
""")  # out[k] = fn(handle, first + k): GLPK's column values (glp_mip_col_val)


def _scip_ir(name: str, arrays: str, create: str, keep: str = "") -> str:
    """``<name>(create, add, release, scip, n, <arrays>)``: `create` (IR into ``%made.ptr``), add, `keep`,
    release for each k < n. Returns n, or the k at which a call did not return SCIP_OKAY (1)."""
    return f"""
define i64 @{name}(ptr %create, ptr %add, ptr %release, ptr %scip, i64 %n, {arrays}) {{
entry:
  %made.ptr = alloca ptr
  %done.k = alloca i64
  store i64 0, ptr %done.k
  br label %test
test:
  %k = load i64, ptr %done.k
  %more = icmp slt i64 %k, %n
  br i1 %more, label %create.it, label %done
create.it:
  %k.next = add i64 %k, 1
{create}
  %created.ok = icmp eq i32 %created, 1
  br i1 %created.ok, label %add.it, label %done
add.it:
  %made = load ptr, ptr %made.ptr
  %added = call i32 %add(ptr %scip, ptr %made)
  %added.ok = icmp eq i32 %added, 1
  br i1 %added.ok, label %release.it, label %done
release.it:
{keep}
  %released = call i32 %release(ptr %scip, ptr %made.ptr)
  %released.ok = icmp eq i32 %released, 1
  br i1 %released.ok, label %next, label %done
next:
  store i64 %k.next, ptr %done.k
  br label %test
done:
  %count = load i64, ptr %done.k
  ret i64 %count
}}
"""


_SCIP_IR = "@empty = private unnamed_addr constant [1 x i8] zeroinitializer\n" + _scip_ir(
    # column k: SCIPcreateVarBasic (named ""), SCIPaddVar, made[k] = it, SCIPreleaseVar (the problem holds it)
    "scip_add_variables", "ptr %lower, ptr %upper, ptr %cost, ptr %kind, ptr %made.out",
    _loads(("double", "lower"), ("double", "upper"), ("double", "cost"), ("i32", "kind")) + """\
  %created = call i32 %create(ptr %scip, ptr %made.ptr, ptr @empty, double %v.lower, double %v.upper,
                              double %v.cost, i32 %v.kind)""", """\
  %p.made = getelementptr ptr, ptr %made.out, i64 %k
  store ptr %made, ptr %p.made""") + _scip_ir(
    # row k of compressed rows: SCIPcreateConsBasicLinear (named ""), SCIPaddCons, SCIPreleaseCons
    "scip_add_rows", "ptr %start, ptr %variables, ptr %coefficients, ptr %lower, ptr %upper", """\
  %p.first = getelementptr i64, ptr %start, i64 %k
  %first = load i64, ptr %p.first
  %p.end = getelementptr i64, ptr %start, i64 %k.next
  %end = load i64, ptr %p.end
  %length = sub i64 %end, %first
  %entries = trunc i64 %length to i32
  %row.variables = getelementptr ptr, ptr %variables, i64 %first
  %row.coefficients = getelementptr double, ptr %coefficients, i64 %first
""" + _loads(("double", "lower"), ("double", "upper")) + """\
  %created = call i32 %create(ptr %scip, ptr %made.ptr, ptr @empty, i32 %entries, ptr %row.variables,
                              ptr %row.coefficients, double %v.lower, double %v.upper)""")

_P, _N = ctypes.c_void_p, ctypes.c_int64
_PROTOTYPES = {  # name: ctypes prototype of the compiled function
    **{f"each_{kinds}": ctypes.CFUNCTYPE(None, _P, _P, _N, *[_P] * len(kinds)) for kinds in EACH_KINDS},
    "gather_double": ctypes.CFUNCTYPE(None, _P, _P, ctypes.c_int, _N, _P),
    "scip_add_variables": ctypes.CFUNCTYPE(_N, _P, _P, _P, _P, _N, _P, _P, _P, _P, _P),
    "scip_add_rows": ctypes.CFUNCTYPE(_N, _P, _P, _P, _P, _N, _P, _P, _P, _P, _P),
}


_VAR, _CONS = ctypes.POINTER(_P), ctypes.POINTER(_P)
CALLEES = {  # loop: the (result, arguments) of each C function it calls, as ctypes declares them
    **{f"each_{kinds}": ((None, [_P, *(_TYPES[kind][2] for kind in kinds)]),) for kinds in EACH_KINDS},
    "gather_double": ((ctypes.c_double, [_P, ctypes.c_int]),),
    "scip_add_variables": ((ctypes.c_int, [_P, _VAR, ctypes.c_char_p, *[ctypes.c_double] * 3, ctypes.c_int]),
                           (ctypes.c_int, [_P, _P]), (ctypes.c_int, [_P, _VAR])),
    "scip_add_rows": ((ctypes.c_int, [_P, _CONS, ctypes.c_char_p, ctypes.c_int, _P, _P, ctypes.c_double,
                                      ctypes.c_double]), (ctypes.c_int, [_P, _P]), (ctypes.c_int, [_P, _CONS])),
}
"""The C prototypes the IR calls, checked against the library's declarations at every call."""


def _addresses(loop: str, functions: tuple) -> list[int]:
    """The addresses of `functions`, each declared as `loop` calls it (`CALLEES`), else a TypeError."""
    for function, (result, arguments) in zip(functions, CALLEES[loop], strict=True):
        if function.restype is not result or list(function.argtypes or ()) != arguments:
            name = getattr(function, "__name__", "a C function")
            raise TypeError(f"{name} is declared as {function.restype} {function.argtypes}, but the compiled loop "
                            f"{loop} calls it as {result} {arguments}")
    return [ctypes.cast(function, ctypes.c_void_p).value for function in functions]


def _array(values: np.ndarray, dtype, length: int) -> int:
    """The address of `values`, refused unless it is a contiguous array of `dtype` and `length`."""
    if not (isinstance(values, np.ndarray) and values.dtype == dtype and values.flags.c_contiguous
            and len(values) == length):
        raise TypeError(f"a compiled loop needs a contiguous {np.dtype(dtype)} array of {length} elements")
    return values.ctypes.data


class Loops:
    """The compiled loops (`loops`), called with numpy arrays and ctypes functions."""

    def __init__(self, engine, functions: dict[str, Callable]) -> None:
        self._engine = engine  # owns the compiled code: kept as long as the functions are
        self._functions = functions

    def each(self, function, handle, *arrays: np.ndarray) -> None:
        """``function(handle, arrays[0][k], arrays[1][k], ...)`` for every k; each array int32
        (a C ``int``) or float64 (a ``double``), in one of the orders of `EACH_KINDS`."""
        kinds = "".join("i" if a.dtype == np.int32 else "d" for a in arrays)
        if kinds not in EACH_KINDS:
            raise TypeError(f"no compiled loop calls a function with the arguments {kinds!r}")
        count = len(arrays[0])
        self._functions[f"each_{kinds}"](*_addresses(f"each_{kinds}", (function,)), handle, count,
                                          *(_array(a, _TYPES[kind][1], count) for a, kind in zip(arrays, kinds)))

    def gather_double(self, function, handle, first: int, count: int) -> np.ndarray:
        """``[function(handle, first + k) for k < count]``: a C function returning a double."""
        out = np.empty(count, dtype=np.float64)
        self._functions["gather_double"](*_addresses("gather_double", (function,)), handle, first, count,
                                         out.ctypes.data)
        return out

    def scip_add_variables(self, functions: tuple, scip, lower: np.ndarray, upper: np.ndarray, cost: np.ndarray,
                           kind: np.ndarray, made: np.ndarray) -> int:
        """SCIP's variables: create, add, release each; `made` receives them. Returns the number added."""
        count = len(lower)
        return self._functions["scip_add_variables"](
            *_addresses("scip_add_variables", functions), scip, count, _array(lower, np.float64, count),
            _array(upper, np.float64, count), _array(cost, np.float64, count), _array(kind, np.int32, count),
            _array(made, np.uintp, count))

    def scip_add_rows(self, functions: tuple, scip, start: np.ndarray, variables: np.ndarray,
                      coefficients: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> int:
        """SCIP's linear rows in compressed-row form: create, add, release each. Returns the number added."""
        rows, entries = len(lower), len(variables)
        _check_starts(start, rows, entries)
        return self._functions["scip_add_rows"](
            *_addresses("scip_add_rows", functions), scip, rows, _array(start, np.int64, rows + 1),
            _array(variables, np.uintp, entries), _array(coefficients, np.float64, entries),
            _array(lower, np.float64, rows), _array(upper, np.float64, rows))


def _check_starts(start: np.ndarray, rows: int, entries: int) -> None:
    if len(start) != rows + 1 or start[0] != 0 or start[-1] != entries or np.any(np.diff(start) < 0):
        raise ValueError("the rows' starts are inconsistent")


class PythonLoops:
    """The same loops made from Python, one ctypes call per C call (where none are compiled)."""

    def each(self, function, handle, *arrays: np.ndarray) -> None:
        for arguments in zip(*(a.tolist() for a in arrays)):
            function(handle, *arguments)

    def gather_double(self, function, handle, first: int, count: int) -> np.ndarray:
        return np.fromiter((function(handle, first + k) for k in range(count)), dtype=np.float64, count=count)

    def scip_add_variables(self, functions: tuple, scip, lower, upper, cost, kind, made: np.ndarray) -> int:
        (create, add, release), var = functions, ctypes.c_void_p()
        reference = ctypes.byref(var)
        for k, column in enumerate(zip(lower.tolist(), upper.tolist(), cost.tolist(), kind.tolist())):
            if not (create(scip, reference, b"", *column) == 1 and add(scip, var) == 1):
                return k
            made[k] = var.value
            if release(scip, reference) != 1:  # the problem holds it now
                return k
        return len(lower)

    def scip_add_rows(self, functions: tuple, scip, start, variables, coefficients, lower, upper) -> int:
        _check_starts(start, len(lower), len(variables))
        (create, add, release), cons = functions, ctypes.c_void_p()
        reference, starts = ctypes.byref(cons), start.tolist()
        for k, (first, end, low, high) in enumerate(zip(starts, starts[1:], lower.tolist(), upper.tolist())):
            if not (create(scip, reference, b"", end - first, variables.ctypes.data + 8 * first,
                           coefficients.ctypes.data + 8 * first, low, high) == 1
                    and add(scip, cons) == 1 and release(scip, reference) == 1):
                return k
        return len(lower)


def loops() -> Loops | PythonLoops:
    """The loops compiled (once per process), or the Python ones where they cannot be."""
    return _compiled()[0] or PythonLoops()


def path() -> str:
    """Which loops hand a model over in this process, and why not the compiled ones."""
    compiled, reason = _compiled()
    return reason if compiled is None else f"compiled loops (llvmlite {reason})"


@lru_cache(maxsize=None)
def _compiled() -> tuple[Loops | None, str]:
    """(the compiled loops, llvmlite's version) or (None, why the loops are Python's)."""
    if os.environ.get(SWITCH, "").lower() == "off":
        return None, f"Python loops ({SWITCH}=off)"
    try:
        import llvmlite  # 0.08 s with its binding: only the adapters' warm-up (or first hand-over) pays it
        import llvmlite.binding as llvm
    except ImportError:
        return None, "Python loops (llvmlite is not installed)"
    release = ".".join(llvmlite.__version__.split(".")[:2])
    if release not in TESTED:
        return None, f"Python loops (llvmlite {llvmlite.__version__} is not a tested release: {', '.join(TESTED)})"
    try:
        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        module = llvm.parse_assembly("".join(map(_each_ir, EACH_KINDS)) + _GATHER_IR + _SCIP_IR)
        module.verify()
        machine = llvm.Target.from_default_triple().create_target_machine(opt=2)
        engine = llvm.create_mcjit_compiler(module, machine)
        engine.finalize_object()
    except Exception as error:  # noqa: BLE001 - an LLVM that rejects this IR: the Python loops remain
        return None, f"Python loops (LLVM did not compile them: {str(error).splitlines()[0] if str(error) else error!r})"
    return Loops(engine, {name: prototype(engine.get_function_address(name))
                          for name, prototype in _PROTOTYPES.items()}), llvmlite.__version__

