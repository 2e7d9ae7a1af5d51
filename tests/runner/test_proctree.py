"""Finding and killing everything one CLI call started (runner/proctree.py), with real processes:
a CLI, its children, grandchildren that left its session and were orphaned, processes that
handle or ignore SIGTERM, and the processes beside them that must live on (council's own,
another call's, another council's, ones older than the call)."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import anyio
import psutil
import pytest

from council.runner import proctree, reaper
from council.runner.environment import CALL_MARKER, new_call_id

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(sys.platform != "linux", reason="sessions, /proc and a subreaper: Linux"),
]

# One process of a test tree: says it is ready (its pid in DIR/NAME.ready), then sleeps. On
# SIGTERM it dies ("die"), carries on ("ignore"), or cleans up for a moment first ("cleanup":
# NAME.term at once, NAME.clean 0.3 s later, then exits).
LEAF = """\
import os, signal, sys, time
out, name, on_term = sys.argv[1:4]
def note(what):
    with open(os.path.join(out, name + "." + what + ".tmp"), "w") as handle:
        handle.write(str(os.getpid()))
    os.rename(os.path.join(out, name + "." + what + ".tmp"), os.path.join(out, name + "." + what))
if on_term == "ignore":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
elif on_term == "cleanup":
    def cleanup(*_):
        note("term")
        time.sleep(0.3)
        note("clean")
        os._exit(0)
    signal.signal(signal.SIGTERM, cleanup)
note("ready")
while True:
    time.sleep(60)
"""

# The CLI: forks the leaves of its plan (each may leave the session or only the process group,
# take another environment, or hang under an intermediate parent), waits until each is ready,
# then becomes the leaf "root" or, with "exit", ends and leaves them orphaned.
LAUNCH = """\
import json, os, sys, time
out, leaf_py, plan = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
def become(name, on_term, env):
    os.execve(sys.executable, [sys.executable, "-I", "-S", leaf_py, out, name, on_term], env)
for leaf in plan.get("leaves", []):
    if os.fork() == 0:
        try:
            if leaf.get("under_parent") and os.fork() != 0:
                become(leaf["name"] + "-parent", "die", dict(os.environ))
            if leaf.get("setsid"):
                os.setsid()
            elif leaf.get("setpgrp"):
                os.setpgid(0, 0)
            env = dict(os.environ) if leaf.get("env") is None else leaf["env"]
            become(leaf["name"], leaf.get("on_term", "die"), env)
        finally:
            os._exit(1)
for leaf in plan.get("leaves", []):
    while not os.path.exists(os.path.join(out, leaf["name"] + ".ready")):
        time.sleep(0.01)
if plan.get("exit"):
    os._exit(0)
