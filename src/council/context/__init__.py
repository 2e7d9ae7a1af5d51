"""Context from files and diffs: what the seats may see, redacted and capped, and where.

The lead calls `gather_context` once (PARSE + CONTEXT), prints `setup_report`, builds each
seat's room with `build_room`, puts `files_block` into prompts, writes `render_context_md` to
the record and `context_json` into the result, and calls `refresh_technical_context` before
rounds 3 and later. One `Redactor` per run carries the user's own secret patterns.
"""

from council.context.gather import gather_context
from council.context.model import FileExcerpt, RunContext
from council.context.redact import Redactor, redact, redact_diff
from council.context.render import context_json, files_block, render_context_md, setup_report
from council.context.rooms import build_room, protection_note, remove_room
from council.context.technical import refresh_technical_context

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
