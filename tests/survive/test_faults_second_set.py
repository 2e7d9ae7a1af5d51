"""Faults, second set (issue #33): what the world does to a running council, none of the 107
of the first passes. Each row names a fault, how it is done, and the exit codes the docs allow
(docs/spec/protocol.md section 8); every run is then checked the same way: no process of the
run left (its tree carries a tag in its environment), no lost reply (every `ok` call's reply
is on disk), and a record whose `state.json` parses and whose status matches the exit code.
Misbehaving seats are `tests/survive/faulty_cli.py`; moments are reached by its gate (the
seat waits for a flag file to go), never by a clock."""

from __future__ import annotations

import contextlib
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import psutil
import pytest

from council.errors import ExitCode
from council.runner.environment import CALL_MARKER
from project import QUESTION, Project, wait_for

FAULTY = Path(__file__).with_name("faulty_cli.py")
DEBATE = ("debate", QUESTION, "--sim", "--critic", "faulty", "--no-blind", "--json")
ENDED = {"completed", "degraded", "failed", "interrupted"}
OK, DEGRADED, USAGE, STOPPED = 0, 5, 2, 130


@dataclass(frozen=True)
class Fault:
    name: str
    mode: str = ""  # faulty_cli.py's misbehaviour, in `phases`
    codes: tuple[int, ...] = (OK,)
    phases: str = "CHALLENGE"
    timeout_s: float = 600
    env: dict[str, str] = field(default_factory=dict)  # council's environment
    args: tuple[str, ...] = DEBATE
    limit: tuple[int, int] | None = None  # (resource, soft and hard limit) for council
    during: str | None = None  # an action while the critic waits at its gate
    record: bool = True  # a record is expected
    mounts: str = ""  # shell run as root in a mount namespace of council's own ($P: project)


SEAT = [
    Fault(
        "a seat closes stdout and stderr but keeps running",
        "close-stdout",
        (OK, DEGRADED),
        timeout_s=2,
    ),
    Fault("a seat writes to stderr forever", "stderr-forever", (OK, DEGRADED), timeout_s=2),
    Fault("a seat writes 4 MB to stderr, then answers", "stderr-flood"),
    Fault("a seat forks a daemon that holds its pipes", "daemon"),
    Fault("a seat's daemon ignores SIGTERM", "daemon-ignoring-sigterm"),
    Fault("a seat exits 0 saying nothing", "exit-0-silent", (OK, DEGRADED)),
    Fault("a seat answers only whitespace", "whitespace", (OK, DEGRADED)),
    Fault("a seat writes files in its working directory (refused)", "write-cwd", (OK, DEGRADED)),
    Fault("a seat tries to rewrite a project file", "write-project", (OK, DEGRADED)),
    Fault(
        "a seat sleeps past its soft limit, then answers",
        "late",
        (OK, DEGRADED),
        timeout_s=1,
        env={"COUNCIL_SIM_X_SECONDS": "1.2"},
    ),
    Fault("a seat answers twice", "twice", (OK, DEGRADED)),
    Fault("a seat answers in latin-1 with stray bytes", "latin1", (OK, DEGRADED)),
    Fault("a seat's answer holds NUL bytes", "nul", (OK, DEGRADED)),
    Fault("a seat clears the screen and colours its answer", "ansi", (OK, DEGRADED)),
    Fault("a seat ends lines with CR only", "cr-only", (OK, DEGRADED)),
    Fault("a seat drips its answer a byte at a time", "drip"),
    Fault(
        "a seat ignores SIGTERM and spawns grandchildren",
        "ignore-sigterm-grandchildren",
        (OK, DEGRADED),
        timeout_s=1,
    ),
    Fault("a seat stops itself (SIGSTOP)", "stop-self", (OK, DEGRADED), timeout_s=1),
    Fault("a seat crashes with SIGSEGV", "segv", (OK, DEGRADED)),
    Fault("a seat answers, then exits 137", "exit-137-after-answer", (OK, DEGRADED)),
    Fault("a seat answers, then exits 1", "exit-1-after-answer", (OK, DEGRADED)),
    Fault("a seat answers on stderr only", "stderr-only", (OK, DEGRADED)),
    Fault(
        "a seat moves to a process group of its own and hangs",
        "own-group-hang",
        (OK, DEGRADED),
        timeout_s=1,
    ),
    Fault("a seat leaves an unreadable directory in its temporary directory", "chmod-room"),
    Fault("a seat leaves a FIFO in its temporary directory", "fifo-room"),
    Fault(
        "a seat leaves symlinks to / and to themselves in its temporary directory", "symlinks-room"
    ),
    Fault("a seat leaves 2000 files in its temporary directory", "many-files"),
    Fault("a seat removes its own working directory", "remove-cwd", (OK, DEGRADED)),
    Fault("a seat starts a grandchild with a cleared environment", "env-cleared-grandchild"),
    Fault("a seat sends SIGINT to its own process group", "sigint-own-group"),
    Fault("a seat sends SIGTERM to council", "sigterm-council", (STOPPED,)),
    Fault(
        "a seat closes stdin without reading the prompt",
        "closes-stdin-early",
        (OK, DEGRADED),
        phases="",
    ),
    Fault("every call of a seat forks a daemon", "daemon", phases=""),
    Fault("the lead's DECISION call answers twice", "twice", (OK, DEGRADED), phases="DECISION"),
]

