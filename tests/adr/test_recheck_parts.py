"""`council adr --recheck` in-process (docs/spec/commands.md "council adr", "Recheck"): what is
read from the ADR, the question put to the new panel, the verdict read from the ruling, the
section appended and the exit code. The new debate is stood in for by its outcome (its
DECISION and exit code): the whole run on the simulator is tests/adr/test_adr.py's."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from types import SimpleNamespace

import pytest

from council.adr import recheck as rechecking
from council.adr.recheck import read_adr, recheck_question, verdict_of
from council.config import Config
from council.debate.flags import DebateFlags
from council.errors import ExitCode, NoUsableCliError, UsageError
from council.progress import Progress
from council.runs.record import Record

NEW = "debate-20261128-160000-new1"
MADR = """\
---
status: accepted
date: 2026-01-10
---

# Keep sessions in memory

## Context and Problem Statement

Sessions are small.

## Decision Outcome

Chosen option: "memory", because it is fast.

### Votes

| critic | agree | fine |

## More Information

Record: x
"""
NYGARD = """\
# 3. Use Postgres

* Date: 2026-02-01

## Status

Accepted

## Decision

We will use Postgres.

## Consequences

Backups.
"""


def test_what_is_read_from_a_madr_record(tmp_path):
    path = tmp_path / "0002-keep-sessions-in-memory.md"
    path.write_text(MADR)
    recorded = read_adr(path)
    assert (recorded.title, recorded.date) == ("Keep sessions in memory", "2026-01-10")
    # The votes are how it was decided, not what: left out.
    assert recorded.decision == 'Chosen option: "memory", because it is fast.'
    assert recheck_question(recorded) == (
        "Recheck of an architecture decision (0002-keep-sessions-in-memory.md, recorded "
        '2026-01-10): "Keep sessions in memory". It decided:\n\nChosen option: "memory", '
        "because it is fast.\n\nGiven the current files, does this decision still hold? Begin "
        "the recommendation with one word: UNCHANGED (it holds as written), REFINED (it holds "
        "with adjustments; name them) or CHANGED (it no longer holds; say what replaces it)."
    )


def test_what_is_read_from_a_nygard_record_and_its_latest_recheck(tmp_path):
    path = tmp_path / "0003-use-postgres.md"
    path.write_text(
        NYGARD + "\n## Rechecked 2026-03-01\n\nVerdict: **refined**.\n"
        "\n## Rechecked 2026-06-01\n\nVerdict: **changed**.\n"
    )
    recorded = read_adr(path)
    assert (recorded.title, recorded.date) == ("Use Postgres", "2026-02-01")
    assert recorded.decision == ("We will use Postgres.\n\nLatest recheck: Verdict: **changed**.")


def test_a_long_decision_is_cut_for_the_question_and_a_dateless_one_says_no_date(tmp_path):
    path = tmp_path / "x.md"
    path.write_text("# X\n\n## Decision\n\n" + " ".join(["word"] * 400) + "\n")
    question = recheck_question(read_adr(path))
    assert question.startswith('Recheck of an architecture decision (x.md): "X". It decided:')
    decided = question.split("It decided:\n\n", 1)[1].split("\n\nGiven the current files", 1)[0]
    assert decided.split() == ["word"] * 300


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("# X\n\n## Context\n\nWhy.\n", "has no `## Decision Outcome` or `## Decision` section"),
        (b"\xff\xfe# X", "not UTF-8 text"),
        (None, "No such file or directory"),
    ],
)
def test_an_adr_council_cannot_recheck_is_refused(tmp_path, text, said):
    path = tmp_path / "0001-x.md"
    if isinstance(text, bytes):
        path.write_bytes(text)
    elif text is not None:
        path.write_text(text)
    with pytest.raises(UsageError) as refused:
        read_adr(path)
    assert said in str(refused.value) and str(path) in str(refused.value)


@pytest.mark.parametrize(
    ("recommendation", "verdict"),
    [
        ("CHANGED: move to Postgres.", "changed"),
        ("[SIMULATED] **Refined** - add an expiry.", "refined"),
        ("> `unchanged`", "unchanged"),
        ("Unchanged.", "unchanged"),
        ("The decision is unchanged.", "unclear"),  # not its first word
        ("Changedness aside, keep it.", "unclear"),
        ("", "unclear"),
    ],
)
def test_the_verdict_is_the_recommendations_first_word(recommendation, verdict):
    assert verdict_of(recommendation) == verdict


def outcome(tmp_path: Path, recommendation: str | None, code: ExitCode, error=None):
    """What the new debate ended with, as `start` returns it."""
    record = tmp_path / "project" / ".scratchpad" / NEW
    record.mkdir(parents=True, exist_ok=True)
    decision = None
    if recommendation is not None:
        decision = {
            "recommendation": recommendation,
            "synthesized": True,
            "tally": {"agree": 2, "revise": 0, "disagree": 1, "no_vote": 0},
        }
    return SimpleNamespace(
        result={"decision": decision}, error=error, record=Record(record), exit_code=code
    )


@pytest.fixture
def adr_file(tmp_path: Path) -> Path:
    path = tmp_path / "project" / "docs" / "adr" / "0002-keep-sessions-in-memory.md"
    path.parent.mkdir(parents=True)
    path.write_text(MADR)
    path.chmod(0o640)
    return path


def run_recheck(monkeypatch, adr_file: Path, ran) -> tuple[object, list]:
    asked = []

    def start(protocol, flags, config, progress):
        asked.append(flags)
        return ran

    monkeypatch.setattr("council.panel.run.start", start)
    flags = DebateFlags(question="", files=("app.py",))
    cwd = adr_file.parents[2]
    done = rechecking.recheck(adr_file, flags, Config(), Progress(quiet=True), cwd=cwd)
    return done, asked


@pytest.mark.parametrize(
    ("ruling", "debate_code", "verdict", "code"),
    [
        ("CHANGED: keep them in Postgres.", ExitCode.OK, "changed", 7),
        ("CHANGED: keep them in Postgres.", ExitCode.DEGRADED, "changed", 7),
        ("Unchanged.", ExitCode.OK, "unchanged", 0),
        ("Unchanged.", ExitCode.DEGRADED, "unchanged", 5),  # the new debate was degraded
        ("REFINED: add an expiry.", ExitCode.OK, "refined", 0),
        ("Keep it.", ExitCode.OK, "unclear", 5),
    ],
)
def test_the_verdict_is_appended_and_decides_the_exit_code(
    monkeypatch, tmp_path, adr_file, ruling, debate_code, verdict, code
):
    ran = outcome(tmp_path, ruling, debate_code)
    question = recheck_question(read_adr(adr_file))
    done, asked = run_recheck(monkeypatch, adr_file, ran)
    (flags,) = asked
    assert flags.question == question
    assert flags.files == ("app.py",)  # the panel's own options are kept
    assert (done.verdict, done.exit_code, done.record_id) == (verdict, code, NEW)
    assert done.to_json() == {"verdict": verdict, "record": NEW, "exit_code": code}
    said = (
        verdict
        if verdict != "unclear"
        else ("unclear (the new DECISION named none of unchanged, refined, changed; read it)")
    )
    section = (
        f"## Rechecked {date.today().isoformat()}\n\nVerdict: **{said}**.\n\n"
        f"New ruling: {ruling}\n\nVotes: agree 2, revise 0, disagree 1, no vote 0.\n\n"
        f"New record: [`{NEW}`](../../.scratchpad/{NEW}/decision.md) "
        f"(`.scratchpad/{NEW}/`; `council show {NEW}`)\n"
    )
    assert done.section == section
    assert adr_file.read_text() == MADR + "\n" + section
    assert adr_file.stat().st_mode & 0o777 == 0o640  # its mode is kept


def test_the_new_ruling_is_cut_to_its_first_120_words(monkeypatch, tmp_path, adr_file):
    ruling = "UNCHANGED " + " ".join(f"w{i}" for i in range(200))
    done, _ = run_recheck(monkeypatch, adr_file, outcome(tmp_path, ruling, ExitCode.OK))
    (line,) = [li for li in done.section.splitlines() if li.startswith("New ruling: ")]
    assert len(line.removeprefix("New ruling: ").split()) == 120


def test_a_recheck_that_reached_no_decision_leaves_the_adr_as_it_was(
    monkeypatch, tmp_path, adr_file
):
    ran = outcome(tmp_path, None, ExitCode.DEGRADED)
    with pytest.raises(UsageError) as refused:
        run_recheck(monkeypatch, adr_file, ran)
    assert str(refused.value) == f"{NEW} reached no DECISION; the ADR is left as it was"
    failed = NoUsableCliError("no AI CLI found for the lead seat")
    with pytest.raises(NoUsableCliError):
        run_recheck(monkeypatch, adr_file, outcome(tmp_path, None, ExitCode.NO_CLI, failed))
    unsynthesized = outcome(tmp_path, "As it stands.", ExitCode.DEGRADED)
    unsynthesized.result["decision"]["synthesized"] = False
    with pytest.raises(UsageError):
        run_recheck(monkeypatch, adr_file, unsynthesized)
    assert adr_file.read_text() == MADR
