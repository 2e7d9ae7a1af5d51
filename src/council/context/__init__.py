"""Context from files and diffs: what the seats may see, redacted and capped, and where.

The lead calls `gather_context` once (PARSE + CONTEXT), prints `setup_report`, builds each
seat's room with `build_room`, puts `files_block` into prompts, writes `render_context_md` to
the record and `context_json` into the result, and calls `refresh_technical_context` before
rounds 3 and later. One `Redactor` per run carries the user's own secret patterns.

Each name is imported from its module when it is first used (PEP 562): reading a record
(`council show`) imports `council.context.fences` without the git, runner and redaction
machinery a run needs. The redaction names are imported at once: `redact` is also the
name of their package, which importing it would otherwise set here in the function's place.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from council.context.redact import Redactor, redact, redact_diff

if TYPE_CHECKING:
    from council.context.gather import gather_context
    from council.context.model import FileExcerpt, RunContext
    from council.context.render import (
        context_json,
        files_block,
        render_context_md,
        setup_report,
    )
    from council.context.rooms import build_room, protection_note, remove_room
    from council.context.technical import refresh_technical_context

_HOMES = {
    "gather_context": "gather",
    "FileExcerpt": "model",
    "RunContext": "model",
    "context_json": "render",
    "files_block": "render",
    "render_context_md": "render",
    "setup_report": "render",
    "build_room": "rooms",
    "protection_note": "rooms",
    "remove_room": "rooms",
    "refresh_technical_context": "technical",
}


__all__ = [
    "FileExcerpt",
    "Redactor",
    "RunContext",
    "build_room",
    "context_json",
    "files_block",
    "gather_context",
    "protection_note",
    "redact",
    "redact_diff",
    "refresh_technical_context",
    "remove_room",
    "render_context_md",
    "setup_report",
]


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module 'council.context' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"council.context.{_HOMES[name]}"), name)
    globals()[name] = value
    return value
