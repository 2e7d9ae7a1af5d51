"""Plant realistic bugs one at a time and count how many the tests notice (docs/mutation.md,
"Planted bugs").

mutmut flips operators; a developer's bug is more often a dropped condition, a wrong default,
a swapped branch, a lost exclusion or a missing key. This script reads a hand-written list of
such bugs, plants each in a copy of the checkout (never in the working tree: a temporary copy
per job, the file restored after each bug, the copies removed at the end, on Ctrl-C too),
runs the test files that cover the bug's area, and reports per area how many were caught.

    python scripts/plant-bugs.py                      # every bug in scripts/planted-bugs.yaml
    python scripts/plant-bugs.py --jobs 2             # two bugs at once, each in its own copy
    python scripts/plant-bugs.py --area review --area runs
    python scripts/plant-bugs.py debate-votes-first-line review-sarif-line-zero
    python scripts/plant-bugs.py --check              # only check that every bug still applies
    python scripts/plant-bugs.py --list scripts/planted-bugs-heldout.yaml --min 85 --json

The list (YAML) is a sequence of bugs, each a mapping:

    - id: review-exit-degraded-first        # unique, [a-z0-9-]
      area: review                          # the package or area, for the summary table
      file: src/council/review/result.py    # relative to the checkout
      find: |                               # exact text, found exactly once in the file
        if blocking:
            return EXIT_BLOCKING
      replace: |                            # what it becomes: one to three lines changed
        if blocking and not degraded:
            return EXIT_BLOCKING
      notice: a degraded review with a blocking finding exits 3, not 1   # what a user sees
      tests: [tests/review/test_exit_codes.py]   # test files or node ids covering the area
      equivalent: "..."                     # optional: why a survivor cannot change behaviour

A bug is *caught* when the tests fail (or time out), *survives* when they pass (or when
every failure was only a leak warning, an unraisable exception or a ResourceWarning, and the
failed tests pass when run again alone with the bug: another test's leak), *did not
apply* when `find` is not in the file exactly once (the list is stale: fix the entry), and is
an *error* when pytest could not run (no test collected, a usage error). A survivor marked
`equivalent` is listed but left out of the catch rate. The catch rate is caught over caught
plus survived. Exit status: 0 when the rate is at least --min, 1 under it, 2 when a bug did
not apply or a run failed (a figure from a stale list means nothing).

Each pytest runs with `-x -q -p no:randomly -m "not realcli"` in a PID namespace of its own
when `unshare` can make one (as scripts/mutation.sh does: a bug in the process-tree killer
can kill any process it sees), with a private /tmp.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_LIST = ROOT / "scripts" / "planted-bugs.yaml"
# Not copied: git's data, environments, caches, mutmut's own copy. .cache (the real CLIs) is
# linked, not copied: only realcli tests use it.
SKIPPED = {".git", ".venv", ".cache", "mutants", "__pycache__", ".pytest_cache", ".ruff_cache"}
# What pytest reports when a warning of a leak (an unclosed pipe, an exception in __del__)
# reached a test under `filterwarnings = error`.
LEAK_WARNING = re.compile(r"PytestUnraisableExceptionWarning|ResourceWarning")
FIELDS = {"id", "area", "file", "find", "replace", "notice", "tests", "equivalent"}
REQUIRED = ("id", "area", "file", "find", "replace", "notice", "tests")
ISOLATE = (
    ["unshare", "--pid", "--fork", "--mount-proc"],
    ["unshare", "--user", "--map-current-user", "--pid", "--fork", "--mount-proc"],
)
# A private /tmp: council finds the rooms of dead runs in /tmp by pid, and a pid of another
# namespace means nothing there.
PRIVATE_TMP = "mount -t tmpfs -o mode=1777 tmpfs /tmp"
CAUGHT, SURVIVED, EQUIVALENT = "caught", "survived", "equivalent"
NOT_APPLIED, ERROR = "did not apply", "error"


class ListError(Exception):
    """The bug list cannot be read; the message names the entry and the fix."""


@dataclass(frozen=True)
class Bug:
    id: str
    area: str
    file: str
    find: str
    replace: str
    notice: str
    tests: tuple[str, ...]
    equivalent: str = ""


@dataclass
class Result:
    id: str
    area: str
    status: str
    notice: str
    seconds: float = 0.0
    failed: list[str] = field(default_factory=list)  # the tests that noticed
    detail: str = ""
    equivalent: str = ""


def load_bugs(path: Path) -> list[Bug]:
    """The bugs of a list file, checked for shape (not yet whether each applies)."""
    try:
        entries = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as error:
        raise ListError(f"{path}: cannot read the bug list: {error}") from None
    if not isinstance(entries, list):
        raise ListError(f"{path}: the bug list must be a YAML sequence of mappings")
    bugs: list[Bug] = []
    seen: set[str] = set()
    for number, entry in enumerate(entries, 1):
        where = f"{path}: bug {number}"
        if not isinstance(entry, dict):
            raise ListError(f"{where}: must be a mapping with {', '.join(REQUIRED)}")
        where = f"{path}: bug {entry.get('id', number)!s}"
        unknown = set(entry) - FIELDS
        if unknown:
            first = sorted(unknown)[0]
            raise ListError(f"{where}: unknown field {first!r}; known: {', '.join(sorted(FIELDS))}")
        # `replace` may be empty: the bug is a line dropped.
        missing = [
            name
            for name in REQUIRED
            if entry.get(name) is None or (name != "replace" and not entry[name])
        ]
        if missing:
            raise ListError(f"{where}: missing {missing[0]!r}")
        tests = entry["tests"]
        if isinstance(tests, str):
            tests = [tests]
        if not isinstance(tests, list) or not all(isinstance(t, str) for t in tests):
            raise ListError(f"{where}: 'tests' must be a list of test paths")
        if not re.fullmatch(r"[a-z0-9][a-z0-9-]*", str(entry["id"])):
            raise ListError(f"{where}: id must be lowercase letters, digits and dashes")
        if entry["id"] in seen:
            raise ListError(f"{where}: the id is used twice; ids must be unique")
        if entry["find"] == entry["replace"]:
            raise ListError(f"{where}: 'replace' is the same as 'find': that plants nothing")
        seen.add(entry["id"])
        bugs.append(
            Bug(
                id=entry["id"],
                area=str(entry["area"]),
                file=str(entry["file"]),
                find=str(entry["find"]),
                replace=str(entry["replace"] or ""),
                notice=str(entry["notice"]).strip(),
                tests=tuple(tests),
                equivalent=str(entry.get("equivalent") or "").strip(),
            )
        )
    return bugs


def planted(bug: Bug, text: str) -> str | None:
    """The file's text with the bug planted, or None when `find` is not there exactly once."""
    if text.count(bug.find) != 1:
        return None
    return text.replace(bug.find, bug.replace)


