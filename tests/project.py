"""A user's project for end-to-end tests: a temporary directory with two small files and
council's simulator on PATH, where `python -m council ...` runs as a user would run it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from click.testing import CliRunner, Result

from council.debate.result import result_schema
from council.panel.calls import BLIND_GRACE_ENV
from council.runner.confine import EXTRA_ENV as EXTRA_WRITABLE
from council.runner.confine import SUITE_ENV

QUESTION = "Should this service cache sessions in Redis or Postgres?"


class InProcessPlace:
    """A project (the current directory) and a HOME of its own, with none of the variables
    that move the user's config file or a host's directory set; council run in-process (no
    process per command, for tests that run many quick commands)."""

    MOVED = ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME")

    def __init__(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.root, self.home = tmp_path / "project", tmp_path / "home"
        self.root.mkdir()
        self.home.mkdir()
        monkeypatch.chdir(self.root)
        monkeypatch.setenv("HOME", str(self.home))
        for name in self.MOVED:
            monkeypatch.delenv(name, raising=False)
        self.monkeypatch = monkeypatch

    def council(self, *args: str, **env: str) -> Result:
        from council.cli.app import cli

        return CliRunner().invoke(cli, list(args), prog_name="council", env=env or None)


class Project:
    """A user's project directory with council's simulator on PATH."""

    def __init__(self, root: Path) -> None:
        self.root = root / "project"
        self.root.mkdir()
        (self.root / "README.md").write_text("# Sessions service\nStores sessions.\n")
        (self.root / "app.py").write_text(
            "class SessionStore:\n    def get(self, key: str) -> bytes: ...\n"
        )
        self.home = root / "home"
        self.home.mkdir()
        self.count_file = root / "sim-calls.txt"
        # Under write confinement the simulator may append to its log, not create it.
        self.count_file.touch()

    def env(self, **extra: str) -> dict[str, str]:
        return {
            "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.defpath]),
            "HOME": str(self.home),
            "LANG": "C.UTF-8",
            "COUNCIL_SIM_COUNT_FILE": str(self.count_file),
            # Where tests install the fake CLIs (`install_fakes(tmp_path / "bin")`): they log
            # each call beside themselves, which write confinement allows only so.
            EXTRA_WRITABLE: str(self.root.parent / "bin" / ".fake"),
            SUITE_ENV: "1",  # without it the test-only switches are ignored
            BLIND_GRACE_ENV: os.environ[BLIND_GRACE_ENV],  # tests/conftest.py
            # PYTHONPATH, and the mutant under test of a mutation run (docs/mutation.md): the
            # council started here then runs the mutated copy, as the test process does.
            **{k: v for k, v in os.environ.items() if k in ("PYTHONPATH", "MUTANT_UNDER_TEST")},
            **extra,
        }

    def write_config(self, text: str) -> None:
        (self.root / "council.yaml").write_text(text)

    def argv(self, *args: str) -> list[str]:
        return [sys.executable, "-m", "council", *args]

    def run(self, *args: str, timeout: float = 120, **extra: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            self.argv(*args),
            cwd=self.root,
            env=self.env(**extra),
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )

    def run_with_reader_gone(self, *args: str) -> subprocess.CompletedProcess:
        """`council ARGS | true`: stdout's reader gone before council writes a byte."""
        read_end, write_end = os.pipe()
        os.close(read_end)
        try:
            return subprocess.run(
                self.argv(*args),
                cwd=self.root,
                env=self.env(),
                stdout=write_end,
                stderr=subprocess.PIPE,
                stdin=subprocess.DEVNULL,
                text=True,
                timeout=120,
            )
        finally:
            os.close(write_end)

    def start(self, *args: str, **extra: str) -> subprocess.Popen:
        return subprocess.Popen(
            self.argv(*args),
            cwd=self.root,
            env=self.env(**extra),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            stdin=subprocess.DEVNULL,
        )

    def records(self) -> list[Path]:
        """The run records (the scratchpad also holds its own `.gitignore`)."""
        pad = self.root / ".scratchpad"
        return sorted(p for p in pad.iterdir() if p.is_dir()) if pad.is_dir() else []

    def record(self) -> Path:
        (only,) = self.records()
        return only

    def transcript(self) -> list[dict]:
        path = self.record() / "transcript.jsonl"
        if not path.exists():
            return []
        return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]

    def sim_calls(self) -> Counter:
        if not self.count_file.exists():
            return Counter()
        return Counter(line.split("\t")[0] for line in self.count_file.read_text().splitlines())


