#!/usr/bin/env python3
"""council on the real vendor CLIs, each pointed at the local fake model server, which answers
every model request after a fixed delay D: what a debate costs beyond the model's own time.

    python scripts/bench-real.py                       # table: D = 0 and 2 s, 3 runs each
    python scripts/bench-real.py --json                # the same figures as JSON
    python scripts/bench-real.py --variant base= --variant cold=--cold   # side by side

The CLIs are the ones scripts/install-real-clis.sh put in .cache/real-clis (no network). Each
debate runs the `council` console script as a user would: the CLIs' bin directories first on
PATH, a HOME of their own holding the configuration that points them at the server, and the
server's URL and keys in the environment, as the contract tests do (tests/fakemodel/).

Two parts, each a median of --runs runs per D:
- a debate (by default 3 rounds: claude advocate and lead, codex critic, gemini proxy): wall
  time; the critical path rebuilt from the server's log (the model time of the longest call
  of each phase, phases that run side by side counted once, summed); council's overhead
  (wall minus critical path) and ratio; model requests per CLI call; bytes sent per CLI and
  per debate against council's own prompt bytes;
- each CLI alone: its `--version` probe as council runs it, then a 2-round debate in which it
  is the advocate (two calls; every other seat is the simulator): time to READY, spawn-to-exit
  per call, requests per call, bytes per request.

`--variant NAME=ARGS` repeats every run with extra `council debate` arguments (a `--config
FILE` among them goes before the subcommand), so a mode switch is compared in one run on
one machine state, interleaved so that load hits every variant alike.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import platform
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

# The console script a user runs (`python -m council` would add runpy's start-up).
_SCRIPT = Path(sys.executable).with_name("council")
COUNCIL = [str(_SCRIPT)] if _SCRIPT.is_file() else [sys.executable, "-m", "council"]
QUESTION = "Should this service cache sessions in Redis or Postgres?"
README = "# Sessions service\n\nKeeps user sessions; about 2k requests per second at peak.\n"
APP = (
    "class SessionStore:\n"
    "    def get(self, key: str) -> bytes: ...\n"
    "    def put(self, key: str, value: bytes) -> None: ...\n"
)
# Requests that are not a model turn: model lists and token counts (never delayed).
AUXILIARY = ("list", "count")
# Phases that run side by side count once on the critical path (docs/spec/protocol.md
# section 3): the BLIND TAKE beside the PROPOSAL, the FINAL_SUMMARY beside the REBUTTAL.
SIDE_BY_SIDE = {"BLIND_TAKE": "PROPOSAL", "FINAL_SUMMARY": "REBUTTAL"}
# A request belongs to the call of its CLI that was running when it arrived. The record keeps
# start and end times to the millisecond: this much either side is rounding.
SLACK_S = 0.002
SUBPROCESS_TIMEOUT_S = 900
# The API-based peer of the side-by-side row: quorum-cli in a venv of its own (it is no
# dependency of council's), its standard method with one participant per debate CLI, each
# one discussion turn: 7 sequential model requests for 3 participants.
PEER = "quorum-cli"
PEER_VERSION = "1.5.1"
PEER_PYTHON = ROOT / ".cache" / "peers" / "quorum" / "bin" / "python"
PEER_INSTALL = (
    "python3 -m venv .cache/peers/quorum && "
    f".cache/peers/quorum/bin/pip install {PEER}=={PEER_VERSION}"
)
PEER_DRIVER = ROOT / "scripts" / "bench-peer-quorum.py"
# quorum refuses an API key shorter than 20 characters.
PEER_KEY = "sk-fake-model-server-0000"


# -- the pure part: figures from one recorded run ---------------------------------------------


def union_s(intervals: Iterable[tuple[float, float]]) -> float:
    """Seconds covered by the intervals: a call's requests one after another add up, requests
    in flight together count once."""
    total, end = 0.0, float("-inf")
    for start, stop in sorted(intervals):
        if stop > end:
            total += stop - max(start, end)
            end = stop
    return total


def attribute(
    calls: Sequence[dict], requests: Sequence[dict]
) -> tuple[dict[str, list[dict]], list[dict]]:
    """Each logged request to the call that made it: the call of the same CLI (adapter) that
    was running when the request arrived (when two were, as two seats on one CLI in one phase
    can be, the latest started). Returns the requests per call stem, and those no call owns."""
    owned: dict[str, list[dict]] = {c["stem"]: [] for c in calls}
    stray: list[dict] = []
    for request in requests:
        at = request["at"]
        owners = [
            c
            for c in calls
            if c["cli"] == request["adapter"]
            and c["started_at"] - SLACK_S <= at <= c["ended_at"] + SLACK_S
        ]
        if owners:
            # Within the rounding of two windows (one call ends as the next starts): the one
            # that holds it.
            inside = [c for c in owners if c["started_at"] <= at <= c["ended_at"]] or owners
            owned[max(inside, key=lambda c: c["started_at"])["stem"]].append(request)
        else:
            stray.append(request)
    return owned, stray


def is_model(request: dict) -> bool:
    return request["outcome"] not in AUXILIARY


def model_s(requests: Sequence[dict], delay_s: float) -> float:
    """The model's time in one call: every model request is answered `delay_s` after it
    arrived."""
    return union_s((r["at"], r["at"] + delay_s) for r in requests if is_model(r))


def phase_label(call: dict) -> str:
    """The step of the critical path a call belongs to. The lead's calls run alone."""
    if call["seat"] == "lead":
        return f"R{call['round']} lead {call['phase']}"
    return f"R{call['round']} {SIDE_BY_SIDE.get(call['phase'], call['phase'])}"


def phases(run: dict) -> dict[str, dict]:
    """Per step of the critical path, in the order they ran: calls, model requests, the model
    time of its longest call, its longest call's spawn-to-exit, and its span: from its first
    call's spawn to its last call's exit (a seat asked late, once it is READY, widens it)."""
    owned, _ = attribute(run["calls"], run["requests"])
    steps: dict[str, dict] = {}
    for call in sorted(run["calls"], key=lambda c: c["started_at"]):
        step = steps.setdefault(
            phase_label(call),
            {
                "calls": 0,
                "requests": 0,
                "model_s": 0.0,
                "longest_call_s": 0.0,
                "started_at": call["started_at"],
                "ended_at": call["ended_at"],
            },
        )
        mine = owned[call["stem"]]
        step["calls"] += 1
        step["requests"] += sum(1 for r in mine if is_model(r))
        step["model_s"] = max(step["model_s"], model_s(mine, run["delay_s"]))
        step["longest_call_s"] = max(step["longest_call_s"], call["latency_s"])
        step["ended_at"] = max(step["ended_at"], call["ended_at"])
    for step in steps.values():
        step["span_s"] = step["ended_at"] - step["started_at"]
    return steps


