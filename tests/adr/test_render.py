"""The text of an ADR, MADR and Nygard, line by line (docs/spec/commands.md "council adr",
"Template" and "What goes in"), from a debate's result made by hand: the question, the options
considered, the ruling, the confidence, the rulings on the points argued, the consequences, the
next step, the votes and tally, the minority report, the status and date, the record line."""

from __future__ import annotations

from pathlib import Path

import pytest

from adr.made import RECORD, made_result
from council.adr.layout import Layout
from council.adr.render import Source, render, title_of


def source_of(result: dict) -> Source:
    return Source(
        result, RECORD, f".scratchpad/{RECORD}/", f"../../.scratchpad/{RECORD}/decision.md"
    )


RECORD_LINE = (
    f"Record: [`{RECORD}`](../../.scratchpad/{RECORD}/decision.md) (`.scratchpad/{RECORD}/`; "
    f"`council show {RECORD}`)"
)
OPENING = " ".join(f"w{i}" for i in range(60))
MADR = f"""\
---
status: accepted
date: 2026-11-28
decision-makers: council debate: advocate (claude), critic (codex)
---

# Redis or Postgres for sessions?

## Context and Problem Statement

> Redis or Postgres for sessions?
> We have 10k users.

Decided by a council debate.

## Considered Options

* Keep sessions in 'Postgres', with an expiry. (chosen)
* The advocate's first proposal: {OPENING}...
* critic's position (voted disagree): Redis is faster.

## Decision Outcome

Chosen option: "Keep sessions in 'Postgres', with an expiry."

Confidence: 72/100.

### Rulings on the points argued

- Latency. Ruling: Postgres is fast enough. (measured)
- Memory. Ruling: Not a concern. (bounded) (repeated without new evidence)

### Consequences

* Accepted trade-off: A query per request.
* Blocking concern: Backups must cover the table.
* Agreed by every seat: Sessions must survive a restart.

### Confirmation

Next step: Add the sessions table. Verify with `make test`. Done when: Logins survive a restart.

### Votes

| seat | vote | reason |
|---|---|---|
| critic | disagree | Redis is faster \\| cheaper |
| proxy-gemini | no vote |  |

Tally: agree 0, revise 0, disagree 1, no vote 1.

### Minority Report

**critic**: Redis is faster.

> Redis answers in a millisecond.
> Postgres does not.

## More Information

{RECORD_LINE}
"""

NYGARD = f"""\
# 7. Redis or Postgres for sessions?

Date: 2026-11-28

## Status

Accepted

## Context

> Redis or Postgres for sessions?
> We have 10k users.

Options considered:

- Keep sessions in 'Postgres', with an expiry. (chosen)
- The advocate's first proposal: {OPENING}...
- critic's position (voted disagree): Redis is faster.

Debated by council debate: advocate (claude), critic (codex).
{RECORD_LINE}

## Decision

Keep sessions in "Postgres",
with an expiry.

Confidence: 72/100.

Rulings on the points argued:

- Latency. Ruling: Postgres is fast enough. (measured)
- Memory. Ruling: Not a concern. (bounded) (repeated without new evidence)

Votes:

| seat | vote | reason |
|---|---|---|
| critic | disagree | Redis is faster \\| cheaper |
| proxy-gemini | no vote |  |

Tally: agree 0, revise 0, disagree 1, no vote 1.

Minority report:

**critic**: Redis is faster.

> Redis answers in a millisecond.
> Postgres does not.

## Consequences

- Accepted trade-off: A query per request.
- Blocking concern: Backups must cover the table.
- Agreed by every seat: Sessions must survive a restart.

Next step: Add the sessions table. Verify with `make test`. Done when: Logins survive a restart.
"""


def test_a_madr_record_line_by_line():
    layout = Layout(Path("docs/decisions"), 3, 4, "madr", front_matter=True)
    assert render(source_of(made_result()), layout) == MADR


def test_a_nygard_record_line_by_line():
    layout = Layout(Path("doc/adr"), 7, 4, "nygard", front_matter=False)
    assert render(source_of(made_result()), layout) == NYGARD


def test_a_madr_2_record_opens_with_its_status_list_and_a_degraded_debate_is_proposed():
    result = made_result()
    result["status"] = "degraded"
    layout = Layout(Path("docs/adr"), 3, 4, "madr", front_matter=False)
    text = render(source_of(result), layout)
    assert text.startswith(
        "# Redis or Postgres for sessions?\n\n* Status: proposed\n* Deciders: council debate: "
        "advocate (claude), critic (codex)\n* Date: 2026-11-28\n\n"
        "## Context and Problem Statement\n"
    )
    nygard = render(source_of(result), Layout(Path("doc/adr"), 2, 4, "nygard", False))
    assert "\n## Status\n\nProposed\n" in nygard


def test_a_debate_that_recorded_little_says_so():
    result = made_result(
        confidence=None, disagreements=[], tradeoffs=[], blocking_concerns=[], consensus=[],
        next_step={}, votes={}, tally={}, minority=[],
    )  # fmt: skip
    result["contributions"] = [{"phase": "PROPOSAL", "text": "Use Postgres."}]
    result["seats"] = []
    del result["finished_at"]
    text = render(source_of(result), Layout(Path("d"), 1, 4, "madr", True))
    assert "date: 2026-11-27\n" in text  # a debate with no end: the day it started
    assert "decision-makers: council debate\n" in text
    assert "* The advocate's first proposal: Use Postgres.\n" in text  # whole: no "..."
    assert "Confidence" not in text and "Rulings" not in text and "Tally" not in text
    assert "### Consequences\n\n* None recorded.\n" in text
    assert "### Confirmation\n\nNext step: none recorded.\n" in text
    assert "### Votes\n\nNo seat voted (the proposal went unchallenged).\n" in text
    assert "### Minority Report\n\nNone: no seat voted disagree.\n" in text


def test_a_next_step_keeps_its_own_stop_and_leaves_out_what_it_lacks():
    step = {"action": "Ship it!", "verify_command": "", "done_criterion": ""}
    text = render(source_of(made_result(next_step=step)), Layout(Path("d"), 1, 4, "madr", True))
    assert "### Confirmation\n\nNext step: Ship it!\n" in text


@pytest.mark.parametrize(
    ("question", "title"),
    [
        ("Redis or Postgres?\nMore context.", "Redis or Postgres?"),
        ("  Use   tabs\tor spaces?  ", "Use tabs or spaces?"),
        ("", "Decision"),
        ("x" * 130, "x" * 117 + "..."),
        ("y" * 120, "y" * 120),
    ],
)
def test_the_title_is_the_questions_first_line(question, title):
    assert title_of(question) == title
