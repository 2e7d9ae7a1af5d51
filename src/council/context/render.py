"""The context as text: the files block of prompts, `context.md`, the setup report and the
result's `context` object. Counts only: no function here ever prints a redacted value."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from council.context.fences import Fences
from council.context.model import FileExcerpt, RunContext


def _fence(text: str) -> str:
    """A backtick fence longer than any run of backticks inside `text`."""
    longest = max((len(m) for m in re.findall(r"`{3,}", text)), default=0)
    return "`" * max(3, longest + 1)


def _block(title: str, language: str, text: str, fenced: tuple[Fences, str] | None) -> str:
    """One excerpt under its title, in a backtick fence sized to it (for the eye: Markdown
    renders it as code). In a prompt, `fenced` (the run's fences, the material's kind) puts
    it between the run's nonce delimiters too, which the excerpt cannot forge."""
    if fenced is not None:
        text = fenced[0].scrub(text)
    fence = _fence(text)
    body = text if text.endswith("\n") or not text else text + "\n"
    code = f"{fence}{language}\n{body}{fence}"
    if fenced is not None:
        fences, kind = fenced
        code = f"{fences.begin(kind, title)}\n{code}\n{fences.end(kind, title)}"
    return f"### {title}\n{code}\n"


def files_block(ctx: RunContext, fences: Fences | None = None, *, numbered: bool = False) -> str:
    """The file excerpts as they go into prompts: the diff first (it is the subject when
    given), then each file in the order given, each between the run's `fences` (None: the
    record's `context.md`, which no model reads). `numbered`: each file line starts with its
    line number in the file (a review's findings name lines), the cap markers unnumbered."""
    parts = []
    if ctx.diff is not None:
        title = f"git diff {ctx.diff_ref or ''}".rstrip()
        parts.append(_block(title, "diff", ctx.diff, (fences, "diff") if fences else None))
    for excerpt in ctx.files:
        text = number_lines(excerpt.text, excerpt.lines_total) if numbered else excerpt.text
        fenced = (fences, "file") if fences else None
        parts.append(_block(excerpt.path, excerpt.language, text, fenced))
    return "\n".join(parts)


_LEFT_OUT = re.compile(r"^\[\.\.\. \d+ lines left out \(lines \d+-(\d+) of \d+\) \.\.\.\]$")


def number_lines(text: str, lines_total: int) -> str:
    """`text` (a capped excerpt) with `<n> | ` before each line: numbering goes on after a
    head-and-tail marker where the file goes on, so every number is the file's own."""
    width = len(str(max(lines_total, 1)))
    out = []
    number = 1
    for line in text.split("\n") if text else []:
        if line.startswith("[... ") and line.endswith(" ...]"):
            out.append(line)
            if found := _LEFT_OUT.match(line):
                number = int(found.group(1)) + 1
            continue
        out.append(f"{number:>{width}} | {line}")
        number += 1
    return "\n".join(out)


def render_context_md(ctx: RunContext, technical: Sequence[str] | None = None) -> str:
    """`context.md` of the record: the technical context (the refreshed one when given) and
    the excerpts exactly as sent."""
    lines = list(ctx.technical if technical is None else technical)
    out = ["# Context", "", "## Technical context", ""]
    out += lines or ["(none)"]
    out += ["", "## Files", ""]
    block = files_block(ctx)
    out.append(block if block else "(no files were given)\n")
    if ctx.warnings:
        out += ["## Warnings", "", *(f"- {w}" for w in ctx.warnings), ""]
    return "\n".join(out).rstrip("\n") + "\n"


def _kinds(kinds: Mapping[str, int]) -> str:
    return ", ".join(f"{kind} {n}" for kind, n in sorted(kinds.items()))


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _excerpt_line(e: FileExcerpt) -> str:
    if e.truncated:
        sent = f"{e.lines_sent} of {e.lines_total} lines sent (truncated)"
    else:
        sent = f"{_plural(e.lines_sent, 'line')} sent"
    if e.redactions:
        sent += f", {_plural(e.redactions, 'redaction')} ({_kinds(e.redaction_kinds)})"
    return f"  {e.path}: {sent}"


def setup_report(ctx: RunContext) -> list[str]:
    """The PARSE + CONTEXT part of the setup report, one stderr line per entry; the context's
    warnings are not among them."""
    summary = (
        f"context: {_plural(len(ctx.files), 'file')}"
        + (f" + git diff {ctx.diff_ref}" if ctx.diff_ref else "")
        + f", {_plural(ctx.total_lines_sent, 'line')} sent"
    )
    if ctx.truncated_count:
        summary += f", {ctx.truncated_count} truncated"
    summary += f", {_plural(ctx.total_redactions, 'redaction')}"
    lines = [summary]
    if ctx.diff_excerpt is not None:
        lines.append(_excerpt_line(ctx.diff_excerpt))
    lines += [_excerpt_line(e) for e in ctx.files]
    # (The context's warnings are printed apart, as warnings: --quiet keeps those.)
    lines.append(f"technical context ({_plural(len(ctx.technical), 'line')}):")
    lines += [f"  {t}" for t in ctx.technical] or ["  (none)"]
    return lines


def context_json(ctx: RunContext) -> dict[str, Any]:
    """The result's `context` object (docs/spec/outputs.md): counts per file, never a secret. `diff`
    is added when `--diff` was given."""
    data: dict[str, Any] = {
        "files": [
            {
                "path": e.path,
                "lines_sent": e.lines_sent,
                "truncated": e.truncated,
                "redactions": e.redactions,
            }
            for e in ctx.files
        ],
        "technical_context": list(ctx.technical),
    }
    if ctx.diff_excerpt is not None:
        d = ctx.diff_excerpt
        data["diff"] = {
            "ref": ctx.diff_ref,
            "lines_sent": d.lines_sent,
            "truncated": d.truncated,
            "redactions": d.redactions,
        }
    return data
