"""Warm seats in a whole debate on the strict fake CLIs: the seats whose CLI has a persistent
mode keep one process each, every call in a new session; result.json says which seat ran
warm and how much memory its worker held; `--cold`, `clis.<name>.warm: false` and
`debate.max_warm_seats` put seats back on spawn-per-call; nothing is left running."""

from __future__ import annotations

import json
import signal
from pathlib import Path

import pytest

from project import QUESTION, Project, debate_on_fakes, wait_for

from fakes.install import install_fakes

# Three seats with a persistent mode (two gemini, codex); the lead's own calls always spawn.
SEATS = ("--advocate", "gemini", "--critic", "codex", "--with", "gemini,sim", "--lead", "sim")


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)


def debate(project: Project, fakes, *flags: str) -> dict:
    return debate_on_fakes(project, fakes, *SEATS, "--rounds", "2", *flags)


def warm_turns(fakes) -> list[dict]:
    return [c for c in fakes.calls("gemini") if c.get("warm")]


def test_seats_with_a_persistent_mode_run_warm_one_process_each_a_session_per_call(
    project: Project, tmp_path: Path
):
    fakes = install_fakes(tmp_path / "bin")
    result = debate(project, fakes)
    seats = {s["name"]: s for s in result["seats"]}
    turns = warm_turns(fakes)
    for name in ("advocate", "proxy-gemini"):
        worker = seats[name]["worker"]
        assert worker["mode"] == "warm" and worker["problem"] is None, name
        assert worker["calls"] == seats[name]["calls"] >= 1 and worker["deaths"] == 0
        assert worker["rss_ready_mb"] > 0 and worker["rss_peak_mb"] >= worker["rss_ready_mb"]
    assert seats["critic"]["worker"]["mode"] == "warm"  # codex's app-server
    codex_turns = [c for c in fakes.calls("codex") if c.get("warm")]
    assert len(codex_turns) == seats["critic"]["calls"]
    assert all(len(t["context"]) == 1 and t["read_only"] for t in codex_turns)
    # One process per warm seat, a new session per call, each seeing only its own prompt.
    assert len({t["pid"] for t in turns}) == 2
    assert (
        len({t["session"] for t in turns})
        == len(turns)
        == (seats["advocate"]["calls"] + seats["proxy-gemini"]["calls"])
    )
    assert all(len(t["context"]) == 1 and t["read_only"] for t in turns)
    # Each call's prompt and response are in the record as for a spawned call.
    record = project.record()
    sent = sorted(t["prompt"] for t in turns)
    prompts = [*record.glob("advocate-*prompt.md"), *record.glob("proxy-gemini-*prompt.md")]
    assert sorted(p.read_text() for p in prompts) == sent
    for prompt in prompts:
        response = prompt.with_name(prompt.name.replace("-prompt.md", "-response.md"))
        assert '"end_turn"' in response.read_text()
    assert fakes.leftovers() == []


def test_cold_spawns_every_call(project: Project, tmp_path: Path):
    fakes = install_fakes(tmp_path / "bin")
    result = debate(project, fakes, "--cold")
    assert all(s["worker"] is None for s in result["seats"])
    assert warm_turns(fakes) == []
    spawned = [c["argv"][:2] for c in fakes.calls("gemini") if c["argv"] != ["--version"]]
    assert spawned[0] == ["-o", "json"]


@pytest.mark.parametrize(
    "config",
    ["clis:\n  gemini:\n    warm: false\n", "debate:\n  max_warm_seats: 0\n"],
    ids=["cli-warm-false", "no-warm-seats"],
)
def test_the_config_turns_warm_seats_off(project: Project, tmp_path: Path, config: str):
    fakes = install_fakes(tmp_path / "bin")
    project.write_config(config)
    result = debate(project, fakes)
    gemini_seats = [s for s in result["seats"] if s["cli"] == "gemini"]
    assert len(gemini_seats) == 2 and all(s["worker"] is None for s in gemini_seats)
    assert warm_turns(fakes) == []


