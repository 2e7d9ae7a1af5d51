"""The commands that live with runs, in process (docs/spec/commands.md "council list / show ID
/ wait ID / resume ID / status ID / cancel ID", "council adr"): what `list` prints for each run
and how many, what `status`, `show` and `wait` print of a real debate, review and check run
once on the simulator, the code `wait` exits with, and what `adr` refuses or writes."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from click.testing import CliRunner

from council.cli import cli
from council.errors import UsageError

QUESTION = "Should the sessions service cache sessions in Redis or Postgres?"


def council(*argv: str) -> Any:
    return CliRunner().invoke(cli, list(argv), prog_name="council")


# -- list, from the summaries the store gives ----------------------------------------------


def summary(n: int, **fields: Any) -> SimpleNamespace:
    shown = {
        "id": f"debate-20261128-1430{n:02d}-ab{n:02d}",
        "status": "completed",
        "rounds": 3,
        "rounds_run": 3,
        "question": f"Question {n}?",
        "started_at": f"2026-11-28T14:30:{n:02d}.123456+00:00",
        **fields,
    }
    return SimpleNamespace(**shown, to_json=lambda: dict(shown))


@pytest.fixture
def listed(project: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """The runs `list` finds: `runs` (newest first), and where it looked (`pad`)."""
    seen: dict[str, Any] = {"runs": []}

    def records(pad: Path) -> list[SimpleNamespace]:
        seen["pad"] = pad
        return seen["runs"]

    def summarize(record: SimpleNamespace) -> SimpleNamespace:
        if getattr(record, "damage", None) is not None:
            raise record.damage
        return record

    monkeypatch.setattr("council.runs.store.records", records)
    monkeypatch.setattr("council.runs.store.summarize", summarize)
    return seen


LINES = [
    # (the run, its line)
    (
        summary(1),
        "debate-20261128-143001-ab01  2026-11-28 14:30  completed    3/3   Question 1?",
    ),
    (
        summary(2, status="interrupted", rounds=3, rounds_run=1),
        "debate-20261128-143002-ab02  2026-11-28 14:30  interrupted  1/3   Question 2?",
    ),
    (
        summary(3, status="running", rounds=5, rounds_run=2, question="Cache\n  it   now?"),
        "debate-20261128-143003-ab03  2026-11-28 14:30  running      2/5   Cache it now?",
    ),
    (
        summary(4, question="x" * 60),
        "debate-20261128-143004-ab04  2026-11-28 14:30  completed    3/3   " + "x" * 60,
    ),
    (
        summary(5, question="y" * 61),
        "debate-20261128-143005-ab05  2026-11-28 14:30  completed    3/3   " + "y" * 57 + "...",
    ),
]


@pytest.mark.parametrize(("run", "line"), LINES)
def test_list_prints_id_date_status_rounds_run_of_requested_and_question(listed, run, line):
    listed["runs"] = [run]
    result = council("list")
    assert result.exit_code == 0
    assert result.stdout == line + "\n"


@pytest.mark.parametrize(
    ("argv", "shown"), [([], 20), (["--limit", "5"], 5), (["--limit", "1"], 1)]
)
def test_list_shows_the_newest_runs_up_to_the_limit(listed, argv, shown):
    listed["runs"] = [summary(n) for n in range(30)]
    lines = council("list", *argv).stdout.splitlines()
    assert [line.split()[0] for line in lines] == [summary(n).id for n in range(shown)]
    as_json = json.loads(council("list", "--json", *argv).stdout)
    assert [run["id"] for run in as_json] == [summary(n).id for n in range(shown)]


def test_list_json_gives_each_runs_summary(listed):
    listed["runs"] = [summary(1), summary(2)]
    result = council("list", "--json")
    assert json.loads(result.stdout) == [summary(1).to_json(), summary(2).to_json()]


def test_list_of_no_runs_says_where_it_looked_and_how_to_start(listed, project):
    result = council("list", "--scratchpad", "runs")
    assert result.exit_code == 0 and result.stdout == ""
    pad = project / "runs"
    assert result.stderr == f"no runs in {pad} yet; start one with `council debate`\n"
    assert listed["pad"] == pad
    assert json.loads(council("list", "--json").stdout) == []
    assert listed["pad"] == project / ".scratchpad"


def test_list_skips_a_damaged_record_with_one_line_and_lists_the_others(listed):
    damage = UsageError("debate-x/state.json: cannot be read")
    listed["runs"] = [summary(1), SimpleNamespace(id="debate-x", damage=damage), summary(2)]
    result = council("list")
    assert result.exit_code == 0
    assert [line.split()[0] for line in result.stdout.splitlines()] == [
        summary(1).id,
        summary(2).id,
    ]
    assert result.stderr == "council: skipped debate-x: debate-x/state.json: cannot be read\n"


# -- a debate, a review and a check, run once on the simulator ------------------------------


@pytest.fixture(scope="module")
def pad(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A scratchpad holding one finished debate, review and check (in that order)."""
    root = tmp_path_factory.mktemp("runs")
    (root / "service.py").write_text("import os\n\n\ndef run(c):\n    os.system(c)\n")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        patch.setenv("HOME", str(root / "home"))
        patch.delenv("XDG_CONFIG_HOME", raising=False)
        for argv in (
            ["debate", QUESTION, "--sim", "--timeout", "Sim=900"],
            ["review", "--files", "service.py", "--sim", "--format", "sarif"],
            ["check", QUESTION, "--sim"],
        ):
            ran = council(*argv)
            assert ran.exit_code == 0, ran.output
    return root / ".scratchpad"