UTF8_QUESTION = "Café ou thé — 茶 or コーヒー for the sessions service?"
ENVIRONMENT = [
    Fault(
        "LANG=C with a UTF-8 question",
        env={"LANG": "C", "LC_ALL": "C"},
        args=("debate", UTF8_QUESTION, "--sim", "--json"),
    ),
    Fault(
        "PYTHONIOENCODING=ascii with a UTF-8 question",
        env={"PYTHONIOENCODING": "ascii"},
        args=("debate", UTF8_QUESTION, "--sim", "--json"),
    ),
    Fault("TMPDIR points nowhere", env={"TMPDIR": "/nonexistent/tmp"}, args=DEBATE[:-1]),
    Fault("TMPDIR is a file", env={"TMPDIR": "@file"}, args=DEBATE[:-1]),
    Fault("TMPDIR is read-only", env={"TMPDIR": "@readonly"}, args=DEBATE[:-1]),
    Fault("HOME points nowhere", env={"HOME": "/nonexistent/home"}),
    Fault("HOME is read-only", env={"HOME": "@readonly"}),
    Fault("TZ names no zone", env={"TZ": "Nowhere/Atlantis"}),
    Fault(
        "ulimit -f 4 KiB (a file-size limit)",
        limit=(resource.RLIMIT_FSIZE, 4 * 1024),
        codes=(STOPPED, OK),
    ),
    Fault("ulimit -n 48", limit=(resource.RLIMIT_NOFILE, 48), codes=(OK, STOPPED)),
    Fault("ulimit -v 4 GiB", limit=(resource.RLIMIT_AS, 4 << 30)),
    Fault("an empty question", args=("debate", "", "--sim"), codes=(USAGE,), record=False),
    Fault("a question of blanks", args=("debate", " \t\n ", "--sim"), codes=(USAGE,), record=False),
    Fault(
        "a 100 KB question", args=("debate", "why? " * 20_000, "--sim", "--json"), codes=(OK, USAGE)
    ),
    Fault(
        "--files names a FIFO",
        args=("debate", QUESTION, "--sim", "--files", "@fifo"),
        codes=(USAGE,),
        record=False,
    ),
    Fault(
        "--files names a dangling symlink",
        args=("debate", QUESTION, "--sim", "--files", "@dangling"),
        codes=(USAGE,),
        record=False,
    ),
    Fault(
        "--files names an unreadable file",
        args=("debate", QUESTION, "--sim", "--files", "@unreadable"),
        codes=(USAGE,),
        record=False,
    ),
    Fault("--files names a 0-byte file", args=("debate", QUESTION, "--sim", "--files", "@empty")),
    Fault(
        "--files names /dev/zero",
        args=("debate", QUESTION, "--sim", "--files", "/dev/zero"),
        codes=(USAGE,),
        record=False,
    ),
    Fault(
        "the project directory is read-only (no scratchpad)",
        env={"@cwd": "readonly"},
        codes=(USAGE, STOPPED),
        record=False,
    ),
    Fault(
        "the scratchpad is a file",
        env={"@scratchpad": "file"},
        codes=(USAGE, STOPPED),
        record=False,
    ),
    Fault("stdout is /dev/full", env={"@stdout": "full"}, codes=(USAGE,)),
    Fault("stdout is closed", env={"@stdout": "closed"}),
    Fault("stdin is closed", env={"@stdin": "closed"}),
    Fault(
        "--files names a directory",
        args=("debate", QUESTION, "--sim", "--files", "@dir"),
        codes=(USAGE,),
        record=False,
    ),
]

