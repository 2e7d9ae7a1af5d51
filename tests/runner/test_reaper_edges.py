"""The edges of council's child subreaper (runner/reaper.py), in-process with real processes:
the subreaper is set only while a run drives calls, and where it cannot be set council runs
without one; a process council started itself, or one left beside council in its own session,
is never taken for an escaped one; an escaped descendant is claimed by the call whose session
it is still in, and a gone one by none; an adopted child that died is reaped, and a child some
other part of the process owns is left for its owner to wait for (with its own exit status)."""

from __future__ import annotations

import contextlib
import ctypes
import os
import shutil
import signal
import subprocess
import sys
import time

import psutil
import pytest

from council.runner import reaper
from council.runner.proctree import ProcessTree

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="a child subreaper is Linux only")

_PR_GET_CHILD_SUBREAPER = 37
# Loaded once, before any test stands in a libc that cannot be loaded.
_LIBC = ctypes.CDLL(None, use_errno=True)


def is_subreaper() -> bool:
    """What the kernel says about this process (PR_GET_CHILD_SUBREAPER), not what council says."""
    flag = ctypes.c_int(-1)
    assert _LIBC.prctl(_PR_GET_CHILD_SUBREAPER, ctypes.byref(flag), 0, 0, 0) == 0
    return flag.value == 1