def run_id(pad: Path, kind: str) -> str:
    (found,) = [p.name for p in pad.iterdir() if p.name.startswith(f"{kind}-")]
    return found


@pytest.fixture
def runs(pad: Path, project: Path) -> Path:
    """A copy of the scratchpad, as ./.scratchpad of this test's project."""
    copy = project / ".scratchpad"
    shutil.copytree(pad, copy)
    return copy


def test_a_timeout_given_per_cli_is_every_seat_of_that_cli_s_soft_timeout(runs):
    plan = json.loads((runs / run_id(runs, "debate") / "state.json").read_text())["plan"]
    assert [plan[seat]["soft_timeout_s"] for seat in ("advocate", "critic", "lead")] == [900] * 3


# The order tests read the runs where they were made: two runs started in one second are
# ordered by when their records were created, which a copy (`runs`) would redo in its own order.


def test_list_names_every_kind_of_run_newest_first(pad, project):
    listed = council("list", "--scratchpad", str(pad)).stdout
    ids = [line.split()[0] for line in listed.splitlines()]
    assert ids == [run_id(pad, "check"), run_id(pad, "review"), run_id(pad, "debate")]


@pytest.mark.parametrize("kind", ["debate", "review", "check"])
def test_status_is_one_line_and_its_json_has_the_runs_code(runs, kind):
    rid = run_id(runs, kind)
    line = council("status", rid)
    assert line.exit_code == 0
    assert line.stdout.startswith(f"{rid} completed · ") and line.stdout.count("\n") == 1
    assert "seats " in line.stdout
    status = json.loads(council("status", rid[: len(kind) + 10], "--json").stdout)
    assert status["id"] == rid and status["status"] == "completed" and status["exit_code"] == 0
    assert set(status["seats"]) == {"ok", "failed", "waiting"} and status["seats"]["failed"] == 0


