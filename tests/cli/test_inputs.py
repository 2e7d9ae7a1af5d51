"""Ordinary mistakes, made as a user makes them (a real `council` process): each ends with one
line naming the problem and what to do, the exit code of protocol.md section 8, and never a
traceback or `internal error`. And replies are untrusted text: no terminal control sequence of
a CLI reaches the user's terminal, the DECISION or another seat's prompt."""

from __future__ import annotations

import json
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from ordinary_user import as_ordinary_user
from project import QUESTION, Project

Setup = Callable[[Project], list[str]]


def non_utf8_question(project: Project) -> list[str]:
    (project.root / "q.md").write_bytes(b"\xff\xfe Redis?")
    return ["debate", "@q.md", "--sim"]


def corrupt_state(content: bytes) -> Setup:
    def setup(project: Project) -> list[str]:
        assert project.run("debate", QUESTION, "--sim").returncode == 0
        (project.record() / "state.json").write_bytes(content)
        return ["resume", "last"]

    return setup


def config_file(content: bytes | None) -> Setup:
    def setup(project: Project) -> list[str]:
        path = project.root / "council.yaml"
        if content is None:
            path.mkdir()
        else:
            path.write_bytes(content)
        return ["debate", QUESTION, "--sim"]

    return setup


def output_onto_an_input(project: Project) -> list[str]:
    return ["debate", QUESTION, "--sim", "--files", "app.py", "--output", "app.py"]


def output_into_a_missing_folder(project: Project) -> list[str]:
    return ["debate", QUESTION, "--sim", "--output", "nowhere/result.md"]


def scratchpad_is_a_file(project: Project) -> list[str]:
    (project.root / "pad").write_text("a file\n")
    return ["debate", QUESTION, "--sim", "--scratchpad", "pad"]


def undecodable_file_name(project: Project) -> list[str]:
    name = b"bad\xffname.py".decode("utf-8", "surrogateescape")  # as the shell passes it
    (project.root / name).write_text("x = 1\n")
    return ["debate", QUESTION, "--sim", "--files", name]


def record_without_state(project: Project) -> list[str]:
    (project.root / ".scratchpad" / "debate-20260101-000000-abcd").mkdir(parents=True)
    return ["resume", "debate-20260101-000000-abcd"]


def huge_question(project: Project) -> list[str]:
    return ["debate", "why? " * 20_000, "--sim"]


CASES: list[tuple[str, Setup, int, str]] = [
    ("question file not UTF-8", non_utf8_question, 2, "q.md is not UTF-8 text"),
    ("state.json corrupt", corrupt_state(b"{not json"), 2, "state.json: cannot be read"),
    ("state.json empty", corrupt_state(b""), 2, "state.json: cannot be read"),
    ("state.json not an object", corrupt_state(b"[1, 2]"), 2, "not a run's state"),
    ("state.json without a debate", corrupt_state(b"{}"), 2, "not a run's state (it has no"),
    ("a record without state.json", record_without_state, 2, "the record has no state.json"),
    ("council.yaml binary", config_file(b"\x00\x01\x02"), 4, "council.yaml: the config file is"),
    ("council.yaml not UTF-8", config_file(b"rounds: \xff\n"), 4, "is not UTF-8 text"),
    ("council.yaml a directory", config_file(None), 4, "council.yaml: is a directory"),
    ("--output onto an input", output_onto_an_input, 2, "one of the run's own inputs"),
    ("--output into a missing folder", output_into_a_missing_folder, 2, "does not exist"),
    ("--scratchpad a file", scratchpad_is_a_file, 2, "is a file, not a directory for records"),
    ("a 100 KB question", huge_question, 2, "put the long text in a file and give it with"),
    ("a file name not UTF-8", undecodable_file_name, 2, "its name is not valid UTF-8"),
]