def wait_for(condition, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached")
        time.sleep(0.01)


def is_zombie(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def child_pids() -> set[int]:
    return {child.pid for child in psutil.Process().children()}


# A call's root, in a session of its own: it forks a descendant, says its pid and exits. The
# descendant waits until it has been re-parented (to council, the subreaper), then either
# exits at once ("exit": a zombie of council's) or execs `sleep` with an empty environment
# ("sleep": no marker left). With "setsid" it leaves the root's session first.
ESCAPER = """\
import os, sys, time
how, leave_session, sleep = sys.argv[1], sys.argv[2] == "setsid", sys.argv[3]
root = os.getpid()
pid = os.fork()
if pid == 0:
    if leave_session:
        os.setsid()
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    while os.getppid() == root:
        time.sleep(0.001)
    if how == "exit":
        os._exit(0)
    os.execve(sleep, ["sleep", "600"], {})
print(pid, flush=True)
"""


SLEEP = shutil.which("sleep") or "/bin/sleep"


def escape(how: str, *, leave_session: bool) -> tuple[int, int]:
    """Start a call's root as council starts one; return (root pid, escaped descendant pid)
    once the root is gone and reaped and the descendant is council's child."""
    with reaper.spawning():
        root = subprocess.Popen(
            [
                sys.executable,
                "-I",
                "-S",
                "-c",
                ESCAPER,
                how,
                "setsid" if leave_session else "stay",
                SLEEP,
            ],
            stdout=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            text=True,
        )
        reaper.note_spawned(root.pid)
    out, _ = root.communicate(timeout=30)
    reaper.note_reaped(root.pid)
    descendant = int(out)
    wait_for(lambda: descendant in child_pids())
    if how == "sleep":
        wait_for(lambda: psutil.Process(descendant).cmdline() == ["sleep", "600"])
    return root.pid, descendant


def end(pid: int) -> None:
    """Kill and reap an adopted child of this test's, if it is still there (a failed test)."""
    if pid not in child_pids():
        return
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)


# -- the subreaper itself ------------------------------------------------------------------


def test_council_is_a_subreaper_only_while_a_run_drives_calls_and_enabling_twice_is_harmless():
    assert not is_subreaper()
    with reaper.subreaper() as on:
        assert on
        assert reaper.enabled()
        assert is_subreaper()
        with reaper.subreaper() as again:  # a nested run: still one, and not undone by it
            assert again
        assert reaper.enabled()
        assert is_subreaper()
    assert not reaper.enabled()
    assert not is_subreaper()


def test_where_the_system_is_not_linux_there_is_no_subreaper(monkeypatch):
    monkeypatch.setattr(reaper.platform, "system", lambda: "Darwin")
    with reaper.subreaper() as on:
        assert not on
        assert not reaper.enabled()
        assert not is_subreaper()  # prctl was not even tried
    assert not reaper.enabled()


class NoPrctl:
    """A C library without prctl()."""


def no_libc(*args, **kwargs):
    raise OSError("libc.so.6: cannot open shared object file")


@pytest.mark.parametrize(
    "cdll", [no_libc, lambda *args, **kwargs: NoPrctl()], ids=["no libc", "no prctl"]
)
def test_where_prctl_cannot_be_called_council_runs_without_a_subreaper(monkeypatch, cdll):
    monkeypatch.setattr(reaper.ctypes, "CDLL", cdll)
    with reaper.subreaper() as on:
        assert not on
        assert not reaper.enabled()
        assert not is_subreaper()
    assert not reaper.enabled()


# -- which processes are adopted and claimed -----------------------------------------------


def start_own(**popen) -> subprocess.Popen:
    """A child council starts itself (a call's root, a detached run), registered as it does."""
    with reaper.spawning():
        child = subprocess.Popen(
            [sys.executable, "-c", "import sys; sys.stdin.read()"],
            stdin=subprocess.PIPE,
            start_new_session=True,
            **popen,
        )
        reaper.note_spawned(child.pid)
    return child


def stop_own(child: subprocess.Popen) -> None:
    child.stdin.close()
    child.wait(timeout=30)
    reaper.note_reaped(child.pid)


def test_a_process_council_started_itself_in_a_session_of_its_own_is_no_calls_escaped_one():
    with reaper.subreaper(), reaper.window("the-call", time.time()):
        root = start_own()
        # A detached run (runs/detach.py) started while the call runs: council's own child,
        # in a session of its own, with no marker.
        detached = start_own()
        try:
            assert not reaper.adopted(psutil.Process(detached.pid), os.getsid(0))
            members = {p.pid for p in ProcessTree(root.pid, "the-call").members()}
            assert root.pid in members
            assert detached.pid not in members
        finally:
            stop_own(detached)
            stop_own(root)


def test_a_process_that_is_gone_is_neither_adopted_nor_claimed():
    with reaper.window("the-call", time.time()):
        child = subprocess.Popen([sys.executable, "-c", "pass"], start_new_session=True)
        proc = psutil.Process(child.pid)  # seen while it ran
        child.wait(timeout=30)  # then gone: its session can no longer be read
        assert not reaper.adopted(proc, os.getsid(0))
        assert not reaper.claims("the-call", child.pid, proc, None)
        assert not reaper.claims("the-call", child.pid, proc, "the-call")


@pytest.mark.anyio
async def test_an_escaped_descendant_in_its_calls_session_dies_with_it_though_another_began_first():
    # Another call began first: were it not for its session, a descendant with no marker
    # that the ending call left would be the other call's to take.
    with reaper.subreaper(), reaper.window("other-call", time.time()):
        started = time.time()
        with reaper.window("the-call", started):
            root, descendant = escape("sleep", leave_session=False)
            try:
                assert os.getsid(descendant) == root
                assert not psutil.Process(descendant).environ()  # no marker left
                assert await ProcessTree(root, "the-call", started).kill(grace_s=1.0)
                # Killed with its call, and reaped: not even a zombie of ours is left.
                assert not psutil.pid_exists(descendant)
            finally:
                end(descendant)


class Proc:
    pid = 4242

    def __init__(self, created: float) -> None:
        self.created = created

    def create_time(self) -> float:
        return self.created


def test_a_process_created_the_instant_a_call_began_is_that_calls(monkeypatch):
    # psutil's create times are in clock ticks: a tie with a window's start happens.
    monkeypatch.setattr(reaper.os, "getsid", lambda pid: 999)
    with reaper.window("a", 101.0):  # the window opens a second early: at 100.0
        assert reaper.claims("a", 1, Proc(100.0), None)
        assert not reaper.claims("a", 1, Proc(99.5), None)


def test_a_process_created_the_instant_another_call_began_is_left_to_that_call(monkeypatch):
    monkeypatch.setattr(reaper.os, "getsid", lambda pid: 999)
    with reaper.window("a", 101.0), reaper.window("b", 121.0):  # from 100.0 and 120.0
        # b could have made it: a's end leaves it (b's end, the last, takes it).
        assert not reaper.claims("a", 1, Proc(120.0), None)
        assert not reaper.claims("b", 2, Proc(120.0), None)  # a is still running


# -- reaping -------------------------------------------------------------------------------


def test_an_adopted_child_that_died_is_reaped_and_the_children_others_own_are_left_to_them():
    with reaper.subreaper():
        # Started beside council in its own session (a front end's, a test harness's child):
        # its owner waits for it, and must see its exit status.
        owner_child = subprocess.Popen([sys.executable, "-c", "raise SystemExit(3)"])
        live = subprocess.Popen(
            [sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE
        )
        try:
            _, descendant = escape("exit", leave_session=True)
            wait_for(lambda: is_zombie(descendant) and is_zombie(owner_child.pid))
            reaper.reap_adopted()
            assert descendant not in child_pids()  # no <defunct> left
            assert not psutil.pid_exists(descendant)
            assert live.poll() is None
        finally:
            end(descendant)
            live.stdin.close()
            live.wait(timeout=30)
    assert owner_child.wait(timeout=30) == 3


def test_a_child_that_vanishes_while_council_looks_does_not_keep_the_others_from_being_reaped(
    monkeypatch,
):
    vanished_child = subprocess.Popen([sys.executable, "-c", "pass"], start_new_session=True)
    vanished = psutil.Process(vanished_child.pid)
    vanished_child.wait(timeout=30)  # its owner waited for it after council listed it
    with pytest.raises(psutil.NoSuchProcess):
        vanished.status()
    listed = psutil.Process.children

    def children(self, *args, **kwargs):
        return [vanished, *listed(self, *args, **kwargs)]

    with reaper.subreaper():
        _, descendant = escape("exit", leave_session=True)
        try:
            wait_for(lambda: is_zombie(descendant))
            with monkeypatch.context() as patch:
                patch.setattr(psutil.Process, "children", children)
                reaper.reap_adopted()
            assert not psutil.pid_exists(descendant)
        finally:
            end(descendant)


def test_an_adopted_child_another_thread_reaps_first_is_no_error(monkeypatch):
    waitpid = os.waitpid

    def reaped_first_by_another_thread(pid: int, options: int) -> tuple[int, int]:
        waitpid(pid, 0)  # the other call's sweep wins the race
        return waitpid(pid, options)

    with reaper.subreaper():
        _, descendant = escape("exit", leave_session=True)
        try:
            wait_for(lambda: is_zombie(descendant))
            with monkeypatch.context() as patch:
                patch.setattr(reaper.os, "waitpid", reaped_first_by_another_thread)
                reaper.reap_adopted()
            assert not psutil.pid_exists(descendant)
        finally:
            end(descendant)


# council run as a service (a session of its own, as systemd starts one): a child started
# beside it in its session is not adopted, whatever session pid 1 is in.
SERVICE = """\
import subprocess, sys, time
import psutil
from council.runner import reaper
with reaper.subreaper() as on:
    assert on
    child = subprocess.Popen([sys.executable, "-c", "raise SystemExit(3)"])
    while psutil.Process(child.pid).status() != psutil.STATUS_ZOMBIE:
        time.sleep(0.01)
    reaper.reap_adopted()
print(child.wait())
"""


def test_council_in_a_session_of_its_own_leaves_its_sessions_children_to_their_owners():
    # The environment is inherited: PYTHONPATH and a mutation run's mutant under test too.
    done = subprocess.run(
        [sys.executable, "-c", SERVICE],
        capture_output=True,
        text=True,
        timeout=60,
        start_new_session=True,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["3"]