def per_cli(run: dict) -> dict[str, dict]:
    """Calls, model requests and bytes of each CLI (by the server's client name)."""
    owned, _ = attribute(run["calls"], run["requests"])
    clients = run["clients"]  # adapter -> client
    figures: dict[str, dict] = {}
    for call in run["calls"]:
        client = clients[call["cli"]]
        entry = figures.setdefault(client, {"calls": 0, "prompt_bytes": 0, "model_s": 0.0})
        entry["calls"] += 1
        entry["prompt_bytes"] += call["prompt_bytes"]
        entry["model_s"] += model_s(owned[call["stem"]], run["delay_s"])
    added = cli_bytes(run["calls"], owned)
    for client, entry in figures.items():
        sent = [r for r in run["requests"] if r["client"] == client]
        model = [r for r in sent if is_model(r)]
        entry["requests"] = len(model)
        entry["other_requests"] = len(sent) - len(model)
        entry["requests_per_call"] = len(model) / entry["calls"]
        entry["bytes_sent"] = sum(r["body_bytes"] for r in sent)
        entry["bytes_per_request"] = mean_bytes(model)
        mine = added.get(next(a for a, c in clients.items() if c == client), [])
        entry["cli_bytes_per_request"] = sum(mine) / len(mine) if mine else None
        entry["cli_share"] = share(entry["prompt_bytes"], entry["bytes_sent"])
    return figures


def cli_bytes(calls: Sequence[dict], owned: dict[str, list[dict]]) -> dict[str, list[int]]:
    """Per CLI (adapter), what each of its model requests carried beyond council's prompt for
    the call that sent it: the CLI's system prompt, tool schemas and context (every request
    of a call carries the prompt again). Requests no call owns are left out: whose prompt
    they carry cannot be told."""
    added: dict[str, list[int]] = {}
    for call in calls:
        added.setdefault(call["cli"], []).extend(
            r["body_bytes"] - call["prompt_bytes"] for r in owned[call["stem"]] if is_model(r)
        )
    return added


def chain_length(
    requests: Sequence[dict], delay_s: float, calls: Sequence[dict] | None = None
) -> int | None:
    """The longest run of model requests each sent once the one before it was answered: the
    model turns the debate waited for one after another. With council's calls, a request
    follows an earlier one only within one call, or when its call started after that answer
    (calls started together never wait on each other, however slow a CLI is to send); for a
    peer's log (no calls), by time alone. None at D = 0, where every answer comes at once."""
    if delay_s <= 0:
        return None
    model = sorted((r for r in requests if is_model(r)), key=lambda r: r["at"])
    owner: dict[int, dict] = {}
    if calls is not None:
        owned, _ = attribute(calls, model)
        by_stem = {c["stem"]: c for c in calls}
        owner = {id(r): by_stem[stem] for stem, rs in owned.items() for r in rs}
    chain: dict[int, int] = {}
    for i, request in enumerate(model):
        call = owner.get(id(request))
        links = [
            chain[id(q)]
            for q in model[:i]
            if request["at"] >= q["at"] + delay_s - SLACK_S
            and (
                calls is None
                or (call is not None and owner.get(id(q)) is call)
                or (call is not None and call["started_at"] >= q["at"] + delay_s - SLACK_S)
            )
        ]
        chain[id(request)] = 1 + max(links, default=0)
    return max(chain.values(), default=0)


def segments(run: dict, steps: dict[str, dict]) -> dict:
    """The wall time cut into what follows one after another: launch to the first model
    request; per step, its time beyond the model's (the first step's counted from that first
    request, so that nothing is counted twice; written into each step as `beyond_s`); the
    gaps between steps (council between phases; below zero where steps overlap); and the
    last call's end to council's exit. With the critical path they add up to the wall."""
    model = [r["at"] for r in run["requests"] if is_model(r)]
    ordered = sorted(steps.values(), key=lambda s: s["started_at"])
    if not model or not ordered:
        return {}
    first = min(model)
    gaps = []
    for i, step in enumerate(ordered):
        start = max(step["started_at"], first) if i == 0 else step["started_at"]
        step["beyond_s"] = step["ended_at"] - start - step["model_s"]
        if i:
            gaps.append(step["started_at"] - ordered[i - 1]["ended_at"])
    decision = next((s for n, s in steps.items() if n.endswith("lead DECISION")), None)
    return {
        "launch_to_first_request_s": first - run["started_at"],
        "beyond_model_s": sum(s["beyond_s"] for s in ordered),
        "gaps_s": gaps,
        "between_steps_s": sum(gaps),
        "decision_beyond_s": None if decision is None else decision["beyond_s"],
        "exit_s": run["started_at"] + run["wall_s"] - max(s["ended_at"] for s in ordered),
    }


def mean_bytes(requests: Sequence[dict]) -> float | None:
    return sum(r["body_bytes"] for r in requests) / len(requests) if requests else None


def share(prompt_bytes: int, sent_bytes: int) -> float | None:
    """How much of what reached the model the CLI added around council's prompt."""
    return 1 - prompt_bytes / sent_bytes if sent_bytes else None


