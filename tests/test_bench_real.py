"""scripts/bench-real.py's figures from recorded runs (no CLI runs here, and no timing): the
critical path rebuilt from the fake model server's log, requests per call, bytes per CLI,
medians across runs, and the extra arguments of a variant.

tests/data/bench-real-runs.json holds two runs the script recorded at D = 2 s: a 3-round
debate (claude advocate and lead, codex critic, gemini proxy) and claude alone as the advocate
of a 2-round debate of simulators."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from scripts_module import load_script

ROOT = Path(__file__).resolve().parents[1]
RECORDED = json.loads((ROOT / "tests" / "data" / "bench-real-runs.json").read_text())


bench = load_script("bench-real.py", "bench_real")


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


# -- the wall cut along the model's requests (issue 35): tests/data/bench-real-runs.json's
# "warm" run, recorded at D = 2 s with warm workers, the same 3-round debate. Relative to
# launch, from the record: the first model request (codex's BLIND TAKE) at 0.649 s; R1 ends
# 4.091 s (gemini's BLIND TAKE, READY late); CHALLENGE 4.102-6.235; RESPOND 6.245-8.356;
# REBUTTAL and FINAL_SUMMARY 8.374-10.548; DECISION 10.665-13.242; council exits at 13.308 s.


@pytest.fixture
def warm() -> dict:
    return copy.deepcopy(RECORDED["warm"])


def test_the_wall_is_cut_into_start_up_each_steps_time_beyond_d_the_gaps_and_the_exit(warm):
    figures = bench.debate_figures(warm)
    assert figures["launch_to_first_request_s"] == pytest.approx(0.649, abs=0.001)
    beyond = {name: s["beyond_s"] for name, s in figures["phases"].items()}
    assert beyond == pytest.approx(
        {
            # The first step from the first model request: its start-up is counted once.
            "R1 PROPOSAL": 4.091 - 0.649 - 2.0,
            "R2 CHALLENGE": 6.235 - 4.102 - 2.0,
            "R2 RESPOND": 8.356 - 6.245 - 2.0,
            "R3 REBUTTAL": 10.548 - 8.374 - 2.0,
            "R3 lead DECISION": 13.242 - 10.665 - 2.0,
        },
        abs=0.002,
    )
    assert figures["gaps_s"] == pytest.approx([0.011, 0.010, 0.018, 0.117], abs=0.002)
    assert figures["decision_beyond_s"] == pytest.approx(0.577, abs=0.002)
    assert figures["exit_s"] == pytest.approx(13.308 - 13.242, abs=0.002)
    parts = (
        figures["critical_path_s"]
        + figures["launch_to_first_request_s"]
        + figures["beyond_model_s"]
        + figures["between_steps_s"]
        + figures["exit_s"]
    )
    assert parts == pytest.approx(warm["wall_s"])
    assert figures["ratio"] == pytest.approx(warm["wall_s"] / 10.0)


def test_five_sequential_steps_make_a_chain_of_five_model_requests(warm):
    assert bench.debate_figures(warm)["chain"] == 5


def test_a_blind_take_sent_after_the_proposal_was_answered_lengthens_the_chain_to_six(warm):
    """The issue's case: gemini READY late, its BLIND TAKE starts once the PROPOSAL is in, and
    CHALLENGE waits for it."""
    owned, _ = bench.attribute(warm["calls"], warm["requests"])
    proposal = next(r for r in owned["advocate-r1"])
    late = (
        proposal["at"]
        + 2.0
        + 0.1
        - next(c for c in warm["calls"] if c["stem"] == "proxy-gemini-r1")["started_at"]
    )
    for call in warm["calls"]:
        if call["stem"] in ("advocate-r1", "critic-r1"):
            continue
        call["started_at"] += late
        call["ended_at"] += late
        for r in owned[call["stem"]]:
            r["at"] += late
    warm["wall_s"] += late
    figures = bench.debate_figures(warm)
    assert figures["chain"] == 6
    assert figures["critical_path_s"] == pytest.approx(10.0)  # the protocol's five steps
    assert figures["phases"]["R1 PROPOSAL"]["beyond_s"] == pytest.approx(1.442 + late, abs=0.002)


def test_calls_started_together_never_chain_however_slow_a_cli_is_to_send(debate):
    """The cold record: gemini sends its REBUTTAL after codex's was answered, but both calls
    started together; by time alone (a peer's log, no calls) they would chain."""
    assert bench.debate_figures(debate)["chain"] == 5
    assert bench.chain_length(debate["requests"], 2.0) == 8


def test_a_second_request_of_one_call_after_its_answer_chains(warm):
    decision = next(c for c in warm["calls"] if c["stem"] == "lead-decision")
    first = next(r for r in warm["requests"] if r["at"] >= decision["started_at"])
    warm["requests"].append(request("claude", first["at"] + 2.05))
    decision["ended_at"] += 2.1  # the call waits for it
    assert bench.chain_length(warm["requests"], 2.0, warm["calls"]) == 6


def test_there_is_no_chain_without_a_model_delay(warm):
    assert bench.chain_length(warm["requests"], 0.0, warm["calls"]) is None


def test_each_clis_own_bytes_per_request_are_what_it_sent_beyond_councils_prompt(warm):
    figures = bench.debate_figures(warm)
    claude = figures["per_cli"]["claude"]
    # Its four calls: the PROPOSAL, RESPOND, FINAL_SUMMARY and the lead's DECISION.
    sent = [16_807, 18_230, 18_065, 20_365]
    prompts = [2_144, 3_054, 2_906, 5_586]
    assert claude["bytes_per_request"] == sum(sent) / 4
    assert claude["cli_bytes_per_request"] == (sum(sent) - sum(prompts)) / 4
    codex = figures["per_cli"]["codex"]
    assert (
        codex["cli_bytes_per_request"] == (42_679 + 43_524 + 43_703 - (2_119 + 2_936 + 3_128)) / 3
    )


def test_medians_of_the_gaps_are_taken_gap_by_gap():
    assert bench.medians(
        [{"gaps_s": [0.1, 0.5]}, {"gaps_s": [0.3, 0.2]}, {"gaps_s": [0.2, 0.4]}]
    ) == {"gaps_s": [0.2, 0.4]}


def quorum_log(start: float, delay: float) -> list[dict]:
    """quorum's standard method, 3 participants: answers side by side, critiques side by side,
    three discussion turns one after another, final positions, the synthesis."""
    waves = [3, 3, 1, 1, 1, 3, 1]
    log, at = [], start
    for n in waves:
        log += [request("quorum", at + 0.01 * i, size=2_000) for i in range(n)]
        at += delay + 0.05
    return log


def test_the_peers_chain_is_taken_from_its_log_by_time_alone():
    run = {
        "delay_s": 2.0,
        "wall_s": 16.0,
        "started_at": 100.0,
        "requests": quorum_log(101.0, 2.0),
    }
    figures = bench.peer_figures(run)
    assert figures["chain"] == 7
    assert figures["critical_path_s"] == 14.0
    assert figures["ratio"] == pytest.approx(16.0 / 14.0)
    assert figures["model_requests"] == 13
    assert figures["launch_to_first_request_s"] == pytest.approx(1.0)
    last_answer = 101.0 + 6 * 2.05 + 2.0
    assert figures["exit_s"] == pytest.approx(116.0 - last_answer)
    assert figures["bytes_per_request"] == 2_000


def test_the_peers_row_stands_beside_councils_and_says_how_to_add_it_when_missing(warm):
    council = {"default": {"2": bench.debate_figures(warm)}}
    peer = {
        "name": "quorum-cli 1.5.1 (API, standard method)",
        "installed": True,
        "by_delay": {
            "2": bench.peer_cell(
                [
                    {
                        "delay_s": 2.0,
                        "wall_s": 16.0,
                        "started_at": 100.0,
                        "requests": quorum_log(101.0, 2.0),
                    },
                    {"failed": "quorum-cli (D=2) exited 1"},
                ]
            )
        },
    }
    lines = bench.segments_table(council, peer).splitlines()
    council_row = next(line for line in lines if line.startswith("council default"))
    assert "13.31 s" in council_row and "1.33" in council_row
    assert "0.01 + 0.01 + 0.02 + 0.12" in council_row
    assert "claude 18.4 (14.9)" in council_row
    peer_row = next(line for line in lines if line.startswith("quorum-cli"))
    assert "16.00 s" in peer_row and "14.00 s" in peer_row and "1.14" in peer_row
    assert peer["by_delay"]["2"]["failed_runs"] == 1
    missing = bench.render_peer_missing({**peer, "installed": False, "add": "pip install it"})
    assert (
        missing
        == "quorum-cli 1.5.1 (API, standard method): not installed; to add its row: pip install it"
    )


def test_a_peer_python_that_does_not_exist_is_named_with_how_to_install_it(tmp_path):
    with pytest.raises(SystemExit, match=r"--peer-python .*nope: no such file; python3 -m venv"):
        bench.find_peer(tmp_path / "nope")