@pytest.mark.parametrize(
    ("kind", "form", "file"),
    [
        ("debate", [], "decision.md"),
        ("debate", ["--md"], "decision.md"),
        ("debate", ["--json"], "result.json"),
        ("review", [], "review.md"),
        ("review", ["--sarif"], "review.sarif"),
        ("review", ["--json"], "result.json"),
        ("check", [], "check.md"),
        ("check", ["--json"], "result.json"),
    ],
)
def test_show_prints_the_records_own_file_in_the_form_asked(runs, kind, form, file):
    rid = run_id(runs, kind)
    shown = council("show", rid, *form)
    assert shown.exit_code == 0
    written = (runs / rid / file).read_text()
    if file == "result.json":
        assert json.loads(shown.stdout) == json.loads(written)
    else:
        assert shown.stdout.strip() == written.strip()


@pytest.mark.parametrize(("kind", "form"), [("debate", "--sarif"), ("check", "--sarif")])
def test_show_refuses_a_form_the_run_has_not(runs, kind, form):
    rid = run_id(runs, kind)
    shown = council("show", rid, form)
    assert shown.exit_code == 2
    assert shown.stderr == f"council: {rid} is a {kind}: {form} is not one of its forms\n"


def test_show_html_of_a_check_says_it_has_no_page(runs):
    rid = run_id(runs, "check")
    shown = council("show", rid, "--html")
    assert shown.exit_code == 2 and shown.stdout == ""
    assert shown.stderr == (
        f"council: {rid} is a check: it has no HTML page; read it with `council show {rid}` "
        "(or --json)\n"
    )
    assert not (runs / rid / "report.html").exists()


def test_show_last_is_the_newest_run(pad, project):
    shown = council("show", "last", "--json", "--scratchpad", str(pad)).stdout
    assert json.loads(shown)["id"] == run_id(pad, "check")


@pytest.mark.parametrize(
    ("kind", "argv", "printed"),
    [
        ("debate", [], "decision.md"),
        ("debate", ["--json"], "result.json"),
        ("review", [], "review.sarif"),  # the review's own --format
        ("review", ["--json"], "result.json"),
        ("check", [], "check.md"),
    ],
)
def test_wait_on_an_ended_run_prints_its_result_as_the_run_would(runs, kind, argv, printed):
    rid = run_id(runs, kind)
    waited = council("wait", rid, *argv)
    assert waited.exit_code == 0
    written = (runs / rid / printed).read_text()
    if printed.endswith(".json"):
        assert json.loads(waited.stdout) == json.loads(written)
    else:
        assert waited.stdout.strip() == written.strip()
    assert waited.stderr.splitlines()[-1] == f"saved: .scratchpad/{rid}/"


def test_wait_prints_each_progress_line_once_and_since_n_from_the_nth(runs):
    rid = run_id(runs, "debate")
    log = (runs / rid / "progress.log").read_text().splitlines()
    assert len(log) > 3
    first = council("wait", rid).stderr.splitlines()
    assert first[: len(log)] == log
    again = council("wait", rid).stderr.splitlines()
    assert again == [f"saved: .scratchpad/{rid}/"]
    since = council("wait", rid, "--since", "2").stderr.splitlines()
    assert since[: len(log) - 2] == log[2:]
    everything = council("wait", rid, "--since", "0").stderr.splitlines()
    assert everything[: len(log)] == log


def test_wait_timeout_zero_on_an_ended_run_still_prints_its_result(runs):
    rid = run_id(runs, "debate")
    waited = council("wait", rid, "--timeout", "0")
    assert waited.exit_code == 0
    assert waited.stdout == (runs / rid / "decision.md").read_text()


def test_wait_exits_with_the_runs_recorded_code(runs):
    rid = run_id(runs, "check")
    state = json.loads((runs / rid / "state.json").read_text())
    (runs / rid / "state.json").write_text(json.dumps({**state, "exit_code": 8}))
    assert council("wait", rid).exit_code == 8


def test_resume_of_an_ended_run_prints_its_result_and_writes_the_output(runs, project):
    rid = run_id(runs, "debate")
    resumed = council("resume", rid, "--output", "out.json")
    assert resumed.exit_code == 0
    assert resumed.stdout == (runs / rid / "decision.md").read_text()
    assert json.loads((project / "out.json").read_text())["id"] == rid


