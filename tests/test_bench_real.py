"""scripts/bench-real.py's figures from recorded runs (no CLI runs here, and no timing): the
critical path rebuilt from the fake model server's log, requests per call, bytes per CLI,
medians across runs, and the extra arguments of a variant.

tests/data/bench-real-runs.json holds two runs the script recorded at D = 2 s: a 3-round
debate (claude advocate and lead, codex critic, gemini proxy) and claude alone as the advocate
of a 2-round debate of simulators."""

from __future__ import annotations

import copy
import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RECORDED = json.loads((ROOT / "tests" / "data" / "bench-real-runs.json").read_text())


def _load_script():
    spec = importlib.util.spec_from_file_location("bench_real", ROOT / "scripts" / "bench-real.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_real"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


bench = _load_script()


@pytest.fixture
def debate() -> dict:
    return copy.deepcopy(RECORDED["debate"])


@pytest.fixture
def alone() -> dict:
    return copy.deepcopy(RECORDED["alone"])


def request(client: str, at: float, outcome: str = "answer", size: int = 1000) -> dict:
    return {
        "client": client,
        "adapter": client,
        "at": at,
        "outcome": outcome,
        "status": 200,
        "body_bytes": size,
    }


def test_the_recorded_debates_critical_path_is_its_five_sequential_model_turns(debate):
    figures = bench.debate_figures(debate)
    # Side by side: the BLIND TAKEs with the PROPOSAL, the FINAL_SUMMARY with the REBUTTALs.
    assert {name: (s["calls"], s["requests"]) for name, s in figures["phases"].items()} == {
        "R1 PROPOSAL": (3, 3),
        "R2 CHALLENGE": (2, 2),
        "R2 RESPOND": (1, 1),
        "R3 REBUTTAL": (3, 3),
        "R3 lead DECISION": (1, 1),
    }
    assert figures["critical_path_s"] == pytest.approx(10.0)
    assert figures["overhead_s"] == pytest.approx(debate["wall_s"] - 10.0)
    assert figures["ratio"] == pytest.approx(debate["wall_s"] / 10.0)
    assert figures["unattributed_requests"] == 0


def test_the_overhead_splits_into_start_up_the_clis_own_time_and_council_between_calls(debate):
    figures = bench.debate_figures(debate)
    spans = [s["span_s"] for s in figures["phases"].values()]
    longest = [7.61, 7.79, 2.82, 6.74, 3.16]  # each step's slowest call, from the record
    # READY was a barrier: a step's calls started together, so its span is its slowest call.
    assert spans == pytest.approx(longest, abs=0.02)
    assert figures["clis_on_path_s"] == pytest.approx(sum(spans) - 10.0)
    assert figures["first_action_s"] == pytest.approx(3.881, abs=0.001)
    assert figures["first_action_s"] + sum(spans) + figures[
        "council_between_calls_s"
    ] == pytest.approx(debate["wall_s"])


def test_a_seat_asked_late_once_it_is_ready_widens_its_step_not_councils_share(debate):
    """READY per seat: the PROPOSAL goes out at once, a slow-to-probe proxy's BLIND TAKE
    later; the wait is the CLI's, on the path, not council's between steps."""
    before = bench.debate_figures(copy.deepcopy(debate))
    owned, _ = bench.attribute(debate["calls"], debate["requests"])
    late = [c for c in debate["calls"] if c["phase"] != "PROPOSAL"]  # BLIND TAKE onwards
    for call in late:
        call["started_at"] += 3.0
        call["ended_at"] += 3.0
        for r in owned[call["stem"]]:
            r["at"] += 3.0
    debate["wall_s"] += 3.0
    after = bench.debate_figures(debate)
    assert after["critical_path_s"] == pytest.approx(10.0)
    assert after["council_between_calls_s"] == pytest.approx(
        before["council_between_calls_s"], abs=0.01
    )
    assert after["clis_on_path_s"] > before["clis_on_path_s"] + 2.0


def test_bytes_are_counted_per_cli_against_councils_own_prompts(debate):
    figures = bench.debate_figures(debate)
    assert figures["bytes_sent"] == 320_037
    assert figures["prompt_bytes"] == 18_846
    claude = figures["per_cli"]["claude"]
    assert (claude["calls"], claude["requests"], claude["requests_per_call"]) == (4, 4, 1.0)
    assert claude["bytes_sent"] == 13_731 + 14_260 + 14_307 + 16_272
    assert claude["bytes_per_request"] == claude["bytes_sent"] / 4
    assert claude["cli_share"] == pytest.approx(1 - claude["prompt_bytes"] / claude["bytes_sent"])
    assert {c: f["calls"] for c, f in figures["per_cli"].items()} == {
        "codex": 3,
        "claude": 4,
        "gemini": 3,
    }


def test_a_call_that_makes_a_second_model_request_after_its_answer_costs_two_model_turns(
    debate,
):
    """qwen's old auto-memory request: the call waits for it, so the phase does too."""
    respond = next(c for c in debate["calls"] if c["stem"] == "advocate-r2")
    first = next(
        r
        for r in debate["requests"]
        if r["client"] == "claude" and respond["started_at"] <= r["at"] <= respond["ended_at"]
    )
    debate["requests"].append(request("claude", first["at"] + 2.1, size=34_000))
    respond["ended_at"] += 2.1  # the call waits for it
    respond["latency_s"] += 2.1
    figures = bench.debate_figures(debate)
    assert figures["phases"]["R2 RESPOND"]["requests"] == 2
    assert figures["phases"]["R2 RESPOND"]["model_s"] == pytest.approx(4.0)
    assert figures["critical_path_s"] == pytest.approx(12.0)
    assert figures["per_cli"]["claude"]["requests_per_call"] == 5 / 4


def test_requests_in_flight_together_count_once_on_the_path(alone):
    call = alone["calls"][0]
    first = next(r for r in alone["requests"] if r["at"] <= call["ended_at"])
    alone["requests"].append(request("claude", first["at"] + 0.5))
    figures = bench.alone_figures(alone)
    assert figures["requests_per_call"] == 1.5
    assert figures["model_per_call_s"] == pytest.approx((2.5 + 2.0) / 2)


def test_token_counts_and_model_lists_are_bytes_sent_but_no_model_turn(alone):
    call = alone["calls"][0]
    alone["requests"].append(request("claude", call["started_at"] + 0.1, "count", size=500))
    figures = bench.alone_figures(alone)
    assert figures["requests_per_call"] == 1.0
    assert figures["other_requests_per_call"] == 0.5
    assert figures["model_per_call_s"] == pytest.approx(2.0)
    assert figures["bytes_per_request"] == (13_731 + 14_367) / 2  # model requests only


def test_a_cli_alone_is_measured_from_its_own_calls(alone):
    figures = bench.alone_figures(alone)
    assert figures["ready_s"] == pytest.approx(0.435, abs=0.001)
    assert figures["call_s"] == pytest.approx((4.02 + 4.71) / 2)
    assert figures["model_per_call_s"] == pytest.approx(2.0)
    assert figures["cli_per_call_s"] == pytest.approx((4.02 + 4.71) / 2 - 2.0)
    assert figures["prompt_bytes_per_call"] == (1310 + 1929) / 2


def test_a_request_where_one_call_ends_and_the_next_starts_goes_to_the_call_that_holds_it():
    calls = [
        {"stem": "a", "cli": "claude", "started_at": 10.0, "ended_at": 11.0},
        {"stem": "b", "cli": "claude", "started_at": 11.001, "ended_at": 12.0},
        {"stem": "c", "cli": "codex", "started_at": 10.0, "ended_at": 12.0},
    ]
    owned, stray = bench.attribute(
        calls,
        [
            request("claude", 10.9995),  # in a; within rounding of b
            request("claude", 11.0008),  # in neither, within rounding of both: b
            request("claude", 13.0),  # no call ran: stray
            request("codex", 11.5),
        ],
    )
    assert {stem: [r["at"] for r in rs] for stem, rs in owned.items()} == {
        "a": [10.9995],
        "b": [11.0008],
        "c": [11.5],
    }
    assert [r["at"] for r in stray] == [13.0]


def test_intervals_one_after_another_add_up_and_overlapping_ones_count_once():
    assert bench.union_s([(0, 2), (3, 5)]) == 4
    assert bench.union_s([(0, 2), (1, 3), (1.5, 2.5)]) == 3
    assert bench.union_s([]) == 0


def test_medians_are_taken_figure_by_figure_and_a_ratio_without_a_path_stays_none():
    runs = [
        {"wall_s": 3.0, "ratio": None, "per_cli": {"claude": {"calls": 4}}, "phase": "R1"},
        {"wall_s": 1.0, "ratio": None, "per_cli": {"claude": {"calls": 4}}, "phase": "R1"},
        {"wall_s": 2.0, "ratio": None, "per_cli": {"claude": {"calls": 5}}, "phase": "R1"},
    ]
    assert bench.medians(runs) == {
        "wall_s": 2.0,
        "ratio": None,
        "per_cli": {"claude": {"calls": 4}},
        "phase": "R1",
    }


def test_a_variants_arguments_follow_the_debates_and_its_config_file_precedes_the_command():
    variant = bench.Variant.parse("cold=--cold --config alt.yaml --no-lean")
    argv = variant.argv(["Q?", "--rounds", "3"])
    assert variant.name == "cold"
    command = argv.index("debate")
    assert argv[command - 2 : command] == ["--config", "alt.yaml"]
    assert argv[command:] == ["debate", "Q?", "--rounds", "3", "--cold", "--no-lean"]
    assert bench.Variant.parse("base=").argv(["Q?"])[-2:] == ["debate", "Q?"]
    with pytest.raises(Exception, match="needs a name"):
        bench.Variant.parse("=--cold")


@pytest.mark.parametrize("runs", ["0", "-1", "two"])
def test_a_run_count_below_one_is_refused_before_anything_runs(runs, capsys):
    with pytest.raises(SystemExit) as refused:
        bench.parse_args(["--runs", runs])
    assert refused.value.code == 2
    assert f"takes a whole number >= 1, not {runs!r}" in capsys.readouterr().err


def test_an_unknown_cli_or_a_debate_without_a_critic_is_named_before_any_cli_runs(tmp_path):
    with pytest.raises(SystemExit, match=r"unknown CLI claud; the known: .*claude"):
        bench.run_bench(bench.parse_args(["--debate", "claud,codex"]), tmp_path)
    with pytest.raises(SystemExit, match="unknown CLI nope"):
        bench.run_bench(bench.parse_args(["--no-debate", "--clis", "nope"]), tmp_path)
    with pytest.raises(SystemExit, match="needs an advocate and a critic"):
        bench.run_bench(bench.parse_args(["--debate", "claude"]), tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_a_cli_that_fails_some_runs_keeps_the_figures_of_the_others_and_counts_the_failures(
    alone,
):
    """Under load a slow `--version` probe can miss its timeout and the seat is dropped."""
    failure = {"failed": "council debate (gemini, default, D=0) exited 3: dropped", "exit_code": 3}
    faster = copy.deepcopy(alone)
    for call in faster["calls"]:
        call["latency_s"] -= 1.0
    cell = bench.alone_cell([alone, faster], [failure])
    assert cell["failed_runs"] == 1
    assert cell["call_s"] == pytest.approx(bench.alone_figures(alone)["call_s"] - 0.5)
    assert bench.alone_cell([], [failure, failure]) == {**failure, "failed_runs": 2}
    assert "failed" not in cell


def test_warm_workers_memory_is_read_from_the_result_and_summed_per_run(debate, tmp_path):
    seats = [
        {"name": "advocate", "cli": "claude", "worker": {"mode": "warm", "rss_peak_mb": 204.0}},
        {"name": "critic", "cli": "codex", "worker": {"mode": "spawn", "rss_peak_mb": None}},
        {"name": "proxy-gemini", "cli": "gemini", "worker": {"mode": "warm", "rss_peak_mb": 377.5}},
        {"name": "lead", "cli": "claude", "worker": None},
    ]
    (tmp_path / "result.json").write_text(json.dumps({"seats": seats}))
    debate["workers"] = bench.warm_workers(tmp_path)
    assert set(debate["workers"]) == {"advocate", "proxy-gemini"}  # a spawning seat has none
    figures = bench.debate_figures(debate)
    assert figures["worker_rss_mb"] == pytest.approx(581.5)
    assert figures["workers"] == {"claude": 204.0, "gemini": 377.5}
    assert "claude 204, gemini 378 (sum 582 MB)" in bench.debate_table({"warm": {"2": figures}})
    cold = bench.debate_figures({**debate, "workers": bench.warm_workers(tmp_path / "none")})
    assert cold["worker_rss_mb"] == 0