QUESTION_FILES = [
    Fault(
        f"the question file {what}",
        args=("debate", f"@@{kind}", "--sim", "--json"),
        codes=codes,
        record=codes != (USAGE,),
    )
    for what, kind, codes in [
        ("is 0 bytes", "q-empty", (USAGE,)),
        ("is not UTF-8", "q-latin1", (OK, USAGE)),
        ("is /dev/zero", "q-zero", (USAGE,)),
        ("is missing", "q-missing", (USAGE,)),
        ("is 5 MB", "q-huge", (OK, USAGE)),
    ]
]

QUESTION_FILES += [
    Fault(
        "the question comes through a FIFO (process substitution)",
        args=("debate", "@@q-fifo", "--sim", "--json"),
        during="fifo-write",
    ),
    Fault(
        "the question FIFO is never written, and council is sent SIGTERM",
        args=("debate", "@@q-fifo", "--sim", "--json"),
        during="fifo-term",
        codes=(STOPPED,),
        record=False,
    ),
]

# Root only (a mount namespace of council's own, gone with it: nothing mounted is left).
FULL = 'mkdir -p "$P/.scratchpad" && mount -t tmpfs -o size={size} tmpfs "$P/.scratchpad"'
MOUNTS = [
    Fault(
        "the scratchpad is on a full tmpfs",
        mounts=FULL.format(size="64k")
        + ' && (dd if=/dev/zero of="$P/.scratchpad/fill" bs=4k 2>/dev/null; true)',
        codes=(USAGE, STOPPED),
        record=False,
    ),
    Fault(
        "the scratchpad's tmpfs fills up mid-run",
        mounts=FULL.format(size="48k"),
        codes=(STOPPED, USAGE),
        record=False,
    ),
    Fault(
        "/tmp is read-only",
        # /tmp first: a bind does not carry the mounts below it.
        mounts='mkdir -p "$P/.scratchpad" && mount --bind /tmp /tmp && '
        + "mount -o remount,bind,ro /tmp && "
        + FULL.format(size="8m"),
        codes=(OK, USAGE, STOPPED),
        record=False,
    ),
    Fault(
        "TMPDIR is a full tmpfs",
        env={"TMPDIR": "@full-tmp"},
        mounts=(
            'mkdir -p "$P/../full" && mount -t tmpfs -o size=16k tmpfs "$P/../full" && '
            '(dd if=/dev/zero of="$P/../full/fill" bs=4k 2>/dev/null; true)'
        ),
        codes=(OK, USAGE, STOPPED),
    ),
    Fault(
        "the project directory is read-only (no scratchpad), as root",
        mounts='mount --bind "$P" "$P" && mount -o remount,bind,ro "$P"',
        codes=(USAGE, STOPPED),
        record=False,
    ),
]

DURING = [
    Fault("the record is deleted mid-run", "gate", (STOPPED, OK), during="delete-record"),
    Fault("the record directory is renamed mid-run", "gate", (STOPPED, OK), during="rename-record"),
    Fault(
        "the record directory turns read-only mid-run", "gate", (STOPPED,), during="readonly-record"
    ),
    Fault("state.json turns read-only mid-run", "gate", during="readonly-state"),
    Fault("progress.log is deleted mid-run", "gate", during="delete-progress"),
    Fault("council is stopped (SIGSTOP) and continued mid-call", "gate", during="stop-council"),
    Fault(
        "a seat is stopped (SIGSTOP) mid-call",
        "gate",
        (OK, DEGRADED),
        timeout_s=2,
        during="stop-seat",
    ),
    Fault("council's watchdog is killed (kill -9) mid-run", "gate", during="kill-watchdog"),
    Fault(
        "a seat's scratch room is deleted mid-call", "gate", (OK, DEGRADED), during="delete-rooms"
    ),
    Fault(
        "the project file under debate is deleted mid-run",
        "gate",
        during="delete-project-file",
        args=(*DEBATE, "--files", "app.py"),
    ),
]