def debate_figures(run: dict) -> dict:
    """The figures of one debate run; the critical path is the sum over its sequential steps
    of the model time of each step's longest call."""
    steps = phases(run)
    path = sum(s["model_s"] for s in steps.values())
    cut = segments(run, steps)
    # While a step runs, the CLIs hold the path; between steps, council does (steps that
    # overlap, as a straggler's late call can, count once).
    calls_path = union_s((s.pop("started_at"), s.pop("ended_at")) for s in steps.values())
    wall = run["wall_s"]
    first_action = run["first_action_at"] - run["started_at"]
    _, stray = attribute(run["calls"], run["requests"])
    model = [r for r in run["requests"] if is_model(r)]
    sent = sum(r["body_bytes"] for r in run["requests"])
    return {
        "wall_s": wall,
        "critical_path_s": path,
        "overhead_s": wall - path,
        "ratio": wall / path if path else None,
        # The overhead split: until the first ACTION (start-up, context, the probes and
        # READYs it waits for), the CLIs' own time on the critical path (each step's span,
        # from its first spawn to its last exit, beyond its model time), and what is left:
        # council between steps.
        "first_action_s": first_action,
        "clis_on_path_s": calls_path - path,
        "council_between_calls_s": wall - first_action - calls_path,
        # The same wall cut along the model's requests (`segments`).
        **cut,
        "chain": chain_length(run["requests"], run["delay_s"], run["calls"]),
        "calls": len(run["calls"]),
        "model_requests": len(model),
        "requests_per_call": len(model) / len(run["calls"]),
        "unattributed_requests": len(stray),
        "calls_not_ok": sum(1 for c in run["calls"] if c["status"] != "ok"),
        "bytes_sent": sent,
        "prompt_bytes": run["prompt_bytes"],
        "cli_share": share(run["prompt_bytes"], sent),
        "per_cli": per_cli(run),
        "phases": steps,
        # Memory the run's warm workers held at most, summed (0 when every call spawned).
        "worker_rss_mb": sum(w["rss_peak_mb"] or 0 for w in run.get("workers", {}).values()),
        "workers": {w["cli"]: w["rss_peak_mb"] for w in run.get("workers", {}).values()},
    }


def peer_figures(run: dict) -> dict:
    """The peer's figures from its run: no record of calls, so the chain is by time alone and
    the critical path is the chain's model time; its exit is counted from the last answer."""
    model = sorted((r for r in run["requests"] if is_model(r)), key=lambda r: r["at"])
    chain = chain_length(run["requests"], run["delay_s"])
    path = None if chain is None else chain * run["delay_s"]
    wall = run["wall_s"]
    return {
        "wall_s": wall,
        "critical_path_s": path,
        "overhead_s": None if path is None else wall - path,
        "ratio": wall / path if path else None,
        "chain": chain,
        "model_requests": len(model),
        "launch_to_first_request_s": model[0]["at"] - run["started_at"] if model else None,
        "exit_s": (
            run["started_at"] + wall - (model[-1]["at"] + run["delay_s"]) if model else None
        ),
        "bytes_sent": sum(r["body_bytes"] for r in run["requests"]),
        "bytes_per_request": mean_bytes(model),
    }


def alone_figures(run: dict, seat: str = "advocate") -> dict:
    """The figures of one CLI from a run in which it held `seat` and the simulator every other
    seat."""
    owned, _ = attribute(run["calls"], run["requests"])
    calls = [c for c in run["calls"] if c["seat"] == seat]
    mine = [r for c in calls for r in owned[c["stem"]]]
    model = [r for r in mine if is_model(r)]
    per_call_model = [model_s(owned[c["stem"]], run["delay_s"]) for c in calls]
    spawn_to_exit = [c["latency_s"] for c in calls]
    return {
        "ready_s": run["ready_at"][seat] - run["setup_at"],
        "call_s": statistics.median(spawn_to_exit),
        "model_per_call_s": statistics.median(per_call_model),
        "cli_per_call_s": statistics.median(
            t - m for t, m in zip(spawn_to_exit, per_call_model, strict=True)
        ),
        "requests_per_call": len(model) / len(calls),
        "other_requests_per_call": (len(mine) - len(model)) / len(calls),
        "bytes_per_request": mean_bytes(model),
        "prompt_bytes_per_call": sum(c["prompt_bytes"] for c in calls) / len(calls),
        "cli_share": share(
            sum(c["prompt_bytes"] for c in calls), sum(r["body_bytes"] for r in mine)
        ),
    }


def medians(items: Sequence[Any]) -> Any:
    """The median of each figure across runs, key by key (None where no run had it)."""
    first = items[0]
    if isinstance(first, dict):
        keys = list(dict.fromkeys(k for item in items for k in item))
        return {k: medians([item[k] for item in items if k in item]) for k in keys}
    if isinstance(first, list) and all(
        isinstance(item, list) and len(item) == len(first) for item in items
    ):
        return [medians(column) for column in zip(*items, strict=True)]
    numbers = [v for v in items if isinstance(v, int | float) and not isinstance(v, bool)]
    if not numbers:
        return first
    return round(statistics.median(numbers), 4)


# -- running council --------------------------------------------------------------------------


@dataclass(frozen=True)
class Variant:
    name: str
    args: tuple[str, ...] = ()

    @classmethod
    def parse(cls, spec: str) -> Variant:
        name, _, args = spec.partition("=")
        if not name:
            raise argparse.ArgumentTypeError(f"a variant needs a name: NAME=ARGS, not {spec!r}")
        return cls(name, tuple(shlex.split(args)))

    def argv(self, debate: Sequence[str]) -> list[str]:
        """`council [--config FILE] debate ... <args>`: the config file is the group's
        option, everything else the debate's."""
        before: list[str] = []
        after: list[str] = []
        args = iter(self.args)
        for arg in args:
            if arg == "--config":
                before += [arg, next(args, "")]
            elif arg.startswith("--config="):
                before.append(arg)
            else:
                after.append(arg)
        return [*COUNCIL, *before, "debate", *debate, *after]


@dataclass
class Failure(Exception):
    what: str
    exit_code: int
    stderr: str

    def __str__(self) -> str:
        tail = [line for line in self.stderr.splitlines() if line.strip()][-3:]
        return f"{self.what} exited {self.exit_code}: " + " | ".join(tail)


