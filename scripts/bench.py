#!/usr/bin/env python3
"""council's own cost, measured with simulator seats whose every call sleeps a fixed time, so
the ideal duration of a debate is known exactly.

    python scripts/bench.py            # table with targets and pass/fail
    python scripts/bench.py --json     # the same figures as JSON, to compare across commits

Each debate runs `council` as a user would (a subprocess, `--sim`, a temporary project), and
the figures come from its record: call latencies and phase times from `result.json` and
`transcript.jsonl`, prompt sizes from the prompt files, peak memory by polling the council
process with psutil. Exit 0 when every target is met, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

import psutil

QUESTION = "Should this service cache sessions in Redis or Postgres?"
README = "# Sessions service\n\nKeeps user sessions; about 2k requests per second at peak.\n"
APP = (
    "class SessionStore:\n"
    "    def get(self, key: str) -> bytes: ...\n"
    "    def put(self, key: str, value: bytes) -> None: ...\n"
)


class Project:
    def __init__(self, root: Path) -> None:
        self.root = root
        (root / "README.md").write_text(README)
        (root / "app.py").write_text(APP)

    def env(self, **extra: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("COUNCIL_SIM_")}
        env.update(extra)
        return env

    def debate(
        self, *args: str, config: str = "", **sim_env: str
    ) -> tuple[dict, float, float, Path]:
        """Run one debate; return (result, wall seconds, peak RSS in MiB, record dir)."""
        config_path = self.root / "council.yaml"
        config_path.write_text(config)
        argv = [
            sys.executable,
            "-m",
            "council",
            "debate",
            QUESTION,
            "--files",
            "README.md",
            "--files",
            "app.py",
            "--sim",
            "--json",
            "--quiet",
            *args,
        ]
        started = time.perf_counter()
        proc = subprocess.Popen(
            argv,
            cwd=self.root,
            env=self.env(**sim_env),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
        )
        peak = 0
        watched = psutil.Process(proc.pid)
        while proc.poll() is None:
            try:
                peak = max(peak, watched.memory_info().rss)
            except psutil.Error:
                break
            time.sleep(0.02)
        stdout, stderr = proc.communicate()
        wall = time.perf_counter() - started
        if proc.returncode != 0:
            raise SystemExit(f"bench debate failed (exit {proc.returncode}):\n{stderr.decode()}")
        result = json.loads(stdout)
        return result, wall, peak / (1024 * 1024), self.root / result["scratchpad"]


def transcript(record: Path) -> list[dict]:
    return [json.loads(line) for line in (record / "transcript.jsonl").read_text().splitlines()]


def ts(entry: dict) -> float:
    return datetime.fromisoformat(entry["ts"]).timestamp()


def critical_path(result: dict, record: Path) -> float:
    """Sum over the sequential phases of the longest call in each phase."""
    phases: dict[tuple[int, str], float] = {}
    for c in result["contributions"]:
        phase = "LAST" if c["phase"] in ("REBUTTAL", "FINAL_SUMMARY") else c["phase"]
        key = (c["round"], phase)
        phases[key] = max(phases.get(key, 0.0), c["latency_s"])
    state = json.loads((record / "state.json").read_text())
    lead = sum(v["latency_s"] for k, v in state["calls"].items() if k.startswith("lead-"))
    return sum(phases.values()) + lead


def phase_span(record: Path, phase: str, round_no: int) -> tuple[float, float]:
    """(start of the phase, arrival of its last reply) from the transcript."""
    entries = transcript(record)
    start = next(
        ts(e)
        for e in entries
        if e["kind"] == "system" and e["body"] == f"phase {phase}" and e["round"] == round_no
    )
    replies = [
        ts(e)
        for e in entries
        if e["kind"] == "broadcast" and e["phase"] == phase and e["round"] == round_no
    ]
    return start, max(replies)


def prompt_economy(result: dict, record: Path) -> dict:
    """Bytes sent, against a naive baseline in which every call (the DECISION included) gets
    the proposal's prompt (header, question, files, task) plus every earlier reply in full."""
    sent = {p.name: p.stat().st_size for p in record.glob("*-prompt.md")}
    base = (record / "advocate-r1-prompt.md").stat().st_size
    naive_total, earlier = 0, 0
    for c in result["contributions"]:
        naive_total += base + earlier
        earlier += (record / c["files"]["response"]).stat().st_size
    naive_total += base + earlier  # the DECISION
    return {
        "total_bytes": sum(sent.values()),
        "largest_prompt_bytes": max(sent.values()),
        "naive_total_bytes": naive_total,
    }


