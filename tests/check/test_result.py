"""What a finished check shows, from its state alone (docs/spec/protocol.md section 10,
docs/spec/outputs.md "council check"): which stances count, the agreement and its exit code,
suspect seats under `on_injection: exclude`, the result's JSON field by field and its Markdown
line by line, and the note naming the seats that gave no position. In-process: the state is
made by hand (`made.py`), as a finished run leaves it."""

from __future__ import annotations

from types import SimpleNamespace

import jsonschema
import pytest

from check.made import CHECK_ID, QUESTION, SUSPECT, made_state
from council.check.plan import CheckPlan
from council.check.protocol import CHECK
from council.check.result import build_result, check_schema
from council.errors import NoUsableCliError, UsageError

PAD = f".scratchpad/{CHECK_ID}/"
R, P = "Redis", "Postgres"
FOUR = ("proxy-gemini", "proxy-claude")


def result_of(state) -> dict:
    result = build_result(state, PAD)
    jsonschema.Draft202012Validator(check_schema()).validate(result)
    return result


# (what each seat said, the seats that failed, extra seats, agreement, exit code)
AGREEMENTS = [
    ({"advocate": R, "critic": R, "proxy-gemini": R}, (), (), "unanimous", 0),
    ({"advocate": R, "critic": R, "proxy-gemini": P}, (), (), "majority", 0),
    ({"advocate": R, "critic": P, "proxy-gemini": None}, (), (), "split", 8),
    ({"advocate": R, "critic": R}, ("proxy-gemini",), (), "unanimous", 0),
    ({"advocate": R, "critic": P}, ("proxy-gemini",), (), "split", 8),
    ({"advocate": R, "critic": None}, ("proxy-gemini",), (), "insufficient", 9),
    ({"advocate": R}, ("critic", "proxy-gemini"), (), "insufficient", 9),
    ({"advocate": R, "critic": R, "proxy-gemini": P, "proxy-claude": P}, (), FOUR, "split", 8),
    ({"advocate": R, "critic": R, "proxy-gemini": R, "proxy-claude": P}, (), FOUR, "majority", 0),
    ({"advocate": R, "critic": R, "proxy-gemini": P, "proxy-claude": "SQLite"}, (), FOUR,
     "split", 8),
]  # fmt: skip


@pytest.mark.parametrize(("said", "failed", "proxies", "agreed", "code"), AGREEMENTS)
def test_the_agreement_over_the_counted_stances_decides_the_exit_code(
    said, failed, proxies, agreed, code
):
    # A seat that failed or gave no POSITION line degrades the check, not its exit code.
    degraded = failed or None in said.values()
    state = made_state(
        said,
        failed=failed,
        proxies=proxies or ("proxy-gemini",),
        status="degraded" if degraded else "completed",
    )
    result = result_of(state)
    counted = sum(1 for stance in said.values() if stance is not None)
    assert (result["agreement"], result["counted"], result["asked"]) == (
        agreed,
        counted,
        2 + len(proxies or ("proxy-gemini",)),
    )
    assert result["needs_human"] is (agreed != "unanimous")
    assert CHECK.exit_code(state, None) == code


@pytest.mark.parametrize(("status", "code"), [("interrupted", 130), ("failed", 3)])
def test_a_check_that_did_not_end_has_no_agreement_and_exits_by_its_status(status, code):
    state = made_state({"advocate": R, "critic": R}, failed=("proxy-gemini",), status=status)
    result = result_of(state)
    assert (result["agreement"], result["needs_human"]) == (None, True)
    assert CHECK.exit_code(state, None) == code
    assert CHECK.notes(result) == []
    error = NoUsableCliError("no seat answered the check")
    assert CHECK.exit_code(state, error) == 3


