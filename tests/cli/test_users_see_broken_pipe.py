"""stdout's reader gone (`council debate ... | head -1`, a host that closed its end): exit 141
(README, "Exit codes": "141 the reader of stdout went away"), no traceback, and nothing lost
on disk: the run's record holds its whole result, which `council show` prints afterwards.
The reader is gone before council starts (a pipe with its read end closed), so every write to
stdout meets it, whatever the machine's speed."""

from __future__ import annotations

import json

from project import QUESTION, Project

BROKEN_PIPE = 141


def test_every_command_that_prints_exits_141_when_its_reader_went_away(tmp_path):
    project = Project(tmp_path)
    rows = [
        ("debate", QUESTION, "--sim", "--files", "app.py", "--output", "decision-copy.md"),
        ("show", "last"),
        ("show", "last", "--json"),
        ("list",),
        ("status", "last"),
        ("review", "--files", "app.py", "--sim", "--json"),
    ]
    seen, said = {}, []
    for args in rows:
        done = project.run_with_reader_gone(*args)
        said.append(done.stderr)
        clean = "Traceback" not in done.stderr and "Exception ignored" not in done.stderr
        seen[" ".join(args[:2])] = (done.returncode, clean)
    assert seen == {" ".join(args[:2]): (BROKEN_PIPE, True) for args in rows}
    # stderr is still there: the runs' last line says where their records are
    assert "saved: .scratchpad/debate-" in said[0] and "saved: .scratchpad/review-" in said[-1]

    # Nothing lost: both runs ended complete, their results on disk and shown again.
    debate, review = project.records()
    for record in (debate, review):
        result = json.loads((record / "result.json").read_text())
        assert result["status"] == "completed", record
    assert (debate / "decision.md").read_text().startswith(f"# DECISION (SIMULATED): {QUESTION}")
    assert (review / "review.md").is_file() and (review / "review.sarif").is_file()
    # the copy `--output` asked for is written too, the printed result's reader gone or not
    copy = project.root / "decision-copy.md"
    assert copy.is_file() and copy.read_text() == (debate / "decision.md").read_text()
    shown = project.run("show", debate.name)
    assert shown.returncode == 0 and (debate / "decision.md").read_text() in shown.stdout