@dataclass
class Bench:
    work: Path
    server: Any  # fakemodel.server.FakeModelServer
    loads: list[float] = field(default_factory=list)

    def project(self) -> Path:
        project = self.work / "project"
        if not project.is_dir():
            project.mkdir(parents=True)
            (project / "README.md").write_text(README)
            (project / "app.py").write_text(APP)
        return project

    def environment(self, clis: Sequence[str], label: str) -> tuple[dict[str, str], list[str]]:
        """The environment a user of these CLIs would have, and the `--model` specs they need:
        their bin directories first on PATH, a HOME of their own configured for the server."""
        from fakemodel.clients import client_setup
        from fakemodel.installed import installed

        home, tmp = self.work / f"home-{label}", self.work / f"tmp-{label}"
        home.mkdir(parents=True, exist_ok=True)
        tmp.mkdir(parents=True, exist_ok=True)
        bins = [str(installed(name).bin_dir) for name in clis]
        env = {
            "PATH": os.pathsep.join([*bins, str(Path(sys.executable).parent), os.defpath]),
            "HOME": str(home),
            "TMPDIR": str(tmp),
            "LANG": "C.UTF-8",
        }
        env.update({k: os.environ[k] for k in ("USER", "LOGNAME") if k in os.environ})
        models = []
        for name in clis:
            # The same HOME for every run of these CLIs: what they keep there between runs,
            # they keep as a user's would.
            setup = client_setup(name, self.server, home)
            env.update(setup.env)
            if setup.model:
                models.append(f"{setup.adapter}:{setup.model}")
        return env, models

    def debate(
        self,
        clis: Sequence[str],
        seats: Sequence[str],
        variant: Variant,
        delay_s: float,
        label: str,
    ) -> dict:
        """Run one `council debate` and return its recorded run: what the pure part reads."""
        env, models = self.environment(clis, label)
        argv = variant.argv(
            [QUESTION, "--files", "README.md", "app.py", *seats, "--json", "--quiet"]
            + (["--model", ",".join(models)] if models else [])
        )
        done, started_at, wall = self.timed(
            argv, env, delay_s, f"council debate ({label}, {variant.name}, D={delay_s:g})"
        )
        result = json.loads(done.stdout)
        record = self.project() / result["scratchpad"]
        clients = {_adapter(n): n for n in clis}
        return recorded_run(record, self.server.log, clients, delay_s, wall, started_at)

    def peer(self, python: Path, participants: int, delay_s: float) -> dict:
        """Run one quorum-cli discussion of the debate's question and files with the Python
        of its venv, its participants the fake model server's models; return what the pure
        part reads (no calls: quorum keeps no record of them)."""
        home = self.work / "home-peer"
        (home / ".quorum").mkdir(parents=True, exist_ok=True)
        # An empty settings file: quorum would otherwise copy its example in on first start.
        (home / ".quorum" / ".env").touch()
        models = [f"model-{chr(ord('a') + i)}" for i in range(participants)]
        env = {
            "PATH": os.environ.get("PATH", os.defpath),
            "HOME": str(home),
            "LANG": "C.UTF-8",
            "CUSTOM_BASE_URL": self.server.url("quorum") + "/v1",
            "CUSTOM_MODELS": ",".join(models),
            "CUSTOM_API_KEY": PEER_KEY,
            "QUORUM_ROUNDS_PER_AGENT": "1",
        }
        argv = [str(python), str(PEER_DRIVER), QUESTION, ",".join(models), "README.md", "app.py"]
        _, started_at, wall = self.timed(argv, env, delay_s, f"{PEER} (D={delay_s:g})")
        return {
            "delay_s": delay_s,
            "wall_s": wall,
            "started_at": started_at,
            "requests": logged_requests(self.server.log, {}),
        }

    def timed(
        self, argv: Sequence[str], env: dict[str, str], delay_s: float, what: str
    ) -> tuple[subprocess.CompletedProcess[str], float, float]:
        """Run `argv` in the project against a fresh server log answering after `delay_s`:
        what it printed, when it started (Unix time) and its wall time; `Failure` unless it
        exited 0."""
        self.server.clear()
        self.server.add_rule(delay_s=delay_s)
        self.loads.append(os.getloadavg()[0])
        started_at = time.time()
        started = time.perf_counter()
        done = subprocess.run(
            argv,
            cwd=self.project(),
            env=env,
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            timeout=SUBPROCESS_TIMEOUT_S,
        )
        wall = time.perf_counter() - started
        if done.returncode != 0:
            raise Failure(what, done.returncode, done.stderr)
        return done, started_at, wall


def logged_requests(log: Sequence[Any], adapter_of: dict[str, str]) -> list[dict]:
    """The server's log as the pure part reads it: client, arrival, outcome and size."""
    return [
        {
            "client": entry.client,
            "adapter": adapter_of.get(entry.client),
            "at": entry.at,
            "outcome": entry.outcome,
            "status": entry.status,
            "body_bytes": entry.body_bytes,
        }
        for entry in log
    ]


def recorded_run(
    record: Path,
    log: Sequence[Any],
    clients: dict[str, str],
    delay_s: float,
    wall_s: float,
    started_at: float,
) -> dict:
    """What one run leaves: the calls from council's record, the requests from the server's
    log (client, arrival, outcome and size only), and the times of SETUP, READY and the first
    ACTION."""
    state = json.loads((record / "state.json").read_text())
    transcript = [
        json.loads(line) for line in (record / "transcript.jsonl").read_text().splitlines()
    ]
    adapter_of = {client: adapter for adapter, client in clients.items()}
    calls = [
        {
            "stem": stem,
            "seat": call["seat"],
            "phase": call["phase"],
            "round": call["round"],
            "cli": call["cli"],
            "status": call["status"],
            "started_at": call["started_at"],
            "ended_at": call["started_at"] + _ran_s(call),
            "latency_s": call["latency_s"],
            "prompt_bytes": (record / call["prompt_file"]).stat().st_size,
        }
        for stem, call in state["calls"].items()
        # The simulator's calls reach no server; a phase sat out (`skipped`) made no call.
        if call["cli"] in clients and call["status"] != "skipped"
    ]
    requests = logged_requests(log, adapter_of)
    return {
        "delay_s": delay_s,
        "wall_s": wall_s,
        "started_at": started_at,
        "workers": warm_workers(record),
        "setup_at": next(
            _ts(e) for e in transcript if e["kind"] == "system" and e["body"] == "phase SETUP"
        ),
        "ready_at": {e["from"]: _ts(e) for e in transcript if e["kind"] == "ready"},
        "first_action_at": next(_ts(e) for e in transcript if e["kind"] == "dm"),
        "clients": clients,
        "calls": calls,
        "requests": requests,
        "prompt_bytes": sum(c["prompt_bytes"] for c in calls),
    }


