"""What the gated simulator seats of tests/panel share: `seen(want)`, in the script a seat runs,
tells whether the run's transcript (under GATE_RECORDS) holds a message with every key of
`want` (`meta.x` looks in its meta). The transcript is written before a message is delivered,
and the lead reads its inbox in order: what a gate waited for reaches the lead first."""

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
"""