LIFECYCLE = [
    Fault("council cancel twice", "gate", (STOPPED,), during="cancel-twice", phases="CHALLENGE"),
    Fault("cancel of a finished run", during="cancel-finished"),
    Fault("cancel of an unknown id", during="cancel-unknown"),
    Fault("two councils resume one record at once", "gate", during="resume-twice"),
    Fault("resume of a completed run", during="resume-completed"),
    Fault("resume while the detached run lives", "gate", during="resume-detached"),
]

FAULTS = SEAT + ENVIRONMENT + QUESTION_FILES + MOUNTS + DURING + LIFECYCLE
ROOT = os.geteuid() == 0
# Faults made with file modes, which root ignores.
ROOT_BLIND = {
    "--files names an unreadable file",
    "the project directory is read-only (no scratchpad)",
    "the record directory turns read-only mid-run",
    "HOME is read-only",
    "TMPDIR is read-only",
}


def config(project: Project, fault: Fault, tag: str) -> str:
    env = {
        "COUNCIL_SIM_X_MODE": fault.mode,
        "COUNCIL_SIM_X_PHASES": fault.phases,
        "COUNCIL_SIM_X_DIR": str(project.root.parent / "bin" / ".fake"),
        "COUNCIL_SIM_X_PROJECT": str(project.root),
        "COUNCIL_SIM_X_TAG": tag,
        **{k: v for k, v in fault.env.items() if k.startswith("COUNCIL_SIM_X_")},
    }
    lines = "".join(f"      {k}: {json.dumps(v)}\n" for k, v in env.items())
    return (
        "clis:\n  faulty:\n    adapter: sim\n"
        f"    command: [{json.dumps(sys.executable)}, {json.dumps(str(FAULTY))}]\n"
        f"    timeout_s: {fault.timeout_s}\n    env:\n{lines}"
    )


def tagged(tag: str) -> list[psutil.Process]:
    found = []
    for proc in psutil.process_iter():
        with contextlib.suppress(psutil.Error):
            if proc.environ().get("COUNCIL_SIM_X_TAG") == tag and proc.status() != "zombie":
                found.append(proc)
    return found


def resolve(project: Project, value: str) -> str:
    """`@name` values: a path of that kind, made here."""
    base = project.root.parent
    if value == "@file":
        (base / "a-file").write_text("")
        return str(base / "a-file")
    if value == "@readonly":
        (base / "ro").mkdir(exist_ok=True)
        (base / "ro").chmod(0o555)
        return str(base / "ro")
    if value == "@fifo":
        os.mkfifo(project.root / "pipe")
        return "pipe"
    if value == "@dangling":
        (project.root / "gone").symlink_to(base / "nowhere")
        return "gone"
    if value == "@unreadable":
        (project.root / "secret.py").write_text("x = 1\n")
        (project.root / "secret.py").chmod(0)
        return "secret.py"
    if value.startswith("@@q-"):
        question = project.root.parent / "question.txt"
        kind = value[4:]
        if kind == "empty":
            question.write_text("")
        elif kind == "latin1":
            question.write_bytes("Caf\xe9 ou th\xe9 pour les sessions ?".encode("latin-1"))
        elif kind == "fifo":
            os.mkfifo(question)
        elif kind == "zero":
            return "@/dev/zero"
        elif kind == "huge":
            question.write_text("Redis or Postgres? " * 260_000)
        return f"@{question}"
    if value == "@dir":
        (project.root / "pkg").mkdir()
        return "pkg"
    if value == "@full-tmp":
        return str(base / "full")
    if value == "@empty":
        (project.root / "empty.py").write_text("")
        return "empty.py"
    return value


