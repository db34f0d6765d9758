"""How promptly `solve` honours its limits, as a user sees it (whole processes).

1. Ctrl-C: seconds from SIGINT to the exit of `pyomo-puzzles solve`, while the run's child
   is loading a slow instance (the signal is sent once `--verbose` says the file was read) (the loader needs about a minute to derive its placements).
2. The time limit over loading: wall seconds of `pyomo-puzzles solve -t T` on that instance,
   against T + the grace period (the run is killed while loading).
3. A refused instance: seconds until `solve` refuses a board with 10^16 placements.

    .venv/bin/python benchmarks/limits.py [--trials 3] [--time-limit 5]
"""

from __future__ import annotations

import argparse
import json
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SLOW = """\
puzzle: packing
board:
  size: [60, 60, 3]
pieces:
  - name: L
    cells: [[0, 0, 0], [1, 0, 0], [0, 1, 0]]
    count: 3600
"""
COMMAND = [sys.executable, "-m", "pyomo_puzzles", "solve"]


def interrupt_latency(path: Path, record: Path) -> tuple[float, str]:
    solving = subprocess.Popen([*COMMAND, str(path), "-t", "120", "-o", str(record), "--verbose"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # as from a terminal
    said = solving.stderr.readline()  # the child has read the file and is loading it
    assert "data file read" in said, said
    asked = time.perf_counter()
    solving.send_signal(signal.SIGINT)
    solving.communicate()
    return time.perf_counter() - asked, f"exit {solving.returncode}, record {json.loads(record.read_text())['status']}"


def limited_wall(path: Path, record: Path, limit: float) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run([*COMMAND, str(path), "-t", str(limit), "-o", str(record)], capture_output=True)
    saved = json.loads(record.read_text())
    return time.perf_counter() - started, f"exit {done.returncode}, record {saved['status']}: {saved['message']}"


def refusal(path: Path) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run([*COMMAND, str(path)], capture_output=True, text=True)
    return time.perf_counter() - started, f"exit {done.returncode}: {done.stderr.strip()[:110]}..."


def main() -> None:
    from pyomo_puzzles.core.isolation import GRACE_SECONDS

    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--trials", type=int, default=3)
    options.add_argument("--time-limit", type=float, default=5.0)
    args = options.parse_args()
    folder = Path(tempfile.mkdtemp())
    slow, huge, record = folder / "slow.yaml", folder / "huge.yaml", folder / "record.json"
    slow.write_text(SLOW)
    huge.write_text(SLOW.replace("[60, 60, 3]", "[100000, 100000, 1000]"))
    for title, measure in [("Ctrl-C to exit", lambda: interrupt_latency(slow, record)),
                           (f"solve -t {args.time_limit:g} (limit + grace = {args.time_limit + GRACE_SECONDS:g} s)",
                            lambda: limited_wall(slow, record, args.time_limit)),
                           ("refusal of a board with 10^16 placements", lambda: refusal(huge))]:
        seconds, last = [], ""
        for _ in range(args.trials):
            took, last = measure()
            seconds.append(took)
        print(f"{title}: median {statistics.median(seconds):.2f} s, max {max(seconds):.2f} s "
              f"over {args.trials} trials; last: {last}")


if __name__ == "__main__":
    main()
