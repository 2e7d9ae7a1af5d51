"""What the lead asks each seat and how it shows (protocol.md section 3): the ACTION DM in the
transcript (its body, round, phase, word limit and vote request), the prompt file the seat
got (its phase, role, round, word limit, the vote request only in a seat's last word), which
calls run lean (the prompt holds the files whole), the live block while a seat is asked, the
answers a resumed run reuses, a straggler found busy on a resumed run, a replaced advocate's
call, and a review's answers, never cut.

The runs are in this process (`panel.run.start` and `resume`), so that
mutation testing (scripts/mutation.sh), which only sees code run in-process, sees how the
lead asks. Vendor CLIs are the fake ones of tests/fakes; other seats are the simulator,
through a wrapper (SEAT) that can add a vote line the prompt did not ask for, or hold an
answer until the record's transcript shows what the test needs (as in test_stragglers).
"""

from __future__ import annotations

import io
import json
import re
import sys
from pathlib import Path

import pytest

from council.config import parse_config
from council.debate.flags import DebateFlags
from council.debate.protocol import DEBATE
from council.panel import asked as asked_module
from council.panel.calls import Tuning
from council.panel.run import resume, start
from council.progress import Progress
from council.review.flags import ReviewFlags
from council.review.protocol import REVIEW
from council.runner.confine import EXTRA_ENV as EXTRA_WRITABLE
from panel.gate import SEEN, gated_project, gated_seat
from panel.record import contribution, stored, transcript
from review.helpers import SERVICE

from fakes.install import install_fakes

QUESTION = "Should this service cache sessions in Redis or Postgres?"
T = 1.0  # the soft timeout of a straggling seat
VOTE_LINE = "VOTE: disagree - the challenge is not my last word yet."
VOTE_REQUEST = "VOTE: agree|revise|disagree"

# A simulator seat. With SEAT_VOTE_IN, its answer to that phase ends with VOTE_LINE, asked or
# not. With GATE_PHASE, its answer to that phase (`--version`: its version probe) waits until
# the transcript of the run (under GATE_RECORDS) holds a message with every key of GATE_UNTIL
# (`meta.x` looks in its meta), or GATE_CAP_S has passed. With SEAT_BROKEN, its version probe
# fails: the CLI cannot run.
SEAT = (
    SEEN
    + """\

def asks(variable):
    phase = os.environ.get(variable)
    if probe:
        return phase == "--version"
    return bool(phase) and f"ACTION: {phase}\\n".encode() in prompt

argv = sys.argv[1:]
probe = "--version" in argv
prompt = b"" if probe else sys.stdin.buffer.read()
if asks("GATE_PHASE"):
    hold()
if probe and os.environ.get("SEAT_BROKEN"):
    sys.exit("seat.py: this install cannot run")
sim = [sys.executable, "-m", "council.sim", *argv]
done = subprocess.run(sim, input=prompt, stdout=subprocess.PIPE)
sys.stdout.buffer.write(done.stdout)
if asks("SEAT_VOTE_IN"):
    sys.stdout.buffer.write(("\\n" + os.environ["SEAT_VOTE_LINE"] + "\\n").encode())
sys.exit(done.returncode)
"""
)