# (on_injection, the suspect seat, what each said, agreement, counted, exit code)
SUSPECTS = [
    ("warn", "critic", {"advocate": R, "critic": P, "proxy-gemini": R}, "majority", 3, 0),
    ("exclude", "critic", {"advocate": R, "critic": P, "proxy-gemini": R}, "unanimous", 2, 0),
    # Every seat of a check is a voter: the advocate's stance is left out too.
    ("exclude", "advocate", {"advocate": P, "critic": R, "proxy-gemini": R}, "unanimous", 2, 0),
    ("exclude", "proxy-gemini", {"advocate": R, "critic": P, "proxy-gemini": P}, "split", 2, 8),
    ("exclude", "critic", {"advocate": R, "critic": P}, "insufficient", 1, 9),
]


@pytest.mark.parametrize(("policy", "suspect", "said", "agreed", "counted", "code"), SUSPECTS)
def test_a_suspect_seats_position_does_not_count_under_exclude(
    policy, suspect, said, agreed, counted, code
):
    proxies = ("proxy-gemini",) if "proxy-gemini" in said else ()
    state = made_state(said, on_injection=policy, injection={suspect: SUSPECT}, proxies=proxies)
    result = result_of(state)
    assert (result["agreement"], result["counted"], CHECK.exit_code(state, None)) == (
        agreed,
        counted,
        code,
    )
    excluded = policy == "exclude"
    held = [seat for p in result["positions"] for seat in p["seats"]]
    assert (suspect in held) is not excluded
    (shown,) = [a for a in result["answers"] if a["seat"] == suspect]
    assert (shown["stance"], shown["counted"]) == (said[suspect], not excluded)
    assert shown["injection"] == SUSPECT
    (listed,) = result["injection"]["suspects"]
    assert (listed["seat"], listed["excluded"]) == (suspect, excluded)
    notes = CHECK.notes(result)
    assert notes == ([f"no position from: {suspect} (not counted)"] if excluded else [])


def test_a_seat_that_only_reported_an_injection_is_counted():
    reported = {"suspect": False, "evidence": [], "reported": ["ignore previous instructions"]}
    state = made_state(
        {"advocate": R, "critic": P, "proxy-gemini": P},
        on_injection="exclude",
        injection={"critic": reported},
    )
    result = result_of(state)
    assert (result["agreement"], result["counted"]) == ("majority", 3)
    assert result["injection"]["suspects"] == []
    assert result["injection"]["reported"] == [
        {"seat": "critic", "phase": "CHECK", "round": 1, "what": "ignore previous instructions"}
    ]


def test_the_result_json_field_by_field():
    state = made_state(
        {"advocate": P, "critic": R, "proxy-gemini": "postgres, with pgbouncer"},
        options=(R, P),
    )
    state.technical = ["Python 3.12"]
    app = {"path": "app.py", "lines_sent": 2, "truncated": False, "redactions": 0}
    state.context = {"files": [app]}
    state.exit_code = 0
    result = result_of(state)
    answers = result.pop("answers")
    assert result == {
        "schema": "council.check/v1",
        "id": CHECK_ID,
        "question": QUESTION,
        "options": [R, P],
        "status": "completed",
        "simulated": False,
        "agreement": "majority",
        "needs_human": True,
        "positions": [
            {
                "stance": P,
                "option": True,
                "seats": ["advocate", "proxy-gemini"],
                "labels": ["the advocate", "Seat B (proxy)"],
                "count": 2,
            },
            {
                "stance": R,
                "option": True,
                "seats": ["critic"],
                "labels": ["Seat A (critic)"],
                "count": 1,
            },
        ],
        "counted": 3,
        "asked": 3,
        "started_at": "2026-11-28T14:30:05+00:00",
        "finished_at": "2026-11-28T14:30:49+00:00",
        "duration_s": 44.0,
        "context": {"files": [app], "technical_context": ["Python 3.12"]},
        "usage": None,
        "injection": {"on_injection": "warn", "suspects": [], "reported": []},
        "warnings": [],
        "scratchpad": PAD,
        "exit_code": 0,
    }
    assert answers[1] == {
        "seat": "critic",
        "role": "critic",
        "label": "Seat A (critic)",
        "cli": "codex",
        "model": None,
        "status": "ok",
        "stance": R,
        "counted": True,
        "text": "I would pick it.\nPOSITION: Redis",
        "words": 5,
        "latency_s": 12.3,
        "served_models": [],
        "files": {"prompt": "critic-r1-prompt.md", "response": "critic-r1-response.md"},
        "injection": None,
    }
    assert [(a["seat"], a["stance"]) for a in answers] == [
        ("advocate", P),
        ("critic", R),
        ("proxy-gemini", "postgres, with pgbouncer"),  # as written; counted for Postgres
    ]


