"""`council adr ID` through click's CliRunner, on debate records made by hand
(docs/spec/commands.md "council adr"): what it prints, where it writes and under which number,
and every refusal (one line, exit 2, nothing written): a debate still running or ended without
a DECISION, a file already at the next path, a recheck's option without `--recheck`."""

from __future__ import annotations

import fcntl
import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from adr.made import RECORD, made_debate
from council.cli import cli

SLUG = "redis-or-postgres-for-sessions"
OTHER = "debate-20261128-150000-zz99"


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    return project


def adr(*args: str):
    return CliRunner().invoke(cli, ["adr", *args])


def test_it_prints_the_path_written_and_says_which_adr_on_stderr(root):
    made_debate(root / ".scratchpad")
    run = adr("last")
    assert run.exit_code == 0, run.output
    assert run.stdout == f"docs/decisions/0001-{SLUG}.md\n"
    assert run.stderr == f"ADR 1 (madr) written from {RECORD}\n"
    text = (root / f"docs/decisions/0001-{SLUG}.md").read_text()
    assert text.startswith("---\nstatus: accepted\ndate: 2026-11-28\n")
    link = f"../../.scratchpad/{RECORD}/decision.md"
    assert f"\nRecord: [`{RECORD}`]({link}) (`.scratchpad/{RECORD}/`;" in text
    assert (root / "docs/decisions" / link).resolve() == root / f".scratchpad/{RECORD}/decision.md"


def test_json_says_the_path_number_template_and_record(root):
    made_debate(root / ".scratchpad")
    (root / "doc/adr").mkdir(parents=True)
    (root / "doc/adr/004-use-x.md").write_text("# 4. Use X\n\n## Status\n\nAccepted\n")
    run = adr(RECORD[:14], "--json")
    assert run.exit_code == 0, run.output
    assert json.loads(run.stdout) == {
        "path": f"doc/adr/005-{SLUG}.md",
        "number": 5,
        "template": "nygard",
        "record": RECORD,
    }
    assert run.stderr == ""
    written = (root / f"doc/adr/005-{SLUG}.md").read_text()
    assert written.startswith("# 5. Redis or Postgres for sessions?\n")


def test_dir_wins_over_the_config_and_the_link_climbs_out_of_it(root):
    made_debate(root / ".scratchpad")
    (root / "council.yaml").write_text("adr:\n  dir: records\n")
    (root / "docs/adr").mkdir(parents=True)
    run = adr("last", "--dir", "a/b/c")
    assert run.exit_code == 0, run.output
    assert run.stdout == f"a/b/c/0001-{SLUG}.md\n"
    text = (root / run.stdout.strip()).read_text()
    assert f"(../../../.scratchpad/{RECORD}/decision.md)" in text
    made_debate(root / ".scratchpad", OTHER)
    run = adr(OTHER)
    assert run.stdout == f"records/0001-{SLUG}.md\n"  # the config's, not docs/adr
    assert f"(../.scratchpad/{OTHER}/decision.md)" in (root / run.stdout.strip()).read_text()


def test_the_records_are_read_from_the_scratchpad_given(root):
    made_debate(root / "pad")
    run = adr("last", "--scratchpad", "pad")
    assert run.exit_code == 0, run.output
    assert f"(`pad/{RECORD}/`; `council show {RECORD}`)" in (root / run.stdout.strip()).read_text()
    assert adr("last").exit_code == 2  # nothing in .scratchpad


def test_a_degraded_debate_with_a_decision_is_written_as_proposed(root):
    made_debate(root / ".scratchpad", status="degraded")
    run = adr("last")
    assert run.exit_code == 0, run.output
    assert "\nstatus: proposed\n" in (root / run.stdout.strip()).read_text()


NO_DECISION = "ended {status} without a DECISION; an ADR needs a finished debate (council resume {id}, or run it again)"  # noqa: E501


@pytest.mark.parametrize(
    ("status", "decision"),
    [
        ("failed", "made"),
        ("interrupted", "made"),
        ("completed", None),
        ("degraded", {"recommendation": "As it stands.", "synthesized": False}),
    ],
)
def test_a_debate_without_a_decision_is_refused(root, status, decision):
    made_debate(root / ".scratchpad", status=status, decision=decision)
    run = adr("last")
    assert run.exit_code == 2
    said = NO_DECISION.format(status=status, id=RECORD)
    assert run.stderr == f"council: {RECORD} {said}\n"
    assert not (root / "docs").exists()


def test_a_check_is_no_debate_to_write_down(root):
    check = root / ".scratchpad" / "check-20261128-143005-k3x9"
    check.mkdir(parents=True)
    (check / "state.json").write_text('{"status": "completed", "plan": {}}')
    run = adr("last")
    assert run.exit_code == 2
    assert run.stderr == (
        f"council: {check.name} is a check, not a debate: an ADR is written from a debate's "
        "DECISION\n"
    )
    assert not (root / "docs").exists()