def warm_workers(record: Path) -> dict[str, dict]:
    """Each seat's warm worker as result.json reports it (mode, peak RSS), by seat; {} for a
    run with none (--cold, or a record without its result)."""
    try:
        result = json.loads((record / "result.json").read_text())
    except (OSError, ValueError):
        return {}
    return {
        seat["name"]: {"cli": seat["cli"], "rss_peak_mb": seat["worker"].get("rss_peak_mb")}
        for seat in result.get("seats", [])
        if isinstance(seat.get("worker"), dict) and seat["worker"].get("mode") == "warm"
    }


def _ran_s(call: dict) -> float:
    """From a call's spawn to its last attempt's exit, to the millisecond (`latency_s` is
    rounded to 10 ms)."""
    spans = call.get("spans") or []
    return max((start + took for start, took, _ in spans), default=call["latency_s"])


def _ts(entry: dict) -> float:
    return datetime.fromisoformat(entry["ts"]).timestamp()


def probe_s(name: str, env: dict[str, str]) -> tuple[float, str | None]:
    """The `--version` probe as council runs it at SETUP, timed from spawn to exit."""
    import anyio

    from council.adapters import adapter_for
    from council.runner.environment import adapter_env
    from council.runner.probe import run_probe

    adapter = adapter_for(_adapter(name))
    found = shutil.which(adapter.command()[0], path=env["PATH"])
    assert found, f"{name} is not on the bench's PATH"
    argv = [found, *adapter.command()[1:], *(adapter.version_argv() or ())]

    async def probe() -> tuple[float, str | None]:
        started = time.perf_counter()
        result = await run_probe(argv, env=adapter_env(adapter, env), timeout_s=30)
        took = time.perf_counter() - started
        info = adapter.read_version(result.exit_code, result.stdout, result.stderr)
        return took, info.version

    return anyio.run(probe)


def _adapter(name: str) -> str:
    return "kimi" if name.startswith("kimi") else name


# -- the table --------------------------------------------------------------------------------


def seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f} s"