def test_resume_refuses_an_output_onto_one_of_the_runs_files(runs, project):
    (project / "service.py").write_text("x = 1\n")
    resumed = council("resume", run_id(runs, "review"), "--output", "service.py")
    assert resumed.exit_code == 2
    assert "--output service.py is one of the run's own inputs" in resumed.stderr
    assert (project / "service.py").read_text() == "x = 1\n"


def test_cancel_of_an_ended_run_is_refused(runs):
    rid = run_id(runs, "debate")
    cancelled = council("cancel", rid)
    assert cancelled.exit_code == 2
    assert cancelled.stderr.startswith("council: ") and cancelled.stderr.count("\n") == 1


# -- adr -----------------------------------------------------------------------------------


def test_adr_writes_the_next_record_and_prints_its_path(runs, project):
    rid = run_id(runs, "debate")
    written = council("adr", rid)
    assert written.exit_code == 0, written.output
    path = Path(written.stdout.strip())
    assert path.parent == Path("docs/decisions") and path.name.startswith("0001-should-the-")
    assert (project / path).is_file()
    assert written.stderr == f"ADR 1 (madr) written from {rid}\n"
    again = council("adr", "last", "--json", "--dir", "doc/adr")
    # `last` is the check: not a debate
    assert again.exit_code == 2 and again.stdout == ""
    elsewhere = project / "elsewhere"
    runs.rename(elsewhere)  # the records where --scratchpad says
    shown = json.loads(
        council("adr", rid, "--json", "--dir", "doc/adr", "--scratchpad", "elsewhere").stdout
    )
    assert shown["number"] == 1 and shown["record"] == rid
    assert shown["template"] == "madr" and shown["path"].startswith("doc/adr/0001-")


def test_adr_dir_given_on_the_command_line_wins_over_council_yaml(runs, project):
    # docs/spec/commands.md "council adr": `--dir DIR`, else council.yaml's `adr.dir`.
    (project / "council.yaml").write_text("adr:\n  dir: docs/kept\n")
    rid = run_id(runs, "debate")
    given = council("adr", rid, "--dir", "doc/arch")
    assert given.exit_code == 0, given.output
    path = Path(given.stdout.strip())
    assert path.parent == Path("doc/arch") and (project / path).is_file()
    assert not (project / "docs" / "kept").exists()
    configured = council("adr", rid)
    assert configured.exit_code == 0, configured.output
    assert Path(configured.stdout.strip()).parent == Path("docs/kept")


REFUSED = [
    # (argv, the line on stderr)
    (
        ["adr"],
        "council: give the debate to write down (council adr last, or its id), or an ADR to "
        "recheck (council adr --recheck <ADR file>)",
    ),
    (
        ["adr", "last", "--rounds", "3"],
        "council: --rounds is an option of --recheck (its new panel); drop it",
    ),
    (["adr", "last", "--sim"], "council: --sim is an option of --recheck (its new panel); drop it"),
    (
        ["adr", "last", "--with", "codex"],
        "council: --with is an option of --recheck (its new panel); drop it",
    ),
    (
        ["adr", "last", "--recheck", "doc/adr/0001-x.md"],
        "council: --recheck takes the ADR file alone; drop last (its new panel's options: "
        "--with, --rounds, --files, ...)",
    ),
    (
        ["adr", "--recheck", "doc/adr/0001-x.md", "--dir", "doc/adr"],
        "council: --recheck takes the ADR file alone; drop --dir (its new panel's options: "
        "--with, --rounds, --files, ...)",
    ),
]


@pytest.mark.parametrize(("argv", "line"), REFUSED, ids=[" ".join(a) for a, _ in REFUSED])
def test_adr_refuses_what_it_cannot_do_with_one_line(project, argv, line):
    result = council(*argv)
    assert result.exit_code == 2
    assert result.stderr == line + "\n"
    assert not (project / "docs").exists() and not (project / "doc").exists()


