"""scripts/plant-bugs.py on a tiny tree of its own: what it reports for a caught, a surviving,
an equivalent and a stale bug, its exit codes, and that the tree it copies is never changed
(also when interrupted)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest
import yaml

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "plant-bugs.py"
# Each case starts pytest a few times; a bound on a hang on a busy machine, not a speed check.
pytestmark = pytest.mark.timeout(300)

CALC = """def add(a, b):
    return a + b


def label(n):
    if n == 1:
        return "one item"
    return f"{n} items"
"""
TESTS = """import os
import time
from pathlib import Path

from calc import add, label


def test_add():
    assert add(2, 3) == 5


def test_label_many():
    assert label(3) == "3 items"


def test_waits_when_asked():
    mark = os.environ.get("PLANT_BUGS_MARK")
    if mark and add(1, 1) == 11:  # only under the bug that makes add concatenate
        Path(mark).write_text(str(os.getpid()))
        time.sleep(600)
"""
CAUGHT = {
    "id": "calc-add-subtracts",
    "area": "calc",
    "file": "src/calc.py",
    "find": "    return a + b\n",
    "replace": "    return a - b\n",
    "notice": "sums are wrong",
    "tests": ["tests/test_calc.py"],
}
# add(1, 1) is 11: the fixture's waiting test then sleeps until it is killed.
HANGS = {**CAUGHT, "id": "calc-add-concatenates", "replace": "    return int(str(a) + str(b))\n"}
SURVIVES = {
    "id": "calc-one-item",
    "area": "labels",
    "file": "src/calc.py",
    "find": '        return "one item"\n',
    "replace": '        return "1 items"\n',
    "notice": "a single item reads 1 items",
    "tests": ["tests/test_calc.py"],
}


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "checkout"
    (root / "src").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "src" / "calc.py").write_text(CALC)
    (root / "tests" / "test_calc.py").write_text(TESTS)
    (root / "pytest.ini").write_text("[pytest]\naddopts = -p no:cacheprovider\n")
    return root


@pytest.fixture
def scratch() -> Iterator[Path]:
    """Where the script puts its copies: outside /tmp, which each isolated run replaces."""
    folder = Path(tempfile.mkdtemp(prefix="test-plant-bugs-", dir="/var/tmp"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def command(tmp_path: Path, root: Path, bugs: list[dict], *args: str) -> list[str]:
    listed = tmp_path / "bugs.yaml"
    listed.write_text(yaml.safe_dump(bugs, sort_keys=False))
    return [sys.executable, str(SCRIPT), "--root", str(root), "--list", str(listed), *args]


def plant(
    tmp_path: Path, root: Path, bugs: list[dict], *args: str, scratch: Path, **env: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command(tmp_path, root, bugs, *args),
        capture_output=True,
        text=True,
        env={**os.environ, "PLANT_BUGS_TMP": str(scratch), **env},
        timeout=280,
    )


def test_a_caught_and_a_surviving_bug_give_a_table_per_area_and_the_rate(tmp_path, tree, scratch):
    before = snapshot(tree)
    done = plant(tmp_path, tree, [CAUGHT, SURVIVES], scratch=scratch)
    assert done.returncode == 1, done.stderr  # 50 % is under the default minimum of 90 %
    lines = done.stdout.splitlines()
    assert lines[0].split() == [
        "area",
        "bugs",
        "caught",
        "survived",
        "equivalent",
        "stale/error",
        "caught",
        "%",
    ]
    assert lines[1].split() == ["calc", "1", "1", "0", "0", "0", "100.0", "%"]
    assert lines[2].split() == ["labels", "1", "0", "1", "0", "0", "0.0", "%"]
    assert lines[3].split() == ["total", "2", "1", "1", "0", "0", "50.0", "%"]
    assert "survived: calc-one-item: a single item reads 1 items" in lines
    assert lines[-1] == "plant-bugs: 50.0 % caught, under the minimum of 90 %"
    assert snapshot(tree) == before
    assert list(scratch.iterdir()) == []  # the copies are gone


def test_the_minimum_is_an_option_and_an_equivalent_is_not_counted(tmp_path, tree, scratch):
    equivalent = {**SURVIVES, "equivalent": "nobody reads the label of one item"}
    done = plant(tmp_path, tree, [CAUGHT, equivalent], "--no-baseline", scratch=scratch)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1].split() == ["total", "2", "1", "0", "1", "0", "100.0", "%"]
    assert plant(tmp_path, tree, [CAUGHT, SURVIVES], "--min", "50", scratch=scratch).returncode == 0


def test_json_names_the_tests_that_noticed(tmp_path, tree, scratch):
    done = plant(
        tmp_path,
        tree,
        [CAUGHT, SURVIVES],
        "--json",
        "--no-baseline",
        "--jobs",
        "2",
        scratch=scratch,
    )
    assert done.returncode == 1
    report = json.loads(done.stdout)
    assert report["catch_rate"] == 50.0
    assert report["counts"] == {"caught": 1, "survived": 1}
    assert report["flaky"] == []
    caught, survived = report["bugs"]  # in the list's order, whatever finished first
    assert (caught["id"], caught["status"]) == ("calc-add-subtracts", "caught")
    assert caught["failed"] == ["tests/test_calc.py::test_add"]
    assert (survived["id"], survived["status"], survived["failed"]) == (
        "calc-one-item",
        "survived",
        [],
    )


def test_a_subset_by_id_or_by_area(tmp_path, tree, scratch):
    by_id = plant(
        tmp_path,
        tree,
        [CAUGHT, SURVIVES],
        "calc-one-item",
        "--json",
        "--no-baseline",
        scratch=scratch,
    )
    assert [b["id"] for b in json.loads(by_id.stdout)["bugs"]] == ["calc-one-item"]
    by_area = plant(tmp_path, tree, [CAUGHT, SURVIVES], "--area", "calc", "--json", scratch=scratch)
    assert [b["id"] for b in json.loads(by_area.stdout)["bugs"]] == ["calc-add-subtracts"]
    unknown = plant(tmp_path, tree, [CAUGHT], "calc-nothing", scratch=scratch)
    assert unknown.returncode == 2
    assert unknown.stderr == (
        "plant-bugs: no bug with the id 'calc-nothing' in the list (see --list-ids)\n"
    )


def test_a_stale_bug_did_not_apply_and_fails_the_run(tmp_path, tree, scratch):
    stale = {**SURVIVES, "id": "calc-gone", "find": "    return a * b\n"}
    twice = {**SURVIVES, "id": "calc-twice", "find": "return"}
    done = plant(tmp_path, tree, [CAUGHT, stale, twice], "--no-baseline", scratch=scratch)
    assert done.returncode == 2
    assert (
        "did not apply: calc-gone: `find` occurs 0 times in src/calc.py, not once: a stale entry"
    ) in done.stdout.splitlines()
    assert "did not apply: calc-twice: `find` occurs 3 times" in done.stdout
    check = plant(tmp_path, tree, [CAUGHT, stale], "--check", scratch=scratch)
    assert check.returncode == 2
    assert check.stdout.splitlines()[-1] == "1 of 2 bugs apply"


def test_a_bad_list_is_one_line_naming_the_entry(tmp_path, tree, scratch):
    typo = {**CAUGHT, "notise": "x"}
    done = plant(tmp_path, tree, [typo], scratch=scratch)
    assert done.returncode == 2
    assert done.stderr.startswith("plant-bugs: ")
    assert "bug calc-add-subtracts: unknown field 'notise'" in done.stderr
    assert done.stderr.count("\n") == 1
    same = plant(tmp_path, tree, [{**CAUGHT, "replace": CAUGHT["find"]}], scratch=scratch)
    assert "'replace' is the same as 'find'" in same.stderr


def test_tests_that_fail_with_no_bug_stop_the_run_first(tmp_path, tree, scratch):
    (tree / "tests" / "test_broken.py").write_text("def test_broken():\n    assert False\n")
    bug = {**CAUGHT, "tests": ["tests/test_broken.py"]}
    done = plant(tmp_path, tree, [bug], scratch=scratch)
    assert done.returncode == 2
    assert "the tests fail with no bug planted" in done.stderr
    assert "tests/test_broken.py::test_broken" in done.stderr


def test_a_bug_that_hangs_the_tests_is_caught_by_the_timeout(tmp_path, tree, scratch):
    hang = {**HANGS, "tests": ["tests/test_calc.py::test_waits_when_asked"]}
    mark = str(tmp_path / "mark")
    args = ("--timeout", "3", "--json", "--no-baseline", "--no-isolate")
    done = plant(tmp_path, tree, [hang], *args, scratch=scratch, PLANT_BUGS_MARK=mark)
    result = json.loads(done.stdout)["bugs"][0]
    assert (result["status"], result["detail"]) == ("caught", "the tests timed out after 3 s")
    assert done.returncode == 0


def test_ctrl_c_leaves_the_tree_as_it_was_and_no_process_behind(tmp_path, tree, scratch):
    # Only the waiting test runs, so the bug's pytest is inside its sleep when interrupted.
    hang = {**HANGS, "tests": ["tests/test_calc.py::test_waits_when_asked"]}
    mark = tmp_path / "mark"
    before = snapshot(tree)
    env = {**os.environ, "PLANT_BUGS_TMP": str(scratch), "PLANT_BUGS_MARK": str(mark)}
    script = subprocess.Popen(
        command(tmp_path, tree, [hang], "--no-baseline", "--no-isolate"),
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 120  # a bound on a hang, not a speed check
        while not mark.exists() or not mark.read_text():
            assert script.poll() is None, script.communicate()
            assert time.monotonic() < deadline, "the planted bug's test never started"
            time.sleep(0.05)
        sleeper = int(mark.read_text())
        assert (tree / "src" / "calc.py").read_text() == CALC  # planted in the copy only
        script.send_signal(signal.SIGINT)
        _, err = script.communicate(timeout=120)
    finally:
        if script.poll() is None:
            script.kill()
            script.wait()
    assert script.returncode == 130
    assert err.endswith("plant-bugs: interrupted; the working tree was never changed\n")
    assert snapshot(tree) == before
    assert list(scratch.iterdir()) == []
    assert not psutil.pid_exists(sleeper) or psutil.Process(sleeper).status() == "zombie"


def test_copies_under_tmp_are_refused_when_each_run_gets_a_private_tmp(tmp_path, tree):
    done = plant(tmp_path, tree, [CAUGHT], "--no-baseline", scratch=tmp_path)
    if "no PID namespace" in done.stderr:
        pytest.skip("unshare cannot make a PID namespace here")
    assert done.returncode == 2
    assert "set PLANT_BUGS_TMP to another folder, or pass --no-isolate" in done.stderr


FLAKY = """import os
from pathlib import Path


