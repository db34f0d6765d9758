"""Process accounting from /proc: the processes of a group, their memory, and killing a
process with everything it started. Empty answers where there is no /proc."""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import time
from typing import Iterator


def process_stats() -> Iterator[tuple[int, list[bytes]]]:
    """(pid, the fields of /proc/pid/stat after the command name: state, ppid, pgrp, ...) of
    every live process (none where there is no /proc)."""
    try:
        entries = os.scandir("/proc")
    except OSError:
        return
    for entry in entries:
        if entry.name.isdigit() and (fields := _stat(int(entry.name))) is not None:
            yield int(entry.name), fields


def _stat(pid: int) -> list[bytes] | None:
    """The fields of /proc/pid/stat after the command name, or None (no such process)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read()
    except OSError:
        return None
    return stat[stat.rfind(b")") + 2:].split()


def group_members(group: int) -> list[int]:
    """The live processes of a process group."""
    return [pid for pid, fields in process_stats() if int(fields[2]) == group]


def _helpers() -> Iterator[tuple[int, list[bytes]]]:
    """(pid, stat fields) of the other live processes of this process's group (helpers such
    as the CP-SAT worker, and solver executables still running), looked for among this
    process's descendants, which is all a run's own group holds."""
    group, me = os.getpgrp(), os.getpid()
    stats = ((pid, fields) for pid in descendants(me) if (fields := _stat(pid)) is not None)
    return ((pid, fields) for pid, fields in stats if int(fields[2]) == group)


def descendants(pid: int) -> list[int]:
    """Every live process started by `pid`, and by those, and so on: from the kernel's lists
    of each thread's children where it keeps them (scanning every process of the machine
    took 1.5 ms with 70 processes, and a run asks three times), else from every process's
    parent."""
    children_of = _children if os.path.exists(f"/proc/{os.getpid()}/task/{os.getpid()}/children") else _children_by_parent()
    found, frontier = [], [pid]
    while frontier:
        frontier = [child for parent in frontier for child in children_of(parent)]
        found += frontier
    return found


def _children_by_parent():
    """`children_of(pid)` from one scan of every process's parent."""
    children: dict[int, list[int]] = {}
    for child, fields in process_stats():
        children.setdefault(int(fields[1]), []).append(child)
    return lambda parent: children.get(parent, [])


def _children(pid: int) -> list[int]:
    """The children of `pid`, as the kernel lists them per thread (none for a process that has ended)."""
    children: list[int] = []
    with contextlib.suppress(OSError):
        for thread in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(OSError), open(f"/proc/{pid}/task/{thread}/children", "rb") as handle:
                children += [int(child) for child in handle.read().split()]
    return children


def kill_with_descendants(pid: int | None) -> None:
    """SIGKILL a process and every process it started (a solver executable would outlive it)."""
    if pid is None:
        return
    for victim in [pid, *descendants(pid)]:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(victim, signal.SIGKILL)


def running(pid: int) -> bool:
    """Whether process `pid` runs: any of its threads (a process whose first thread ended is
    shown ended while its other threads are still ending, and cannot yet be waited for)."""
    try:
        threads = os.listdir(f"/proc/{pid}/task")
    except FileNotFoundError:
        return False
    except OSError:  # no /proc
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
    for thread in threads:
        try:
            with open(f"/proc/{pid}/task/{thread}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue
        if stat[stat.rfind(b")") + 2:][:1] not in (b"Z", b"X"):
            return True
    return False


def kill_and_wait(pids: tuple[int, ...], seconds: float = 5.0) -> None:
    """SIGKILL these processes and what they started, and wait (at most `seconds`) until they
    have ended: their parent, which waits for them, then finds them ended at once."""
    for pid in pids:
        kill_with_descendants(pid)
    deadline = time.monotonic() + seconds
    while any(running(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.001)


def kill_group(group: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(group, signal.SIGKILL)


def _status_kb(pid: int, key: bytes) -> int:
    try:
        with open(f"/proc/{pid}/status", "rb") as handle:
            for line in handle:
                if line.startswith(key):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


def group_rss_mb(group: int) -> float:
    """Resident memory of a process group now, in MiB."""
    return sum(_status_kb(pid, b"VmRSS:") for pid in group_members(group)) / 1024


def rss_mb(pids: tuple[int, ...]) -> float:
    """Resident memory of these processes now, in MiB (0 for one that ended)."""
    return sum(_status_kb(pid, b"VmRSS:") for pid in pids) / 1024


def peak_mb(pids: tuple[int, ...]) -> float:
    """The peak resident memory of these processes (since `reset_peaks`), in MiB."""
    return sum(_status_kb(pid, b"VmHWM:") for pid in pids) / 1024


def reset_peaks(pids: tuple[int, ...]) -> bool:
    """Lower the peak resident memory of these processes to what they hold now (Linux 4.0
    and later; a process of the same user): False if that could not be done for one."""
    done = True
    for pid in pids:
        try:
            with open(f"/proc/{pid}/clear_refs", "w") as handle:
                handle.write("5")
        except OSError:
            done = False
    return done


_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def cpu_seconds_of(pids: tuple[int, ...]) -> dict[int, float]:
    """CPU seconds (user and system) so far of each of these processes still running; the
    difference of two readings over the processes in both is their CPU over the span."""
    found = {}
    for pid in pids:
        if (fields := _stat(pid)) is not None:
            found[pid] = (int(fields[11]) + int(fields[12])) / _TICKS
    return found


def cpu_seconds() -> float:
    """CPU seconds (user and system) of this process, of the processes it started and waited
    for (solver executables), and of the helper processes of its group still running (the
    CP-SAT worker): take the difference of two readings for a span of time."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    waited = resource.getrusage(resource.RUSAGE_CHILDREN)
    ticks = sum(int(fields[11]) + int(fields[12]) for _, fields in _helpers())  # utime, stime
    return own.ru_utime + own.ru_stime + waited.ru_utime + waited.ru_stime + ticks / _TICKS


def own_peak_memory_mb(since_reset: bool = False) -> float:
    """This process's peak resident memory plus the largest peak of the processes it started
    and waited for (solver executables), plus the peak of any helper process of its group
    still running (the CP-SAT worker). `since_reset`: this process's peak since
    `reset_own_peak`, and the executables' only where their largest peak grew since then (the
    kernel keeps one figure for all of them; the watching process samples the rest)."""
    helpers_kb = sum(_status_kb(pid, b"VmHWM:") for pid, _ in _helpers())
    children_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    if not since_reset:
        return (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss + children_kb + helpers_kb) / 1024
    grown_kb = children_kb if children_kb > _CHILDREN_PEAK_AT_RESET[0] else 0
    return (_status_kb(os.getpid(), b"VmHWM:") + grown_kb + helpers_kb) / 1024


_CHILDREN_PEAK_AT_RESET = [0]


def reset_own_peak() -> bool:
    """Lower this process's peak resident memory (`own_peak_memory_mb(since_reset=True)`) to
    what it holds now, and that of its helper processes: a run's peak counts from the run's
    start, not from the runs its process made before. False if this process's peak could not
    be reset."""
    done = reset_peaks((os.getpid(),))
    reset_peaks(tuple(pid for pid, _ in _helpers()))
    _CHILDREN_PEAK_AT_RESET[0] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return done