def test_a_debate_still_running_is_refused(root):
    record = made_debate(root / ".scratchpad", status="running")
    fd = os.open(record, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # as the running debate's process holds it
        run = adr("last")
    finally:
        os.close(fd)
    assert run.exit_code == 2
    assert run.stderr == (
        f"council: {RECORD} is still running; wait for its DECISION (council wait {RECORD})\n"
    )
    assert not (root / "docs").exists()
    # Nobody holds it: its process died, and it ended interrupted, without a DECISION.
    run = adr("last")
    assert run.stderr.startswith(f"council: {RECORD} ended interrupted without a DECISION")


@pytest.mark.parametrize("kind", ["dangling link", "directory"])
def test_a_file_at_the_next_path_is_never_overwritten(root, kind):
    made_debate(root / ".scratchpad")
    decisions = root / "docs/decisions"
    decisions.mkdir(parents=True)
    (decisions / "0001-use-x.md").write_text("# Use X\n\n## Decision Outcome\n\nX.\n")
    taken = decisions / f"0002-{SLUG}.md"
    target = root / "elsewhere.md"
    if kind == "directory":
        taken.mkdir()
    else:
        taken.symlink_to(target)
    run = adr("last")
    assert run.exit_code == 2
    assert run.stderr == (
        f"council: docs/decisions/0002-{SLUG}.md exists; council adr never overwrites a file\n"
    )
    assert not target.exists()
    assert sorted(p.name for p in decisions.iterdir()) == ["0001-use-x.md", f"0002-{SLUG}.md"]


def test_an_adr_of_another_debate_does_not_stop_this_one(root):
    made_debate(root / ".scratchpad")
    made_debate(root / ".scratchpad", OTHER)
    assert adr(RECORD).exit_code == 0
    # Naming the debate elsewhere than in its `Record:` line is not having been written from it.
    first = root / f"docs/decisions/0001-{SLUG}.md"
    first.write_text(first.read_text() + f"\nSee also `{OTHER}`.\n")
    run = adr(OTHER)
    assert run.exit_code == 0, run.output
    assert run.stdout == f"docs/decisions/0002-{SLUG}.md\n"
    again = adr(RECORD)
    assert again.exit_code == 2
    assert again.stderr.startswith(
        f"council: docs/decisions/0001-{SLUG}.md was already written from {RECORD}; "
    )


@pytest.mark.parametrize(
    ("args", "flag"),
    [
        (("--with", "codex"), "--with"),
        (("--advocate", "claude"), "--advocate"),
        (("--critic", "codex"), "--critic"),
        (("--lead", "claude"), "--lead"),
        (("--preset", "quick"), "--preset"),
        (("--quorum", "1"), "--quorum"),
        (("--max-cost", "2"), "--max-cost"),
        (("--files", "app.py"), "--files"),
        (("--diff", "main"), "--diff"),
        (("--model", "codex=o3"), "--model"),
        (("--effort", "high"), "--effort"),
        (("--timeout", "codex=30"), "--timeout"),
        (("--sim",), "--sim"),
        (("--no-blind",), "--no-blind"),
        (("--cold",), "--cold"),
        (("--no-lean",), "--no-lean"),
        (("--allow-outside",), "--allow-outside"),
        (("--allow-secrets",), "--allow-secrets"),
    ],
)
def test_a_recheck_option_without_recheck_is_refused_by_its_flag(root, args, flag):
    made_debate(root / ".scratchpad")
    (root / "app.py").write_text("x = 1\n")
    run = adr("last", *args)
    assert run.exit_code == 2
    assert run.stderr == f"council: {flag} is an option of --recheck (its new panel); drop it\n"
    assert not (root / "docs").exists()


def test_recheck_takes_no_directory(root):
    (root / "0001-x.md").write_text("# X\n\n## Decision\n\nX.\n")
    run = adr("--recheck", "0001-x.md", "--dir", "records")
    assert run.exit_code == 2
    assert run.stderr == (
        "council: --recheck takes the ADR file alone; drop --dir (its new panel's options: "
        "--with, --rounds, --files, ...)\n"
    )


def test_a_directory_outside_the_project_is_printed_whole(root, tmp_path):
    made_debate(root / ".scratchpad")
    outside = tmp_path / "shared-decisions"
    run = adr("last", "--dir", str(outside))
    assert run.exit_code == 0, run.output
    assert run.stdout == f"{outside}/0001-{SLUG}.md\n"
    text = (outside / f"0001-{SLUG}.md").read_text()
    assert f"(../project/.scratchpad/{RECORD}/decision.md)" in text


def test_a_directory_that_cannot_be_made_is_one_line(root):
    made_debate(root / ".scratchpad")
    (root / "notes.md").write_text("x")
    run = adr("last", "--dir", "notes.md/decisions")
    assert run.exit_code == 2
    assert run.stderr == (
        f"council: cannot write notes.md/decisions/0001-{SLUG}.md: Not a directory; give --dir\n"
    )
