#!/usr/bin/env python3
"""How soon the first call goes out: from SETUP to the PROPOSAL's ACTION DM, with the
advocate's seat started alone first (the default) and with every seat started at once
(`Tuning(head_start_s=0)`, as before), interleaved, medians of N (docs/spec/protocol.md
section 3, "READY handshake").

Every seat is the simulator behind a start that burns CPU for `--start-cpu` seconds before it
answers its `--version` probe (a vendor CLI's Node start-up does the same), each seat on a CLI
of its own so no probe is shared; `--slow` seats take `--slow-cpu` seconds (gemini's ACP
worker takes 3-5 s on a loaded machine). The lead is the plain simulator.

    python scripts/first-call.py                 # 5 runs each way, 3 challengers, one slow
    python scripts/first-call.py --runs 9 --challengers 4 --slow 2
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import sys
import tempfile
from datetime import datetime
from pathlib import Path

from council.config import parse_config
from council.debate.flags import DebateFlags
from council.debate.protocol import DEBATE
from council.panel.calls import Tuning
from council.panel.run import start
from council.progress import Progress

# A seat's CLI: on `--version`, burn CPU_S seconds of CPU first; then the simulator.
SEAT = """\
import os, subprocess, sys, time

argv = sys.argv[1:]
if "--version" in argv:
    end = time.process_time() + float(os.environ["CPU_S"])
    while time.process_time() < end:
        pass
    prompt = b""
else:
    prompt = sys.stdin.buffer.read()
sim = [sys.executable, "-m", "council.sim", *argv]
sys.exit(subprocess.run(sim, input=prompt).returncode)
"""


def seat(script: Path, cpu_s: float) -> dict:
    return {
        "adapter": "sim",
        "command": [sys.executable, "-I", str(script)],
        "env": {"CPU_S": str(cpu_s)},
    }


def one_run(root: Path, args: argparse.Namespace, head_start_s: float) -> float:
    """Seconds from SETUP to the PROPOSAL's ACTION DM, in one debate."""
    script = root.parent / "seat.py"
    names = [f"cpu{i}" for i in range(args.challengers + 1)]
    clis = {
        name: seat(script, args.slow_cpu if 0 < i <= args.slow else args.start_cpu)
        for i, name in enumerate(names)
    }
    config = parse_config({"clis": clis})
    flags = DebateFlags(
        question="Should this service cache sessions in Redis or Postgres?",
        advocate=names[0],
        critic=names[1],
        proxies=tuple(names[2:]),
        lead="sim",
        rounds=2,
    )
    run = start(
        DEBATE,
        flags,
        config,
        Progress(io.StringIO(), verbose=False, live=False),
        cwd=root,
        tuning=Tuning(head_start_s=head_start_s),
    )
    if run.exit_code != 0:
        raise SystemExit(f"the debate failed: {run.error}")
    lines = (run.record.path / "transcript.jsonl").read_text().splitlines()
    messages = [json.loads(line) for line in lines]
    setup = next(m["ts"] for m in messages if m["body"] == "phase SETUP")
    ask = next(m["ts"] for m in messages if m["kind"] == "dm" and m["action"] == "PROPOSAL")
    return (datetime.fromisoformat(ask) - datetime.fromisoformat(setup)).total_seconds()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--challengers", type=int, default=3)
    parser.add_argument("--start-cpu", type=float, default=0.4)
    parser.add_argument("--slow", type=int, default=1, help="challengers with a slow start")
    parser.add_argument("--slow-cpu", type=float, default=2.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="first-call-") as tmp:
        base = Path(tmp)
        (base / "seat.py").write_text(SEAT)
        figures: dict[str, list[float]] = {"all at once": [], "advocate first": []}
        for number in range(args.runs):
            for label, head_start in (
                ("all at once", 0.0),
                ("advocate first", Tuning().head_start_s),
            ):
                root = base / f"{label.replace(' ', '-')}-{number}"
                root.mkdir()
                figures[label].append(one_run(root, args, head_start))
    print(
        f"SETUP -> PROPOSAL ask, medians of {args.runs} (1 advocate + {args.challengers} "
        f"challengers, starts of {args.start_cpu:g} s CPU, {args.slow} of {args.slow_cpu:g} s; "
        f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}):"
    )
    for label, values in figures.items():
        shown = " ".join(f"{v:.2f}" for v in values)
        print(f"  {label:>14}: {statistics.median(values):.2f} s  ({shown})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