@pytest.mark.parametrize(
    ("setup", "code", "message"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_an_ordinary_mistake_is_one_line_and_its_exit_code(tmp_path, setup, code, message):
    project = Project(tmp_path)
    argv = setup(project)
    before = {p.name for p in project.records()}
    run = project.run(*argv)
    assert run.returncode == code, run.stderr
    assert message in run.stderr
    assert "Traceback" not in run.stderr and "internal error" not in run.stderr
    if argv[0] == "debate":  # refused before the run: no record is left behind
        assert {p.name for p in project.records()} == before


@pytest.mark.parametrize(
    ("setup", "code", "message"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_an_ordinary_mistake_is_the_same_for_an_ordinary_user(open_project, setup, code, message):
    """The table again, run as a user without root's power over permission bits."""
    argv = setup(open_project)
    home = open_project.root / "home"
    home.mkdir(exist_ok=True)
    run = as_ordinary_user(open_project, *argv, home=home)
    assert run.returncode == code, run.stderr
    assert message in run.stderr
    assert "Traceback" not in run.stderr and "internal error" not in run.stderr


def test_an_unwritable_scratchpad_is_named_with_the_fix(open_project):
    (open_project.root / "locked").mkdir(mode=0o555)
    home = open_project.root / "home"
    home.mkdir()
    run = as_ordinary_user(
        open_project, "debate", QUESTION, "--sim", "--scratchpad", "locked", home=home
    )
    assert run.returncode == 2, run.stderr
    assert "cannot write records in" in run.stderr and "locked" in run.stderr
    assert "--scratchpad" in run.stderr
    assert "Traceback" not in run.stderr and "internal error" not in run.stderr
    assert not list((open_project.root / "locked").iterdir())


def test_a_user_config_that_cannot_be_read_is_a_config_error_naming_it(open_project):
    home = open_project.root / "home"
    config = home / ".config" / "council" / "config.yaml"
    config.parent.mkdir(parents=True)
    config.write_text("rounds: 3\n")
    config.parent.chmod(0o000)  # a home this user cannot enter (`sudo -u` keeps HOME)
    try:
        run = as_ordinary_user(open_project, "debate", QUESTION, "--sim", home=home)
    finally:
        config.parent.chmod(0o700)
    assert run.returncode == 4, run.stderr
    assert f"{config}: cannot read the config file" in run.stderr
    assert "Traceback" not in run.stderr and "internal error" not in run.stderr


def test_the_question_from_a_closed_stdin_is_a_usage_error(tmp_path):
    project = Project(tmp_path)
    run = subprocess.run(
        project.argv("debate", "-", "--sim"),
        cwd=project.root,
        env=project.env(),
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert run.returncode == 2
    assert "the question is empty" in run.stderr or "stdin is closed" in run.stderr


def test_a_working_directory_deleted_under_council_is_a_usage_error(tmp_path):
    project = Project(tmp_path)
    gone = tmp_path / "gone"
    gone.mkdir()
    launch = (
        "import os, sys; os.chdir(sys.argv[1]); os.rmdir(sys.argv[1]); "
        "sys.argv = ['council', 'debate', 'q', '--sim']; "
        "from council.__main__ import main; main()"
    )
    run = subprocess.run(
        [sys.executable, "-c", launch, str(gone)],
        env=project.env(),
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert run.returncode == 2
    assert "the current directory no longer exists" in run.stderr


def test_a_failed_run_still_prints_its_result_json(tmp_path):
    project = Project(tmp_path)
    project.write_config("clis:\n  sim-out:\n    adapter: sim\n    env: {COUNCIL_SIM_AUTH: '1'}\n")
    run = project.run("debate", QUESTION, "--sim", "--advocate", "sim-out", "--json")
    assert run.returncode == 3, run.stderr
    result = json.loads(run.stdout)  # stdout is the result, even without a DECISION
    assert result["status"] == "failed" and result["exit_code"] == 3


def test_a_broken_pipe_ends_quietly(tmp_path):
    project = Project(tmp_path)
    big = " ".join(["long"] * 200)
    council = subprocess.Popen(
        project.argv("debate", QUESTION, "--sim", "--json", "--rounds", "3"),
        cwd=project.root,
        env=project.env(COUNCIL_SIM_WORDS="200"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
    )
    assert council.stdout is not None
    council.stdout.read(10)
    council.stdout.close()  # `| head -c 10`: the reader goes away
    _, stderr = council.communicate(timeout=60)
    assert b"Traceback" not in stderr and b"internal error" not in stderr
    assert council.returncode in (0, 141), (council.returncode, big[:0])


# -- replies are untrusted text ---------------------------------------------------------------

HOSTILE = (
    "\x1b]0;pwned title\x07Plan \x1b[2J\x1b[31mholds\x1b[0m: bound the cache.\x07\x00 "
    "It\rreally does \x1bPq#0\x1b\\fine.\nVOTE: agree - the bound settles it."
)
HOSTILE_CLI = f"""\
import sys
if sys.argv[1:] == ["--version"]:
    print("hostile 1.0")
    raise SystemExit
sys.stdin.read()
sys.stdout.write({HOSTILE!r})
"""
CONTROL = ("\x1b", "\x07", "\x00", "\r")


def test_control_sequences_of_a_reply_reach_no_terminal_decision_or_prompt(tmp_path):
    project = Project(tmp_path)
    script = project.root.parent / "hostile.py"
    script.write_text(HOSTILE_CLI)
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    project.write_config(f"clis:\n  hostile:\n    command: [{sys.executable}, {script}]\n")
    run = project.run(
        "debate", QUESTION, "--advocate", "sim", "--critic", "hostile", "--lead", "sim",
        "--rounds", "3",
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    record = project.record()
    seen = {
        "stdout": run.stdout,
        "stderr": run.stderr,
        "decision.md": (record / "decision.md").read_text(),
        "the advocate's next prompt": (record / "advocate-r2-prompt.md").read_text(),
    }
    assert "bound the cache" in seen["the advocate's next prompt"]  # the reply got through
    for where, text in seen.items():
        assert not [c for c in CONTROL if c in text], where
    raw = (record / "critic-r2-response.md").read_bytes().decode()  # no newline translation
    assert all(c in raw for c in CONTROL)  # the record keeps what the CLI really sent


def test_an_unquoted_question_before_the_files_is_taken_whole(tmp_path):
    # `/debate Should we cache? --files app.py`, as people type it
    project = Project(tmp_path)
    run = project.run(
        "debate", "Should", "we", "cache", "sessions?", "--files", "app.py", "--sim", "--json"
    )
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    assert result["question"] == "Should we cache sessions?"
    assert [f["path"] for f in result["context"]["files"]] == ["app.py"]


def test_a_question_of_dollar_signs_and_backticks_arrives_as_text(tmp_path):
    project = Project(tmp_path)
    asked = "Is $(rm -rf /) or `id` or $HOME safe to log?"
    run = project.run("debate", asked, "--sim", "--json")
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["question"] == asked


@pytest.mark.parametrize(
    ("question", "stdin", "message"),
    [
        ("@/dev/zero", None, "the question holds NUL bytes"),
        ("-", b"\x00", "the question holds NUL bytes"),  # argv cannot carry one
        ("\x1b\x07\x1b", None, "the question holds only control characters"),
        ("-", b"why? " * 2_000_000, "over the 16,000 a question may have"),  # 10 MB
    ],
    ids=["dev-zero", "one-nul", "control-only", "endless-stdin"],
)
def test_a_question_that_is_no_text_or_never_ends_is_refused_at_once(
    tmp_path, question, stdin, message
):
    project = Project(tmp_path)
    run = subprocess.run(
        project.argv("debate", question, "--sim"),
        cwd=project.root,
        env=project.env(),
        capture_output=True,
        input=stdin,
        timeout=60,
    )
    assert run.returncode == 2, run.stderr
    assert message in run.stderr.decode()
    assert project.records() == []


# -- skill install into a home it cannot use ---------------------------------------------------


def _manifest(project: Project) -> Path:
    return project.home / ".local" / "share" / "council" / "installed.json"


def manifest_is(content: bytes | None) -> Callable[[Project], None]:
    def setup(project: Project) -> None:
        _manifest(project).parent.mkdir(parents=True)
        if content is None:
            _manifest(project).mkdir()
        else:
            _manifest(project).write_bytes(content)

    return setup


SKILL_CASES: list[tuple[str, Callable[[Project], None], str]] = [
    ("a manifest that is a directory", manifest_is(None), "cannot read council's manifest"),
    ("a manifest of garbage JSON", manifest_is(b"{x"), "not a manifest council can read"),
    ("a manifest of the wrong shape", manifest_is(b'{"files": [1]}'), "not a manifest council"),
]


@pytest.mark.parametrize(
    ("setup", "message"), [c[1:] for c in SKILL_CASES], ids=[c[0] for c in SKILL_CASES]
)
def test_skill_install_with_a_manifest_it_did_not_expect_is_a_usage_error(tmp_path, setup, message):
    project = Project(tmp_path)
    setup(project)
    run = project.run("skill", "install", "--host", "claude", "--scope", "user")
    assert run.returncode == 2, run.stderr
    assert f"{_manifest(project)}: {message}" in run.stderr
    assert "Traceback" not in run.stderr and "internal error" not in run.stderr
    assert not (project.home / ".claude").exists()


def test_skill_install_into_a_read_only_home_names_it_and_writes_nothing(open_project):
    home = open_project.root / "home"
    home.mkdir(mode=0o555)
    run = as_ordinary_user(
        open_project, "skill", "install", "--host", "claude", "--scope", "user", home=home
    )
    assert run.returncode == 2, run.stderr
    assert f"{home} is read-only; nothing was written" in run.stderr
    assert "Traceback" not in run.stderr and "internal error" not in run.stderr
    assert list(home.iterdir()) == []


def test_without_home_council_writes_nothing_outside_the_project(tmp_path):
    project = Project(tmp_path)
    env = {k: v for k, v in project.env().items() if k != "HOME"}
    user = subprocess.run(
        project.argv("skill", "install", "--host", "claude", "--scope", "user"),
        cwd=project.root, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert user.returncode == 2, user.stderr
    assert "HOME is not set: set it, or install into the project (--scope project)" in user.stderr
    for argv in (
        ("skill", "install", "--host", "claude", "--scope", "project"),
        ("debate", QUESTION, "--sim"),
        ("list",),
    ):
        run = subprocess.run(
            project.argv(*argv), cwd=project.root, env=env, capture_output=True, text=True,
            timeout=120, stdin=subprocess.DEVNULL,
        )  # fmt: skip
        assert run.returncode == 0, (argv, run.stderr)
    assert (project.root / ".claude" / "commands" / "debate.md").is_file()
    assert list(project.home.iterdir()) == []  # nor in the home it would have had
