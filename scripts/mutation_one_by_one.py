"""Run mutmut's mutants one at a time, each in a PID namespace of its own (scripts/mutation.sh
--one-by-one, docs/mutation.md).

A mutant of the code that finds and kills a call's processes (runner/proctree.py, reaper.py)
can take every process it sees for one of the call's own and kill it: under `mutmut run` that
is mutmut itself (its workers are its children, so they share its namespace), and the run
ends with nothing recorded for the rest. Here each mutant's tests run in a `pytest` of their
own inside a fresh PID namespace, so a mutant can kill only its own test run (which counts as
killed: a user's council would have done the same). The result goes into mutmut's own
records (mutants/**/*.py.meta), so `scripts/mutation.sh --report` counts it like any other.

It reads what `mutmut run` prepared: the mutated copy in mutants/src and the map of which
tests reach which function (mutants/mutmut-stats.json). Slower than `mutmut run` (a new
interpreter per mutant), and it needs `unshare` (root, or unprivileged user namespaces).
"""

from __future__ import annotations

import argparse
import fcntl
import fnmatch
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

MUTANTS = Path("mutants")
KILLED, SURVIVED, NO_TESTS, TIMEOUT = 1, 0, 33, -24  # mutmut's exit codes
ISOLATE = (
    ["unshare", "--pid", "--fork", "--mount-proc"],
    ["unshare", "--user", "--map-current-user", "--pid", "--fork", "--mount-proc"],
)


# A private /tmp in the namespace: council finds the run directories of dead councils there
# by their pid, and a pid of another namespace means nothing here (rooms of live runs would
# go). Fixed in council since (a lock, context/roomdir.py), not in a mutated copy older than it.
PRIVATE_TMP = "mount -t tmpfs -o mode=1777 tmpfs /tmp"


def namespace_command() -> list[str]:
    for command in ISOLATE:
        probe = subprocess.run([*command, "sh", "-c", PRIVATE_TMP], capture_output=True)
        if probe.returncode == 0:
            # A shell as the namespace's pid 1 reaps the orphans; `exit` keeps it from
            # exec-ing into pytest (pid 1 ignores the signals a mutant would send it).
            return [*command, "sh", "-c", PRIVATE_TMP + ' && "$@"; exit $?', "sh"]
    sys.exit("mutation_one_by_one: unshare cannot make a PID namespace with a private /tmp here")


def function_of(mutant: str) -> str:
    return mutant.rsplit("__mutmut_", 1)[0]


def run_mutant(mutant: str, tests: list[str], isolate: list[str], timeout_s: float) -> int:
    if not tests:
        return NO_TESTS
    env = {
        **{k: v for k, v in os.environ.items() if k != "XDG_RUNTIME_DIR"},
        "MUTANT_UNDER_TEST": mutant,
        "PYTHONPATH": str((MUTANTS / "src").resolve()),
    }
    command = [
        *isolate,
        sys.executable,
        "-m",
        "pytest",
        "-x",
        "-q",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:randomly",
        "-n",
        "0",
        "--timeout=40",
        "--rootdir=.",
        *tests,
    ]
    try:
        done = subprocess.run(
            command,
            cwd=MUTANTS,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=timeout_s,
        )
    except subprocess.TimeoutExpired:
        return TIMEOUT
    # 0: every test passed; 5: none collected (a test renamed since the map was made).
    if done.returncode == 0:
        return SURVIVED
    if done.returncode == 5:
        return NO_TESTS
    return KILLED


def record_result(meta: Path, mutant: str, code: int) -> None:
    """Into mutmut's record of the module, written whole each time (an interrupted run keeps
    what it measured), under a lock: two runs of this script may share a module."""
    with open(meta.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        record = json.loads(meta.read_text())
        record["exit_code_by_key"][mutant] = code
        tmp = meta.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(record, indent=4))
        tmp.replace(meta)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "patterns", nargs="+", help="mutant names, fnmatch patterns; run in this order"
    )
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--rerun", action="store_true", help="also mutants with a result")
    parser.add_argument(
        "--also",
        action="append",
        default=[],
        metavar="TEST",
        help="tests to run after the mapped ones (e.g. end-to-end tests that start council as "
        "a subprocess, which mutmut's map cannot see); repeatable",
    )
    parser.add_argument(
        "--within",
        action="append",
        default=[],
        metavar="PATH",
        help="run only the mapped tests under these paths (e.g. tests/runner/test_warm.py): a "
        "quicker measure, and a floor (a test left out might have killed a survivor); "
        "repeatable",
    )
    args = parser.parse_args()

    stats = json.loads((MUTANTS / "mutmut-stats.json").read_text())
    tests_of = stats["tests_by_mangled_function_name"]
    duration = stats["duration_by_test"]
    isolate = namespace_command()

    work: list[tuple[int, Path, str, list[str], float]] = []
    for meta in sorted((MUTANTS / "src").rglob("*.py.meta")):
        codes = json.loads(meta.read_text())["exit_code_by_key"]
        for mutant, code in codes.items():
            order = next(
                (i for i, p in enumerate(args.patterns) if fnmatch.fnmatch(mutant, p)), None
            )
            if order is None:
                continue
            if code is not None and not args.rerun:
                continue
            # Fast tests first, as mutmut does: a killed mutant is usually found early.
            tests = sorted(tests_of.get(function_of(mutant), []), key=lambda t: duration[t])
            if args.within:
                tests = [t for t in tests if t.startswith(tuple(args.within))]
            budget = 60 + 3 * sum(duration[t] for t in tests) + 300 * len(args.also)
            tests += args.also
            work.append((order, meta, mutant, tests, budget))
    # In the order of the patterns: the modules named first are measured first.
    work.sort(key=lambda item: item[0])
    print(f"{len(work)} mutants, {args.jobs} at a time", flush=True)

    def one(item: tuple[int, Path, str, list[str], float]) -> tuple[Path, str, int]:
        _, meta, mutant, tests, budget = item
        return meta, mutant, run_mutant(mutant, tests, isolate, budget)

    names = {KILLED: "killed", SURVIVED: "survived", NO_TESTS: "no tests", TIMEOUT: "timeout"}
    with ThreadPoolExecutor(args.jobs) as pool:
        # Recorded as each ends: a run stopped early keeps everything that ended.
        for future in as_completed([pool.submit(one, item) for item in work]):
            meta, mutant, code = future.result()
            record_result(meta, mutant, code)
            print(f"{names[code]:<8} {mutant}", flush=True)


if __name__ == "__main__":
    main()