# Word limits of their own per phase, so that each prompt's limit names its phase's.
WORDS = {
    "proposal": 240,
    "blind": 120,
    "challenge": 220,
    "proxy": 160,
    "respond": 260,
    "rebuttal": 140,
    "final_summary": 180,
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return gated_project(tmp_path, SEAT)


def sim_seat(project: Path, timeout_s: float = 40.0, **env: str) -> dict:
    """A simulator seat behind SEAT."""
    return gated_seat(project, timeout_s, {"SEAT_VOTE_LINE": VOTE_LINE, **env})


def shown(stream: io.StringIO) -> str:
    """What a terminal showed, as lines: the `[mm:ss] ` stamps and the live block's cursor
    moves left out (each redraw of the block stays in, below the line it follows)."""
    text = re.sub(r"\x1b\[\d*[FJ]", "", stream.getvalue())
    return re.sub(r"\[\d\d:\d\d\] ", "", text)


def asks_in(messages: list[dict]) -> list[dict]:
    return [m for m in messages if m["kind"] == "dm" and m["action"]]


# -- every ask of a three-round debate -------------------------------------------------------

# (seat, phase, round, role, word limit, vote asked) of each ask of a three-round debate with
# a proxy: the vote is asked of the challengers' last word only, the REBUTTAL.
ASKS = (
    ("advocate", "PROPOSAL", 1, "advocate", WORDS["proposal"], False),
    ("critic", "BLIND_TAKE", 1, "critic", WORDS["blind"], False),
    ("proxy-claude", "BLIND_TAKE", 1, "proxy", WORDS["blind"], False),
    ("critic", "CHALLENGE", 2, "critic", WORDS["challenge"], False),
    ("proxy-claude", "CHALLENGE", 2, "proxy", WORDS["proxy"], False),
    ("advocate", "RESPOND", 2, "advocate", WORDS["respond"], False),
    ("advocate", "FINAL_SUMMARY", 3, "advocate", WORDS["final_summary"], False),
    ("critic", "REBUTTAL", 3, "critic", WORDS["rebuttal"], True),
    ("proxy-claude", "REBUTTAL", 3, "proxy", WORDS["rebuttal"], True),
)
SOFT_S = {"advocate": 45, "critic": 40, "proxy-claude": 45}  # the seats' soft timeouts


def test_each_seat_is_asked_for_its_phase_round_and_word_limit_and_votes_only_in_its_last_word(
    project, monkeypatch
):
    # The advocate and the proxy are the fake claude (lean where its prompt holds the files),
    # the critic the simulator, which ends its CHALLENGE with a vote line nobody asked for.
    fakes = install_fakes(project.parent / "bin", ("claude",))
    monkeypatch.setenv("PATH", fakes.path_env(str(Path(sys.executable).parent)))
    monkeypatch.setenv("HOME", str(project.parent))
    monkeypatch.setenv(EXTRA_WRITABLE, str(fakes.state_dir))  # the fake's call log
    clis = {
        "claude": {"timeout_s": SOFT_S["advocate"]},
        "sim-voter": sim_seat(project, SEAT_VOTE_IN="CHALLENGE"),
    }
    config = parse_config({"debate": {"words": WORDS}, "clis": clis})
    stream = io.StringIO()
    flags = DebateFlags(
        question=QUESTION,
        files=("app.py",),
        advocate="claude",
        critic="sim-voter",
        proxies=("claude",),
        lead="sim",
        rounds=3,
        cold=True,  # lean is decided per spawned call (docs/lean.md)
    )
    run = start(DEBATE, flags, config, Progress(stream, verbose=True, live=True), cwd=project)
    assert run.exit_code == 0, run.error
    assert run.result["status"] == "completed"
    lines = shown(stream)
    messages = transcript(run)
    asks = asks_in(messages)
    by_stem = {m["meta"]["stem"]: m for m in asks}
    # A challenger READY only after the PROPOSAL was in (a busy machine: the advocate starts
    # first) gets no blind take, by the protocol's rule: then it is recorded skipped, late.
    late = [a for a in ASKS if a[1] == "BLIND_TAKE" and f"{a[0]}-r{a[2]}" not in by_stem]
    for seat, *_ in late:
        skipped = contribution(run, seat, "BLIND_TAKE")
        assert (skipped["status"], skipped["reason"]) == ("skipped", "late"), seat
    expected = [a for a in ASKS if a not in late]
    assert sorted(m["meta"]["stem"] for m in asks) == sorted(f"{a[0]}-r{a[2]}" for a in expected)
    for seat, phase, round_no, role, limit, vote in expected:
        stem = f"{seat}-r{round_no}"
        ask = by_stem[stem]
        # The ACTION DM: from the lead, its phase, round and limit, the prompt file it names.
        assert (ask["from"], ask["to"], ask["action"]) == ("lead", seat, phase), stem
        assert (ask["phase"], ask["round"]) == (phase, round_no), stem
        assert ask["body"] == f"ACTION:{phase} round={round_no} limit={limit}"
        assert ask["meta"] == {
            "stem": stem,
            "prompt_file": f"{stem}-prompt.md",
            "limit": limit,
            "vote": vote,
        }
        # The prompt: its phase, the seat's role, the round and the word limit; the closing
        # vote asked in a seat's last word only.
        prompt = (run.record.path / f"{stem}-prompt.md").read_text()
        assert f"ACTION: {phase}\nROLE: {role}\nRound: {round_no}\n" in prompt, stem
        assert f"Answer only the debate task below, directly, in at most {limit} words." in (
            prompt
        ), stem
        assert (VOTE_REQUEST in prompt) is vote, stem
        # The live block while the seat answers: its phase, a clock against its soft
        # timeout, and none of its previous answer's words.
        asked = rf"^  {re.escape(seat)} +{phase} +asked +\d+s / {SOFT_S[seat]}s$"
        assert re.search(asked, lines, re.MULTILINE), stem
        # The answer, in the record, the result and the progress lines.
        answer = stored(run, stem)
        assert (answer["seat"], answer["role"], answer["phase"], answer["round"]) == (
            seat,
            role,
            phase,
            round_no,
        )
        assert answer["status"] == "ok"
        assert contribution(run, seat, phase)["round"] == round_no
        assert f"\n{phase} {seat} ok {answer['words']} words " in lines
    # No given file was cut: every ask is lean, the advocate's FINAL_SUMMARY and the proxy's
    # asks (whose prompts quote the debate, not the files) included.
    lean = {
        (m["from"], m["phase"]): "--system-prompt" in m["meta"]["argv"]
        for m in messages
        if m["kind"] == "broadcast" and m["meta"]["cli"] == "claude"
    }
    assert lean == {(seat, phase): True for seat, phase, *_ in expected if seat != "critic"}
    # A vote is read from a seat's last word only: the critic's CHALLENGE ends with a vote
    # line, which is not its vote; its REBUTTAL's is.
    challenge, rebuttal = stored(run, "critic-r2"), stored(run, "critic-r3")
    assert challenge["text"].endswith(VOTE_LINE)
    assert (challenge["vote"], challenge["vote_reason"]) == (None, "")
    assert rebuttal["text"].splitlines()[-1].startswith(f"VOTE: {rebuttal['vote']} - ")
    assert run.result["decision"]["votes"]["critic"] == rebuttal["vote"]


# -- a resumed debate ------------------------------------------------------------------------


def test_a_resumed_debate_shows_what_it_reuses_and_finds_a_straggler_asked_again_busy(
    project,
):
    # A three-round debate whose critic's CHALLENGE failed and which stopped before round 3:
    # resumed, the critic is asked for its CHALLENGE again, answers only once the REBUTTAL has
    # closed, and sits the REBUTTAL out; the advocate's answers on disk are reused.
    def debate_config(timeout_s: float, **critic_env: str) -> object:
        clis = {"sim-gated": sim_seat(project, timeout_s, **critic_env)}
        return parse_config({"debate": {"hard_timeout_factor": 4.0}, "clis": clis})

    flags = DebateFlags(
        question=QUESTION,
        files=("app.py",),
        advocate="sim",
        critic="sim-gated",
        proxies=(),
        lead="sim",
        rounds=3,
        no_blind=True,
    )
    first = start(DEBATE, flags, debate_config(40.0), Progress(io.StringIO()), cwd=project)
    assert first.exit_code == 0, first.error
    state_file = first.record.path / "state.json"
    state = json.loads(state_file.read_text())
    state["calls"]["critic-r2"].update(status="error", text="", words=0, detail="crashed")
    for stem in ("advocate-r3", "critic-r3", "lead-decision"):
        del state["calls"][stem]
        state["order"].remove(stem)
    state.update(status="interrupted", phase="REBUTTAL", decision=None)
    state_file.write_text(json.dumps(state))
    resumed_from = len(transcript(first))

    sat_out = {"kind": "system", "meta.status": "skipped"}
    stream = io.StringIO()
    run = resume(
        DEBATE,
        first.record,
        debate_config(T, GATE_PHASE="CHALLENGE", GATE_UNTIL=json.dumps(sat_out)),
        Progress(stream, verbose=True, live=True),
        cwd=project,
    )
    assert run.exit_code == 0, run.error
    lines = shown(stream)
    messages = transcript(run)[resumed_from:]
    # The advocate's PROPOSAL and RESPOND are reused: a note in the transcript names each,
    # and the live block shows it reused, with its words.
    for stem, phase in (("advocate-r1", "PROPOSAL"), ("advocate-r2", "RESPOND")):
        (note,) = [m for m in messages if m["body"] == f"reused {stem} from the record"]
        assert (note["kind"], note["meta"]) == ("system", {"stem": stem})
        words = stored(run, stem)["words"]
        assert re.search(rf"^  advocate +{phase} +reused +{words} words$", lines, re.MULTILINE)
    assert [(m["to"], m["action"]) for m in asks_in(messages)] == [
        ("critic", "CHALLENGE"),
        ("advocate", "FINAL_SUMMARY"),
    ]
    # The failed CHALLENGE, asked again, straggles: the critic is busy when the REBUTTAL
    # asks it, and the phase closes before it is free.
    (busy,) = [m for m in messages if m["meta"].get("status") == "busy"]
    assert busy["body"] == (
        "critic is still answering its CHALLENGE: asked for REBUTTAL once free, "
        "if the phase is still collecting"
    )
    assert busy["meta"] == {"stem": "critic-r3", "seat": "critic", "status": "busy"}
    assert "CHALLENGE critic waiting 1/4s: moving on with 0/1 (progressive wait)\n" in lines
    assert "REBUTTAL critic busy: still answering its CHALLENGE; asked once free\n" in lines
    skipped = contribution(run, "critic", "REBUTTAL")
    assert (skipped["status"], skipped["reason"]) == ("skipped", "busy")
    assert contribution(run, "critic", "CHALLENGE")["status"] == "late"
    assert run.result["status"] == "completed"


# -- a replaced advocate ---------------------------------------------------------------------


def test_a_replaced_advocate_whose_worker_never_answers_is_recorded_under_its_own_cli(
    project, monkeypatch
):
    # The advocate's CLI (claude) fails its probe only once the PROPOSAL has been asked of it:
    # the order waits for its READY, and goes to its replacement (the fake gemini, the next
    # installed CLI), whose call never ends. The lead gives up on its worker (a margin of
    # 0.5 s past its hard limit, the CLI ignoring SIGTERM for 1 s), and the record names the
    # CLI that was asked.
    fakes = install_fakes(project.parent / "bin", ("gemini",))
    fakes.set("gemini", "ignore_term")
    monkeypatch.setenv("PATH", fakes.path_env(str(Path(sys.executable).parent)))
    monkeypatch.setenv("HOME", str(project.parent))
    monkeypatch.setenv(EXTRA_WRITABLE, str(fakes.state_dir))
    monkeypatch.setattr(asked_module, "WORKER_MARGIN_S", 0.5)
    proposal_phase = {"kind": "system", "body": "phase PROPOSAL"}
    broken = sim_seat(project, SEAT_BROKEN="1", GATE_PHASE="--version")
    broken["env"]["GATE_UNTIL"] = json.dumps(proposal_phase)
    clis = {
        "claude": {"command": broken["command"], "env": broken["env"]},
        "gemini": {"timeout_s": T},
    }
    config = parse_config({"debate": {"hard_timeout_factor": 1.5}, "clis": clis})
    flags = DebateFlags(
        question=QUESTION,
        files=("app.py",),
        advocate="claude",
        critic="sim",
        proxies=(),
        lead="sim",
        no_blind=True,
        cold=True,
    )
    stream = io.StringIO()
    run = start(
        DEBATE,
        flags,
        config,
        Progress(stream, verbose=True, live=False),
        cwd=project,
        tuning=Tuning(grace_s=1.0),
    )
    lines = shown(stream)
    assert "advocate (claude) dropped: `" in lines
    assert "the advocate is now gemini" in lines
    assert run.exit_code == 3
    assert str(run.error).startswith(
        "the advocate (gemini) could not write the proposal: no answer from its worker; "
    )
    messages = transcript(run)
    assert [(m["to"], m["action"]) for m in asks_in(messages)] == [("advocate", "PROPOSAL")]
    assert contribution(run, "advocate", "PROPOSAL")["status"] == "error"
    proposal = stored(run, "advocate-r1")
    assert (proposal["status"], proposal["cli"]) == ("error", "gemini")
    assert proposal["detail"] == "no answer from its worker"
    advocate = next(s for s in run.result["seats"] if s["name"] == "advocate")
    assert advocate["cli"] == "gemini"


# -- a review's answers are never cut ---------------------------------------------------------


def test_a_review_asks_for_answers_never_cut_to_their_word_limit(project):
    (project / "service.py").write_text(SERVICE)
    config = parse_config({"clis": {}})
    run = start(
        REVIEW,
        ReviewFlags(files=("service.py",), reviewers=("sim", "sim"), format="json"),
        config,
        Progress(io.StringIO()),
        cwd=project,
    )
    assert run.exit_code == 0, run.error
    asks = asks_in(transcript(run))
    assert {(m["to"], m["action"]) for m in asks} == {
        (seat, phase)
        for seat in ("reviewer-sim", "reviewer-sim-2")
        for phase in ("REVIEW", "CROSS_CHECK")
    }
    for ask in asks:
        # A JSON answer cut short is no answer: the limit is stated, never applied.
        assert ask["body"].startswith(f"ACTION:{ask['action']} round={ask['round']} limit=")
        assert int(ask["body"].rpartition("limit=")[2]) > 0
        assert ask["meta"]["limit"] is None
