"""`council adr --recheck FILE`: a recorded decision put to a new panel. The ADR's title and
decision (and its latest recheck) become the question of a new debate, which asks whether
the decision still holds given the current files and wants the recommendation to open with
one word: UNCHANGED, REFINED or CHANGED. A dated `## Rechecked YYYY-MM-DD` section is
appended to the ADR with that verdict, the new ruling in brief, the votes and a link to the
new record. Exit `DECISION_CHANGED` when the verdict is `changed`; else the debate's own
code (0, or 5 when it was degraded or named no verdict), so a CI job can recheck old
decisions."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path
from typing import Any

from council.adr.render import tally_text
from council.atomicio import write_private
from council.config import Config
from council.debate.flags import DebateFlags
from council.errors import ExitCode, UsageError
from council.progress import Progress
from council.question import checked_question

VERDICTS = ("unchanged", "refined", "changed")
UNCLEAR = "unclear"
DECISION_CHANGED = ExitCode.DECISION_CHANGED
DECISION_WORDS = 300
RULING_WORDS = 120
# The verdict opens the recommendation, after any `[SIMULATED]`-like tags and emphasis.
_VERDICT = re.compile(r"^(?:\s*\[[^\]]*\])*[\s*_#>`\"']*(unchanged|refined|changed)\b", re.I)
_HEADING = re.compile(r"^(#{1,2}) +(.+?) *$", re.M)
_VOTES = re.compile(r"^(?:### Votes|Votes:)\s*$", re.M)
_DECISION_HEADINGS = ("decision outcome", "decision")


@dataclass(frozen=True)
class Recorded:
    """What an ADR file recorded: its title, its date and its decision in words."""

    path: Path
    title: str
    date: str | None
    decision: str


@dataclass(frozen=True)
class Rechecked:
    verdict: str  # unchanged | refined | changed | unclear
    exit_code: ExitCode
    record_id: str
    section: str

    def to_json(self) -> dict[str, Any]:
        return {"verdict": self.verdict, "record": self.record_id, "exit_code": int(self.exit_code)}


def read_adr(path: Path) -> Recorded:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        why = getattr(exc, "strerror", None) or "not UTF-8 text"
        raise UsageError(f"cannot read the ADR {path}: {why}") from None
    headings = list(_HEADING.finditer(text))
    title = next((m.group(2) for m in headings if m.group(1) == "#"), path.stem)
    title = re.sub(r"^\d+\.\s+", "", title)  # Nygard's `# 3. Title`
    found = re.search(r"^(?:\*\s*)?date:\s*(\d{4}-\d{2}-\d{2})", text, re.M | re.I)
    parts = [_section(text, headings, name) for name in _DECISION_HEADINGS]
    # The votes and the minority report are how it was decided, not what: left out.
    found_decision = next((p for p in parts if p), "")
    decision = _VOTES.split(found_decision, maxsplit=1)[0].strip()
    rechecks = [m for m in headings if m.group(2).lower().startswith("rechecked")]
    if rechecks:  # the latest recheck says what holds now
        decision += "\n\nLatest recheck: " + _section(text, headings, rechecks[-1].group(2).lower())
    if not decision.strip():
        raise UsageError(
            f"{path} has no `## Decision Outcome` or `## Decision` section: not an ADR "
            "council can recheck"
        )
    return Recorded(path, title.strip(), found.group(1) if found else None, decision.strip())


def _section(text: str, headings: list[re.Match[str]], name: str) -> str:
    for i, match in enumerate(headings):
        if match.group(1) == "##" and match.group(2).strip().lower() == name:
            end = next((h.start() for h in headings[i + 1 :] if h.group(1) == "##"), len(text))
            return text[match.end() : end].strip()
    return ""


def recheck_question(recorded: Recorded) -> str:
    from council.words import cut_words

    when = f", recorded {recorded.date}" if recorded.date else ""
    return checked_question(
        f"Recheck of an architecture decision ({recorded.path.name}{when}): "
        f'"{recorded.title}". It decided:\n\n{cut_words(recorded.decision, DECISION_WORDS)}\n\n'
        "Given the current files, does this decision still hold? Begin the recommendation "
        "with one word: UNCHANGED (it holds as written), REFINED (it holds with adjustments; "
        "name them) or CHANGED (it no longer holds; say what replaces it)."
    )


def verdict_of(recommendation: str) -> str:
    """UNCHANGED, REFINED or CHANGED, as the recommendation's first word; `unclear` when it
    opens with another (the word anywhere else may be the question quoted back)."""
    found = _VERDICT.match(recommendation)
    return found.group(1).lower() if found else UNCLEAR


def recheck(
    path: Path, flags: DebateFlags, config: Config, progress: Progress, *, cwd: Path
) -> Rechecked:
    """Run the new panel and append its verdict to the ADR."""
    from council.debate.protocol import DEBATE
    from council.panel.run import start

    recorded = read_adr(path)
    if not os.access(path, os.W_OK):
        raise UsageError(f"{path}: not writable; the recheck appends a section to it")
    run = start(DEBATE, replace(flags, question=recheck_question(recorded)), config, progress)
    decision = run.result.get("decision")
    if not decision or decision.get("synthesized") is False:
        if run.error is not None:
            raise run.error
        raise UsageError(f"{run.record.id} reached no DECISION; the ADR is left as it was")
    verdict = verdict_of(str(decision["recommendation"]))
    link = os.path.relpath(run.record.file("decision.md").absolute(), path.parent.absolute())
    section = _section_text(verdict, decision, run.record.id, run.record.display(cwd), link)
    text = path.read_text(encoding="utf-8")
    mode = path.stat().st_mode & 0o777
    write_private(path, text.rstrip("\n") + "\n\n" + section, mode=mode)
    if verdict == "changed":
        code = DECISION_CHANGED
    elif verdict == UNCLEAR:
        code = ExitCode.DEGRADED
    else:
        code = run.exit_code
    return Rechecked(verdict, code, run.record.id, section)


def _section_text(
    verdict: str, decision: dict[str, Any], record_id: str, shown: str, link: str
) -> str:
    from council.words import cut_words

    ruling = " ".join(cut_words(str(decision["recommendation"]), RULING_WORDS).split())
    if verdict == UNCLEAR:
        said = "unclear (the new DECISION named none of unchanged, refined, changed; read it)"
    else:
        said = verdict
    votes = tally_text(decision)
    lines = [
        f"## Rechecked {date.today().isoformat()}",
        "",
        f"Verdict: **{said}**.",
        "",
        f"New ruling: {ruling}",
        "",
        *([f"Votes: {votes}.", ""] if votes else []),
        f"New record: [`{record_id}`]({link}) (`{shown}`; `council show {record_id}`)",
    ]
    return "\n".join(lines) + "\n"
