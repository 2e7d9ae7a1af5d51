"""What the lead and the seats say to each other over the bus, as frozen dataclasses.

A message's `payload` carries one of these in memory; the transcript gets its `meta()` (the
prompt itself never: the ACTION DM names the prompt file instead).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

LEAD = "lead"  # the lead's address on the bus


@dataclass(frozen=True)
class Ask:
    """What an ACTION DM asks of a seat: one CLI call with this prompt."""

    prompt: str
    stem: str  # names the call's files: `<stem>-prompt.md`, `<stem>-response.md`
    limit: int | None  # word limit of the answer; None: never cut (JSON, the lead's own calls)
    vote: bool = False  # the prompt asks for a closing `VOTE:` line (a last contribution)
    # Council's system prompt when this call may run lean (docs/lean.md); None: not lean.
    lean_prompt: str | None = field(default=None, compare=False, repr=False)
    # Reads the whole answer before the word limit cuts it (a debate's closing vote, the
    # injection watch); what it returns is added to the `Reply`. In memory only, like the
    # prompt.
    inspect: Callable[[str], Mapping[str, Any]] | None = field(
        default=None, compare=False, repr=False
    )

    def meta(self) -> dict[str, Any]:
        return {
            "stem": self.stem,
            "prompt_file": f"{self.stem}-prompt.md",
            "limit": self.limit,
            "vote": self.vote,
        }


@dataclass(frozen=True)
class ReadyReport:
    """A seat's READY: its tool report (docs/spec/protocol.md section 2), or why its CLI
    cannot run."""

    ok: bool
    cli: str
    problem: str | None = None
    path: str | None = None
    version: str | None = None
    variant: str | None = None
    model: str | None = None
    effort: str | None = None
    sandbox: str = ""
    timeout_s: float = 0.0  # the seat's soft timeout
    # The seat's warm worker (runner/warm.py `WarmStats`): mode warm or spawn, why it spawns,
    # its memory at READY; None: the seat was never to run warm.
    worker: Mapping[str, Any] | None = None
    # Who pays for its calls (`panel.calls.billing_of`): mode, source, text.
    billing: Mapping[str, str] | None = None

    def meta(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Reply:
    """One finished call of a seat's CLI: the answer as relayed (cut to its word limit), or a
    failure notice, with what the record keeps about the call."""

    stem: str
    cli: str
    status: str  # a runner Status value; the lead turns a straggler's `ok` into `late`
    text: str
    model: str | None = None
    words: int = 0
    truncated: bool = False
    original_words: int = 0
    latency_s: float = 0.0
    attempts: int = 0
    exit_code: int | None = None
    stderr_tail: str = ""
    detail: str = ""
    exceeded_soft: bool = False
    prompt_file: str = ""
    response_file: str = ""
    argv: tuple[str, ...] = ()  # as shown: secrets masked, a prompt argument abbreviated
    started_at: float = 0.0  # Unix time the call started
    spans: tuple[tuple[float, float, str], ...] = ()  # per attempt: start after started_at,
    # duration, status (a timeline draws them)
    soft_s: float = 0.0
    hard_s: float = 0.0
    # As the CLI reported it: {input_tokens, output_tokens, cost_usd}, each None if unsaid.
    usage: dict[str, Any] | None = None
    # The model that served the call as its CLI reported it (None: "not reported", never
    # the requested `model`), and every model it named, that one first.
    served_model: str | None = None
    served_models: tuple[str, ...] = ()
    vote: str | None = None  # read from the whole answer, before the word limit cut it
    vote_reason: str = ""
    # What the whole answer gave away (context/fences.py `watch`): the canary, a forged
    # fence, an injection it reported; None: nothing.
    injection: dict[str, Any] | None = None
    # What the after-call check found changed in the user's project (context/guard.py).
    project_changes: tuple[str, ...] = ()
    project_warning: str | None = None

    @property
    def answered(self) -> bool:
        return self.status == "ok"

    def meta(self) -> dict[str, Any]:
        """For the transcript: everything but the text, which is the message body."""
        meta = asdict(self)
        del meta["text"]
        meta["argv"] = list(self.argv)
        meta["spans"] = [list(span) for span in self.spans]
        meta["project_changes"] = list(self.project_changes)
        meta["served_models"] = list(self.served_models)
        return meta
