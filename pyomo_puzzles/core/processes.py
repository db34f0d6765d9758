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
    as the CP-SAT worker, and solver executables still running). Looked for among this
    process's descendants, which is all a run's own group holds: scanning every process of
    the machine took 1.5 ms with 70 processes, three times a run."""
    group, me = os.getpgrp(), os.getpid()
    found = _descendants_of_self()
    stats = process_stats() if found is None else ((pid, fields) for pid in found if (fields := _stat(pid)) is not None)
    return ((pid, fields) for pid, fields in stats if int(fields[2]) == group and pid != me)


def _descendants_of_self() -> list[int] | None:
    """This process's live descendants, from the kernel's lists of each thread's children
    (None where the kernel keeps no such list)."""
    found, frontier = [], [os.getpid()]
    while frontier:
        children = []
        for pid in frontier:
            listed = _children(pid)
            if listed is None:
                if pid == os.getpid():
                    return None
                continue
            children += listed
        found += children
        frontier = children
    return found


def _children(pid: int) -> list[int] | None:
    try:
        threads = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return None
    children: list[int] = []
    for thread in threads:
        try:
            with open(f"/proc/{pid}/task/{thread}/children", "rb") as handle:
                children += [int(child) for child in handle.read().split()]
        except FileNotFoundError:
            return None if pid == os.getpid() else children
        except OSError:
            continue
    return children


def _stat(pid: int) -> list[bytes] | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read()
    except OSError:
        return None
    return stat[stat.rfind(b")") + 2:].split()


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
        try:
            with open(f"/proc/{pid}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2:].split()
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


def own_peak_memory_mb() -> float:
    """This process's peak resident memory plus the largest peak of the processes it started
    and waited for (solver executables), plus the peak of any helper process of its group
    still running (the CP-SAT worker)."""
    self_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    helpers_kb = sum(_status_kb(pid, b"VmHWM:") for pid, _ in _helpers())
    return (self_kb + children_kb + helpers_kb) / 1024