def launch(project: Project, fault: Fault, args: tuple[str, ...]) -> subprocess.Popen:
    env = project.env(**{k: resolve(project, v) for k, v in fault.env.items() if k[0] != "@"})
    stdout: object = subprocess.PIPE
    stdin: object = subprocess.DEVNULL
    if fault.env.get("@stdout") == "full":
        stdout = open("/dev/full", "w")  # noqa: SIM115 - closed with the process
    if fault.env.get("@cwd") == "readonly":
        project.root.chmod(0o555)
    if fault.env.get("@scratchpad") == "file":
        (project.root / ".scratchpad").write_text("")
    limit = fault.limit

    def preexec() -> None:
        if limit is not None:
            resource.setrlimit(limit[0], (limit[1], limit[1]))
        if fault.env.get("@stdout") == "closed":
            os.close(1)
        if fault.env.get("@stdin") == "closed":
            os.close(0)

    argv = project.argv(*[resolve(project, a) for a in args])
    if fault.mounts:
        env["P"] = str(project.root)
        script = f'{fault.mounts} && exec "$@"'
        argv = ["unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh", *argv]
    try:
        return subprocess.Popen(
            argv,
            cwd=project.root,
            env=env,
            stdout=stdout,
            stderr=subprocess.PIPE,
            stdin=stdin,
            text=True,
            preexec_fn=preexec,
        )
    finally:
        if stdout is not subprocess.PIPE:
            stdout.close()  # type: ignore[union-attr]


def gate(project: Project) -> Path:
    return project.root.parent / "bin" / ".fake" / "gate"


def at_gate(project: Project) -> int:
    wait_for(gate(project).exists, timeout=60)
    return int(gate(project).read_text() or 0)


def run_id(project: Project) -> str:
    return project.record().name


def act(project: Project, fault: Fault, council: subprocess.Popen | None) -> None:
    """What `fault.during` does to a run whose critic waits at the gate."""
    if fault.during in ("fifo-write", "fifo-term"):
        fifo = project.root.parent / "question.txt"
        writer = None

        def reader_opened() -> bool:
            nonlocal writer
            with contextlib.suppress(OSError):  # ENXIO until council opens it to read
                writer = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
            return writer is not None

        wait_for(reader_opened, timeout=60)
        assert writer is not None and council is not None
        if fault.during == "fifo-term":
            council.send_signal(signal.SIGTERM)
        else:
            os.write(writer, QUESTION.encode())
        os.close(writer)
        return
    seat = at_gate(project)
    record = project.record()
    what = fault.during
    if what == "delete-record":
        shutil.rmtree(record)
    elif what == "rename-record":
        record.rename(record.with_name(record.name + "-moved"))
    elif what == "readonly-record":
        record.chmod(0o555)
    elif what == "readonly-state":
        (record / "state.json").chmod(0o444)
    elif what == "delete-progress":
        (record / "progress.log").unlink()
    elif what == "stop-council":
        assert council is not None
        council.send_signal(signal.SIGSTOP)
        time.sleep(0.2)
        council.send_signal(signal.SIGCONT)
    elif what == "stop-seat":
        os.kill(seat, signal.SIGSTOP)
        return  # stays at the gate, stopped: its timeout ends it
    elif what == "kill-watchdog":
        assert council is not None
        # runner/watchdog.py: council's child, given council's call-marker prefix last.
        marker = f"{CALL_MARKER}={council.pid}-"
        dogs = [
            child
            for child in psutil.Process(council.pid).children()
            if child.cmdline()[-1:] == [marker]
        ]
        assert dogs, "the watchdog should be running"
        for dog in dogs:
            dog.kill()
    elif what == "delete-rooms":
        cwd = Path(psutil.Process(seat).cwd())
        shutil.rmtree(cwd, ignore_errors=True)
    elif what == "delete-project-file":
        (project.root / "app.py").unlink()
    gate(project).unlink()


def check_record(project: Project, code: int) -> None:
    """The record is consistent with the exit code, and no `ok` reply is missing."""
    records = [r for r in project.root.joinpath(".scratchpad").glob("*") if r.is_dir()]
    for record in records:
        state = json.loads((record / "state.json").read_text())
        status = state["status"]
        if status == "running":
            # Frozen by a failed write at its last good state: what the user is told is the
            # status of a run nobody owns any more.
            shown = project.run("show", record.name, "--json")
            status = json.loads(shown.stdout)["status"]
        assert status in ENDED, status
        if code in (OK, DEGRADED, STOPPED) and len(records) == 1:
            assert ExitCode.of_status(status) == code, (status, code)
        for call in state.get("calls", {}).values():
            if call.get("status") == "ok" and call.get("reply_file"):
                reply = record / call["reply_file"]
                assert reply.exists() and reply.read_bytes().strip(), reply


