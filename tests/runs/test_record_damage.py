"""The record-damage matrix: each file of a record (and the record itself) x each damage x
each runs command, over an ended debate and an ended review. One reader of records serves
every command: a command that reads a damaged file exits 2 naming the record and the file,
`list` skips the record with one warning line and lists the others, a command that does not
need the file works as on a whole record; never exit 1, never a traceback.

The rows run in-process (a thousand of them, fast); those of files a user cannot read run as
an ordinary user (`ordinary_user.py`): as root, chmod 000 hides nothing."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from council.cli import cli
from ordinary_user import as_ordinary_user, open_dir
from project import QUESTION, Project

FILES = ("state.json", "result.json", "transcript.jsonl", "progress.log", "context.json")
RECORD = "record"  # the record directory itself
COMMANDS = (
    "list",
    "show",
    "show --md",
    "show --json",
    "show --html",
    "status",
    "wait",
    "cancel",
    "resume",
)
EVERY = frozenset(COMMANDS) - {"list"}
SHOWING = frozenset({"show", "show --md", "show --json", "show --html", "wait"})


def _wrong_types(path: Path) -> None:
    if path.suffix == ".json":
        value = json.loads(path.read_text())
        keys = {"status", "plan", "round", "seats", "calls", "exit_code", "decision"} & set(value)
        for key in keys or value:  # a file without those (context.json): every field
            value[key] = [1] if keys else 3
        path.write_text(json.dumps(value))
    else:
        path.write_text('[1]\n"text"\n{"kind": 3, "meta": [], "action": true}\n')


def _unknown_exit_code(path: Path) -> None:
    if path.suffix == ".json":
        value = json.loads(path.read_text())
        value["exit_code"] = 77
        path.write_text(json.dumps(value))
    else:
        path.write_text('{"kind": "end", "exit_code": 77}\n')


def _in_its_place(path: Path) -> None:
    path.unlink()
    path.mkdir()


DAMAGES: dict[str, Callable[[Path], None]] = {
    "missing": lambda p: p.unlink(),
    "empty": lambda p: p.write_bytes(b""),
    "[]": lambda p: p.write_bytes(b"[]"),
    "{}": lambda p: p.write_bytes(b"{}"),
    "{x": lambda p: p.write_bytes(b"{x"),
    "a field of the wrong type": _wrong_types,
    "an unknown exit code": _unknown_exit_code,
    # SIGKILL in the middle of a line whose last character is two bytes long
    "a torn multibyte last line": lambda p: p.write_bytes(
        p.read_bytes() + '{"text": "caf\u00e9'.encode()[:-1]
    ),
    "a directory in its place": _in_its_place,
    "unreadable": lambda p: p.chmod(0),
}
# As root, permission bits hide nothing: these rows run as an ordinary user.
AS_ORDINARY_USER = {"unreadable", "another user's", "read-only"}

# Which commands read a file, and so must refuse it damaged; a damage a reader takes in its
# stride (a torn transcript line is skipped, a missing result is built from the state) is
# listed as harmless to it.
READERS: dict[str, frozenset[str]] = {
    "state.json": EVERY,
    "result.json": SHOWING,
    "transcript.jsonl": frozenset({"status", "show --html"}),
    "progress.log": frozenset({"wait"}),
    "context.json": frozenset(),  # an ended run's context is in its state
    RECORD: EVERY,
}
LINES_SKIPPED = {"missing", "empty", "[]", "{}", "{x", "a field of the wrong type"}
HARMLESS: dict[str, set[str]] = {
    "result.json": {"missing", "an unknown exit code"},  # the state's exit code is the run's
    "transcript.jsonl": LINES_SKIPPED | {"an unknown exit code", "a torn multibyte last line"},
    "progress.log": LINES_SKIPPED | {"an unknown exit code", "a torn multibyte last line"},
}
# `resume` of an ended run writes its result files again: only what it cannot write over.
RESUME_REWRITES = {"result.json": {"a directory in its place"}}

# What a command does on a whole ended record (a debate and a review alike).
WHOLE: dict[str, tuple[int, str]] = {
    **{c: (0, "") for c in COMMANDS},
    "cancel": (2, "is not running"),
    "resume": (0, "already ended"),
}


# A read-only ended record (a CI artifact): reading it writes nothing into it, and what
# must write there says where it could not.
READ_ONLY: dict[str, tuple[int, str]] = {
    "show --html": (2, "{file}report.html: Permission denied"),
    "resume": (2, "{id}: the record is read-only, and resume writes into it"),
}


def expected(target: str, damage: str, command: str) -> tuple[int, str]:
    """The row's exit code and what stderr must hold (`{file}` stands for the damaged file)."""
    if damage == "read-only":
        return READ_ONLY.get(command, WHOLE[command])
    if command == "resume" and target in RESUME_REWRITES:
        breaks = damage in RESUME_REWRITES[target]
    else:
        breaks = command in READERS[target] and damage not in HARMLESS.get(target, set())
    if target == "state.json" and damage == "missing":
        # A record without state.json is a run still being set up: not listed, and named
        # when asked for.
        return (0, "") if command == "list" else (2, "the record has no state.json")
    if not breaks and command == "list" and target in (RECORD, "state.json"):
        breaks = True
    if not breaks:
        return WHOLE[command]
    if command == "list":
        return 0, "skipped {id}"
    return 2, "{file}"


TARGETS = {
    **{
        f: [d for d in DAMAGES if not (d == "an unknown exit code" and f == "context.json")]
        for f in FILES
    },
    RECORD: ["unreadable", "another user's", "read-only"],
}
ROWS = [
    (kind, target, damage, command, *expected(target, damage, command))
    for kind in ("debate", "review")
    for target, damages in TARGETS.items()
    for damage in damages
    for command in COMMANDS
]


