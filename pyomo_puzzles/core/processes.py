"""Process accounting from /proc: the processes of a group, their memory, and killing a
process with everything it started. Empty answers where there is no /proc."""

from __future__ import annotations

import contextlib
import os
import resource
import signal
from typing import Iterator


def process_stats() -> Iterator[tuple[int, list[bytes]]]:
    """(pid, the fields of /proc/pid/stat after the command name: state, ppid, pgrp, ...) of
    every live process (none where there is no /proc)."""
    try:
        entries = os.scandir("/proc")
    except OSError:
        return
    for entry in entries:
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue
        yield int(entry.name), stat[stat.rfind(b")") + 2:].split()


def group_members(group: int) -> list[int]:
    """The live processes of a process group."""
    return [pid for pid, fields in process_stats() if int(fields[2]) == group]


def _helpers() -> Iterator[tuple[int, list[bytes]]]:
    """(pid, stat fields) of the other live processes of this process's group (helpers such
    as the CP-SAT worker, and solver executables still running)."""
    group, me = os.getpgrp(), os.getpid()
    return ((pid, fields) for pid, fields in process_stats() if int(fields[2]) == group and pid != me)


def descendants(pid: int) -> list[int]:
    """Every live process started by `pid`, and by those, and so on."""
    children: dict[int, list[int]] = {}
    for child, fields in process_stats():
        children.setdefault(int(fields[1]), []).append(child)
    found, frontier = [], [pid]
    while frontier:
        frontier = [child for p in frontier for child in children.get(p, [])]
        found += frontier
    return found


def kill_with_descendants(pid: int | None) -> None:
    """SIGKILL a process and every process it started (a solver executable would outlive it)."""
    if pid is None:
        return
    for victim in [pid, *descendants(pid)]:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(victim, signal.SIGKILL)


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


_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def cpu_seconds() -> float:
    """CPU seconds (user and system) of this process, of the processes it started and waited
    for (solver executables), and of the helper processes of its group still running (the
    CP-SAT worker): take the difference of two readings for a span of time."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    waited = resource.getrusage(resource.RUSAGE_CHILDREN)
    ticks = sum(int(fields[11]) + int(fields[12]) for _, fields in _helpers())  # utime, stime
    return own.ru_utime + own.ru_stime + waited.ru_utime + waited.ru_stime + ticks / _TICKS


def own_peak_memory_mb() -> float:
    """This process's peak resident memory plus the largest peak of the processes it started
    and waited for (solver executables), plus the peak of any helper process of its group
    still running (the CP-SAT worker)."""
    self_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    helpers_kb = sum(_status_kb(pid, b"VmHWM:") for pid, _ in _helpers())
    return (self_kb + children_kb + helpers_kb) / 1024