# The READY timeout of tests where one seat must miss READY: every other seat must still make
# it, and a simulator's `--version` takes seconds, not tenths, on a machine loaded 20 times over.
READY_S = 5.0


def debate_on_fakes(project: Project, fakes, *args: str) -> dict:
    """`council debate QUESTION --files app.py ARGS --json` with the fake CLIs (tests/fakes)
    first on PATH: it exits 0 and its result validates."""
    run = project.run(
        "debate",
        QUESTION,
        "--files",
        "app.py",
        *args,
        "--json",
        PATH=fakes.path_env(project.env()["PATH"]),
    )
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    validate(result)
    return result


def edit_state(
    record: Path, change: Callable[[dict[str, Any]], None] | None = None, **fields: object
) -> None:
    """Edit a record's state.json as a run that stopped there leaves it: `change` for what
    lies deeper (a seat, a call), then `fields` set at the top."""
    path = record / "state.json"
    state = json.loads(path.read_text())
    if change is not None:
        change(state)
    path.write_text(json.dumps({**state, **fields}))


def validate(result: dict) -> None:
    jsonschema.Draft202012Validator(result_schema()).validate(result)


def wait_for(condition, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached")
        time.sleep(0.05)


# A simulator seat whose answer to one phase waits for another seat's call: it answers only
# once the simulator's call log (COUNCIL_SIM_COUNT_FILE) shows a call of GATE_AFTER, then
# GATE_PAUSE_S later (a model still thinking when the other seat's answer is in). Ordering by
# the log, not by racing two delays, keeps a test's order of events the same on a busy machine.
GATED_SIM = """\
import os, subprocess, sys, time

argv = sys.argv[1:]
prompt = b"" if "--version" in argv else sys.stdin.buffer.read()
if f"ACTION: {os.environ['GATE_PHASE']}\\n".encode() in prompt:
    after = os.environ["GATE_AFTER"] + "\\t"
    with open(os.environ["COUNCIL_SIM_COUNT_FILE"], encoding="utf-8") as log:
        while not any(line.startswith(after) for line in log):
            time.sleep(0.02)
            log.seek(0)
    time.sleep(float(os.environ["GATE_PAUSE_S"]))
sim = [sys.executable, "-m", "council.sim", *argv]
sys.exit(subprocess.run(sim, input=prompt).returncode)
"""


def gated_sim(project: Project, name: str, *, phase: str, after: str, pause_s: float) -> str:
    """council.yaml lines (under `clis:`) for a simulator seat `name` whose `phase` answer
    waits for a call of `after` (see GATED_SIM)."""
    script = project.root.parent / "gated_sim.py"
    script.write_text(GATED_SIM)
    return (
        f"  {name}:\n    adapter: sim\n    command: [{sys.executable}, -I, {script}]\n"
        f"    env:\n      GATE_PHASE: {phase}\n      GATE_AFTER: {after}\n"
        f"      GATE_PAUSE_S: '{pause_s}'\n"
    )


# A simulator seat whose answer to one phase waits until a file exists: the test holds a run
# in that phase for as long as it needs (e.g. to see `wait` time out), then lets it go.
HELD_SIM = """\
import os, subprocess, sys, time

argv = sys.argv[1:]
prompt = b"" if "--version" in argv else sys.stdin.buffer.read()
if f"ACTION: {os.environ['HOLD_PHASE']}\\n".encode() in prompt:
    while not os.path.exists(os.environ["HOLD_UNTIL"]):
        time.sleep(0.02)
sim = [sys.executable, "-m", "council.sim", *argv]
sys.exit(subprocess.run(sim, input=prompt).returncode)
"""


def held_sim(project: Project, name: str, *, phase: str, until: Path) -> str:
    """council.yaml lines (under `clis:`) for a simulator seat `name` whose `phase` answer
    waits until the file `until` exists (see HELD_SIM)."""
    script = project.root.parent / "held_sim.py"
    script.write_text(HELD_SIM)
    return (
        f"  {name}:\n    adapter: sim\n    command: [{sys.executable}, -I, {script}]\n"
        f"    env:\n      HOLD_PHASE: {phase}\n      HOLD_UNTIL: '{until}'\n"
    )


# A simulator seat whose READY comes late: its `--version` probe answers only once the
# simulator's call log shows a call of GATE_AFTER (or after GATE_CAP_S, so a council that
# waits for this READY before that call is not hung, only wrong). Ordered by the log, not by
# a sleep, so the test's order of events holds on a busy machine.
LATE_READY_SIM = """\
import os, subprocess, sys, time

argv = sys.argv[1:]
if "--version" in argv:
    after = os.environ["GATE_AFTER"] + "\\t"
    give_up = time.monotonic() + float(os.environ["GATE_CAP_S"])
    with open(os.environ["COUNCIL_SIM_COUNT_FILE"], encoding="utf-8") as log:
        while not any(line.startswith(after) for line in log) and time.monotonic() < give_up:
            time.sleep(0.02)
            log.seek(0)
sim = [sys.executable, "-m", "council.sim", *argv]
sys.exit(subprocess.run(sim).returncode)
"""


def late_ready_sim(project: Project, name: str, *, after: str, cap_s: float = 8.0) -> str:
    """council.yaml lines (under `clis:`) for a simulator seat `name` whose READY probe
    answers only once a call of `after` has started (see LATE_READY_SIM)."""
    script = project.root.parent / "late_ready_sim.py"
    script.write_text(LATE_READY_SIM)
    return (
        f"  {name}:\n    adapter: sim\n    command: [{sys.executable}, -I, {script}]\n"
        f"    env:\n      GATE_AFTER: {after}\n      GATE_CAP_S: '{cap_s}'\n"
    )


# A simulator seat that answers some phases with a fixed text (ANSWER_<PHASE>: a file), and
# every other phase as the simulator does.
SCRIPTED_SIM = """\
import os, re, subprocess, sys

prompt = sys.stdin.buffer.read()
argv = sys.argv[1:]
found = re.search(rb"^ACTION: ([A-Z_]+)", prompt, re.M)
answer = os.environ.get("ANSWER_" + found.group(1).decode()) if found else None
if answer and "--version" not in argv:
    sys.stdout.write(open(answer, encoding="utf-8").read())
    sys.exit(0)
sim = [sys.executable, "-m", "council.sim", *argv]
sys.exit(subprocess.run(sim, input=prompt).returncode)
"""


def scripted_sim(project: Project, name: str, **answers: str) -> str:
    """council.yaml lines (under `clis:`) for a simulator seat `name` answering the phases
    named in `answers` with that text."""
    script = project.root.parent / "scripted_sim.py"
    script.write_text(SCRIPTED_SIM)
    lines = [f"  {name}:", "    adapter: sim", f"    command: [{sys.executable}, -I, {script}]"]
    lines.append("    env:")
    for phase, text in answers.items():
        path = project.root.parent / f"{name}-{phase}.md"
        path.write_text(text)
        lines.append(f"      ANSWER_{phase}: {path}")
    return "\n".join(lines) + "\n"
