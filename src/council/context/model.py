"""The context of one run (a debate or a review) as the lead hands it around: frozen, already
capped and redacted."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class FileExcerpt:
    """One file as the seats see it. `text` is what goes into prompts; `room_text` is what the
    seat's clean room holds (the whole file, redacted: read tools may look past the cap)."""

    path: str  # relative to the project root, POSIX, as shown to seats
    text: str  # as sent: capped, with markers, redacted
    lines_total: int
    lines_sent: int
    truncated: bool
    redactions: int
    redaction_kinds: Mapping[str, int] = field(default_factory=dict)
    language: str = ""  # the fence info string ("python", "yaml", ...)
    room_text: str | None = field(default=None, repr=False)  # None: the room gets `text`


@dataclass(frozen=True)
class RunContext:
    root: Path  # project root: git top level, else cwd
    files: tuple[FileExcerpt, ...]
    diff: str | None  # redacted `git diff REF` text, capped, or None
    technical: tuple[str, ...]  # the technical context lines ("- Stack: ...")
    warnings: tuple[str, ...]  # skipped binaries, total-cap cuts, ...
    diff_ref: str | None = None
    diff_excerpt: FileExcerpt | None = None  # the diff's counts (path "git diff <ref>")

    def __post_init__(self) -> None:
        # Accept what `dataclasses.asdict` + JSON give back (lists, dicts, a str root), so a
        # record's saved context loads into the same object.
        def excerpt(value: object) -> FileExcerpt:
            return value if isinstance(value, FileExcerpt) else FileExcerpt(**value)  # type: ignore[arg-type]

        object.__setattr__(self, "root", Path(self.root))
        object.__setattr__(self, "files", tuple(excerpt(f) for f in self.files))
        object.__setattr__(self, "technical", tuple(self.technical))
        object.__setattr__(self, "warnings", tuple(self.warnings))
        if self.diff_excerpt is not None:
            object.__setattr__(self, "diff_excerpt", excerpt(self.diff_excerpt))

    def to_json(self) -> dict[str, Any]:
        """Everything, JSON-ready, for the record (the texts are redacted already)."""
        data = asdict(self)
        data["root"] = str(self.root)
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RunContext:
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        return cls(**known)

    @property
    def excerpts(self) -> tuple[FileExcerpt, ...]:
        """Everything sent, the diff first: what the totals count."""
        return ((self.diff_excerpt,) if self.diff_excerpt else ()) + self.files

    @property
    def total_lines_sent(self) -> int:
        return sum(e.lines_sent for e in self.excerpts)

    @property
    def total_redactions(self) -> int:
        return sum(e.redactions for e in self.excerpts)

    @property
    def truncated_count(self) -> int:
        return sum(1 for e in self.excerpts if e.truncated)
