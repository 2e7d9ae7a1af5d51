"""A stand-in for council with its watchdog (runner/watchdog.py), for tests/runner/test_watchdog.py.

It starts its watchdog and one CLI the way a call does (a session of its own, registered under
the spawn lock, the call's marker in its environment). The CLI starts:

- `group`: a worker in the CLI's own process group with an emptied environment (no marker: a
  node worker or MCP server started with a clean environment);
- `marked`: a daemon that left the group (setsid) but kept the call's marker;
- `bystander`: a daemon of its own session carrying another council's marker (this council's
  pid with a digit more).

council also starts `released`, a process of its own that it then reports as reaped.

It prints one line, `watchdog=PID cli=PID group=PID marked=PID bystander=PID released=PID`, then
in mode `die` waits to be killed (the test sends SIGKILL: no cleanup runs), and in mode
`goodbye` ends its run cleanly (`watchdog.stop`), prints `bye` and waits to be killed.
"""

from __future__ import annotations

import os
import subprocess
import sys

from council.runner import reaper, watchdog
from council.runner.environment import CALL_MARKER, new_call_id

SLEEPER = [sys.executable, "-I", "-S", "-c", "import time; time.sleep(600)"]

CLI = """
import os, subprocess, sys, time
sleeper = [sys.executable, "-I", "-S", "-c", "import time; time.sleep(600)"]
marker, other = sys.argv[1], sys.argv[2]
out = subprocess.DEVNULL
group = subprocess.Popen(sleeper, env={}, stdout=out)
marked = subprocess.Popen(sleeper, start_new_session=True, stdout=out)
env = {**os.environ, marker: other}
bystander = subprocess.Popen(sleeper, start_new_session=True, env=env, stdout=out)
print(group.pid, marked.pid, bystander.pid, flush=True)
time.sleep(600)
"""


def main() -> None:
    mode = sys.argv[1]
    dog = watchdog.start()
    env = {**os.environ, CALL_MARKER: new_call_id()}
    other = f"{os.getpid()}0-{'f' * 32}"
    with reaper.spawning():
        cli = subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", CLI, CALL_MARKER, other],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            start_new_session=True,
        )
        reaper.note_spawned(cli.pid)
    with reaper.spawning():
        released = subprocess.Popen(
            SLEEPER, env={}, stdout=subprocess.DEVNULL, start_new_session=True
        )
        reaper.note_spawned(released.pid)
    reaper.note_reaped(released.pid)
    assert cli.stdout is not None
    group, marked, bystander = cli.stdout.readline().split()
    print(
        f"watchdog={dog} cli={cli.pid} group={int(group)} marked={int(marked)} "
        f"bystander={int(bystander)} released={released.pid}",
        flush=True,
    )
    if mode == "goodbye":
        watchdog.stop()
        print("bye", flush=True)
    sys.stdin.read()  # until the test kills this process


if __name__ == "__main__":
    main()