def number(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def kilobytes(value: float | None) -> str:
    return "-" if value is None else f"{value / 1000:.1f} KB"


def kb(value: float | None) -> float | None:
    return None if value is None else value / 1000


def percent(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:.0f} %"


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    lines = [
        "  ".join(
            str(cell).ljust(w) if i == 0 else str(cell).rjust(w)
            for i, (cell, w) in enumerate(zip(row, widths, strict=True))
        )
        for row in [header, *rows]
    ]
    return "\n".join([lines[0], "  ".join("-" * w for w in widths), *lines[1:]])


def debate_table(debate: dict[str, dict[str, dict]]) -> str:
    """Rows of figures, one column per variant and D."""
    columns = [(v, d, f) for v, by_delay in debate.items() for d, f in by_delay.items()]
    multi = len(debate) > 1
    header = ["", *(f"{v + ', ' if multi else ''}D = {d} s" for v, d, _ in columns)]
    rows = [
        ["wall", *(seconds(f["wall_s"]) for *_, f in columns)],
        ["critical path (model)", *(seconds(f["critical_path_s"]) for *_, f in columns)],
        ["overhead (wall - path)", *(seconds(f["overhead_s"]) for *_, f in columns)],
        ["ratio", *(number(f["ratio"]) for *_, f in columns)],
        ["  start to first ACTION", *(seconds(f["first_action_s"]) for *_, f in columns)],
        ["  CLIs' own, on the path", *(seconds(f["clis_on_path_s"]) for *_, f in columns)],
        [
            "  council between calls",
            *(seconds(f["council_between_calls_s"]) for *_, f in columns),
        ],
        [
            "calls / model requests",
            *(f"{f['calls']:g} / {f['model_requests']:g}" for *_, f in columns),
        ],
        ["requests per call", *(number(f["requests_per_call"]) for *_, f in columns)],
        ["sent to the model", *(kilobytes(f["bytes_sent"]) for *_, f in columns)],
        ["council's prompts", *(kilobytes(f["prompt_bytes"]) for *_, f in columns)],
        ["added by the CLIs", *(percent(f["cli_share"]) for *_, f in columns)],
        [
            "warm workers' peak RSS",
            *(
                ", ".join(f"{cli} {mb:.0f}" for cli, mb in f.get("workers", {}).items() if mb)
                + f" (sum {f.get('worker_rss_mb', 0):.0f} MB)"
                for *_, f in columns
            ),
        ],
    ]
    clients = list(dict.fromkeys(c for *_, f in columns for c in f["per_cli"]))
    for client in clients:
        cells = []
        for *_, f in columns:
            c = f["per_cli"].get(client)
            cells.append(
                "-"
                if c is None
                else f"{number(c['requests_per_call'])} req/call, "
                f"{kilobytes(c['bytes_per_request'])}/req ({percent(c['cli_share'])}; "
                f"CLI {kilobytes(c.get('cli_bytes_per_request'))})"
            )
        rows.append([f"  {client}", *cells])
    phase_names = list(dict.fromkeys(p for *_, f in columns for p in f["phases"]))
    for name in phase_names:
        cells = []
        for *_, f in columns:
            p = f["phases"].get(name)
            cells.append(
                "-"
                if p is None
                else f"{p['requests']:g} req, model {p['model_s']:.2f} s, "
                f"call {p['longest_call_s']:.2f} s, beyond D {seconds(p.get('beyond_s'))}"
            )
        rows.append([f"  {name}", *cells])
    return table(header, rows)


def segments_table(debate: dict[str, dict[str, dict]], peer: dict | None) -> str:
    """One row per variant and D, and the peer's: the wall cut into what follows one after
    another (with the critical path they add up to the wall) and bytes per request."""
    header = [
        "",
        "D",
        "wall",
        "path",
        "ratio",
        "chain",
        "launch->1st req",
        "steps beyond D",
        "gaps",
        "DECISION beyond D",
        "exit",
        "KB per request (CLI's own)",
    ]
    rows = []
    for variant, by_delay in debate.items():
        for delay, f in by_delay.items():
            per_request = ", ".join(
                f"{client} {number(kb(c['bytes_per_request']), 1)} "
                f"({number(kb(c.get('cli_bytes_per_request')), 1)})"
                for client, c in f["per_cli"].items()
            )
            rows.append(
                [
                    f"council {variant}",
                    f"{delay} s",
                    seconds(f["wall_s"]),
                    seconds(f["critical_path_s"]),
                    number(f["ratio"]),
                    "-" if f.get("chain") is None else f"{f['chain']:g}",
                    seconds(f.get("launch_to_first_request_s")),
                    seconds(f.get("beyond_model_s")),
                    " + ".join(f"{g:.2f}" for g in f.get("gaps_s", [])) or "-",
                    seconds(f.get("decision_beyond_s")),
                    seconds(f.get("exit_s")),
                    per_request,
                ]
            )
    if peer is not None:
        for delay, f in peer["by_delay"].items():
            row = [peer["name"], f"{delay} s"]
            if "failed" in f:
                rows.append([*row, f"every run failed: {f['failed']}"])
            else:
                rows.append(
                    [
                        *row,
                        seconds(f["wall_s"]),
                        seconds(f["critical_path_s"]),
                        number(f["ratio"]),
                        "-" if f["chain"] is None else f"{f['chain']:g}",
                        seconds(f["launch_to_first_request_s"]),
                        "-",
                        "-",
                        "-",
                        f"{seconds(f['exit_s'])} (from the last answer)",
                        f"{number(kb(f['bytes_per_request']), 1)} (no CLI)",
                    ]
                )
            rows[-1] += [""] * (len(header) - len(rows[-1]))
    return table(header, rows)


def alone_table(alone: dict[str, dict], probes: dict[str, dict]) -> str:
    """One row per CLI, variant and D; the probe (the same for all) on the CLI's first row."""
    variants = len({v for by_variant in alone.values() for v in by_variant}) > 1
    header = [
        "CLI",
        *(["variant"] if variants else []),
        "D",
        "probe",
        "READY after",
        "call (spawn-exit)",
        "model/call",
        "CLI's own/call",
        "req/call",
        "KB/req",
        "prompt KB/call",
        "added by CLI",
        "failed runs",
    ]
    rows = []
    for client, by_variant in alone.items():
        first = True
        for variant, by_delay in by_variant.items():
            for delay, f in by_delay.items():
                row = [client if first else "", *([variant] if variants else []), f"{delay} s"]
                row.append(seconds(probes[client]["probe_s"]) if first else "")
                first = False
                if "failed" in f:  # the reason is in the JSON and was logged
                    rows.append([*row, f"every run failed, exit {f['exit_code']}"])
                    rows[-1] += [""] * (len(header) - len(rows[-1]))
                    continue
                rows.append(
                    [
                        *row,
                        seconds(f["ready_s"]),
                        seconds(f["call_s"]),
                        seconds(f["model_per_call_s"]),
                        seconds(f["cli_per_call_s"]),
                        number(f["requests_per_call"]),
                        number(
                            None
                            if f["bytes_per_request"] is None
                            else f["bytes_per_request"] / 1000,
                            1,
                        ),
                        number(f["prompt_bytes_per_call"] / 1000, 1),
                        percent(f["cli_share"]),
                        str(f["failed_runs"] or ""),
                    ]
                )
    return table(header, rows)


# -- main -------------------------------------------------------------------------------------


def version(status: str | None) -> str | None:
    """The version number in what the installer recorded ("codex-cli 0.169.0")."""
    found = re.search(r"\d+\.\d+[\w.+-]*", status or "")
    return found.group(0) if found else status


def installed_clis() -> list[str]:
    from fakemodel.clients import CLIENTS
    from fakemodel.installed import installed

    return [name for name in CLIENTS if installed(name).ok]


def delays(text: str) -> list[float]:
    try:
        return [float(d) for d in text.split(",") if d.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--delays takes seconds like 0,2, not {text!r}") from None


def positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"takes a whole number >= 1, not {text!r}")
    return int(text)


def names(text: str) -> list[str]:
    return [n.strip() for n in text.split(",") if n.strip()]


def label(delay: float) -> str:
    return f"{delay:g}"


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument(
        "--delays",
        type=delays,
        default=[0.0, 2.0],
        metavar="D[,D...]",
        help="model delays, seconds (0,2)",
    )
    parser.add_argument(
        "--runs", type=positive, default=3, metavar="N", help="runs per figure; medians (3)"
    )
    parser.add_argument(
        "--debate",
        type=names,
        default=["claude", "codex", "gemini"],
        metavar="CLI,CLI[,CLI...]",
        help="the debate's CLIs: advocate, critic, then proxies (claude,codex,gemini)",
    )
    parser.add_argument(
        "--lead", default="claude", help="the debate's lead (claude; `auto`: council's choice)"
    )
    parser.add_argument(
        "--rounds", type=positive, default=3, metavar="N", help="the debate's rounds (3)"
    )
    parser.add_argument(
        "--clis",
        type=names,
        metavar="CLI[,CLI...]",
        help="the CLIs to bench alone (default: every installed one)",
    )
    parser.add_argument("--no-debate", action="store_true", help="only the CLIs alone")
    parser.add_argument("--no-alone", action="store_true", help="only the debate")
    parser.add_argument(
        "--peer-python",
        type=Path,
        metavar="PATH",
        help=f"the Python of a venv holding {PEER}, for the side-by-side row (default: "
        f"{PEER_PYTHON.relative_to(ROOT)} where it is)",
    )
    parser.add_argument("--no-peer", action="store_true", help=f"no {PEER} row")
    parser.add_argument(
        "--variant",
        dest="variants",
        action="append",
        type=Variant.parse,
        metavar="NAME=ARGS",
        help="repeat every run with these extra `council debate` arguments (repeatable); "
        "e.g. --variant base= --variant cold=--cold",
    )
    parser.add_argument(
        "--keep",
        type=Path,
        metavar="DIR",
        help="work in this directory and keep it: the records, every recorded run (runs.json) "
        "and the figures (figures.json)",
    )
    return parser.parse_args(argv)


def seat_args(clis: Sequence[str], lead: str | None, rounds: int) -> list[str]:
    adapters = [_adapter(n) for n in clis]
    seats = ["--advocate", adapters[0], "--critic", adapters[1], "--rounds", str(rounds)]
    if adapters[2:]:
        seats += ["--with", ",".join(adapters[2:])]
    if lead and lead != "auto":
        seats += ["--lead", _adapter(lead)]
    return seats


def run_bench(args: argparse.Namespace, work: Path) -> dict:
    from fakemodel.clients import CLIENTS
    from fakemodel.installed import installed
    from fakemodel.server import FakeModelServer

    variants = args.variants or [Variant("default")]
    if len({v.name for v in variants}) != len(variants):
        raise SystemExit("bench-real: two variants share a name")
    if not args.no_debate and len(args.debate) < 2:
        raise SystemExit("bench-real: --debate needs an advocate and a critic: claude,codex")
    available = installed_clis()
    wanted = [*([] if args.no_debate else args.debate), *(args.clis or [])]
    if unknown := [n for n in wanted if n not in CLIENTS]:
        raise SystemExit(
            f"bench-real: unknown CLI {', '.join(unknown)}; the known: {', '.join(CLIENTS)}"
        )
    missing = [n for n in wanted if n not in available]
    if missing:
        raise SystemExit(
            f"bench-real: not installed in .cache/real-clis: {', '.join(missing)}; "
            "run scripts/install-real-clis.sh"
        )
    kimis = [n for n in args.debate if n.startswith("kimi")]
    if not args.no_debate and len(kimis) > 1:
        raise SystemExit("bench-real: kimi-cli and kimi-code are both `kimi`: seat one of them")
    figures: dict[str, Any] = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}",
        "nproc": os.cpu_count(),
        "load_before": [round(x, 2) for x in os.getloadavg()],
        "runs": args.runs,
        "delays_s": args.delays,
        "variants": {v.name: list(v.args) for v in variants},
        "versions": {n: version(installed(n).version) for n in available},
    }
    raw: dict[str, Any] = {"debate": {}, "alone": {}}
    with FakeModelServer() as server:
        bench = Bench(work, server)
        if not args.no_debate:
            seats = seat_args(args.debate, args.lead, args.rounds)
            figures["debate_seats"] = " ".join(seats)
            peer = None if args.no_peer else find_peer(args.peer_python)
            raw["debate"], raw["peer"] = bench_debate(
                bench, args.debate, seats, variants, args, peer
            )
            figures["debate"] = {
                v: {d: medians([debate_figures(r) for r in rs]) for d, rs in by_d.items()}
                for v, by_d in raw["debate"].items()
            }
            figures["peer"] = {
                "name": f"{PEER} {PEER_VERSION} (API, standard method)",
                "installed": peer is not None,
                "add": f"{PEER_INSTALL} (or --peer-python PATH)",
                "by_delay": {d: peer_cell(rs) for d, rs in raw["peer"].items()},
            }
        if not args.no_alone:
            clis = args.clis or available
            # Untimed, before the probes too: each CLI's first start on its new HOME writes
            # caches a user already has.
            for name in clis:
                log(f"bench-real: {name} alone, warm-up (untimed)")
                try:
                    bench.debate([name], alone_seats(name), variants[0], 0.0, name)
                except Failure as failure:  # its timed runs will say whether it stays so
                    log(f"bench-real: {failure}")
            figures["probes"] = bench_probes(bench, clis, args.runs)
            raw["alone"], failures = bench_alone(bench, clis, variants, args)
            figures["alone"] = {
                name: {
                    v.name: {
                        label(d): alone_cell(
                            raw["alone"][name][v.name].get(label(d), []),
                            failures.get((name, v.name, label(d)), []),
                        )
                        for d in args.delays
                    }
                    for v in variants
                }
                for name in clis
            }
        figures["load_at_run_start"] = {
            "min": round(min(bench.loads, default=0), 2),
            "max": round(max(bench.loads, default=0), 2),
        }
    figures["load_after"] = [round(x, 2) for x in os.getloadavg()]
    (work / "runs.json").write_text(json.dumps(raw, indent=1))
    return figures


