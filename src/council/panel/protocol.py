"""What a protocol is to the run's life (`council.panel.run`) and to the commands that read a
record: `RunProtocol`, the hooks a protocol gives with only what differs between protocols,
and the two readers every front end uses on any record, `load_result` and `rendered`.

Kept apart from the run's life and light to import: `council show`, `wait` and `list` read
records through it without loading what runs a debate.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from council.runs.store import damaged_result, stored_or_built_result, stored_result

if TYPE_CHECKING:
    from council.config import Config
    from council.context import RunContext
    from council.errors import CouncilError, ExitCode
    from council.panel.setup import RunSetup
    from council.panel.state import RunState
    from council.progress import Progress
    from council.runs.record import Record

ENDED = ("completed", "degraded")  # the run reached its result: a DECISION, the findings


class RunProtocol(Protocol):
    """What a protocol gives the run's life: only what differs between protocols."""

    kind: str  # the record's prefix (`debate-...`) and the word messages use
    state_type: type[RunState]
    plan_type: type[RunSetup]
    forms: tuple[str, ...]  # what its result renders to besides JSON: md, sarif, ...
    # Written beside `result.json` at the end: file name -> form.
    result_files: Mapping[str, str]
    # The lead, built as (plan, context, record, state, progress, config, *, tuning, rooms,
    # guard) for each run, and the protocol top to bottom, given that lead.
    lead_type: Callable[..., Any]
    conduct: Callable[[Any], Awaitable[None]]

    def resolve(self, flags: Any, config: Config, progress: Progress, cwd: Path) -> RunSetup:
        """The plan from the flags; bad input is a `UsageError` before any record exists."""
        ...

    def check(self, plan: Any, context: RunContext, config: Config, progress: Progress) -> None:
        """After the context is gathered, before the record: refuse, or warn."""
        ...

    def new_state(self, shared: dict[str, Any], plan: Any, context: RunContext) -> RunState:
        """The run's first state: `shared` holds the fields every run's has (id, plan,
        labels, context, ...); the protocol adds its question and its own."""
        ...

    def setup_line(self, plan: Any, context: RunContext, state: Any) -> str: ...

    def resumed_line(self, state: Any) -> str: ...

    def exit_code(self, state: Any, error: CouncilError | None) -> ExitCode: ...

    def build_result(self, state: Any, scratchpad: str) -> dict[str, Any]: ...

    def render(self, result: dict[str, Any], form: str) -> str:
        """The result in one of `forms` (JSON is every run's: `rendered`)."""
        ...

    def default_form(self, plan: Mapping[str, Any]) -> str:
        """What stdout gets unless `--json` asks for JSON."""
        ...

    def notes(self, result: dict[str, Any]) -> list[str]:
        """The lines stderr gets about an ended run beside its error: dropped seats, ..."""
        ...

    def write_report(self, record: Record, result: dict[str, Any], state: dict[str, Any]) -> Path:
        """`council show --html`: the run as one page in its record; the page's path."""
        ...

    def write_beside(self, result: dict[str, Any], state: Any) -> CouncilError | None:
        """What the run writes outside its record at the end (a review's `--output`); the
        error that makes the run's exit code, if that failed."""
        ...


def load_result(protocol: RunProtocol, record: Record, state: dict[str, Any]) -> dict[str, Any]:
    """A record's result: `result.json` once the run wrote it at its end, else the result its
    state gives so far (a run still going, or one whose process died)."""

    def parse(data: dict[str, Any]) -> RunState:
        return protocol.state_type.from_json(data, record.path)

    return stored_or_built_result(record, state, protocol.kind, parse, protocol.build_result)


@contextmanager
def reading_result(record: Record, state: dict[str, Any]) -> Iterator[None]:
    """Around what reads a record's result: a `result.json` the run wrote but something else
    changed (a field missing or of the wrong type) is a `UsageError` naming it, never a crash;
    a result built from the state is the protocol's own, and a failure there a bug."""
    try:
        yield
    except (KeyError, TypeError, AttributeError, IndexError, ValueError) as exc:
        if not stored_result(record, state):
            raise
        raise damaged_result(record, f"{type(exc).__name__}: {exc}") from None


def rendered(protocol: RunProtocol, result: dict[str, Any], form: str) -> str:
    """The result as `form` asks: JSON, or one of the protocol's own forms."""
    if form == "json":
        return json.dumps(result, indent=2, ensure_ascii=False) + "\n"
    return protocol.render(result, form)
