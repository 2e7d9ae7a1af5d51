"""The READY handshake's window on a slow machine (docs/spec/protocol.md, "READY handshake":
each seat has `debate.ready_timeout_s` to report READY, "and its probe may take all of it: a
slow `--version` on a loaded machine is not a broken CLI"; the review does the same for its
reviewers). A seat whose `--version` answers after 11 s, longer than a CLI's usual probe
deadline (10 s) and than half the window, inside a 20 s window, sits and answers; one that
misses the window is restarted once, then dropped with a warning."""

from __future__ import annotations

from pathlib import Path

import pytest

from project import QUESTION, Project, late_ready_sim

SLOW_PROBE_S = 11  # past the 10 s a probe gets elsewhere (doctor), and past half the window
WINDOW_S = 20  # the margin (9 s) is for the loaded machine this test is about


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)


def slow_seat(project: Project, window_s: float, probe_s: float) -> None:
    # The probe waits for a call that never comes, up to `probe_s`: a `--version` that slow.
    seat = late_ready_sim(project, "slowcli", after="NO-SUCH-PHASE", cap_s=probe_s)
    project.write_config(f"debate:\n  ready_timeout_s: {window_s}\nclis:\n{seat}")


@pytest.mark.parametrize(
    "args",
    [
        ("debate", QUESTION, "--advocate", "sim", "--critic", "slowcli", "--lead", "sim"),
        ("review", "--files", "app.py", "--with", "sim,slowcli"),
    ],
    ids=["debate", "review"],
)
def test_a_probe_that_takes_long_but_inside_the_window_is_not_a_failure(project, args):
    slow_seat(project, WINDOW_S, SLOW_PROBE_S)
    run = project.run(*args, "--json")
    assert run.returncode == 0, run.stderr
    assert "missed READY" not in run.stderr and "dropped" not in run.stderr
    readies = {m["from"] for m in project.transcript() if m["kind"] == "ready"}
    assert any("slowcli" in seat or seat == "critic" for seat in readies), readies
    assert '"status": "completed"' in run.stdout


def test_a_probe_that_outlasts_the_window_twice_drops_the_seat_with_a_warning(project):
    slow_seat(project, 2, 30)
    run = project.run(
        "debate", QUESTION, "--advocate", "sim", "--critic", "slowcli", "--lead", "sim"
    )
    assert run.returncode != 1, run.stderr
    assert "critic missed READY; restarting it once" in run.stderr
    assert "no READY within 2s (restarted once)" in run.stderr