def test_fails_every_other_run():
    counter = Path(os.environ["PLANT_BUGS_FLAKY"])
    runs = int(counter.read_text()) + 1 if counter.exists() else 1
    counter.write_text(str(runs))
    assert runs % 2 == 0
"""


def test_a_test_that_fails_then_passes_alone_is_flaky_and_left_out(tmp_path, tree, scratch):
    (tree / "tests" / "test_flaky.py").write_text(FLAKY)
    bug = {**SURVIVES, "tests": ["tests/test_calc.py", "tests/test_flaky.py"]}
    counter = str(tmp_path / "runs")
    args = ("--json", "--no-isolate")
    done = plant(tmp_path, tree, [bug], *args, scratch=scratch, PLANT_BUGS_FLAKY=counter)
    report = json.loads(done.stdout)
    flaky = "tests/test_flaky.py::test_fails_every_other_run"
    assert report["flaky"] == [flaky]
    # Its third run would have failed and passed for the bug's being caught.
    assert report["bugs"][0]["status"] == "survived"
    assert (
        f"plant-bugs: flaky (failed with the others, passed alone): {flaky}; left out of every "
        "bug's run"
    ) in done.stderr.splitlines()


SHIPPED_LISTS = sorted((SCRIPT.parent).glob("planted-bugs*.yaml"))


@pytest.mark.parametrize("bug_list", SHIPPED_LISTS, ids=lambda path: path.name)
def test_every_shipped_bug_still_applies_and_names_tests_that_exist(bug_list):
    # A refactor that moves the code a planted bug targets makes it "did not apply", which
    # is a hole in the measure nobody sees until the next on-demand run: say it here.
    root = SCRIPT.parents[1]
    check = subprocess.run(
        [sys.executable, str(SCRIPT), "--list", str(bug_list), "--check"],
        cwd=root,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    bugs = yaml.safe_load(bug_list.read_text())
    assert check.returncode == 0, check.stdout + check.stderr
    assert check.stdout.splitlines()[-1] == f"{len(bugs)} of {len(bugs)} bugs apply"
    missing = [
        (bug["id"], test)
        for bug in bugs
        for test in bug["tests"]
        if not (root / test.split("::", 1)[0]).exists()
    ]
    assert missing == []


LEAKY_NEIGHBOUR = """import os
from pathlib import Path