def startup(argv: list[str], runs: int = 10) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(argv, capture_output=True, check=True)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--delay", type=float, default=1.0, help="seconds every call sleeps")
    args = parser.parse_args()
    d = args.delay
    rows: list[tuple[str, str, str, bool]] = []
    figures: dict = {
        "machine": f"{platform.machine()}, {psutil.cpu_count()} cores, "
        f"{psutil.virtual_memory().total // 2**30} GiB, "
        f"Python {platform.python_version()}",
        "delay_s": d,
    }

    with tempfile.TemporaryDirectory() as tmp:
        project = Project(Path(tmp))

        # 1. Overhead ratio of a 3-round debate with 2 proxies and a lead.
        result, wall, _, record = project.debate(
            "--rounds", "3", "--with", "sim,sim", COUNCIL_SIM_DELAY=str(d)
        )
        ideal = critical_path(result, record)
        ratio = wall / ideal
        figures["overhead"] = {
            "wall_s": round(wall, 3),
            "critical_path_s": round(ideal, 3),
            "ratio": round(ratio, 3),
            "overhead_s": round(wall - ideal, 3),
        }
        rows.append(
            (
                "overhead ratio (3 rounds, 2 proxies)",
                f"{ratio:.3f} ({wall - ideal:+.2f} s over {ideal:.2f} s)",
                "<= 1.05",
                ratio <= 1.05,
            )
        )

        # 2. Fan-out: the CHALLENGE phase with 1..16 proxies; 5. peak memory at 16.
        fan = {}
        peak_16 = 0.0
        for n in (1, 2, 4, 8, 16):
            result, _, peak, record = project.debate(
                "--with",
                ",".join(["sim"] * n),
                COUNCIL_SIM_DELAY=str(d),
                COUNCIL_SIM_PHASES="CHALLENGE",
            )
            start, end = phase_span(record, "CHALLENGE", 2)
            fan[n] = end - start
            if n == 16:
                peak_16 = peak
        spread = fan[16] / fan[1]
        figures["fan_out_s"] = {str(n): round(t, 3) for n, t in fan.items()}
        figures["fan_out_ratio_16_to_1"] = round(spread, 3)
        rows.append(
            (
                "fan-out: CHALLENGE time 1/2/4/8/16 proxies",
                " / ".join(f"{fan[n]:.2f}" for n in fan) + f" s (x{spread:.2f})",
                "16 <= 1.15 x 1",
                spread <= 1.15,
            )
        )

        # 3. Straggler: one proxy hangs; RESPOND starts right after its soft timeout.
        soft = 3.0
        config = (
            f"clis:\n  sim-hang:\n    adapter: sim\n    timeout_s: {soft}\n    env:\n"
            "      COUNCIL_SIM_HANG: '1'\n      COUNCIL_SIM_PHASES: CHALLENGE\n"
        )
        result, _, _, record = project.debate("--with", "sim,sim-hang", config=config)
        entries = transcript(record)
        challenge = next(
            ts(e) for e in entries if e["kind"] == "system" and e["body"] == "phase CHALLENGE"
        )
        respond = next(ts(e) for e in entries if e["action"] == "RESPOND")
        asked = next(
            ts(e) for e in entries if e["action"] == "CHALLENGE" and e["to"] == "proxy-sim-hang"
        )
        killed = next(
            ts(e) for e in entries if e["kind"] == "broadcast" and e["from"] == "proxy-sim-hang"
        )
        status = next(c["status"] for c in result["contributions"] if c["seat"] == "proxy-sim-hang")
        delay = respond - challenge
        figures["straggler"] = {
            "soft_s": soft,
            "respond_after_s": round(delay, 3),
            "killed_after_s": round(killed - asked, 3),
            "status": status,
        }
        rows.append(
            (
                "straggler: RESPOND starts after CHALLENGE start",
                f"{delay:.2f} s (T = {soft:g} s)",
                f"<= {soft + 0.5:g} s",
                delay <= soft + 0.5,
            )
        )
        rows.append(
            (
                "straggler: hung tree killed at 1.5 x T",
                f"{killed - asked:.2f} s, status {status}",
                f"~{1.5 * soft:g} s, timeout",
                status == "timeout" and abs((killed - asked) - 1.5 * soft) <= 1.0,
            )
        )

        # 6. Prompt economy of the 3-round debate of figure 1.
        result, _, _, record = project.debate("--rounds", "3", "--with", "sim,sim")
        economy = prompt_economy(result, record)
        figures["prompt_economy"] = economy
        saving = 1 - economy["total_bytes"] / economy["naive_total_bytes"]
        rows.append(
            (
                "prompt bytes, 3 rounds (largest prompt)",
                f"{economy['total_bytes']:,} ({economy['largest_prompt_bytes']:,}) vs naive "
                f"{economy['naive_total_bytes']:,}",
                "below naive",
                economy["total_bytes"] < economy["naive_total_bytes"],
            )
        )
        figures["prompt_economy"]["saving"] = round(saving, 3)

    # 4. Start-up.
    council = [sys.executable, "-m", "council"]
    version, help_ = startup([*council, "--version"]), startup([*council, "--help"])
    figures["startup_s"] = {"version": round(version, 3), "help": round(help_, 3)}
    rows.append(
        (
            "start-up: council --version / --help (median of 10)",
            f"{version:.3f} / {help_:.3f} s",
            "< 0.25 s",
            max(version, help_) < 0.25,
        )
    )
    figures["peak_rss_mib_16_proxies"] = round(peak_16, 1)
    rows.append(("peak RSS of council, 16 proxies", f"{peak_16:.1f} MiB", "< 80 MiB", peak_16 < 80))

    figures["passed"] = all(ok for *_, ok in rows)
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        width = max(len(r[0]) for r in rows)
        print(f"council bench on {figures['machine']}; every sim call sleeps {d:g} s\n")
        for name, value, target, ok in rows:
            print(f"{name.ljust(width)}  {value:<46} {target:<16} {'pass' if ok else 'FAIL'}")
    return 0 if figures["passed"] else 1


if __name__ == "__main__":
    sys.exit(main())
