"""`--output` is never one of the run's own inputs (docs/spec/commands.md): a question read
from a file (`@q.md`) is an input as much as `--files`, and writing the result over it is
refused before any CLI runs, with exit 2 and the file untouched. And a run that ended with an
error still says where its record is."""

from __future__ import annotations

from pathlib import Path

import pytest

from project import Project


@pytest.mark.parametrize("output", ["q.md", "./q.md"])  # click shows ./q.md as q.md
def test_the_question_file_is_never_the_output(tmp_path: Path, output):
    project = Project(tmp_path)
    question = project.root / "q.md"
    question.write_text("Redis or Postgres for sessions?\n")
    run = project.run("debate", "@q.md", "--sim", "--output", output)
    assert run.returncode == 2
    assert run.stderr == (
        "council: --output q.md is one of the run's own inputs and would be overwritten; "
        "write the result somewhere else\n"
    )
    assert question.read_text() == "Redis or Postgres for sessions?\n"
    assert project.records() == []


def test_a_run_that_failed_still_says_where_its_record_is(tmp_path: Path):
    # docs/spec/commands.md: the error, then the record's path, on stderr; `resume` needs it.
    project = Project(tmp_path)
    run = project.run(
        "debate", "Redis or Postgres?", "--sim", COUNCIL_SIM_EXIT="1", COUNCIL_SIM_PHASES="PROPOSAL"
    )
    assert run.returncode == 3
    record = project.record().name
    lines = run.stderr.splitlines()
    assert lines[-2].startswith("council: the advocate (sim) could not write the proposal: ")
    assert lines[-2].endswith(f"fix that, then `council resume {record}`")
    assert lines[-1] == f"saved: .scratchpad/{record}/"
