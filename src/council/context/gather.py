"""PARSE + CONTEXT: from `--files` and `--diff` to a `RunContext`.

Order of work, each step before anything leaves the machine:
1. every path checked (missing, directory, outside the root, secret-file name); all refusals
   in one `UsageError` (exit 2);
2. the diff taken (secret-named changed files left out of it, with a warning) and its changed
   files added after the given ones;
3. each file read (binary and oversized files skipped with a warning) and redacted whole;
4. the caps: per file (head + tail), then the total, the diff first, files in the order given;
5. the technical context from the manifests and the redacted files.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from council.context.files import (
    LINE_CHARS,
    Capped,
    NotText,
    cap_file,
    cap_total,
    cut_long_lines,
    language_of,
    read_text,
    split_lines,
)
from council.context.git import changed_names, git_diff
from council.context.model import FileExcerpt, RunContext
from council.context.paths import (
    Accepted,
    check_paths,
    describe_refusals,
    find_root,
    is_secret_name,
)
from council.context.redact import Redactor, grammar_of
from council.context.technical import build_technical_context
from council.errors import UsageError


def gather_context(
    file_args: Sequence[str],
    *,
    cwd: Path,
    diff_ref: str | None = None,
    allow_outside: bool = False,
    allow_secrets: bool = False,
    file_lines: int = 500,
    total_lines: int = 2000,
    context_lines: int = 15,
    redactor: Redactor | None = None,
    allow_files: Sequence[str] = (),
) -> RunContext:
    """Read, check, redact (with the run's `redactor`; the built-in rules when None) and cap
    the debate's files. Raises `UsageError` listing every bad path."""
    cwd = cwd.resolve()
    root = find_root(cwd)
    redactor = redactor or Redactor()
    accepted, refused = check_paths(
        file_args,
        cwd=cwd,
        root=root,
        allow_outside=allow_outside,
        allow_secrets=allow_secrets,
        allow_files=allow_files,
    )
    if refused:
        raise UsageError(describe_refusals(refused))
    warnings: list[str] = []

    diff_text: str | None = None
    if diff_ref is not None:
        diff_text, extra_files = _diff(
            diff_ref, cwd, root, accepted, allow_secrets, allow_files, warnings
        )
        accepted += extra_files
        if not diff_text.strip():
            warnings.append(f"git diff {diff_ref} is empty: nothing changed against {diff_ref}")

    texts: list[tuple[Accepted, str, dict[str, int]]] = []
    for item in accepted:
        try:
            text = read_text(item.real)
        except NotText as why:
            warnings.append(f"skipped {item.shown}: {why}")
            continue
        except OSError as exc:
            warnings.append(f"skipped {item.shown}: cannot be read ({exc.strerror})")
            continue
        # The content's grammar follows the real file; a link named `.env` pointing at
        # `settings` still gets the env rules.
        grammar = item.real.name if grammar_of(item.real.name) else item.shown
        redacted, kinds = redactor.text(text, filename=grammar)
        texts.append((item, redacted, kinds))

    budget = total_lines
    diff_excerpt = None
    if diff_text is not None:
        redacted_diff, kinds = redactor.diff(diff_text)
        lines, _ = cut_long_lines(split_lines(redacted_diff))
        # The diff is the subject: it is not cut head-and-tail like a file, only at the total.
        whole = Capped("\n".join(lines), len(lines), len(lines), False)
        capped = cap_total(whole, budget, total_lines)
        budget -= capped.lines_sent
        if capped.truncated:
            warnings.append(
                f"git diff {diff_ref}: cut to {capped.lines_sent} lines, "
                f"the {total_lines}-line total was reached"
            )
        # The diff goes into prompts only; rooms hold the changed files themselves.
        diff_excerpt = _excerpt(f"git diff {diff_ref}", "diff", capped, kinds, None)
        diff_text = capped.text

    excerpts = []
    for item, text, kinds in texts:
        lines = split_lines(text)
        if cut := sum(1 for line in lines if len(line) > LINE_CHARS):
            warnings.append(f"{item.shown}: {cut} line(s) cut at {LINE_CHARS:,} characters")
        capped = cap_file(lines, file_lines)
        if capped.lines_sent > budget:
            capped = cap_total(capped, max(budget, 0), total_lines)
            note = f"cut to {capped.lines_sent} lines" if capped.lines_sent else "not sent"
            warnings.append(f"{item.shown}: {note}, the {total_lines}-line total was reached")
        budget -= capped.lines_sent
        excerpts.append(_excerpt(item.shown, language_of(item.shown), capped, kinds, text))

    technical = build_technical_context(
        root, [(e.path, e.room_text or "") for e in excerpts], limit=context_lines
    )
    return RunContext(
        root=root,
        files=tuple(excerpts),
        diff=diff_text,
        technical=technical,
        warnings=tuple(warnings),
        diff_ref=diff_ref,
        diff_excerpt=diff_excerpt,
    )


def _excerpt(
    path: str, language: str, capped: Capped, kinds: dict[str, int], full: str | None
) -> FileExcerpt:
    return FileExcerpt(
        path=path,
        text=capped.text,
        lines_total=capped.lines_total,
        lines_sent=capped.lines_sent,
        truncated=capped.truncated,
        redactions=sum(kinds.values()),
        redaction_kinds=dict(kinds),
        language=language,
        room_text=full,
    )


def _diff(
    ref: str,
    cwd: Path,
    root: Path,
    accepted: list[Accepted],
    allow_secrets: bool,
    allow_files: Sequence[str],
    warnings: list[str],
) -> tuple[str, list[Accepted]]:
    """The diff text and the changed files not already given. Changed files the user did not
    name are filtered, not refused: secret-named ones leave the diff too, with a warning."""
    names = changed_names(ref, cwd=cwd)
    excluded = [
        n
        for n in names
        if not allow_secrets and is_secret_name(n.rsplit("/", 1)[-1], allow_files, n)
    ]
    for name in excluded:
        warnings.append(f"left {name} out of the diff: it may hold secrets (--allow-secrets)")
    diff = git_diff(ref, cwd=cwd, exclude=excluded)
    given = {a.real for a in accepted}
    # Deleted files have nothing to show beyond the diff.
    existing = [
        n
        for n in diff.changed
        if n not in excluded and ((root / n).exists() or (root / n).is_symlink())
    ]
    extra: list[Accepted] = []
    found, refused = check_paths(
        existing,
        cwd=root,
        root=root,
        allow_outside=False,
        allow_secrets=allow_secrets,
        allow_files=allow_files,
    )
    for refusal in refused:
        warnings.append(f"left out changed file {refusal.given}: {refusal.reason}")
    for item in found:
        if item.real not in given:
            extra.append(item)
            given.add(item.real)
    return diff.text, extra
