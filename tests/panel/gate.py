"""What the gated simulator seats of tests/panel share. In the script a seat runs, `seen(want)`
tells whether the run's transcript (under GATE_RECORDS) holds a message with every key of
`want` (`meta.x` looks in its meta), and `hold()` waits until it holds one like GATE_UNTIL or
GATE_CAP_S seconds have passed (a broken order lets the answer go). The transcript is written
before a message is delivered, and the lead reads its inbox in order: what a gate waited for
reaches the lead first."""

from __future__ import annotations

import sys
from pathlib import Path

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


def gated_seat(script: Path, project: Path, timeout_s: float, env: dict[str, str]) -> dict:
    """The config of a simulator seat that runs `script` (built on SEEN) for a debate or
    review of `project`, its records under the project's .scratchpad."""
    return {
        "adapter": "sim",
        "command": [sys.executable, "-I", str(script)],
        "timeout_s": timeout_s,
        "env": {"GATE_RECORDS": str(project / ".scratchpad"), "GATE_CAP_S": str(CAP_S), **env},
    }
