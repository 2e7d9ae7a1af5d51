"""The lines a debate prints around its run (docs/spec/protocol.md sections 1, 3 and 7;
commands.md `resume`, `doctor --probe`): the setup line, the resume line, the warnings about
a lead of the advocate's vendor and seats that share one vote, the question's redaction, the
dropped seats, the exit code by status, the report page's tally, and the roles `council
doctor --probe` checks. In-process: the debate's own functions, no CLI started."""

from __future__ import annotations

import io
from types import SimpleNamespace

import pytest

from council.config import parse_config
from council.debate.doctor_roles import configured_roles
from council.debate.flags import DebateFlags
from council.debate.plan import resolve_plan
from council.debate.protocol import DEBATE, redacted_question
from council.debate.report import _decision
from council.debate.state import DebateState
from council.errors import ExitCode, UsageError
from council.panel.contribution import Contribution
from council.progress import Progress


def plan_of(*args: str, have=("claude", "codex", "gemini"), config=None, **flags):
    return resolve_plan(
        DebateFlags(question="q", **flags), parse_config(config or {}), lambda n: n in have
    )


def context_of(*files: tuple[int, int]):
    return SimpleNamespace(files=[SimpleNamespace(lines_sent=n, redactions=r) for n, r in files])


def test_the_setup_line_names_every_seat_the_rounds_and_the_files_sent():
    plan = plan_of(proxies=("gemini", "codex"), rounds=3)
    line = DEBATE.setup_line(plan, context_of((40, 1), (12, 0)), None)
    assert line == (
        "setup: advocate=claude critic=codex proxies=gemini,codex lead=codex rounds=3 "
        "files=2 (52 lines, 1 redaction)"
    )
    line = DEBATE.setup_line(plan_of(lead="caller"), context_of((3, 2), (1, 1)), None)
    assert line == (
        "setup: advocate=claude critic=codex proxies=none lead=caller rounds=2 "
        "files=2 (4 lines, 3 redactions)"
    )
    simulated = DEBATE.setup_line(plan_of(sim=True), context_of(), None)
    assert simulated.startswith("setup (SIMULATED): advocate=sim critic=sim proxies=none lead=sim")
    assert simulated.endswith("files=0 (0 lines, 0 redactions)")


def test_the_resume_line_names_the_phase_the_round_and_the_replies_reused():
    state = DebateState(
        id="debate-1",
        question="q",
        plan={"advocate": {"name": "advocate"}, "critic": {"name": "critic"}, "proxies": []},
        phase="CHALLENGE",
        round=2,
    )
    for stem, seat, role, phase, status in (
        ("advocate-r1", "advocate", "advocate", "PROPOSAL", "ok"),
        ("critic-r1", "critic", "critic", "BLIND_TAKE", "late"),
        ("critic-r2", "critic", "critic", "CHALLENGE", "timeout"),
        ("lead-decision", "lead", "lead", "DECISION", "ok"),  # the lead's is not a seat's reply
    ):
        state.store(
            Contribution(stem=stem, seat=seat, role=role, phase=phase, round=1, status=status,
                         text="x", cli="sim")
        )  # fmt: skip
    assert DEBATE.resumed_line(state) == (
        "resuming debate-1 from CHALLENGE (round 2); replies on disk: 2"
    )


@pytest.mark.parametrize(
    ("status", "code"),
    [("completed", 0), ("degraded", 5), ("failed", 3), ("interrupted", 130)],
)
def test_a_debate_exits_with_the_code_of_the_status_it_ended_with(status, code):
    state = SimpleNamespace(status=status)
    assert DEBATE.exit_code(state, None) == code
    assert DEBATE.exit_code(state, UsageError("bad")) == ExitCode.USAGE == 2


def test_a_debate_has_no_findings_to_render_as_sarif():
    with pytest.raises(UsageError, match=r"^debate-1 is a debate: sarif is for a review's"):
        DEBATE.render({"id": "debate-1"}, "sarif")


def test_the_dropped_seats_are_named_with_their_cli_after_the_result():
    seats = [
        {"name": "advocate", "cli": "gemini", "status": "ok"},
        {"name": "critic", "cli": "codex", "status": "dropped"},
        {"name": "proxy-qwen", "cli": "qwen", "status": "dropped"},
        {"name": "proxy-kimi", "cli": "kimi", "status": "timeout"},
    ]
    assert DEBATE.notes({"seats": seats}) == ["dropped: critic (codex), proxy-qwen (qwen)"]
    assert DEBATE.notes({"seats": seats[:1]}) == []


