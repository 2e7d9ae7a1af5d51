"""What the gated simulator seats of tests/panel share. In the script a seat runs, `seen(want)`
tells whether the run's transcript (under GATE_RECORDS) holds a message with every key of
`want` (`meta.x` looks in its meta), and `hold()` waits until it holds one like GATE_UNTIL or
GATE_CAP_S seconds have passed (a broken order lets the answer go). The transcript is written
before a message is delivered, and the lead reads its inbox in order: what a gate waited for
reaches the lead first."""

from __future__ import annotations

import io
import re
import sys
from pathlib import Path

from council.config import parse_config
from council.panel.calls import Tuning
from council.panel.run import Run, start
from council.progress import Progress
from council.review.flags import ReviewFlags
from council.review.protocol import REVIEW
from review.helpers import SERVICE

CAP_S = 8.0  # a gate that waits longer than this lets the answer go

SEEN = """\
import json, os, subprocess, sys, time
from pathlib import Path

def seen(want):
    for path in Path(os.environ["GATE_RECORDS"]).glob("*/transcript.jsonl"):
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                message = json.loads(line)
            except ValueError:
                continue  # a line still being written
            got = {**message, **{f"meta.{k}": v for k, v in message["meta"].items()}}
            if all(got.get(key) == value for key, value in want.items()):
                return True
    return False

def hold():
    give_up = time.monotonic() + float(os.environ["GATE_CAP_S"])
    while not seen(json.loads(os.environ["GATE_UNTIL"])) and time.monotonic() < give_up:
        time.sleep(0.02)
"""


def gated_project(tmp_path: Path, script: str) -> Path:
    """The user's project (one app.py), with the seats' `script` (built on SEEN) beside it."""
    root = tmp_path / "project"
    root.mkdir()
    (root / "app.py").write_text("class SessionStore:\n    def get(self, key: str): ...\n")
    (tmp_path / "seat.py").write_text(script)
    return root


def gated_seat(project: Path, timeout_s: float, env: dict[str, str]) -> dict:
    """The config of a simulator seat that runs the script beside `project` for a debate or
    review of it, its records under the project's .scratchpad."""
    return {
        "adapter": "sim",
        "command": [sys.executable, "-I", str(project.parent / "seat.py")],
        "timeout_s": timeout_s,
        "env": {"GATE_RECORDS": str(project / ".scratchpad"), "GATE_CAP_S": str(CAP_S), **env},
    }


def review_of(
    project: Path, clis: dict, reviewers: tuple[str, ...], *, hard: float
) -> tuple[Run, str]:
    """One review of SERVICE as `council review -v --format json` runs it in `project`; its
    run and its progress lines (the `[mm:ss] ` stamps left out). `hard`: the hard timeout
    factor."""
    (project / "service.py").write_text(SERVICE)
    config = parse_config({"debate": {"hard_timeout_factor": hard}, "clis": clis})
    stream = io.StringIO()
    run = start(
        REVIEW,
        ReviewFlags(files=("service.py",), reviewers=reviewers, format="json"),
        config,
        Progress(stream, verbose=True, live=False),
        cwd=project,
        tuning=Tuning(grace_s=1.0),
    )
    return run, re.sub(r"\[\d\d:\d\d\] ", "", stream.getvalue())