become("root", plan.get("on_term", "die"), dict(os.environ))
"""


def wait_until(condition: Callable[[], bool], timeout_s: float = 20.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.02)


def alive(proc: psutil.Process) -> bool:
    try:
        return proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


class Lab:
    """Starts test trees and kills whatever of them is left when the test ends (orphans
    re-parented to init included, which the suite's orphan check cannot see)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.leaf_py = path / "leaf.py"
        self.leaf_py.write_text(LEAF)
        self.launch_py = path / "launch.py"
        self.launch_py.write_text(LAUNCH)
        self.popens: list[subprocess.Popen[bytes]] = []
        self.procs: list[psutil.Process] = []
        self.count = 0

    def start(
        self,
        *,
        marker: str | None,
        leaves: list[dict[str, object]] | None = None,
        on_term: str = "die",
        exit: bool = False,
        new_session: bool = True,
    ) -> Tree:
        self.count += 1
        out = self.path / f"tree{self.count}"
        out.mkdir()
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
        if marker is not None:
            env[CALL_MARKER] = marker
        leaves = leaves or []
        plan = {"leaves": leaves, "on_term": on_term, "exit": exit}
        argv = [sys.executable, "-I", "-S", str(self.launch_py), str(out), str(self.leaf_py)]
        popen = subprocess.Popen(
            [*argv, json.dumps(plan)],
            env=env,
            start_new_session=new_session,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
        )
        self.popens.append(popen)
        tree = Tree(self, out, popen)
        names = [str(leaf["name"]) for leaf in leaves]
        names += [f"{leaf['name']}-parent" for leaf in leaves if leaf.get("under_parent")]
        for name in names:
            tree.proc(name)
        if exit:
            popen.wait(timeout=20)
        else:
            tree.proc("root")
        return tree

    def leaf(self, *, marker: str | None, on_term: str = "die") -> psutil.Process:
        """A lone process, a child of this test process in its session (as git or a probe)."""
        tree = self.start(marker=marker, on_term=on_term, new_session=False)
        return tree.proc("root")

    def exited(self, *, marker: str) -> subprocess.Popen[bytes]:
        """A CLI that has exited and was not waited for yet: a zombie."""
        popen = subprocess.Popen([sys.executable, "-I", "-S", "-c", ""], env={CALL_MARKER: marker})
        self.popens.append(popen)
        wait_until(lambda: psutil.Process(popen.pid).status() == psutil.STATUS_ZOMBIE)
        return popen

    def cleanup(self) -> None:
        for proc in self.procs:
            if alive(proc):
                with contextlib.suppress(psutil.Error):
                    proc.kill()
            with contextlib.suppress(psutil.Error, ChildProcessError):
                if proc.ppid() == os.getpid():  # adopted: reaped here, not left a zombie
                    os.waitpid(proc.pid, 0)
            wait_until(lambda proc=proc: not alive(proc))
        for popen in self.popens:
            if popen.poll() is None:
                popen.kill()
            popen.wait(timeout=20)


class Tree:
    def __init__(self, lab: Lab, out: Path, popen: subprocess.Popen[bytes]) -> None:
        self.lab = lab
        self.out = out
        self.popen = popen
        self.pid = popen.pid

    def proc(self, name: str) -> psutil.Process:
        ready = self.out / f"{name}.ready"
        wait_until(ready.exists)
        proc = psutil.Process(int(ready.read_text()))
        if proc not in self.lab.procs:
            self.lab.procs.append(proc)
        return proc

    def noted(self, name: str, what: str) -> bool:
        return (self.out / f"{name}.{what}").exists()


@pytest.fixture
def lab(tmp_path: Path) -> Iterator[Lab]:
    made = Lab(tmp_path)
    try:
        yield made
    finally:
        made.cleanup()


@pytest.fixture(autouse=True)
def full_grace() -> Iterator[None]:
    proctree.unhurried()
    yield
    proctree.unhurried()


def other_councils_marker() -> str:
    """The marker of a call of another council on the same machine (a pid that is not ours)."""
    return f"{os.getpid() + 100000}-elsewhere"


def dead_pid_here() -> int:
    """The pid of a council that has died (started and reaped here)."""
    popen = subprocess.Popen([sys.executable, "-I", "-S", "-c", ""])
    popen.wait(timeout=20)
    assert not psutil.pid_exists(popen.pid)
    return popen.pid


# --- ProcessTree.kill: what belongs to a call ---------------------------------------------


async def test_a_call_is_killed_whole_the_cli_its_child_and_a_grandchild_that_left_the_session(
    lab,
):
    call_id = new_call_id()
    started = time.time()
    # The grandchild left the session and dropped the marker, but its parent lives: only a
    # walk down the tree from the CLI finds it.
    tree = lab.start(
        marker=call_id,
        leaves=[{"name": "deep", "under_parent": True, "setsid": True, "env": {}}],
    )
    procs = [tree.proc("root"), tree.proc("deep-parent"), tree.proc("deep")]

    assert await proctree.ProcessTree(tree.pid, call_id, started).kill(grace_s=5)

    assert not any(alive(p) for p in procs)


async def test_an_orphaned_grandchild_is_found_by_the_calls_marker_and_strangers_are_left_alone(
    lab,
):
    call_id = new_call_id()
    started = time.time()
    tree = lab.start(
        marker=call_id,
        exit=True,  # the CLI has answered and left its escaped grandchildren to init
        leaves=[
            {"name": "escaped", "setsid": True},
            {"name": "other", "setsid": True, "env": {CALL_MARKER: other_councils_marker()}},
            {"name": "unmarked", "setsid": True, "env": {}},
        ],
    )
    escaped = tree.proc("escaped")
    strangers = [tree.proc("other"), tree.proc("unmarked")]

    assert await proctree.ProcessTree(tree.pid, call_id, started).kill(grace_s=5)

    assert not alive(escaped)
    assert all(alive(p) for p in strangers)


async def test_a_process_that_ends_while_the_scan_reads_it_does_not_hide_the_others(
    lab, monkeypatch
):
    call_id = new_call_id()
    started = time.time()
    ended = lab.leaf(marker=call_id)
    ended.kill()
    lab.popens[-1].wait(timeout=20)
    tree = lab.start(marker=call_id, exit=True, leaves=[{"name": "escaped", "setsid": True}])
    escaped = tree.proc("escaped")
    real_iter = psutil.process_iter

    def listing_that_went_stale(*args, **kwargs):
        yield ended  # listed, then gone before it is read
        yield from real_iter(*args, **kwargs)

    monkeypatch.setattr(psutil, "process_iter", listing_that_went_stale)

    assert await proctree.ProcessTree(tree.pid, call_id, started).kill(grace_s=5)

    assert not alive(escaped)


async def test_a_process_council_started_beside_the_call_is_not_the_calls(lab):
    call_id = new_call_id()
    started = time.time()
    with reaper.subreaper(), reaper.window(call_id, started):
        tree = lab.start(marker=call_id)
        root = tree.proc("root")
        beside = lab.leaf(marker=None)  # council's child, in council's session: git, a probe

        assert await proctree.ProcessTree(tree.pid, call_id, started).kill(grace_s=5)

    assert not alive(root)
    assert alive(beside)


async def test_escaped_processes_re_parented_to_council_go_to_the_call_they_name(lab):
    """Two calls overlap, so an adopted process without a marker is nobody's by its age: its
    session or its marker says whose it is."""
    earlier = new_call_id()
    call_id = new_call_id()
    with reaper.subreaper() as enabled:
        assert enabled
        with reaper.window(earlier, time.time()), reaper.window(call_id, time.time()):
            started = time.time()
            tree = lab.start(
                marker=call_id,
                exit=True,  # the CLI ends: its escaped descendants are re-parented to council
                leaves=[
                    # In the CLI's session (out of its process group), the marker cleared.
                    {"name": "in-session", "setpgrp": True, "env": {}},
                    # Out of the session, the marker kept.
                    {"name": "marked", "setsid": True},
                    # The earlier call's.
                    {"name": "earlier", "setsid": True, "env": {CALL_MARKER: earlier}},
                ],
            )
            ours = [tree.proc("in-session"), tree.proc("marked")]
            theirs = tree.proc("earlier")
            assert all(p.ppid() == os.getpid() for p in [*ours, theirs])

            assert await proctree.ProcessTree(tree.pid, call_id, started).kill(grace_s=5)

            assert not any(alive(p) for p in ours)
            assert alive(theirs)


# --- ProcessTree.kill: when the call began --------------------------------------------------


async def test_a_process_with_the_calls_marker_older_than_the_call_is_not_killed(lab):
    call_id = new_call_id()
    tree = lab.start(marker=call_id, exit=True, leaves=[{"name": "older", "setsid": True}])
    older = tree.proc("older")
    made = time.monotonic()
    wait_until(lambda: time.monotonic() > made + 0.7)
    later = lab.start(marker=call_id, exit=True, leaves=[{"name": "later", "setsid": True}])
    escaped = later.proc("later")
    # The call began 1.5 s after the older one was made: past the second of clock slack, which
    # still covers the later one.
    started = older.create_time() + 1.5
    assert escaped.create_time() >= started - 1.0
    cli = lab.start(marker=call_id)
    root = cli.proc("root")

    assert await proctree.ProcessTree(cli.pid, call_id, started).kill(grace_s=5)

    assert not alive(root)
    assert not alive(escaped)
    assert alive(older)


async def test_a_process_made_as_the_calls_window_opens_is_the_calls(lab):
    call_id = new_call_id()
    tree = lab.start(marker=call_id, exit=True, leaves=[{"name": "escaped", "setsid": True}])
    escaped = tree.proc("escaped")
    # The window opens a second (the clock slack) before the call began: right at its making.
    started = escaped.create_time() + 1.0

    assert await proctree.ProcessTree(tree.pid, call_id, started).kill(grace_s=5)

    assert not alive(escaped)


async def test_a_later_attempt_kills_what_an_earlier_attempt_of_the_same_call_left(lab):
    call_id = new_call_id()
    started = time.time()  # the call's start, before its first attempt
    first = lab.start(marker=call_id, exit=True, leaves=[{"name": "escaped", "setsid": True}])
    escaped = first.proc("escaped")
    # The next attempt starts well over a second later.
    wait_until(lambda: time.time() > escaped.create_time() + 1.2)
    second = lab.start(marker=call_id)

    assert await proctree.ProcessTree(second.pid, call_id, started).kill(grace_s=5)

    assert not alive(escaped)


async def test_a_tree_made_without_a_start_time_takes_what_starts_from_then_on(lab):
    call_id = new_call_id()
    tree = lab.start(marker=call_id)
    root = tree.proc("root")
    process_tree = proctree.ProcessTree(tree.pid, call_id)
    later = lab.start(marker=call_id, exit=True, leaves=[{"name": "escaped", "setsid": True}])
    escaped = later.proc("escaped")

    assert await process_tree.kill(grace_s=5)

    assert not alive(escaped)
    assert not alive(root)


# --- ProcessTree.kill: signals, grace, hurry, the answer -----------------------------------


async def test_killing_a_call_whose_cli_has_exited_says_nothing_ran(lab):
    call_id = new_call_id()
    exited = lab.exited(marker=call_id)

    assert not await proctree.ProcessTree(exited.pid, call_id, time.time()).kill(grace_s=1)

    exited.wait(timeout=20)
    assert not await proctree.ProcessTree(exited.pid, call_id, time.time()).kill(grace_s=1)


async def test_a_cli_given_sigterm_may_clean_up_within_the_grace_and_the_kill_ends_with_it(lab):
    call_id = new_call_id()
    started = time.time()
    tree = lab.start(marker=call_id, on_term="cleanup")
    root = tree.proc("root")

    with anyio.fail_after(30):  # not the 600 s grace: the kill ends once the tree is gone
        assert await proctree.ProcessTree(tree.pid, call_id, started).kill(grace_s=600)

    assert tree.noted("root", "clean")
    assert not alive(root)


async def test_a_cli_that_ignores_sigterm_is_sigkilled_after_the_grace(lab):
    call_id = new_call_id()
    started = time.time()
    tree = lab.start(marker=call_id, on_term="ignore")
    root = tree.proc("root")

    assert await proctree.ProcessTree(tree.pid, call_id, started).kill(grace_s=0.3)

    assert not alive(root)


async def test_a_hurried_kill_sends_sigkill_at_once_without_a_grace(lab):
    call_id = new_call_id()
    started = time.time()
    tree = lab.start(marker=call_id, on_term="cleanup")
    root = tree.proc("root")
    proctree.hurry()

    with anyio.fail_after(30):
        assert await proctree.ProcessTree(tree.pid, call_id, started).kill(grace_s=600)

    assert not tree.noted("root", "term")
    assert not alive(root)


async def test_a_hurry_during_the_grace_cuts_it_short(lab):
    call_id = new_call_id()
    started = time.time()
    tree = lab.start(marker=call_id, on_term="ignore")
    root = tree.proc("root")
    done = anyio.Event()

    async def kill() -> None:
        assert await proctree.ProcessTree(tree.pid, call_id, started).kill(grace_s=600)
        done.set()

    with anyio.fail_after(30):
        async with anyio.create_task_group() as tg:
            tg.start_soon(kill)
            await anyio.sleep(0.3)  # in the grace period by now (or not: the hurry holds)
            assert not done.is_set()
            proctree.hurry()  # the second Ctrl-C

    assert not alive(root)


# --- kill_adopted: the end of a run -----------------------------------------------------------


async def test_at_the_end_of_a_run_an_escaped_process_is_killed_and_councils_own_are_not(lab):
    since = time.time()
    with reaper.subreaper() as enabled:
        assert enabled
        # Escaped every call: out of the session, no marker, re-parented to council.
        tree = lab.start(
            marker=None, exit=True, leaves=[{"name": "escaped", "setsid": True, "env": {}}]
        )
        tree2 = lab.start(
            marker=None,
            exit=True,
            leaves=[{"name": "cleaning", "setsid": True, "env": {}, "on_term": "cleanup"}],
        )
        escaped = [tree.proc("escaped"), tree2.proc("cleaning")]
        assert all(p.ppid() == os.getpid() for p in escaped)
        beside = lab.leaf(marker=None)  # council's own child in its session

        with anyio.fail_after(30):
            assert await proctree.kill_adopted(since, grace_s=600) == 2

        assert not any(alive(p) for p in escaped)
        assert tree2.noted("cleaning", "clean")  # SIGTERM first, and time to clean up
        assert alive(beside)
        assert not any(psutil.pid_exists(p.pid) for p in escaped)  # reaped, not zombies


async def test_at_the_end_of_a_run_an_escaped_process_that_ignores_sigterm_is_sigkilled(lab):
    since = time.time()
    with reaper.subreaper():
        tree = lab.start(
            marker=None,
            exit=True,
            leaves=[{"name": "stubborn", "setsid": True, "env": {}, "on_term": "ignore"}],
        )
        stubborn = tree.proc("stubborn")

        with anyio.fail_after(30):
            assert await proctree.kill_adopted(since, grace_s=0.3) == 1

        assert not alive(stubborn)


async def test_a_hurried_end_of_a_run_sigkills_escaped_processes_at_once(lab):
    since = time.time()
    with reaper.subreaper():
        tree = lab.start(
            marker=None,
            exit=True,
            leaves=[{"name": "escaped", "setsid": True, "env": {}, "on_term": "cleanup"}],
        )
        escaped = tree.proc("escaped")
        proctree.hurry()

        with anyio.fail_after(30):
            assert await proctree.kill_adopted(since, grace_s=600) == 1

        assert not tree.noted("escaped", "term")
        assert not psutil.pid_exists(escaped.pid)  # dead and reaped


async def test_the_end_of_a_run_takes_what_escaped_in_its_second_of_slack_not_before(lab):
    with reaper.subreaper():
        tree = lab.start(
            marker=None, exit=True, leaves=[{"name": "first", "setsid": True, "env": {}}]
        )
        first = tree.proc("first")
        # A run that began 1.5 s after it was made does not take it.
        assert await proctree.kill_adopted(first.create_time() + 1.5) == 0
        assert alive(first)
        # One that began 1 s after (the clock slack) does.
        assert await proctree.kill_adopted(first.create_time() + 1.0) == 1
        assert not alive(first)


async def test_without_a_subreaper_nothing_is_adopted_at_the_end_of_a_run(lab):
    since = time.time()
    assert not reaper.enabled()
    # A child of council that left its session: adopted, were council a subreaper.
    tree = lab.start(marker=None)
    root = tree.proc("root")

    assert await proctree.kill_adopted(since) == 0

    assert alive(root)


# --- kill_orphans_of: `council resume` after a SIGKILL ----------------------------------------


async def test_resume_kills_what_a_dead_council_left_and_nothing_of_another_council(lab):
    council = dead_pid_here()
    orphans = lab.start(
        marker=f"{council}-call1", exit=True, leaves=[{"name": "orphan", "setsid": True}]
    )
    orphan = orphans.proc("orphan")
    stubborn_tree = lab.start(
        marker=f"{council}-call2",
        exit=True,
        leaves=[{"name": "stubborn", "setsid": True, "on_term": "ignore"}],
    )
    stubborn = stubborn_tree.proc("stubborn")
    # Another council's: its pid is a prefix of the dead one's marker, not the same pid.
    other = lab.start(
        marker=f"{council}0-call1", exit=True, leaves=[{"name": "other", "setsid": True}]
    )
    other_proc = other.proc("other")

    with anyio.fail_after(30):
        assert await proctree.kill_orphans_of(council, grace_s=0.3) == 2

    assert not alive(orphan)
    assert not alive(stubborn)
    assert alive(other_proc)


async def test_resume_waits_for_an_orphan_cleaning_up_and_ends_with_it(lab):
    council = dead_pid_here()
    orphans = lab.start(
        marker=f"{council}-call1",
        exit=True,
        leaves=[{"name": "cleaning", "setsid": True, "on_term": "cleanup"}],
    )
    cleaning = orphans.proc("cleaning")

    with anyio.fail_after(30):
        assert await proctree.kill_orphans_of(council, grace_s=600) == 1

    assert orphans.noted("cleaning", "clean")
    assert not alive(cleaning)


async def test_resume_leaves_the_processes_of_a_council_still_running_alone(lab):
    council = lab.leaf(marker=None)  # still running
    tree = lab.start(
        marker=f"{council.pid}-call1", exit=True, leaves=[{"name": "its", "setsid": True}]
    )
    its = tree.proc("its")

    assert await proctree.kill_orphans_of(council.pid) == 0

    assert alive(its)
    assert alive(council)


async def test_resume_under_the_dead_councils_own_pid_still_kills_its_orphans(lab):
    """The run was recorded under the pid this council has now (a reused pid)."""
    tree = lab.start(
        marker=f"{os.getpid()}-call1", exit=True, leaves=[{"name": "orphan", "setsid": True}]
    )
    orphan = tree.proc("orphan")

    assert await proctree.kill_orphans_of(os.getpid()) == 1

    assert not alive(orphan)


async def test_resume_is_not_stopped_by_a_process_that_ends_while_it_is_read(lab, monkeypatch):
    council = dead_pid_here()
    ended = lab.leaf(marker=f"{council}-call1")
    ended.kill()
    lab.popens[-1].wait(timeout=20)
    tree = lab.start(
        marker=f"{council}-call1", exit=True, leaves=[{"name": "orphan", "setsid": True}]
    )
    orphan = tree.proc("orphan")
    real_iter = psutil.process_iter

    def listing_that_went_stale(*args, **kwargs):
        yield ended
        yield from real_iter(*args, **kwargs)

    monkeypatch.setattr(psutil, "process_iter", listing_that_went_stale)

    assert await proctree.kill_orphans_of(council) == 1

    assert not alive(orphan)


# --- processes council may not signal ------------------------------------------------------

# Council as another user than one process of the call's tree (a setuid helper, say): every
# signal to it fails. Loads what it needs as root (the interpreter may live where the other
# user cannot read), then drops to nobody and kills the tree, whose process exits by itself
# (its stdin closed) a second later. Prints what the kill returned.
AS_ANOTHER_USER = """\
import os, sys, time
import anyio, anyio._backends._asyncio, anyio.to_thread, psutil
from council.runner import proctree
from council.runner.environment import new_call_id

target, release_fd = int(sys.argv[1]), int(sys.argv[2])
os.setgroups([])
os.setgid(65534)
os.setuid(65534)

async def main():
    tree = proctree.ProcessTree(target, new_call_id(), time.time())
    async def release():
        await anyio.sleep(1.0)
        os.close(release_fd)
    async with anyio.create_task_group() as tg:
        tg.start_soon(release)
        killed = await tree.kill(grace_s=30)
    print(killed)

anyio.run(main)
"""


@pytest.mark.skipif(os.geteuid() != 0, reason="making a process of another user needs root")
def test_a_process_council_may_not_signal_is_waited_for_without_an_error():
    read_end, write_end = os.pipe()
    target = subprocess.Popen(
        [sys.executable, "-I", "-S", "-c", "import sys; sys.stdin.buffer.read()"],
        stdin=read_end,
        start_new_session=True,
    )
    os.close(read_end)
    try:
        council = subprocess.Popen(
            [sys.executable, "-c", AS_ANOTHER_USER, str(target.pid), str(write_end)],
            pass_fds=[write_end],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
    finally:
        os.close(write_end)  # the council below holds the only copy
    try:
        out, err = council.communicate(timeout=40)
    finally:
        target.wait(timeout=20)
    assert council.returncode == 0, err
    assert out.split() == ["True"]


# Council as root without CAP_KILL, so that it may read every process but not signal another
# user's: the leftovers of a dead council and an escaped process re-parented to this one, both
# one process (`cat`, another user's), which outlives both sweeps. Prints how many each found.
WITHOUT_CAP_KILL = """\
import ctypes, os, sys, time
import anyio, anyio._backends._asyncio, anyio.to_thread, psutil
from council.runner import proctree, reaper
from council.runner.environment import CALL_MARKER

dead_council, cat = int(sys.argv[1]), sys.argv[2]

def drop_cap_kill():
    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]
    class Data(ctypes.Structure):
        _fields_ = [(name, ctypes.c_uint32) for name in ("effective", "permitted", "inheritable")]
    libc = ctypes.CDLL(None, use_errno=True)
    header, data = Header(0x20080522, 0), (Data * 2)()
    assert libc.capget(ctypes.byref(header), data) == 0
    data[0].effective &= ~(1 << 5)  # CAP_KILL
    data[0].permitted &= ~(1 << 5)
    assert libc.capset(ctypes.byref(header), data) == 0

async def main(since, escaped_pid):
    async def orphans():
        found["orphans"] = await proctree.kill_orphans_of(dead_council, grace_s=0.1)
    async def adopted():
        found["adopted"] = await proctree.kill_adopted(since, grace_s=0.1)
    found = {}
    async with anyio.create_task_group() as tg:
        tg.start_soon(orphans)
        tg.start_soon(adopted)
    running = psutil.Process(escaped_pid).status() != psutil.STATUS_ZOMBIE
    print(found["orphans"], found["adopted"], running)

with reaper.subreaper():
    since = time.time()
    read_end, write_end = os.pipe()
    middle = os.fork()
    if middle == 0:  # a CLI: its child leaves the session, becomes another user, and is orphaned
        if os.fork() == 0:
            os.setsid()
            os.dup2(read_end, 0)
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
            os.execve(cat, [cat], {CALL_MARKER: f"{dead_council}-call1"})
        os._exit(0)
    os.close(read_end)
    os.waitpid(middle, 0)
    (escaped,) = psutil.Process().children()  # re-parented to this process
    while CALL_MARKER not in escaped.environ():  # until it runs cat
        time.sleep(0.01)
    drop_cap_kill()
    anyio.run(main, since, escaped.pid)
    os.close(write_end)  # now cat ends
    os.waitpid(escaped.pid, 0)
"""


@pytest.mark.skipif(os.geteuid() != 0, reason="making a process of another user needs root")
def test_sweeps_that_may_not_signal_a_leftover_wait_for_it_and_go_on(tmp_path):
    council = dead_pid_here()
    cat = shutil.which("cat")
    assert cat is not None
    done = subprocess.run(
        [sys.executable, "-c", WITHOUT_CAP_KILL, str(council), cat],
        capture_output=True,
        text=True,
        timeout=40,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    # Each sweep found it, tried SIGTERM then SIGKILL, gave up waiting: it still runs.
    assert done.stdout.split() == ["1", "1", "True"]


# --- council leading a session of its own ---------------------------------------------------

# As a terminal starts it: council's session is its own, not that of pid 1. (Under the test
# runner, pid 1 may share the test process's session, as in a PID namespace.) Prints whether
# the call took the process council started beside it, and how many the run's end took.
OWN_SESSION = """\
import os, subprocess, sys, time
import anyio
from council.runner import proctree, reaper
from council.runner.environment import CALL_MARKER, new_call_id

SLEEP = [sys.executable, "-I", "-S", "-c", "import time; time.sleep(600)"]

async def main():
    with reaper.subreaper():
        since = time.time()
        call_id = new_call_id()
        beside = subprocess.Popen(SLEEP, env={})
        try:
            with reaper.window(call_id, since):
                cli = subprocess.Popen(SLEEP, env={CALL_MARKER: call_id}, start_new_session=True)
                killed = await proctree.ProcessTree(cli.pid, call_id, since).kill(5)
                cli.wait()
            adopted = await proctree.kill_adopted(since)
            print(killed, beside.poll() is None, adopted, beside.poll() is None)
        finally:
            beside.kill()
            beside.wait()

anyio.run(main)
"""


def test_processes_in_councils_own_session_are_its_own_when_it_leads_the_session(tmp_path):
    done = subprocess.run(
        [sys.executable, "-c", OWN_SESSION],
        start_new_session=True,
        capture_output=True,
        text=True,
        timeout=40,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    # The call was killed; the process beside it lived through it and through the run's end.
    assert done.stdout.split() == ["True", "True", "0", "True"]
