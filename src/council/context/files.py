"""Reading a file as text, and the line caps: per file (head + tail) and in all (in order).

Line numbers stay meaningful: the per-file cap keeps the first and last lines with a marker
that says how many were left out between them, and the total cap cuts a file at a line
boundary with a marker saying how many more lines it had.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath

MAX_READ_BYTES = 10 * 1024 * 1024  # larger files are logs or data, not context
BINARY_SNIFF_BYTES = 8192

_LANGUAGES = {
    ".py": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "jsx",
    ".ts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".kt": "kotlin",
    ".kts": "kotlin",
    ".scala": "scala",
    ".rb": "ruby",
    ".php": "php",
    ".cs": "csharp",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".hpp": "cpp",
    ".swift": "swift",
    ".sh": "bash",
    ".bash": "bash",
    ".zsh": "zsh",
    ".sql": "sql",
    ".md": "markdown",
    ".rst": "rst",
    ".json": "json",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".toml": "toml",
    ".ini": "ini",
    ".cfg": "ini",
    ".xml": "xml",
    ".html": "html",
    ".css": "css",
    ".j2": "jinja",
    ".tf": "hcl",
    ".lua": "lua",
    ".ex": "elixir",
    ".exs": "elixir",
    ".erl": "erlang",
    ".hs": "haskell",
    ".dart": "dart",
    ".vue": "vue",
    ".svelte": "svelte",
}
_NAMED = {"dockerfile": "dockerfile", "makefile": "makefile", "justfile": "makefile"}


def language_of(path: str) -> str:
    """The fence info string for `path` ("python", "yaml", ...; "" when unknown)."""
    p = PurePosixPath(path.lower())
    if p.name in _NAMED:
        return _NAMED[p.name]
    if p.name.startswith(".env") or p.name.endswith(".env"):
        return "dotenv"
    return _LANGUAGES.get(p.suffix, "")


class NotText(Exception):
    """The file is skipped; the message says why (for the warning)."""


def read_text(path: Path) -> str:
    """The file as text: UTF-8 (a BOM dropped), line ends normalised to `\\n`.

    Binary (a NUL byte or invalid UTF-8) and oversized files raise `NotText`.
    """
    size = path.stat().st_size
    if size > MAX_READ_BYTES:
        raise NotText(f"{size / 1024 / 1024:.1f} MB is over the {MAX_READ_BYTES >> 20} MB limit")
    data = path.read_bytes()
    if b"\0" in data[:BINARY_SNIFF_BYTES] or b"\0" in data:
        raise NotText("binary file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise NotText("binary file (not valid UTF-8)") from None
    return text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")


def split_lines(text: str) -> list[str]:
    """Lines without their `\\n`; a final newline does not make an extra empty line.

    Not `str.splitlines`, which would also split on form feeds and Unicode separators.
    """
    if not text:
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


@dataclass(frozen=True)
class Capped:
    text: str
    lines_total: int
    lines_sent: int
    truncated: bool


def head_tail_sizes(file_lines: int) -> tuple[int, int]:
    """How many lines a file over the cap keeps at each end: a fifth of the cap each (100 and
    100 at the default 500), so a smaller cap keeps a proportionally smaller window."""
    head = max(1, file_lines // 5)
    tail = max(0, min(head, file_lines - head))
    return head, tail


# Characters of one line a prompt quotes: a minified bundle or a base64 blob is one line of
# megabytes, "1 line sent" into every prompt before. The room keeps the whole file.
LINE_CHARS = 2_000


def cut_long_lines(lines: list[str]) -> tuple[list[str], int]:
    """`lines` with each line past `LINE_CHARS` cut there, with a marker that says how much
    of it was left out; and how many lines were cut."""
    cut = 0
    kept = []
    for line in lines:
        if len(line) > LINE_CHARS:
            cut += 1
            left_out = len(line) - LINE_CHARS
            marker = f"[... {left_out:,} more characters of this line left out ...]"
            line = f"{line[:LINE_CHARS]} {marker}"
        kept.append(line)
    return kept, cut


def cap_file(lines: list[str], file_lines: int) -> Capped:
    lines, cut = cut_long_lines(lines)
    total = len(lines)
    if total <= file_lines:
        return Capped("\n".join(lines), total, total, cut > 0)
    head, tail = head_tail_sizes(file_lines)
    left_out = total - head - tail
    kept = [
        *lines[:head],
        f"[... {left_out} lines left out (lines {head + 1}-{head + left_out} of {total}) ...]",
        *(lines[total - tail :] if tail else []),
    ]
    return Capped("\n".join(kept), total, head + tail, True)


def cap_total(capped: Capped, budget: int, total_lines: int) -> Capped:
    """`capped` cut to the `budget` lines left of the `total_lines` limit."""
    if capped.lines_sent <= budget:
        return capped
    lines = capped.text.split("\n") if capped.text else []
    kept: list[str] = []
    content = 0
    for line in lines:
        if content >= budget:
            break
        kept.append(line)
        if not _is_marker(line):
            content += 1
    more = capped.lines_sent - content
    note = f"[... {more} more lines not sent: the {total_lines}-line total was reached ...]"
    text = "\n".join([*kept, note])
    return Capped(text, capped.lines_total, content, True)


def _is_marker(line: str) -> bool:
    return line.startswith("[... ") and line.endswith(" ...]")