@pytest.fixture(scope="module")
def whole(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One ended debate and one ended review, made once: each row damages a copy."""
    project = Project(tmp_path_factory.mktemp("whole"))
    assert project.run("debate", QUESTION, "--sim").returncode == 0
    assert project.run("review", "--files", "app.py", "--sim").returncode == 0
    return {p.name.split("-", 1)[0]: p for p in project.records()}


def _damaged(whole: dict[str, Path], kind: str, target: str, damage: str) -> tuple[Project, Path]:
    base = open_dir()
    project = Project(base)
    pad = project.root / ".scratchpad"
    shutil.copytree(whole[kind].parent, pad)
    record = pad / whole[kind].name
    if target == RECORD:
        if damage == "unreadable":
            record.chmod(0)
        if damage == "read-only":
            for path in [*record.rglob("*"), record]:
                path.chmod(0o555 if path.is_dir() else 0o444)
    else:
        DAMAGES[damage](record / target)
    return project, record


def _in_process(project: Project, argv: list[str], monkeypatch: pytest.MonkeyPatch) -> tuple:
    monkeypatch.chdir(project.root)
    run = CliRunner().invoke(cli, argv, env=project.env())
    return run.exit_code, run.stderr, run.stdout


@pytest.mark.parametrize(
    ("kind", "target", "damage", "command", "code", "message"),
    ROWS,
    ids=[f"{r[0]}-{r[1]}-{r[2]}-{r[3]}" for r in ROWS],
)
def test_a_damaged_record_is_named_by_every_command(
    whole, monkeypatch, kind, target, damage, command, code, message
):
    project, record = _damaged(whole, kind, target, damage)
    try:
        words = command.split()
        argv = [words[0], *([] if words[0] == "list" else [record.name]), *words[1:]]
        if damage in AS_ORDINARY_USER:
            foreign = [record] if damage == "another user's" else []
            run = as_ordinary_user(project, *argv, home=project.home, foreign=foreign)
            got, stderr, stdout = run.returncode, run.stderr, run.stdout
        else:
            got, stderr, stdout = _in_process(project, argv, monkeypatch)
        assert got == code, stderr
        assert "Traceback" not in stderr and "internal error" not in stderr
        assert message.format(id=record.name, file=f"{record.name}/") in stderr
        if code == 2 and message == "{file}" and target != RECORD:
            assert f"{record.name}/{target}" in stderr
        if command == "list" and message:
            assert len([line for line in stderr.splitlines() if "skipped" in line]) == 1
            other = next(n for k, n in ((k, p.name) for k, p in whole.items()) if k != kind)
            assert other in stdout  # the other runs are still listed
    finally:
        record.chmod(0o700)
        for path in record.rglob("*"):
            if not path.is_symlink():
                path.chmod(0o700)
        shutil.rmtree(project.root.parent)


# An ended run's context is in its state; an interrupted one's resume reads `context.json`.
CONTEXT_DAMAGES = [d for d in DAMAGES if d not in ("an unknown exit code", "unreadable")]


@pytest.mark.parametrize("kind", ["debate", "review"])
@pytest.mark.parametrize("damage", CONTEXT_DAMAGES)
def test_resume_of_an_interrupted_run_names_a_damaged_context(whole, monkeypatch, kind, damage):
    project, record = _damaged(whole, kind, "context.json", damage)
    try:
        state = json.loads((record / "state.json").read_text())
        state.update(status="interrupted", exit_code=130, finished_at=None)
        (record / "state.json").write_text(json.dumps(state))
        code, stderr, _ = _in_process(project, ["resume", record.name], monkeypatch)
        assert code == 2, stderr
        assert f"{record.name}/context.json: " in stderr
        assert "Traceback" not in stderr and "internal error" not in stderr
    finally:
        shutil.rmtree(project.root.parent)


# The in-process rows hold for an ordinary user too: a sample of them, run as one.
SAMPLE = [r for r in ROWS if r[1] in ("state.json", "result.json") and r[2] == "{x"]


@pytest.mark.parametrize(
    ("kind", "target", "damage", "command", "code", "message"),
    SAMPLE,
    ids=[f"{r[0]}-{r[1]}-{r[2]}-{r[3]}" for r in SAMPLE],
)
def test_a_damaged_record_is_named_so_for_an_ordinary_user_too(
    whole, kind, target, damage, command, code, message
):
    project, record = _damaged(whole, kind, target, damage)
    try:
        words = command.split()
        argv = [words[0], *([] if words[0] == "list" else [record.name]), *words[1:]]
        run = as_ordinary_user(project, *argv, home=project.home)
        assert run.returncode == code, run.stderr
        assert message.format(id=record.name, file=f"{record.name}/") in run.stderr
        assert "Traceback" not in run.stderr and "internal error" not in run.stderr
    finally:
        shutil.rmtree(project.root.parent)


@pytest.mark.parametrize("damage", ["unreadable", "another user's"])
def test_a_record_this_user_cannot_read_stops_no_new_run(whole, damage):
    project, record = _damaged(whole, "debate", RECORD, damage)
    try:
        foreign = [record] if damage == "another user's" else []
        run = as_ordinary_user(
            project, "debate", QUESTION, "--sim", home=project.home, foreign=foreign
        )
        # 3 where this user cannot start the simulator's interpreter: the run started.
        assert run.returncode in (0, 3), run.stderr
        assert "setup (SIMULATED)" in run.stderr and record.name not in run.stderr
        assert "Traceback" not in run.stderr and "internal error" not in run.stderr
    finally:
        record.chmod(0o700)
        shutil.rmtree(project.root.parent)
