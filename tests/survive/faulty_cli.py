"""A seat CLI that misbehaves the way real ones do, wrapped around council's simulator.

Configured as a `sim` CLI whose `command` runs this file. In the phases named by
COUNCIL_SIM_X_PHASES (every phase when empty) it does what COUNCIL_SIM_X_MODE says; otherwise,
and around most misbehaviours, it answers as the simulator does. COUNCIL_SIM_X_DIR is a
directory it may write to (the gate's flag lives there).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from council.sim.prompt import detect_phase

MODE = os.environ.get("COUNCIL_SIM_X_MODE", "")
PHASES = [p for p in os.environ.get("COUNCIL_SIM_X_PHASES", "").split(",") if p]
DIR = Path(os.environ.get("COUNCIL_SIM_X_DIR", "."))
SIM = [sys.executable, "-m", "council.sim", *sys.argv[1:]]


def answer(prompt: bytes) -> bytes:
    return subprocess.run(SIM, input=prompt, capture_output=True, check=False).stdout


def out(data: bytes) -> None:
    os.write(1, data)


def hang() -> None:
    while True:
        time.sleep(3600)


def daemon(*, ignore_term: bool = False) -> None:
    """A double-forked process in a session of its own, holding stdout and stderr."""
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            if ignore_term:
                signal.signal(signal.SIGTERM, signal.SIG_IGN)
            hang()
        os._exit(0)


def misbehave(prompt: bytes) -> int:
    cwd = Path.cwd()
    tmp = Path(os.environ.get("TMPDIR", "/tmp"))
    if MODE == "close-stdout":
        out(answer(prompt))
        os.close(1)
        os.close(2)
        hang()
    if MODE == "stderr-forever":
        while True:
            os.write(2, b"warning: still thinking\n" * 100)
    if MODE == "stderr-flood":
        os.write(2, b"x" * 4_000_000)
    if MODE == "daemon":
        daemon()
    if MODE == "daemon-ignoring-sigterm":
        daemon(ignore_term=True)
    if MODE == "exit-0-silent":
        return 0
    if MODE == "whitespace":
        out(b"  \n\n\t\n")
        return 0
    if MODE == "write-cwd":
        (cwd / "notes.md").write_text("scribbles\n")
        (cwd / "sub").mkdir(exist_ok=True)
    if MODE == "write-project":
        project = Path(os.environ["COUNCIL_SIM_X_PROJECT"])
        with contextlib.suppress(OSError):
            (project / "app.py").write_text("# rewritten by a seat\n")
    if MODE == "late":
        time.sleep(float(os.environ.get("COUNCIL_SIM_X_SECONDS", "1")))
    if MODE == "twice":
        reply = answer(prompt)
        out(reply + b"\n" + reply)
        return 0
    if MODE == "latin1":
        out(answer(prompt).decode("utf-8", "replace").encode("latin-1", "replace") + b"\xe9\xff")
        return 0
    if MODE == "nul":
        out(answer(prompt).replace(b" ", b" \x00", 5))
        return 0
    if MODE == "ansi":
        out(b"\x1b[2J\x1b[31m\rloading...\r" + answer(prompt) + b"\x1b[0m\x07")
        return 0
    if MODE == "cr-only":
        out(answer(prompt).replace(b"\n", b"\r"))
        return 0
    if MODE == "drip":
        for byte in answer(prompt):
            os.write(1, bytes([byte]))
            time.sleep(0.0005)
        return 0
    if MODE == "ignore-sigterm-grandchildren":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        for _ in range(3):
            if os.fork() == 0:
                hang()
        hang()
    if MODE == "stop-self":
        os.kill(os.getpid(), signal.SIGSTOP)
        hang()
    if MODE == "segv":
        os.kill(os.getpid(), signal.SIGSEGV)
    if MODE == "exit-137-after-answer":
        out(answer(prompt))
        return 137
    if MODE == "exit-1-after-answer":
        out(answer(prompt))
        return 1
    if MODE == "stderr-only":
        os.write(2, answer(prompt))
        return 0
    if MODE == "own-group-hang":
        os.setpgid(0, 0)
        hang()
    if MODE == "chmod-room":
        out(answer(prompt))
        (tmp / "locked").mkdir(exist_ok=True)
        (tmp / "locked" / "f").write_text("x")
        (tmp / "locked").chmod(0)
        return 0
    if MODE == "fifo-room":
        os.mkfifo(tmp / "pipe")
    if MODE == "symlinks-room":
        (tmp / "root").symlink_to("/")
        (tmp / "loop").symlink_to(tmp / "loop")
    if MODE == "many-files":
        for i in range(2000):
            (tmp / f"f{i}").write_bytes(b"")
    if MODE == "remove-cwd":
        out(answer(prompt))
        subprocess.run(["rm", "-rf", str(cwd)], check=False)
        return 0
    if MODE == "env-cleared-grandchild":
        subprocess.Popen(["env", "-i", "sleep", "3600"], start_new_session=True)
    if MODE == "sigint-own-group":
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        os.killpg(0, signal.SIGINT)
    if MODE == "sigterm-council":
        import psutil

        council = next(p for p in psutil.Process().parents() if "debate" in p.cmdline())
        council.send_signal(signal.SIGTERM)
        hang()
    if MODE == "closes-stdin-early":
        os.close(0)
        out(b"I cannot read the question, but Postgres is the safer default here.\n")
        return 0
    if MODE == "gate":
        flag = DIR / "gate"
        flag.write_text(str(os.getpid()))
        while flag.exists():
            time.sleep(0.02)
    out(answer(prompt))
    return 0


def main() -> int:
    if "--version" in sys.argv:
        os.execv(sys.executable, SIM)
    if MODE == "closes-stdin-early":
        return misbehave(b"")
    prompt = sys.stdin.buffer.read()
    if PHASES and detect_phase(prompt.decode("utf-8", "replace")) not in PHASES:
        out(answer(prompt))
        return 0
    return misbehave(prompt)


if __name__ == "__main__":
    sys.exit(main())