def test_a_seat_without_a_position_is_shown_as_it_ended():
    state = made_state({"advocate": R, "critic": None}, failed=("proxy-gemini",), proxies=FOUR)
    state.seats["critic"]["cli"] = "codex-beta"  # the CLI the run found for the seat
    state.seats["proxy-claude"]["status"] = "dropped"  # never asked: dropped at READY
    result = result_of(state)
    shown = {
        a["seat"]: (a["status"], a["stance"], a["counted"], a["text"]) for a in result["answers"]
    }
    assert shown == {
        "advocate": ("ok", R, True, "I would pick it.\nPOSITION: Redis"),
        "critic": ("ok", None, False, "I would pick it."),
        "proxy-gemini": ("error", None, False, ""),  # a failure notice is no answer
        "proxy-claude": ("dropped", None, False, ""),
    }
    assert result["answers"][1]["cli"] == "codex-beta"
    assert (result["answers"][3]["words"], result["answers"][3]["files"]) == (
        0,
        {"prompt": "", "response": ""},
    )
    assert CHECK.notes(result) == [
        "no position from: critic (ok), proxy-gemini (error), proxy-claude (dropped)"
    ]


def test_a_seat_dropped_after_its_call_failed_is_shown_dropped_and_one_not_asked_ready():
    state = made_state({"advocate": R}, failed=("critic",))
    state.seats["critic"]["status"] = "dropped"
    result = result_of(state)
    statuses = [(a["seat"], a["status"]) for a in result["answers"]]
    assert statuses == [("advocate", "ok"), ("critic", "dropped"), ("proxy-gemini", "ready")]
    assert (result["counted"], result["asked"]) == (1, 3)  # every seat was to be asked


def test_the_model_shown_is_the_one_asked_else_the_one_the_call_named():
    state = made_state({"advocate": R, "critic": R})
    state.plan["advocate"]["model"] = "opus"
    state.calls["critic-r1"]["model"] = "gpt-5.2"
    state.calls["advocate-r1"]["model"] = "sonnet"
    models = [a["model"] for a in result_of(state)["answers"]]
    assert models == ["opus", "gpt-5.2", None]


def test_positions_are_the_most_held_first_and_a_tie_in_the_order_first_held():
    said = {"advocate": "SQLite", "critic": R, "proxy-gemini": R, "proxy-claude": "SQLite"}
    result = result_of(made_state(said, proxies=FOUR))
    assert [(p["stance"], p["seats"], p["option"]) for p in result["positions"]] == [
        ("SQLite", ["advocate", "proxy-claude"], False),
        (R, ["critic", "proxy-gemini"], False),
    ]
    said = {"advocate": "SQLite", "critic": R, "proxy-gemini": R, "proxy-claude": P}
    result = result_of(made_state(said, proxies=FOUR))
    assert [p["stance"] for p in result["positions"]] == [R, "SQLite", P]


MAJORITY_MD = f"""\
# CHECK: {QUESTION}

Agreement: **majority** (one position is held by more than half of the seats that answered) \
· needs a human: yes · 2 of 3 seats gave a position

Options: Redis, Postgres

## Positions
- **Postgres** (2 of 2): the advocate, Seat B (proxy)

## Answers

### the advocate: advocate (claude), Postgres

I would pick it.
POSITION: Postgres

### Seat A (critic): critic (codex), no position

(no answer: error)

### Seat B (proxy): proxy-gemini (gemini), postgres

I would pick it.
POSITION: postgres

> warning: critic (codex) failed: exit 1

---
Continue as a full debate, without asking the seats again: council debate --from {CHECK_ID}
Record: {PAD}
"""


