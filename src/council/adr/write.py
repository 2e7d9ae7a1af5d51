"""`council adr ID`: a finished debate's DECISION written as the next numbered ADR of the
project's decisions directory. Anything else is refused with one line (exit 2): a review, a
debate still running, one that ended with no DECISION, a debate some ADR of the directory was
already written from, and a file that exists (never overwritten)."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from council.adr.layout import Layout, decisions_dir, layout_of, numbered
from council.adr.render import Source, render, title_of
from council.errors import UsageError
from council.panel.protocol import load_result, reading_result
from council.runs.record import Record, kind_of
from council.runs.store import find_run, read_state, settled_state

DECISION_FILE = "decision.md"


@dataclass(frozen=True)
class Written:
    path: Path
    layout: Layout
    record: Record

    def to_json(self, cwd: Path) -> dict[str, Any]:
        return {
            "path": _shown(self.path, cwd),
            "number": self.layout.number,
            "template": self.layout.template,
            "record": self.record.id,
        }


def finished_debate(scratchpad: Path, ref: str) -> tuple[Record, dict[str, Any], dict[str, Any]]:
    """The record `ref` names, its state and its result, when it is a debate that reached its
    DECISION."""
    from council.debate.protocol import DEBATE

    record = find_run(scratchpad, ref)
    if kind_of(record.id) != DEBATE.kind:
        raise UsageError(
            f"{record.id} is a {kind_of(record.id)}, not a debate: an ADR is written from a "
            "debate's DECISION"
        )
    state = settled_state(record, read_state(record))
    status = state.get("status")
    if status == "running":
        raise UsageError(
            f"{record.id} is still running; wait for its DECISION (council wait {record.id})"
        )
    result = load_result(DEBATE, record, state)
    with reading_result(record, state):
        decision = result.get("decision") if status in ("completed", "degraded") else None
        if not decision or decision.get("synthesized") is False:
            raise UsageError(
                f"{record.id} ended {status} without a DECISION; an ADR needs a finished "
                f"debate (council resume {record.id}, or run it again)"
            )
    return record, state, result


def write_adr(ref: str, *, scratchpad: Path, cwd: Path, given_dir: str | None) -> Written:
    record, state, result = finished_debate(scratchpad, ref)
    directory = decisions_dir(cwd, given_dir)
    layout = layout_of(directory)
    for _, existing in numbered(directory):
        if _written_from(existing, record.id):
            raise UsageError(
                f"{_shown(existing, cwd)} was already written from {record.id}; "
                "an ADR is never written twice (recheck it with council adr --recheck)"
            )
    path = layout.path(title_of(str(result["question"])))
    link = os.path.relpath(record.file(DECISION_FILE).absolute(), directory.absolute())
    source = Source(result, record.id, record.display(cwd), link)
    with reading_result(record, state):
        text = render(source, layout)
    _create(path, text, cwd)
    return Written(path, layout, record)


def _written_from(path: Path, record_id: str) -> bool:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return re.search(rf"^Record: \[`{re.escape(record_id)}`\]", text, re.M) is not None


def _create(path: Path, text: str, cwd: Path) -> None:
    """Write a new file, never over one that exists."""
    shown = _shown(path, cwd)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        raise UsageError(f"{shown} exists; council adr never overwrites a file") from None
    except OSError as exc:
        raise UsageError(f"cannot write {shown}: {exc.strerror}; give --dir") from None
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)


def _shown(path: Path, cwd: Path) -> str:
    try:
        return str(path.absolute().relative_to(cwd.absolute()))
    except ValueError:
        return str(path)