def copy_tree(root: Path, into: Path) -> Path:
    tree = into / "tree"
    shutil.copytree(root, tree, ignore=lambda _d, names: [n for n in names if n in SKIPPED])
    if (root / ".cache").exists():
        (tree / ".cache").symlink_to((root / ".cache").resolve())
    return tree


def namespace_command(wanted: bool) -> list[str]:
    if not wanted or not shutil.which("unshare"):
        return []
    # A private /tmp would hide a Python (or a checkout) that lives under /tmp, as in a CI
    # job's clone there: then the runs keep the machine's /tmp, in a PID namespace still.
    hidden = any(
        Path(p).resolve().is_relative_to("/tmp") for p in (sys.executable, sys.prefix, ROOT)
    )
    setup = "true" if hidden else PRIVATE_TMP
    for command in ISOLATE:
        probe = subprocess.run([*command, "sh", "-c", setup], capture_output=True)
        if probe.returncode == 0:
            # A shell as the namespace's pid 1 reaps orphans; `exit` keeps it from exec-ing
            # into pytest (pid 1 ignores the signals a bug might send it).
            return [*command, "sh", "-c", setup + ' && "$@"; exit $?', "sh"]
    return []


def scratch_parent(isolated: bool) -> str:
    """Where the copies go: not under /tmp when each run gets a private /tmp (it would hide
    them)."""
    for folder in (os.environ.get("PLANT_BUGS_TMP"), "/var/tmp", str(Path.home() / ".cache")):
        if folder and os.access(folder, os.W_OK | os.X_OK):
            if isolated and Path(folder).resolve().is_relative_to("/tmp"):
                raise ListError(
                    f"the copies would go under /tmp ({folder}), which each run's private /tmp "
                    "hides; set PLANT_BUGS_TMP to another folder, or pass --no-isolate"
                )
            return folder
    raise ListError("no writable folder for the copies; set PLANT_BUGS_TMP to one")


def forget_bytecode(path: Path) -> None:
    """A restored file can have the size and mtime second of its planted twin: drop the
    cached bytecode so the next run cannot import the bug."""
    for cached in path.parent.glob(f"__pycache__/{path.stem}.*.pyc"):
        cached.unlink(missing_ok=True)