import pytest


def test_fails_on_a_leak_the_first_time():
    # What a neighbour's unclosed pipe does under filterwarnings = error: the warning is
    # collected in whichever test runs next.
    counter = Path(os.environ["PLANT_BUGS_LEAK"])
    runs = int(counter.read_text()) + 1 if counter.exists() else 1
    counter.write_text(str(runs))
    if runs == 1:
        raise pytest.PytestUnraisableExceptionWarning(
            "Exception ignored in: <_io.FileIO name=7 mode='rb' closefd=True>"
        )
"""


def beside_a_leak(tmp_path: Path, tree: Path, scratch: Path, bug: dict) -> tuple[dict, int]:
    """`bug` planted with the leaky test in its run: its result, and the script's exit code."""
    (tree / "tests" / "test_leaky.py").write_text(LEAKY_NEIGHBOUR)
    args = ("--json", "--no-isolate", "--no-baseline")
    done = plant(
        tmp_path, tree, [bug], *args, scratch=scratch, PLANT_BUGS_LEAK=str(tmp_path / "runs")
    )
    return json.loads(done.stdout)["bugs"][0], done.returncode


def test_a_catch_by_another_tests_leak_alone_is_not_counted(tmp_path, tree, scratch):
    bug = {**SURVIVES, "tests": ["tests/test_leaky.py", "tests/test_calc.py"]}
    result, code = beside_a_leak(tmp_path, tree, scratch, bug)
    assert result["status"] == "survived"
    assert result["detail"] == (
        "only a leak warning failed (tests/test_leaky.py::test_fails_on_a_leak_the_first_time), "
        "and it passes alone with the bug planted: another test's leak, not the bug"
    )
    assert code == 1


def test_a_real_failure_beside_a_leak_is_still_a_catch(tmp_path, tree, scratch):
    bug = {**CAUGHT, "tests": ["tests/test_calc.py", "tests/test_leaky.py"]}
    result, _ = beside_a_leak(tmp_path, tree, scratch, bug)
    assert result["status"] == "caught"
    assert result["failed"] == ["tests/test_calc.py::test_add"]