@pytest.fixture
def rechecked(project: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """`adr --recheck` with a panel that rules as the test says (`verdict`, `code`)."""
    seen: dict[str, Any] = {"verdict": "changed", "code": 7}

    def recheck(path: Path, flags: Any, _config: Any, _progress: Any, *, cwd: Path) -> Any:
        seen["path"], seen["flags"] = path, flags
        section = f"## Rechecked 2026-11-28\n\nVerdict: **{seen['verdict']}**.\n"
        json_of = {"verdict": seen["verdict"], "record": "debate-1", "exit_code": seen["code"]}
        return SimpleNamespace(section=section, exit_code=seen["code"], to_json=lambda: json_of)

    monkeypatch.setattr("council.adr.recheck.recheck", recheck)
    return seen


@pytest.mark.parametrize(("verdict", "code"), [("changed", 7), ("unchanged", 0), ("unclear", 5)])
def test_adr_recheck_prints_the_section_and_exits_with_the_verdicts_code(rechecked, verdict, code):
    rechecked["verdict"], rechecked["code"] = verdict, code
    result = council("adr", "--recheck", "doc/adr/0003-x.md", "--with", "codex", "--rounds", "3")
    assert result.exit_code == code
    assert result.stdout == f"## Rechecked 2026-11-28\n\nVerdict: **{verdict}**.\n"
    assert rechecked["path"] == Path("doc/adr/0003-x.md")
    assert (rechecked["flags"].proxies, rechecked["flags"].rounds) == (("codex",), 3)
    as_json = council("adr", "--recheck", "doc/adr/0003-x.md", "--json")
    assert json.loads(as_json.stdout) == {
        "path": "doc/adr/0003-x.md",
        "verdict": verdict,
        "record": "debate-1",
        "exit_code": code,
    }
    assert as_json.exit_code == code


@pytest.fixture
def running(runs: Path):
    """The debate, as a run still going: its state says running and a process holds it."""
    from council.runs.lock import RecordLock

    record = runs / run_id(runs, "debate")
    state = json.loads((record / "state.json").read_text())
    (record / "state.json").write_text(
        json.dumps({**state, "status": "running", "pid": os.getpid()})
    )
    lock = RecordLock.acquire(record, os.getpid())
    yield record
    lock.release()


@pytest.mark.parametrize("timeout", ["0", "0.01"])
def test_wait_on_a_running_run_gives_up_at_its_timeout_with_75_and_how_to_go_on(running, timeout):
    rid = running.name
    lines = (running / "progress.log").read_text().splitlines()
    waited = council("wait", rid, "--timeout", timeout)
    assert waited.exit_code == 75 and waited.stdout == ""
    said = waited.stderr.splitlines()
    assert said[: len(lines)] == lines
    assert said[len(lines)].startswith(f"still running: {rid} running · ")
    assert said[len(lines) + 1 :] == [f"wait again: council wait {rid} --since {len(lines)}"]
    again = council("wait", rid, "--timeout", "0")
    assert again.stderr.splitlines()[-1] == f"wait again: council wait {rid} --since {len(lines)}"
    assert len(again.stderr.splitlines()) == 2
    with (running / "progress.log").open("a") as log:
        log.write("[00:09] CHALLENGE critic ok 120 words\n")
    later = council("wait", rid, "--timeout", "0").stderr.splitlines()
    assert later[0] == "[00:09] CHALLENGE critic ok 120 words"
    assert later[-1] == f"wait again: council wait {rid} --since {len(lines) + 1}"


def test_status_of_a_running_run_says_running(running):
    status = json.loads(council("status", running.name, "--json").stdout)
    assert status["status"] == "running"
    assert council("status", running.name).stdout.startswith(f"{running.name} running · ")
