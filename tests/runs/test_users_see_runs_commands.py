"""The run commands as a user types them (docs/spec/commands.md, "council list / show ID /
wait ID ..."; README "council status last ; council list"): `list` newest first and `last`
the newest run, debates and reviews alike; an id given by any unique prefix, with or without
its kind; `wait --timeout 0` answers at once: the result of a run that ended, with its own
exit code, or 75 for one still running."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from project import QUESTION, Project
from review.helpers import SERVICE

# A bound on a hang, not a speed check: `wait --timeout 0` must never block on a live run.
HANG_BOUND_S = 30.0


def new_project(root: Path) -> Project:
    project = Project(root)
    (project.root / "service.py").write_text(SERVICE)
    return project


def start(project: Project, kind: str, *extra: str) -> str:
    """Run a debate or a review on the simulator to its end; its id."""
    if kind == "debate":
        args = ["debate", QUESTION, "--sim", "--json", *extra]
    else:
        args = ["review", "--files", "service.py", "--sim", "--format", "json", *extra]
    run = project.run(*args)
    assert run.returncode in (0, 5, 6), run.stderr
    return json.loads(run.stdout)["id"]


def shown_id(project: Project, ref: str) -> str:
    shown = project.run("show", ref, "--json")
    assert shown.returncode == 0, shown.stderr
    return json.loads(shown.stdout)["id"]


@pytest.mark.timeout(240)  # three runs and four commands: a bound on a hang on a busy machine
def test_list_is_newest_first_and_last_is_the_newest_whether_debate_or_review(tmp_path):
    project = new_project(tmp_path)
    made: list[str] = []
    for kind in ("debate", "review", "debate"):
        made.append(start(project, kind))
        assert made[-1].startswith(f"{kind}-")
        assert shown_id(project, "last") == made[-1]
    listed = json.loads(project.run("list", "--json").stdout)
    assert [r["id"] for r in listed] == made[::-1]
    lines = project.run("list").stdout.splitlines()
    assert [line.split()[0] for line in lines] == made[::-1]


def _without_kind(run_id: str) -> str:
    return run_id.split("-", 1)[1]


def _shared(one: str, two: str) -> str:
    """The characters `one` and `two` begin with alike."""
    size = next(
        (i for i, (a, b) in enumerate(zip(one, two, strict=False)) if a != b),
        min(len(one), len(two)),
    )
    return one[:size]


def _shortest_unique(run_id: str, other: str) -> str:
    """The shortest prefix of `run_id`'s time stamp and suffix that `other`'s does not share."""
    mine, theirs = _without_kind(run_id), _without_kind(other)
    return mine[: len(_shared(mine, theirs)) + 1]


# How a user names a run: (how, the reference built from the run's id and the other run's).
REFERENCES = [
    ("whole id", lambda me, other: me),
    ("id less its last character", lambda me, other: me[:-1]),
    ("without the kind", lambda me, other: _without_kind(me)),
    ("without the kind, shortened", lambda me, other: _without_kind(me)[:-2]),
    ("shortest unique, without the kind", _shortest_unique),
    ("the record's path", lambda me, other: f".scratchpad/{me}/"),
]


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Project, dict[str, str]]:
    """A project with a debate and then a review: the project and the id of each."""
    project = new_project(tmp_path_factory.mktemp("runs"))
    return project, {"debate": start(project, "debate"), "review": start(project, "review")}


@pytest.mark.parametrize("kind", ["debate", "review"])
@pytest.mark.parametrize(("how", "reference"), REFERENCES, ids=[r[0] for r in REFERENCES])
def test_a_run_is_found_by_any_unique_prefix_with_or_without_its_kind(
    two_runs, kind, how, reference
):
    project, ids = two_runs
    other = ids["review" if kind == "debate" else "debate"]
    ref = reference(ids[kind], other)
    assert shown_id(project, ref) == ids[kind], ref


def test_a_prefix_both_runs_share_is_refused_naming_both(two_runs):
    project, ids = two_runs
    shared = _shared(_without_kind(ids["debate"]), _without_kind(ids["review"]))
    refused = project.run("show", shared)
    assert refused.returncode == 2
    assert f"'{shared}' matches 2 runs" in refused.stderr
    assert ids["debate"] in refused.stderr and ids["review"] in refused.stderr


# A run that ended: what `wait ID --timeout 0` prints and exits with, as the run did.
ENDED = [
    ("debate", (), 0),
    ("debate", ("--critic", "sim-broken"), 5),  # no challenge came: degraded
    ("review", ("--fail-on", "high"), 6),  # the simulators confirm each other's findings
]
BROKEN_CRITIC = (
    "clis:\n  sim-broken:\n    adapter: sim\n    env:\n"
    "      COUNCIL_SIM_EXIT: '1'\n      COUNCIL_SIM_PHASES: CHALLENGE\n"
)


@pytest.mark.parametrize(
    ("kind", "extra", "code"),
    ENDED,
    ids=["debate-completed", "debate-degraded", "review-blocking"],
)
def test_wait_with_no_time_at_all_prints_an_ended_runs_result_with_its_code(
    tmp_path, kind, extra, code
):
    project = new_project(tmp_path)
    project.write_config(BROKEN_CRITIC)
    run_id = start(project, kind, *extra)
    waited = project.run("wait", run_id, "--timeout", "0", timeout=HANG_BOUND_S)
    assert waited.returncode == code, waited.stderr
    record = project.root / ".scratchpad" / run_id
    # As the run itself printed it: a debate's DECISION, a review in its own --format (json).
    if kind == "debate":
        assert waited.stdout == (record / "decision.md").read_text()
    else:
        assert json.loads(waited.stdout) == json.loads((record / "result.json").read_text())
    assert waited.stderr.splitlines()[-1] == f"saved: .scratchpad/{run_id}/"


def test_wait_with_no_time_at_all_on_a_running_run_exits_75_at_once(tmp_path):
    project = new_project(tmp_path)
    started = project.run(
        "debate", QUESTION, "--sim", "--detach", "--json", COUNCIL_SIM_HANG="1"
    )  # fmt: skip
    assert started.returncode == 0, started.stderr
    run_id = json.loads(started.stdout)["id"]
    try:
        waited = project.run("wait", run_id[:-1], "--timeout", "0", timeout=HANG_BOUND_S)
        assert waited.returncode == 75, waited.stderr
        assert waited.stdout == ""
        assert f"still running: {run_id} running · " in waited.stderr
        assert f"wait again: council wait {run_id} --since " in waited.stderr
    finally:
        cancelled = project.run("cancel", run_id, timeout=120)
        assert cancelled.returncode == 0, cancelled.stderr