def scenario(project: Project, fault: Fault) -> int:
    """Run the fault; returns the exit code the user sees."""
    what = fault.during
    if what in ("cancel-finished", "resume-completed", "cancel-unknown"):
        first = project.run(*DEBATE)
        assert first.returncode == OK, first.stderr
        target = "no-such-run" if what == "cancel-unknown" else run_id(project)
        command = "resume" if what == "resume-completed" else "cancel"
        second = project.run(command, target)
        if what == "cancel-unknown":
            assert second.returncode == USAGE, second.stderr
        else:
            assert second.returncode in (OK, USAGE), second.stderr
            assert "Traceback" not in second.stderr
        return first.returncode
    if what == "cancel-twice":
        started = project.run(*DEBATE, "--detach")
        assert started.returncode == OK, started.stderr
        at_gate(project)
        first = project.run("cancel", run_id(project))
        second = project.run("cancel", run_id(project))
        assert first.returncode == OK, first.stderr
        assert second.returncode in (OK, USAGE) and "Traceback" not in second.stderr
        with contextlib.suppress(FileNotFoundError):
            gate(project).unlink()
        return project.run("wait", run_id(project)).returncode
    if what == "resume-detached":
        started = project.run(*DEBATE, "--detach")
        assert started.returncode == OK, started.stderr
        at_gate(project)
        refused = project.run("resume", run_id(project))
        assert refused.returncode == USAGE and "still running" in refused.stderr
        gate(project).unlink()
        return project.run("wait", run_id(project)).returncode
    if what == "resume-twice":
        council = launch(project, fault, fault.args)
        at_gate(project)
        council.send_signal(signal.SIGINT)
        council.communicate(timeout=60)
        assert council.returncode == STOPPED
        gate(project).unlink()  # its seat was killed at the gate
        first = project.start("resume", run_id(project))
        at_gate(project)
        second = project.run("resume", run_id(project))
        assert second.returncode == USAGE and "still running" in second.stderr
        gate(project).unlink()
        first.communicate(timeout=120)
        return first.returncode
    council = launch(project, fault, fault.args)
    try:
        if what is not None:
            act(project, fault, council)
        _, err = council.communicate(timeout=120)
    finally:
        if council.poll() is None:
            council.kill()
            council.communicate()
    assert "internal error" not in err and "Traceback" not in err, err
    if os.environ.get("SHOW_FAULTS"):
        print(f"\n## {fault.name}: {council.returncode}\n{err[-400:]}")
    return council.returncode


@pytest.mark.parametrize("fault", FAULTS, ids=[f.name for f in FAULTS])
def test_council_survives(tmp_path: Path, fault: Fault) -> None:
    if fault.mounts and not ROOT:
        pytest.skip("mounting a tmpfs needs root")
    if ROOT and fault.name in ROOT_BLIND:
        pytest.skip("root reads and writes whatever the modes say (its row as root covers it)")
    project = Project(tmp_path)
    (tmp_path / "bin" / ".fake").mkdir(parents=True)
    tag = f"{os.getpid()}-{tmp_path.name}"
    project.write_config(config(project, fault, tag))
    try:
        code = scenario(project, fault)
        assert code in fault.codes, code
        if fault.record and fault.during not in ("delete-record", "rename-record"):
            check_record(project, code)
        elif not fault.record:
            assert not list(project.root.glob(".scratchpad/*/state.json"))
    finally:
        for path in (project.root, tmp_path / "ro", *project.root.glob(".scratchpad/*")):
            with contextlib.suppress(OSError):
                path.chmod(0o755)
        deadline = time.monotonic() + 10  # the watchdog's sweep included
        while (left := tagged(tag)) and time.monotonic() < deadline:
            time.sleep(0.1)
        for proc in left:
            with contextlib.suppress(psutil.Error):
                proc.kill()
    assert not left, [p.cmdline()[:4] for p in left]


def test_the_second_set_has_sixty_faults() -> None:
    assert len({f.name for f in FAULTS}) == len(FAULTS) >= 60
