"""Which calls of a whole debate (and a review) run lean (docs/lean.md), on the strict fake
vendor CLIs: every call when no given file was cut, round 3, the proxies and the lead
included, spawned or on warm workers started lean; none when a file was cut, none with
--no-lean, and not the CLI whose `clis.<name>.lean` is false."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from council.panel.calls import BLIND_GRACE_ENV
from council.runner.confine import EXTRA_ENV as EXTRA_WRITABLE
from council.runner.confine import SUITE_ENV

from fakes.install import FakeClis, install_fakes

SEATS = ("--advocate", "claude", "--critic", "codex", "--with", "gemini", "--lead", "qwen")
QUESTION = "Should the retry loop live in the client or the server?"
DEBATE = ("debate", QUESTION, *SEATS)
REVIEW = ("review", "--with", "claude,codex", "--files", "client.py")


def lean_calls(fakes: FakeClis, cli: str) -> list[bool]:
    """For each answer call of `cli`, oldest first: did it run lean?"""
    marks = {
        "claude": lambda call: "--system-prompt" in call["argv"],
        "codex": lambda call: any(a.startswith("model_instructions_file=") for a in call["argv"]),
        "gemini": lambda call: "GEMINI_SYSTEM_MD" in call["env"],
        "qwen": lambda call: "--system-prompt" in call["argv"],
    }
    calls = [c for c in fakes.calls(cli) if c["argv"] != ["--version"]]
    assert calls, f"{cli} was never asked"
    return [marks[cli](c) for c in calls]


@pytest.fixture
def debate(tmp_path: Path):
    project = tmp_path / "project"
    project.mkdir()
    (project / "client.py").write_text("".join(f"retry_{i} = {i}\n" for i in range(20)))
    fakes = install_fakes(tmp_path / "bin", ("claude", "codex", "gemini", "qwen"))
    home = tmp_path / "home"
    home.mkdir()
    env = {
        "PATH": os.pathsep.join([str(fakes.bin_dir), str(Path(sys.executable).parent), os.defpath]),
        "HOME": str(home),
        "LANG": "C.UTF-8",
        EXTRA_WRITABLE: str(fakes.bin_dir / ".fake"),  # the fakes' call logs
        **{k: v for k, v in os.environ.items() if k in ("PYTHONPATH", SUITE_ENV, BLIND_GRACE_ENV)},
    }

    def run(
        *args: str, config: str = "", command: tuple[str, ...] = DEBATE, cold: bool = True
    ) -> FakeClis:
        """`cold`: every call spawned, so each process the fakes log is one call."""
        if config:
            (project / "council.yaml").write_text(config)
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "council",
                *command,
                "--json",
                *(["--cold"] if cold else []),
                *args,
            ],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=180,
            stdin=subprocess.DEVNULL,
        )
        if command == REVIEW:
            # The vendor fakes answer prose, not findings: the review ends with exit 3 once
            # its REVIEW and REVIEW_REPAIR calls are made, which is all these tests look at.
            assert done.returncode == 3, done.stderr
            assert "REVIEW_REPAIR reviewer-codex ok" in done.stderr
        else:
            assert done.returncode == 0, done.stderr
            seen["result"] = json.loads(done.stdout)
            assert seen["result"]["decision"]
        return fakes

    seen: dict = {}
    run.seen = seen  # type: ignore[attr-defined]  # the last debate's result.json
    return run


def test_every_call_runs_lean_when_every_file_is_whole_round_3_proxy_and_lead_included(debate):
    fakes = debate("--files", "client.py", "--rounds", "3")
    # the advocate and the critic quote the files whole; round 3, the proxy (gemini) and the
    # lead (qwen) quote the debate, which is what their roles are shown
    for cli in ("claude", "codex", "gemini", "qwen"):
        assert set(lean_calls(fakes, cli)) == {True}, cli
    assert len(lean_calls(fakes, "gemini")) == 3  # BLIND_TAKE, CHALLENGE, REBUTTAL


def test_warm_workers_start_lean_when_every_file_is_whole_and_serve_every_call(debate):
    fakes = debate("--files", "client.py", "--rounds", "3", cold=False)
    for cli in ("claude", "codex", "gemini"):
        # every call of the seat ran on its worker (the fakes log each turn with the
        # worker's argv), started lean: 3 calls, round 3's included
        turns = [c for c in fakes.calls(cli) if c["argv"] != ["--version"]]
        assert [bool(c.get("warm")) for c in turns] == [True] * 3, cli
        assert lean_calls(fakes, cli) == [True] * 3, cli
    assert set(lean_calls(fakes, "qwen")) == {True}  # the lead


def test_a_cut_file_starts_every_warm_worker_with_its_tools(debate):
    fakes = debate("--files", "client.py", config="debate:\n  file_lines: 5\n", cold=False)
    for cli in ("claude", "codex", "gemini", "qwen"):
        assert set(lean_calls(fakes, cli)) == {False}, cli
    assert "Read,Grep,Glob" in fakes.calls("claude")[-1]["argv"]


def test_without_files_every_seat_and_the_lead_run_lean(debate):
    fakes = debate()
    for cli in ("claude", "codex", "gemini", "qwen"):
        assert set(lean_calls(fakes, cli)) == {True}, cli


def test_a_file_cut_by_the_line_caps_keeps_every_seat_s_read_tools(debate):
    fakes = debate("--files", "client.py", config="debate:\n  file_lines: 5\n")
    for cli in ("claude", "codex", "gemini", "qwen"):
        assert set(lean_calls(fakes, cli)) == {False}, cli
    assert "--tools" in fakes.calls("claude")[-1]["argv"]


def test_no_lean_turns_it_off_for_every_cli_of_the_run(debate):
    fakes = debate("--no-lean")
    for cli in ("claude", "codex", "gemini", "qwen"):
        assert set(lean_calls(fakes, cli)) == {False}, cli


def test_lean_false_in_the_config_turns_it_off_for_that_cli_only(debate):
    fakes = debate(config="clis:\n  codex:\n    lean: false\n")
    assert set(lean_calls(fakes, "codex")) == {False}
    assert set(lean_calls(fakes, "claude")) == {True}


def test_a_review_runs_lean_as_its_prompts_hold_the_code_whole_and_no_lean_turns_it_off(debate):
    fakes = debate(command=REVIEW)
    first = {cli: len(lean_calls(fakes, cli)) for cli in ("claude", "codex")}
    assert set(lean_calls(fakes, "claude")) == set(lean_calls(fakes, "codex")) == {True}
    fakes = debate("--no-lean", command=REVIEW)
    for cli in ("claude", "codex"):
        assert set(lean_calls(fakes, cli)[first[cli] :]) == {False}, cli