def test_the_markdown_line_by_line():
    state = made_state(
        {"advocate": P, "proxy-gemini": "postgres"}, options=(R, P), failed=("critic",)
    )
    state.warnings = ["critic (codex) failed: exit 1"]
    result = result_of(state)
    # 2 of 2 is every counted stance: unanimous. Shown here as a majority to pin the words.
    assert result["agreement"] == "unanimous"
    result["agreement"], result["needs_human"] = "majority", True
    assert CHECK.render(result, "md") == MAJORITY_MD


@pytest.mark.parametrize(
    ("agreed", "words", "human"),
    [
        ("unanimous", "every seat that answered holds the same position", "no"),
        ("split", "no position is held by more than half of the seats that answered", "yes"),
        ("insufficient", "fewer than two seats gave a position", "yes"),
    ],
)
def test_the_agreement_line_says_what_the_agreement_means(agreed, words, human):
    said = {
        "unanimous": {"advocate": R, "critic": R, "proxy-gemini": R},
        "split": {"advocate": R, "critic": P, "proxy-gemini": "SQLite"},
        "insufficient": {"advocate": R},
    }[agreed]
    result = result_of(made_state(said, failed=("critic",) if agreed == "insufficient" else ()))
    lines = CHECK.render(result, "md").splitlines()
    counted = len(said)
    assert lines[2] == (
        f"Agreement: **{agreed}** ({words}) · needs a human: {human} · {counted} of 3 seats "
        "gave a position"
    )
    assert "Options:" not in "\n".join(lines)  # no --options, no options line


def test_the_markdown_of_a_suspect_a_simulated_run_and_one_not_ended():
    state = made_state(
        {"advocate": R, "critic": P, "proxy-gemini": R},
        on_injection="exclude",
        injection={"critic": SUSPECT},
    )
    state.plan["simulated"] = True
    shown = CHECK.render(result_of(state), "md")
    assert shown.startswith(f"# CHECK (SIMULATED): {QUESTION}\n\n")
    assert "\n### Seat A (critic): critic (codex), Postgres (not counted: suspect)\n" in shown
    assert "\n- **Redis** (2 of 2): the advocate, Seat B (proxy)\n" in shown
    assert "Postgres**" not in shown
    ended = made_state({"advocate": None, "critic": None}, status="interrupted")
    shown = CHECK.render(result_of(ended), "md").splitlines()
    assert shown[2] == "Status: interrupted: no agreement was reached."
    assert shown[4:7] == [
        "## Positions",
        "(none: no seat gave a readable POSITION line)",
        "",
    ]


def test_a_check_has_no_findings_form_and_no_page():
    result = result_of(made_state({"advocate": R, "critic": R}))
    with pytest.raises(UsageError) as refused:
        CHECK.render(result, "sarif")
    assert str(refused.value) == f"{CHECK_ID} is a check: sarif is for a review's findings"
    record = SimpleNamespace(id=CHECK_ID)
    with pytest.raises(UsageError) as refused:
        CHECK.write_report(record, result, {})
    assert str(refused.value) == (
        f"{CHECK_ID} is a check: it has no HTML page; read it with `council show {CHECK_ID}` "
        "(or --json)"
    )
    assert CHECK.default_form({}) == "md"


def test_the_setup_and_resume_lines():
    state = made_state({"advocate": R, "critic": None}, failed=("proxy-gemini",))
    plan = CheckPlan.from_json({**state.plan, "options": [R, P]})
    files = [SimpleNamespace(lines_sent=12), SimpleNamespace(lines_sent=30)]
    context = SimpleNamespace(files=files)
    assert CHECK.setup_line(plan, context, state) == (
        "setup: check advocate=claude,critic=codex,proxy-gemini=gemini options=Redis,Postgres "
        "files=2 (42 lines)"
    )
    simulated = CheckPlan.from_json({**state.plan, "simulated": True})
    assert CHECK.setup_line(simulated, SimpleNamespace(files=[]), state) == (
        "setup (SIMULATED): check advocate=claude,critic=codex,proxy-gemini=gemini "
        "files=0 (0 lines)"
    )
    # Two answers are on disk: the failed call is asked again.
    assert CHECK.resumed_line(state) == f"resuming {CHECK_ID} from CHECK; answers on disk: 2"