def warnings_of(plan, config=None) -> list[str]:
    out = io.StringIO()
    DEBATE.check(plan, None, parse_config(config or {}), Progress(out, quiet=True, live=False))
    return [line.split("warning: ", 1)[1] for line in out.getvalue().splitlines()]


def test_a_lead_of_the_advocates_own_vendor_is_warned_about_and_another_is_not():
    assert warnings_of(plan_of(lead="claude")) == [
        "the lead (claude) is of the advocate's own vendor and rules on its own vendor's "
        "proposal; install a CLI of another vendor, or choose one with --lead"
    ]
    assert warnings_of(plan_of(lead="gemini")) == []
    assert warnings_of(plan_of(lead="caller")) == []
    assert warnings_of(plan_of(sim=True)) == []  # the simulator is nobody's vendor


def test_challengers_that_share_a_vendor_under_distinct_vendor_are_named():
    config = {"quorum": {"distinct": "vendor"}}
    plan = plan_of(proxies=("codex", "gemini"), config=config, lead="gemini")
    assert warnings_of(plan, config) == [
        "quorum.distinct: vendor counts one vote per vendor, and these seats share one: "
        "critic, proxy-codex (openai); seat CLIs of other vendors for more voices"
    ]
    # One seat per vendor, or distinct off: nothing to say.
    assert warnings_of(plan_of(proxies=("gemini",), config=config, lead="gemini"), config) == []
    assert warnings_of(plan_of(proxies=("codex",), lead="gemini")) == []
    family = {"quorum": {"distinct": "family"}}  # the models decide there, not the vendors
    assert warnings_of(plan_of(proxies=("codex",), config=family, lead="gemini"), family) == []


def test_a_secret_in_the_question_is_redacted_and_counted():
    out = io.StringIO()
    key = "sk-ant-api03-" + "A1b2C3d4E5" * 9
    other = "sk-ant-api03-" + "Z9y8X7w6V5" * 9
    text = redacted_question(
        f"Why does {key} fail and {other} not?",
        parse_config({}),
        Progress(out, quiet=True, live=False),
    )
    assert key not in text and other not in text
    assert text.startswith("Why does ") and text.endswith(" not?")
    assert "warning: redacted 2 secret(s) from the question" in out.getvalue()
    out = io.StringIO()
    plain = redacted_question("Redis or Postgres?", parse_config({}), Progress(out, quiet=True))
    assert (plain, out.getvalue()) == ("Redis or Postgres?", "")


def test_the_report_pages_tally_counts_no_vote_and_leaves_an_excluded_vote_out():
    page = _decision(
        {
            "votes": {
                "critic": "disagree",
                "proxy-a": None,
                "proxy-b": "agree",
                "proxy-c": "agree",
            },
            "excluded_votes": {"proxy-b": "its answers echoed the run's canary"},
            "vote_reasons": {"critic": "loses writes"},
        }
    )
    assert page["tally"] == {"agree": 1, "revise": 0, "disagree": 1, "no_vote": 1}
    assert page["votes"][2] == {
        "seat": "proxy-b",
        "vote": "agree (not counted: its answers echoed the run's canary)",
        "reason": "",
    }
    assert page["votes"][0] == {"seat": "critic", "vote": "disagree", "reason": "loses writes"}
    assert _decision(None) is None


def test_doctor_probe_checks_the_roles_a_debate_with_no_flags_would_seat():
    roles, models = configured_roles(
        parse_config(
            {"roles": {"advocate": "claude:opus#high", "lead": "gemini",
                       "proxies": ["claude:sonnet", "gemini"]}}
        ),
        {"claude", "codex", "gemini"},
    )  # fmt: skip
    assert roles == {
        "advocate": ("claude",),
        "critic": ("codex",),
        "lead": ("gemini",),
        "proxies": ("claude", "gemini"),
    }
    # A CLI seated twice is probed with its first seat's model and effort.
    assert models["claude"] == ("opus", "high")
    assert models["codex"] == (None, None)
    # No CLI for the advocate: doctor says so elsewhere, the roles are empty.
    assert configured_roles(parse_config({}), set()) == ({}, {})


def test_the_report_page_shows_the_rounds_in_order_each_with_its_contributions():
    from council.debate.report import _rounds

    calls = [
        {"seat": "critic", "round": 2, "phase": "CHALLENGE"},
        {"seat": "advocate", "round": 1, "phase": "PROPOSAL"},
        {"seat": "advocate", "round": 2, "phase": "RESPOND"},
        {"seat": "lead", "round": None, "phase": "DECISION"},
    ]
    assert [(n, [c["phase"] for c in cs]) for n, cs in _rounds(calls)] == [
        (0, ["DECISION"]),
        (1, ["PROPOSAL"]),
        (2, ["CHALLENGE", "RESPOND"]),
    ]