def test_only_the_first_seats_run_warm_up_to_the_cap(project: Project, tmp_path: Path):
    fakes = install_fakes(tmp_path / "bin")
    project.write_config("debate:\n  max_warm_seats: 1\n")
    result = debate(project, fakes)
    seats = {s["name"]: s for s in result["seats"]}
    assert seats["advocate"]["worker"]["mode"] == "warm"
    assert seats["proxy-gemini"]["worker"] is None
    assert len({t["pid"] for t in warm_turns(fakes)}) == 1


def test_a_worker_that_cannot_start_leaves_its_seat_spawning_and_says_why(
    project: Project, tmp_path: Path
):
    fakes = install_fakes(tmp_path / "bin")
    fakes.set("gemini", no_warm=True)
    result = debate(project, fakes)
    seats = {s["name"]: s for s in result["seats"]}
    for name in ("advocate", "proxy-gemini"):
        worker = seats[name]["worker"]
        assert worker["mode"] == "spawn" and "Unknown argument: acp" in worker["problem"]
        assert seats[name]["status"] == "ok" and seats[name]["calls"] >= 1
    notes = [m["body"] for m in project.transcript() if "spawns its CLI per call" in m["body"]]
    assert len(notes) == 2


def test_ctrl_c_mid_call_tears_every_worker_down_and_the_run_resumes(
    project: Project, tmp_path: Path
):
    fakes = install_fakes(tmp_path / "bin")
    fakes.set("gemini", "hang")
    council = project.start(
        "debate",
        QUESTION,
        "--files",
        "app.py",
        *SEATS,
        "--rounds",
        "2",
        PATH=fakes.path_env(project.env()["PATH"]),
    )
    try:
        wait_for(lambda: len(warm_turns(fakes)) >= 1)  # a warm worker is mid-call
        council.send_signal(signal.SIGINT)
    finally:
        _, stderr = council.communicate(timeout=30)
    assert council.returncode == 130, stderr
    assert fakes.leftovers() == []
    fakes.set("gemini")
    run = project.run(
        "resume",
        project.record().name,
        "--json",
        PATH=fakes.path_env(project.env()["PATH"]),
    )
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    assert result["status"] == "completed"
    assert {s["name"]: s["worker"]["mode"] for s in result["seats"] if s["worker"]} == {
        "advocate": "warm",
        "critic": "warm",
        "proxy-gemini": "warm",
    }
    assert fakes.leftovers() == []


def test_kimi_cli_without_a_kimi_login_spawns_per_call_and_says_why(
    project: Project, tmp_path: Path
):
    fakes = install_fakes(tmp_path / "bin")
    fakes.set("kimi", variant="kimi-cli")
    result = debate_on_fakes(
        project, fakes, "--advocate", "sim", "--critic", "kimi", "--lead", "sim", "--rounds", "2"
    )
    critic = next(s for s in result["seats"] if s["name"] == "critic")
    assert critic["worker"]["mode"] == "spawn" and "logged in" in critic["worker"]["problem"]
    assert critic["status"] == "ok" and critic["calls"] >= 1
    assert [c for c in fakes.calls("kimi") if c.get("warm")] == []
    assert any("critic spawns its CLI per call" in m["body"] for m in project.transcript())


def test_council_cancel_of_a_detached_run_leaves_no_worker_running(
    project: Project, tmp_path: Path
):
    fakes = install_fakes(tmp_path / "bin")
    fakes.set("gemini", "hang")
    path = fakes.path_env(project.env()["PATH"])
    started = project.run(
        "debate", QUESTION, "--files", "app.py", *SEATS, "--detach", "--json", PATH=path
    )
    assert started.returncode == 0, started.stderr
    run_id = json.loads(started.stdout)["id"]
    wait_for(lambda: len(warm_turns(fakes)) >= 1)  # a warm worker is mid-call
    cancelled = project.run("cancel", run_id, PATH=path)
    assert cancelled.returncode == 0, cancelled.stderr
    waited = project.run("wait", run_id, PATH=path)
    assert waited.returncode == 130
    assert fakes.leftovers() == []
