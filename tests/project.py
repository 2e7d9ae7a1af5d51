"""A user's project for end-to-end tests: a temporary directory with two small files and
council's simulator on PATH, where `python -m council ...` runs as a user would run it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import jsonschema

from council.debate.result import result_schema
from council.runner.confine import EXTRA_ENV as EXTRA_WRITABLE

QUESTION = "Should this service cache sessions in Redis or Postgres?"


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
            **{k: v for k, v in os.environ.items() if k == "PYTHONPATH"},
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
        pad = self.root / ".scratchpad"
        return sorted(pad.iterdir()) if pad.is_dir() else []

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


def validate(result: dict) -> None:
    jsonschema.Draft202012Validator(result_schema()).validate(result)


def wait_for(condition, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached")
        time.sleep(0.05)
