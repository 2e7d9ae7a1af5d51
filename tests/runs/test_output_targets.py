"""`--output` writes as a shell redirection would (atomicio.write_output, and the command line
end to end): a file is replaced, a symlink followed, a device or FIFO written in place."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from council.atomicio import write_output
from ordinary_user import as_ordinary_user
from project import QUESTION, Project


def test_a_regular_file_is_replaced_with_the_umasks_mode(tmp_path):
    target = tmp_path / "decision.md"
    target.write_text("old\n")
    old = os.umask(0o022)
    try:
        write_output(target, "new\n")
    finally:
        os.umask(old)
    assert target.read_text() == "new\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o644


def test_a_symlink_is_followed_and_stays_a_link(tmp_path):
    real = tmp_path / "reports" / "decision.md"
    real.parent.mkdir()
    real.write_text("old\n")
    link = tmp_path / "latest.md"
    link.symlink_to(real)
    write_output(link, "new\n")
    assert link.is_symlink() and real.read_text() == "new\n"


def test_a_device_is_written_in_place_never_replaced_by_a_file(tmp_path):
    write_output(Path("/dev/null"), "into the void\n")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_a_fifo_is_written_to_its_reader(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[str] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()))
    reader.start()
    write_output(fifo, "through the pipe\n")
    reader.join(timeout=30)
    assert got == ["through the pipe\n"] and stat.S_ISFIFO(fifo.stat().st_mode)


def test_a_directory_is_refused(tmp_path):
    with pytest.raises(IsADirectoryError):
        write_output(tmp_path, "x")


def test_debate_output_through_a_symlink_writes_its_target(tmp_path):
    project = Project(tmp_path)
    real = project.root / "real.json"
    (project.root / "out.json").symlink_to(real)
    run = project.run("debate", QUESTION, "--sim", "--output", "out.json")
    assert run.returncode == 0, run.stderr
    assert (project.root / "out.json").is_symlink()
    assert json.loads(real.read_text())["question"] == QUESTION


def test_resume_refuses_an_output_that_is_one_of_the_debates_inputs(tmp_path):
    project = Project(tmp_path)
    assert project.run("debate", QUESTION, "--sim", "--files", "app.py").returncode == 0
    before = (project.root / "app.py").read_text()
    run = project.run("resume", "last", "--output", "app.py")
    assert run.returncode == 2
    assert "--output app.py is one of the run's own inputs" in run.stderr
    assert (project.root / "app.py").read_text() == before


def test_resume_of_an_ended_review_writes_its_findings_to_the_output_in_its_suffix_form(tmp_path):
    project = Project(tmp_path)
    assert project.run("review", "--files", "app.py", "--sim").returncode in (0, 6)
    run = project.run("resume", "last", "--output", "out.sarif")
    assert run.returncode in (0, 6) and "already ended" in run.stderr
    assert json.loads((project.root / "out.sarif").read_text())["version"] == "2.1.0"
    refused = project.run("resume", "last", "--output", "app.py")
    assert refused.returncode == 2 and "one of the run's own inputs" in refused.stderr


def test_a_detached_debate_refuses_an_output_it_could_never_write(tmp_path):
    project = Project(tmp_path)
    run = project.run("debate", QUESTION, "--sim", "--detach", "--output", "out.md")
    assert run.returncode == 2 and "--output with --detach" in run.stderr
    assert project.records() == []  # refused before anything started


# -- the --output target matrix: each kind of target x each command that takes --output ------

RESULT_MARK = "simulated"  # in every form of a simulated result: its title, its JSON


def _prepare(project: Project, target: str) -> tuple[str, Path | None]:
    """The `--output` argument for `target`, and the file that must end up holding the result
    (None: none to check, a device)."""
    root = project.root
    if target == "a regular file":
        (root / "out.md").write_text("old\n")
        return "out.md", root / "out.md"
    if target == "a symlink":
        (root / "real").mkdir()
        (root / "real" / "out.md").write_text("old\n")
        (root / "out.md").symlink_to(root / "real" / "out.md")
        return "out.md", root / "real" / "out.md"
    if target == "a FIFO":
        os.mkfifo(root / "pipe")
        return "pipe", None
    if target == "a directory":
        (root / "folder").mkdir()
        return "folder", None
    if target == "an input file":
        return "app.py", None
    return target, None  # /dev/null, /dev/stdout


COMMANDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    # command -> (what runs first, the command given --output)
    "debate": ((), ("debate", QUESTION, "--sim", "--files", "app.py")),
    "review": ((), ("review", "--files", "app.py", "--sim")),
    "resume a debate": (("debate", QUESTION, "--sim", "--files", "app.py"), ("resume", "last")),
    "resume a review": (("review", "--files", "app.py", "--sim"), ("resume", "last")),
    "debate --detach": ((), ("debate", QUESTION, "--sim", "--files", "app.py", "--detach")),
    "review --detach": ((), ("review", "--files", "app.py", "--sim", "--detach")),
}
TARGETS = (
    "a regular file",
    "a symlink",
    "/dev/null",
    "/dev/stdout",
    "a FIFO",
    "a directory",
    "an input file",
)


def output_expected(command: str, target: str) -> tuple[int, str]:
    if target == "a directory":
        return 2, "is a directory"
    if target == "an input file":
        return 2, "would be overwritten"
    if command == "debate --detach":
        return 2, "--output with --detach"
    if command == "review --detach" and target == "/dev/stdout":
        return 2, "with --detach: the run ends in the background"
    return 0, ""


OUTPUT_ROWS = [(c, t, *output_expected(c, t)) for c in COMMANDS for t in TARGETS]


@pytest.mark.parametrize(
    ("command", "target", "code", "message"),
    OUTPUT_ROWS,
    ids=[f"{c}-{t}" for c, t, *_ in OUTPUT_ROWS],
)
def test_output_writes_like_a_redirection_or_is_refused(tmp_path, command, target, code, message):
    project = Project(tmp_path)
    output_row(project, project.run, command, target, code, message)


# As an ordinary user, the rows whose run is refused: a run that goes on needs the simulator's
# interpreter, which that user may not be allowed to start (a checkout under root's home).
# Not /dev/stdout: here it is the test's pipe, root's, which that user cannot reopen.
REFUSED_ROWS = [row for row in OUTPUT_ROWS if row[2] != 0 and row[1] != "/dev/stdout"]


@pytest.mark.parametrize(
    ("command", "target", "code", "message"),
    REFUSED_ROWS,
    ids=[f"{c}-{t}" for c, t, *_ in REFUSED_ROWS],
)
def test_output_is_refused_the_same_for_an_ordinary_user(
    open_project, command, target, code, message
):
    home = open_project.root / "home"
    home.mkdir()
    first, _ = COMMANDS[command]
    if first:  # the run to resume, made as root, then handed to that user with the project
        assert open_project.run(*first).returncode == 0

    def run(*args: str) -> subprocess.CompletedProcess:
        return as_ordinary_user(open_project, *args, home=home)

    output_row(open_project, run, command, target, code, message, first_done=True)


def output_row(
    project: Project,
    run_council: Callable[..., subprocess.CompletedProcess],
    command: str,
    target: str,
    code: int,
    message: str,
    *,
    first_done: bool = False,
) -> None:
    """One row of the matrix, council run by `run_council` (as root, or as another user)."""
    first, argv = COMMANDS[command]
    if first and not first_done:
        assert run_council(*first).returncode == 0
    before = (project.root / "app.py").read_text()
    given, holder = _prepare(project, target)
    got: list[str] = []
    reader = None
    if target == "a FIFO" and code == 0:
        reader = threading.Thread(target=lambda: got.append((project.root / given).read_text()))
        reader.start()
    run = run_council(*argv, "--output", given)
    if command.endswith("--detach") and run.returncode == 0:
        run_id = run.stdout.split()[0]
        assert run_council("wait", run_id).returncode == 0
    if reader is not None:
        reader.join(timeout=60)
        assert got and RESULT_MARK in got[0].lower()
        assert stat.S_ISFIFO((project.root / given).stat().st_mode)
    assert run.returncode == code, run.stderr
    assert message in run.stderr
    assert "Traceback" not in run.stderr and "internal error" not in run.stderr
    assert (project.root / "app.py").read_text() == before  # no input is ever written
    if holder is not None:  # the result, or (refused) what was there before
        assert (RESULT_MARK in holder.read_text().lower()) == (code == 0)
    if target == "a symlink":
        assert (project.root / "out.md").is_symlink()
    if target == "/dev/stdout" and code == 0:
        assert run.stdout.lower().count(RESULT_MARK) >= 1
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