def bench_debate(
    bench: Bench,
    clis: Sequence[str],
    seats: Sequence[str],
    variants: Sequence[Variant],
    args: argparse.Namespace,
    peer: Path | None = None,
) -> tuple[dict[str, dict[str, list[dict]]], dict[str, list[dict]]]:
    """The recorded runs of the debate, per variant and D, and the peer's per D (none without
    its Python; a failed one says why); runs interleaved so that load hits every variant, the
    peer and D alike."""
    # Untimed: the CLIs' first start on a new HOME writes caches a user already has.
    log("bench-real: warm-up debate (untimed)")
    bench.debate(clis, seats, variants[0], 0.0, "debate")
    runs: dict[str, dict[str, list[dict]]] = {v.name: {} for v in variants}
    peer_runs: dict[str, list[dict]] = {}
    for i in range(args.runs):
        for delay in args.delays:
            for variant in variants:
                run = bench.debate(clis, seats, variant, delay, "debate")
                runs[variant.name].setdefault(label(delay), []).append(run)
                log(
                    f"bench-real: debate {variant.name} D={delay:g} run {i + 1}: "
                    f"wall {run['wall_s']:.2f} s, load {bench.loads[-1]:.2f}"
                )
            if peer is not None:
                try:
                    run = bench.peer(peer, len(clis), delay)
                except Failure as failure:
                    log(f"bench-real: {failure}")
                    run = {"failed": str(failure)}
                peer_runs.setdefault(label(delay), []).append(run)
                if "wall_s" in run:
                    log(f"bench-real: {PEER} D={delay:g} run {i + 1}: wall {run['wall_s']:.2f} s")
    return runs, peer_runs


def peer_cell(runs: Sequence[dict]) -> dict:
    """The medians of the peer's runs that ended well and how many did not."""
    good = [r for r in runs if "failed" not in r]
    failed = len(runs) - len(good)
    if not good:
        return {"failed": runs[-1]["failed"], "failed_runs": failed}
    return {**medians([peer_figures(r) for r in good]), "failed_runs": failed}


def find_peer(option: Path | None) -> Path | None:
    """The Python of the venv holding the peer: --peer-python, else the documented place."""
    if option is not None:
        if not option.is_file():
            raise SystemExit(f"bench-real: --peer-python {option}: no such file; {PEER_INSTALL}")
        return option
    return PEER_PYTHON if PEER_PYTHON.is_file() else None


