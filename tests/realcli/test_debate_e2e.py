"""A whole `council debate` on the real vendor CLIs, every one pointed at the local fake model
server: 3 rounds, exit 0, a result.json that validates against the shipped schema."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from council.debate.result import result_schema
from fakemodel.clients import client_setup
from fakemodel.fixtures import _skip_or_fail, council_env
from fakemodel.installed import installed

pytestmark = pytest.mark.realcli

SEATS = ("claude", "codex", "gemini", "qwen", "pi")


def test_a_three_round_debate_of_real_clis_completes_with_a_valid_result(fake_model, tmp_path):
    names = list(SEATS)
    if installed("kimi-code").ok:
        names.append("kimi-code")
    for name in names:
        if not installed(name).ok:
            _skip_or_fail(installed(name).problem())
    home, tmpdir, project = tmp_path / "home", tmp_path / "tmp", tmp_path / "project"
    for directory in (home, tmpdir, project):
        directory.mkdir()
    (project / "README.md").write_text("# Sessions service\n\nKeeps user sessions.\n")
    (project / "app.py").write_text("class SessionStore:\n    def get(self, key): ...\n")
    env, models = council_env(fake_model, names, home, tmpdir)
    proxies = ["gemini", "qwen", "pi"] + (["kimi"] if "kimi-code" in names else [])
    timeouts = ",".join(f"{cli}=120" for cli in ("claude", "codex", *proxies))
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "council",
            "debate",
            "Redis or Postgres for sessions?",
            "--files",
            "README.md",
            "app.py",
            "--advocate",
            "claude",
            "--critic",
            "codex",
            "--lead",
            "claude",
            "--with",
            ",".join(proxies),
            "--rounds",
            "3",
            "--model",
            ",".join(models),
            "--timeout",
            timeouts,
            "--json",
        ],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        stdin=subprocess.DEVNULL,
    )
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    jsonschema.Draft202012Validator(result_schema()).validate(result)
    assert result["status"] == "completed" and result["simulated"] is False
    assert result["rounds"] == {"requested": 3, "run": 3, "stopped_early": False}
    assert {c["seat"] for c in result["contributions"]} == {
        "advocate",
        "critic",
        *(f"proxy-{p}" for p in proxies),
    }
    # A challenger still starting when the PROPOSAL is in gets no blind take (the fake model
    # answers at once, and the advocate's CLI starts first): `skipped`, `late`, by the
    # protocol's rule. Every call that was made answered.
    outcomes = [(c["seat"], c["phase"], c["status"], c["reason"]) for c in result["contributions"]]
    cut = ("skipped", "late")
    assert all(
        s == "ok" or (phase == "BLIND_TAKE" and (s, why) == cut) for _, phase, s, why in outcomes
    ), outcomes
    assert result["decision"]["synthesized_by"] == "lead (claude)"
    assert result["decision"]["confidence"] is not None
    # Usage from every CLI whose output reports it; the total names the seats it leaves out
    # (kimi-code prints no token count in either of its modes).
    usage = {s["name"]: s["usage"] for s in result["seats"]}
    silent = {"proxy-kimi"} if "kimi-code" in names else set()
    for seat, figures in usage.items():
        if seat in silent:
            assert figures is None, (seat, figures)
        else:
            assert figures is not None and figures["input_tokens"], (seat, figures)
    assert result["usage"]["unreported_seats"] == sorted(silent)
    assert result["usage"]["partial"] is bool(silent)


def test_a_kimi_cli_lead_delivers_a_decision(fake_model, tmp_path):
    """kimi-cli prints its answer as plain text; a DECISION answer is a JSON object, which
    council must not mistake for kimi-code's stream-json (it did: every kimi-cli lead ended
    degraded)."""
    if not installed("kimi-cli").ok:
        _skip_or_fail(installed("kimi-cli").problem())
    home, tmpdir, project = tmp_path / "home", tmp_path / "tmp", tmp_path / "project"
    for directory in (home, tmpdir, project):
        directory.mkdir()
    (project / "app.py").write_text("class SessionStore:\n    def get(self, key): ...\n")
    setup = client_setup("kimi-cli", fake_model, home)
    env = {
        "PATH": os.pathsep.join(
            [str(installed("kimi-cli").bin_dir), str(Path(sys.executable).parent), os.defpath]
        ),
        "HOME": str(home),
        "TMPDIR": str(tmpdir),
        "LANG": "C.UTF-8",
        **setup.env,
    }
    model = [f"kimi:{setup.model}"] if setup.model else []
    run = subprocess.run(
        [
            sys.executable, "-m", "council", "debate", "Redis or Postgres for sessions?",
            "--files", "app.py", "--advocate", "sim", "--critic", "sim", "--lead", "kimi",
            *(("--model", model[0]) if model else ()), "--timeout", "kimi=120", "--json",
        ],
        cwd=project, env=env, capture_output=True, text=True, timeout=600,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    assert result["status"] == "completed"
    assert result["decision"]["synthesized_by"] == "lead (kimi)"
    assert result["decision"]["confidence"] is not None  # read as JSON, not kept as raw text
    lead = next(s for s in result["seats"] if s["name"] == "lead")
    assert lead["status"] == "ok" and lead["calls"] == 1  # no retry, no repair


# The straggler's soft timeout T, and when the fake model answers its CHALLENGE: gemini's own
# start-up and requests add 2-7 s, so the call ends after T plus the advocate's RESPOND (2-5 s:
# it is still busy when the REBUTTAL begins) and well before the hard limit 1.5 T. The critic's
# REBUTTAL is slowed, so the REBUTTAL phase is still collecting when the straggler is free.
STRAGGLER_T = 30
STRAGGLER_DELAY = 34.0
REBUTTAL_DELAY = 14.0


# The fake model alone waits 48 s in this debate: the suite's 60 s leaves no room for load.
@pytest.mark.timeout(300)
def test_a_real_straggler_gets_its_next_action_only_once_its_late_challenge_is_in(
    fake_model, tmp_path
):
    """gemini answers its CHALLENGE after its soft timeout (the fake model is slow for it):
    no ACTION reaches proxy-gemini while that call runs, and its REBUTTAL prompt holds its own
    late challenge (or, had the phase closed first, it sat the REBUTTAL out as busy)."""
    names = ["claude", "codex", "gemini"]
    for name in names:
        if not installed(name).ok:
            _skip_or_fail(installed(name).problem())
    home, tmpdir, project = tmp_path / "home", tmp_path / "tmp", tmp_path / "project"
    for directory in (home, tmpdir, project):
        directory.mkdir()
    (project / "app.py").write_text("class SessionStore:\n    def get(self, key): ...\n")
    env, models = council_env(fake_model, names, home, tmpdir)
    fake_model.add_rule(client="gemini", contains="ACTION: CHALLENGE", delay_s=STRAGGLER_DELAY)
    fake_model.add_rule(client="codex", contains="ACTION: REBUTTAL", delay_s=REBUTTAL_DELAY)
    run = subprocess.run(
        [
            sys.executable, "-m", "council", "debate", "Redis or Postgres for sessions?",
            "--files", "app.py", "--advocate", "claude", "--critic", "codex", "--lead", "claude",
            "--with", "gemini", "--rounds", "3", "--model", ",".join(models),
            "--timeout", f"claude=120,codex=120,gemini={STRAGGLER_T}", "--json",
        ],
        cwd=project, env=env, capture_output=True, text=True, timeout=900,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    jsonschema.Draft202012Validator(result_schema()).validate(result)
    record = Path(result["scratchpad"])
    if not record.is_absolute():
        record = project / record
    transcript = [
        json.loads(line) for line in (record / "transcript.jsonl").read_text().splitlines()
    ]
    asks = [m for m in transcript if m["kind"] == "dm" and m["to"] == "proxy-gemini"]
    challenge = next(m for m in asks if m["action"] == "CHALLENGE")
    late = next(
        m
        for m in transcript
        if m["kind"] == "broadcast" and m["from"] == "proxy-gemini" and m["phase"] == "CHALLENGE"
    )
    assert not [m for m in asks if challenge["seq"] < m["seq"] < late["seq"]]  # none while busy
    statuses = {(c["seat"], c["phase"]): c for c in result["contributions"]}
    assert statuses[("proxy-gemini", "CHALLENGE")]["status"] == "late"
    busy = [m for m in transcript if m["meta"].get("status") == "busy"]
    assert [(m["phase"], m["meta"]["seat"]) for m in busy] == [("REBUTTAL", "proxy-gemini")]
    rebuttal = statuses[("proxy-gemini", "REBUTTAL")]
    if rebuttal["status"] == "skipped":
        assert rebuttal["reason"] == "busy"
    else:
        (asked,) = [m for m in asks if m["action"] == "REBUTTAL"]
        assert asked["seq"] > late["seq"]
        prompt = (record / rebuttal["files"]["prompt"]).read_text()
        assert late["body"] in prompt
        assert rebuttal["status"] == "ok"
    assert result["status"] == "completed"