class Planter:
    def __init__(self, args: argparse.Namespace, isolate: list[str]) -> None:
        self.args = args
        self.isolate = isolate
        self.running: set[subprocess.Popen[bytes]] = set()
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.flaky: list[str] = []  # tests the baseline found flaky: left out of every run

    def pytest_command(self, tests: tuple[str, ...], first_failure: bool = True) -> list[str]:
        marker = ["-m", self.args.marker] if self.args.marker else []
        deselected = [arg for node in self.flaky for arg in ("--deselect", node)]
        return [
            *self.isolate,
            sys.executable,
            "-m",
            "pytest",
            *(["-x"] if first_failure else []),
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:randomly",
            "-n",
            str(self.args.n),
            *marker,
            *deselected,
            *tests,
        ]

    def run_tests(
        self, tree: Path, tests: tuple[str, ...], log: Path, first_failure: bool = True
    ) -> tuple[int | None, str]:
        """pytest's exit status (None: timed out) and its output."""
        env = {k: v for k, v in os.environ.items() if k not in ("XDG_RUNTIME_DIR", "PYTHONPATH")}
        # The copy's sources first: an editable install points at the working tree.
        env["PYTHONPATH"] = str(tree / "src")
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env.pop("MUTANT_UNDER_TEST", None)
        with open(log, "wb") as out:
            process = subprocess.Popen(
                self.pytest_command(tests, first_failure),
                cwd=tree,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # Ctrl-C reaches us alone; we end the group
            )
            with self.lock:
                self.running.add(process)
            try:
                code: int | None = process.wait(timeout=self.args.timeout)
            except subprocess.TimeoutExpired:
                code = None
            finally:
                end_group(process)
                with self.lock:
                    self.running.discard(process)
        return code, log.read_text(errors="replace")

    def baseline(self, tree: Path, bugs: list[Bug]) -> list[str]:
        """Every listed test once with no bug planted. A test that fails then but passes when
        run again alone is flaky: it is left out of every bug's run (a failure of it would
        say nothing about the bug) and reported. Returns the tests that fail for real."""
        tests = tuple(dict.fromkeys(test for bug in bugs for test in bug.tests))
        log = (self.args.logs or tree.parent) / "baseline.log"
        code, output = self.run_tests(tree, tests, log, first_failure=False)
        if code == 0:
            return []
        failed = re.findall(r"^(?:FAILED|ERROR) (\S+)", output, re.MULTILINE)
        if not failed:
            return [f"pytest exited {code} (see {log.name} with --logs)"]
        again, _ = self.run_tests(tree, tuple(failed), log.with_name("baseline-again.log"))
        if again != 0:
            return failed
        self.flaky = failed
        return []

    def failed_only_by_a_leak(self, tree: Path, output: str, log: Path) -> list[str]:
        """The failed tests, when each failed only on an unraisable-exception or resource
        warning (`filterwarnings = error`) and they pass when run again alone: such a warning
        is collected in whichever test runs next in that worker, so its failure can be another
        test's leak, not the bug. Empty when any failure is a real one."""
        nodes = tuple(dict.fromkeys(re.findall(r"^(?:FAILED|ERROR) (\S+)", output, re.M)))
        # Each failure's traceback ends in `path:line: ExceptionName` (the summary line is cut
        # to the terminal's width, so it cannot be trusted to name it).
        raised = re.findall(r"^\S+:\d+: (\w+(?:\.\w+)*)$", output, re.MULTILINE)
        if not nodes or not raised or not all(LEAK_WARNING.search(name) for name in raised):
            return []
        again, _ = self.run_tests(tree, nodes, log.with_name(f"{log.stem}-alone.log"))
        return list(nodes) if again == 0 else []

    def plant(self, bug: Bug, tree: Path) -> Result:
        result = Result(bug.id, bug.area, ERROR, bug.notice, equivalent=bug.equivalent)
        target = tree / bug.file
        try:
            original = target.read_text()
        except OSError as error:
            result.status, result.detail = NOT_APPLIED, f"cannot read {bug.file}: {error.strerror}"
            return result
        text = planted(bug, original)
        if text is None:
            count = original.count(bug.find)
            result.status = NOT_APPLIED
            result.detail = f"`find` occurs {count} times in {bug.file}, not once: a stale entry"
            return result
        if self.args.check:
            result.status, result.detail = "applies", ""
            return result
        started = time.monotonic()
        leaked: list[str] = []
        try:
            forget_bytecode(target)
            target.write_text(text)
            log = (self.args.logs or tree.parent) / f"{bug.id}.log"
            code, output = self.run_tests(tree, bug.tests, log)
            if code in (1, 2) and not self.stopping.is_set():
                leaked = self.failed_only_by_a_leak(tree, output, log)
        finally:
            target.write_text(original)
            forget_bytecode(target)
        result.seconds = round(time.monotonic() - started, 1)
        result.failed = re.findall(r"^(?:FAILED|ERROR) (\S+)", output, re.MULTILINE)
        if self.stopping.is_set():
            result.status, result.detail = ERROR, "interrupted"
        elif code is None:
            result.status = CAUGHT
            result.detail = f"the tests timed out after {self.args.timeout:g} s"
        elif leaked:
            result.status = EQUIVALENT if bug.equivalent else SURVIVED
            result.detail = (
                f"only a leak warning failed ({', '.join(leaked)}), and it passes alone with "
                "the bug planted: another test's leak, not the bug"
            )
        # 1: a test failed; 2 when xdist stops at the first failure (-x) as "interrupted".
        elif code in (1, 2) and re.search(r"^=*.*\b\d+ (failed|errors?)\b", output, re.M):
            result.status = CAUGHT
        elif code == 0:
            result.status = EQUIVALENT if bug.equivalent else SURVIVED
        else:
            tail = [line for line in output.strip().splitlines() if line.strip()][-3:]
            result.detail = f"pytest exited {code}: " + " | ".join(tail)
        return result

    def stop(self) -> None:
        self.stopping.set()
        with self.lock:
            for process in list(self.running):
                end_group(process)