def bench_probes(bench: Bench, clis: Sequence[str], runs: int) -> dict[str, dict]:
    """The median `--version` probe of each CLI, the CLIs taken in turn in every run."""
    envs = {name: bench.environment([name], name)[0] for name in clis}
    timed: dict[str, list[tuple[float, str | None]]] = {name: [] for name in clis}
    for _ in range(runs):
        for name in clis:
            timed[name].append(probe_s(name, envs[name]))
    return {
        name: {
            "probe_s": round(statistics.median(t for t, _ in timed[name]), 4),
            "version": timed[name][0][1],
        }
        for name in clis
    }


def alone_seats(name: str) -> list[str]:
    """`name` the advocate of a 2-round debate whose other seats are the simulator."""
    seats = ["--advocate", _adapter(name), "--critic", "sim", "--lead", "sim"]
    return [*seats, "--rounds", "2", "--no-blind"]


def bench_alone(
    bench: Bench, clis: Sequence[str], variants: Sequence[Variant], args: argparse.Namespace
) -> tuple[dict[str, dict[str, dict[str, list[dict]]]], dict[tuple[str, str, str], dict]]:
    """The recorded runs of each CLI as the advocate of a 2-round debate of simulators, per
    CLI, variant and D, interleaved so that load hits every CLI, variant and D alike; and
    the failures (a CLI that does not work here leaves a row that says so, not a stopped
    bench; one that fails now and then, as a probe past its timeout under load, is counted)."""
    runs: dict[str, dict[str, dict[str, list[dict]]]] = {
        name: {v.name: {} for v in variants} for name in clis
    }
    failures: dict[tuple[str, str, str], list[dict]] = {}
    for i in range(args.runs):
        for name in clis:
            for delay in args.delays:
                for variant in variants:
                    try:
                        run = bench.debate([name], alone_seats(name), variant, delay, name)
                    except Failure as failure:
                        failures.setdefault((name, variant.name, label(delay)), []).append(
                            {"failed": str(failure), "exit_code": failure.exit_code}
                        )
                        log(f"bench-real: {failure}")
                        continue
                    runs[name][variant.name].setdefault(label(delay), []).append(run)
                    log(
                        f"bench-real: {name} alone {variant.name} D={delay:g} run {i + 1}: "
                        f"wall {run['wall_s']:.2f} s, load {bench.loads[-1]:.2f}"
                    )
    return runs, failures


def alone_cell(runs: Sequence[dict], failures: Sequence[dict]) -> dict:
    """The medians of the runs that ended well and how many did not; the last failure when
    none did."""
    if not runs:
        return {**failures[-1], "failed_runs": len(failures)}
    return {**medians([alone_figures(r) for r in runs]), "failed_runs": len(failures)}


def render(figures: dict) -> str:
    versions = ", ".join(f"{n} {v}" for n, v in figures["versions"].items() if v)
    load = figures["load_at_run_start"]
    out = [
        f"council on real CLIs against the fake model server; {figures['machine']}; "
        f"medians of {figures['runs']} runs",
        f"load average (1 min) at each run's start: {load['min']}-{load['max']} "
        f"(before {figures['load_before']}, after {figures['load_after']})",
        f"CLIs: {versions}",
    ]
    if variants := {
        k: v for k, v in figures["variants"].items() if v or len(figures["variants"]) > 1
    }:
        out.append(
            "variants: " + "; ".join(f"{k}: {' '.join(v) or '(none)'}" for k, v in variants.items())
        )
    if "debate" in figures:
        out += [
            "",
            f"Debate: council debate ... {figures['debate_seats']}",
            "(per CLI: model requests per call, KB per request, and how much of what it sent "
            "the CLI added to council's prompts;\n per step of the critical path: model "
            "requests, the model time of its longest call, its longest spawn-to-exit)",
            debate_table(figures["debate"]),
            "",
            "The wall cut along the model's requests (path + launch->1st req + steps beyond D "
            "+ gaps + exit = wall; chain: model requests\n one after another; per request: "
            "KB sent, and beyond council's prompt the CLI's own)",
            segments_table(figures["debate"], figures.get("peer")),
        ]
        peer = figures.get("peer")
        if peer is not None and not peer["installed"]:
            out.append(render_peer_missing(peer))
    if "alone" in figures:
        out += [
            "",
            "Each CLI alone: its `--version` probe as council runs it, then 2 calls as the "
            "advocate of a 2-round debate (the other seats simulated)",
            alone_table(figures["alone"], figures["probes"]),
        ]
    return "\n".join(out)


def render_peer_missing(peer: dict) -> str:
    return f"{peer['name']}: not installed; to add its row: {peer['add']}"


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    import council

    # As an installed package would be (PYTHONDONTWRITEBYTECODE may be set here): otherwise
    # every run would compile council's sources again and count that as start-up.
    compileall.compile_dir(Path(council.__file__).parent, quiet=1)
    with _workdir(args.keep) as work:
        try:
            figures = run_bench(args, work)
        except Failure as failure:
            raise SystemExit(f"bench-real: {failure}") from None
        (work / "figures.json").write_text(json.dumps(figures, indent=2))
    print(json.dumps(figures, indent=2) if args.json else render(figures))
    return 0


class _workdir:
    """The --keep directory, or a temporary one removed afterwards."""

    def __init__(self, keep: Path | None) -> None:
        self.keep = keep
        self.tmp: tempfile.TemporaryDirectory[str] | None = None

    def __enter__(self) -> Path:
        if self.keep is not None:
            self.keep.mkdir(parents=True, exist_ok=True)
            return self.keep.resolve()
        self.tmp = tempfile.TemporaryDirectory(prefix="bench-real-")
        return Path(self.tmp.name)

    def __exit__(self, *exc: object) -> None:
        if self.tmp is not None:
            _writable(Path(self.tmp.name))
            self.tmp.cleanup()


def _writable(root: Path) -> None:
    # What the CLIs leave read-only (council's rooms) must not stop the clean-up.
    for path in [root, *root.rglob("*")]:
        if path.is_dir() and not path.is_symlink():
            path.chmod(path.stat().st_mode | 0o700)


if __name__ == "__main__":
    sys.exit(main())