def end_group(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def select(bugs: list[Bug], ids: list[str], areas: list[str]) -> list[Bug]:
    known = {bug.id for bug in bugs}
    for wanted in ids:
        if wanted not in known:
            raise ListError(f"no bug with the id {wanted!r} in the list (see --list-ids)")
    chosen = [b for b in bugs if (not ids or b.id in ids) and (not areas or b.area in areas)]
    if not chosen:
        raise ListError("no bug matches the given ids and areas")
    return chosen


def run_all(bugs: list[Bug], args: argparse.Namespace) -> tuple[list[Result], list[str]]:
    """Each bug's result, in the list's order, and the tests the baseline found flaky."""
    isolate = namespace_command(not args.no_isolate and not args.check)
    if not isolate and not args.no_isolate and not args.check:
        print(
            "plant-bugs: no PID namespace (unshare failed): a bug in runner/ may kill "
            "processes of yours that it did not start",
            file=sys.stderr,
        )
    planter = Planter(args, isolate)
    results: dict[str, Result] = {}
    # Not under /tmp: each run mounts a private /tmp over it.
    with tempfile.TemporaryDirectory(
        prefix="plant-bugs-", dir=scratch_parent(bool(isolate))
    ) as scratch:
        # Open to every user: the tests that run council as an ordinary user (`nobody`) must
        # read the copy's code (tests/ordinary_user.py).
        os.chmod(scratch, 0o755)
        jobs = max(1, min(args.jobs, len(bugs)))
        trees: queue.Queue[Path] = queue.Queue()
        for job in range(jobs):
            trees.put(copy_tree(args.root, Path(scratch) / str(job)))

        if not args.no_baseline and not args.check:
            failed = planter.baseline(trees.queue[0], bugs)
            if failed:
                raise ListError(
                    "the tests fail with no bug planted, so a caught bug would mean nothing: "
                    + ", ".join(failed)
                    + "; fix them first, or pass --no-baseline"
                )
            for node in planter.flaky:
                print(
                    f"plant-bugs: flaky (failed with the others, passed alone): {node}; left "
                    "out of every bug's run",
                    file=sys.stderr,
                )

        def one(bug: Bug) -> Result:
            if planter.stopping.is_set():
                return Result(bug.id, bug.area, ERROR, bug.notice, detail="interrupted")
            tree = trees.get()
            try:
                result = planter.plant(bug, tree)
            finally:
                trees.put(tree)
            if not args.check:
                print(f"{result.status:>13}  {bug.id}  ({result.seconds:g} s)", file=sys.stderr)
            return result

        pool = ThreadPoolExecutor(max_workers=jobs)
        try:
            for result in pool.map(one, bugs):
                results[result.id] = result
        except KeyboardInterrupt:
            planter.stop()
            pool.shutdown(wait=True, cancel_futures=True)
            raise
        pool.shutdown(wait=True)
    return [results[bug.id] for bug in bugs], planter.flaky


def summary(results: list[Result]) -> tuple[list[tuple[str, Counter[str]]], Counter[str]]:
    per_area: dict[str, Counter[str]] = {}
    total: Counter[str] = Counter()
    for result in results:
        per_area.setdefault(result.area, Counter())[result.status] += 1
        total[result.status] += 1
    return sorted(per_area.items()), total


def rate(count: Counter[str]) -> float | None:
    counted = count[CAUGHT] + count[SURVIVED]
    return 100 * count[CAUGHT] / counted if counted else None


def print_table(results: list[Result]) -> None:
    areas, total = summary(results)
    width = max([len(area) for area, _ in areas] + [5])
    print(f"{'area':<{width}}  bugs  caught  survived  equivalent  stale/error  caught %")
    for area, count in [*areas, ("total", total)]:
        shown = rate(count)
        print(
            f"{area:<{width}}  {sum(count.values()):4}  {count[CAUGHT]:6}  {count[SURVIVED]:8}  "
            f"{count[EQUIVALENT]:10}  {count[NOT_APPLIED] + count[ERROR]:11}  "
            + (f"{shown:7.1f} %" if shown is not None else "      -")
        )
    for result in results:
        if result.status in (SURVIVED, NOT_APPLIED, ERROR):
            print(f"{result.status}: {result.id}: {result.detail or result.notice}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("ids", nargs="*", help="run only the bugs with these ids")
    parser.add_argument("--list", type=Path, default=DEFAULT_LIST, help="the bug list (YAML)")
    parser.add_argument("--area", action="append", default=[], help="only this area; repeatable")
    parser.add_argument("--jobs", type=int, default=1, help="bugs at once, each in its own copy")
    parser.add_argument("-n", type=int, default=0, help="pytest-xdist workers per bug (0: none)")
    parser.add_argument("--timeout", type=float, default=900, help="seconds per bug; over: caught")
    parser.add_argument("--min", type=float, default=90, help="lowest catch rate that passes (%%)")
    parser.add_argument("--marker", default="not realcli", help="pytest -m expression ('' for all)")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--check", action="store_true", help="only check that every bug applies")
    parser.add_argument(
        "--list-ids", action="store_true", help="print the ids and areas, run nothing"
    )
    parser.add_argument(
        "--no-baseline",
        action="store_true",
        help="skip the first run of every listed test with no bug planted",
    )
    parser.add_argument("--logs", type=Path, help="keep each bug's pytest output in this folder")
    parser.add_argument("--no-isolate", action="store_true", help="no PID namespace per run")
    parser.add_argument("--root", type=Path, default=ROOT, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.jobs < 1 or args.n < 0 or args.timeout <= 0:
        parser.error("--jobs must be at least 1, -n at least 0, --timeout above 0")
    try:
        bugs = select(load_bugs(args.list), args.ids, args.area)
    except ListError as error:
        print(f"plant-bugs: {error}", file=sys.stderr)
        return 2
    if args.list_ids:
        for bug in bugs:
            print(f"{bug.id}\t{bug.area}\t{bug.notice}")
        return 0
    if args.logs:
        args.logs = args.logs.absolute()
        args.logs.mkdir(parents=True, exist_ok=True)
    try:
        results, flaky = run_all(bugs, args)
    except ListError as error:
        print(f"plant-bugs: {error}", file=sys.stderr)
        return 2
    stale = [r for r in results if r.status in (NOT_APPLIED, ERROR)]
    if args.json:
        _, total = summary(results)
        shown = rate(total)
        print(
            json.dumps(
                {
                    "catch_rate": None if shown is None else round(shown, 1),
                    "counts": dict(sorted(total.items())),
                    "flaky": flaky,
                    "bugs": [asdict(r) for r in results],
                },
                indent=2,
            )
        )
    elif args.check:
        for result in stale:
            print(f"{result.status}: {result.id}: {result.detail}")
        print(f"{len(results) - len(stale)} of {len(results)} bugs apply")
    else:
        print_table(results)
    if stale:
        return 2
    shown = rate(summary(results)[1])
    if not args.check and shown is not None and shown < args.min:
        if not args.json:
            print(f"plant-bugs: {shown:.1f} % caught, under the minimum of {args.min:g} %")
        return 1
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("plant-bugs: interrupted; the working tree was never changed", file=sys.stderr)
        sys.exit(130)
