"""`git diff REF` and the files it changed, for `--diff`.

git runs through the runner's `run_local` (argv list, own session, killed on timeout) during
PARSE + CONTEXT, before any seat exists, with external diff drivers and text conversion
filters switched off so no configured program runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from council.errors import UsageError
from council.runner.local import LocalTimeout, run_local

GIT_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class GitDiff:
    text: str
    changed: tuple[str, ...]  # paths relative to the repository top level, POSIX


def _git(args: Sequence[str], cwd: Path) -> str:
    argv = ["git", "-c", "core.quotepath=off", "-c", "color.ui=false", *args]
    try:
        done = run_local(argv, cwd=cwd, timeout_s=GIT_TIMEOUT_S)
    except FileNotFoundError:
        raise UsageError("--diff needs git, which is not on PATH") from None
    except LocalTimeout:
        raise UsageError(f"git {' '.join(args[:2])} took over {GIT_TIMEOUT_S:g}s") from None
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        if args[:1] != ["rev-parse"] and (refused := _ownership_refusal(cwd)):
            # `git diff` in a repository another user owns (a CI container's checkout) says
            # only "Could not access 'HEAD'": git's own refusal says what is wrong, and how.
            message = refused
        first = message[0] if message else f"exit code {done.returncode}"
        fix = next((line.strip() for line in message if "safe.directory" in line), None)
        hint = f"; if you trust it: {fix}" if fix and fix.startswith("git config") else ""
        raise UsageError(f"git {' '.join(args[:1])} failed: {first.removeprefix('fatal: ')}{hint}")
    return done.stdout.decode("utf-8", "replace")


def _ownership_refusal(cwd: Path) -> list[str] | None:
    """git's lines refusing the repository at `cwd` for its owner, or None."""
    try:
        done = run_local(["git", "rev-parse", "--git-dir"], cwd=cwd, timeout_s=GIT_TIMEOUT_S)
    except (OSError, LocalTimeout):
        return None
    lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
    return lines if any("dubious ownership" in line for line in lines) else None


def git_diff(ref: str, *, cwd: Path, exclude: Sequence[str] = ()) -> GitDiff:
    """The diff of the working tree against `ref`, minus the `exclude` paths (top-level
    relative: the secret-named files the user did not allow)."""
    if not ref or ref.startswith("-"):
        # Would be read as an option (`--output=FILE` writes a file).
        raise UsageError(f"--diff {ref!r}: a git revision cannot start with '-'")
    common = ["--no-ext-diff", "--no-textconv", "--no-color"]
    specs = [":(top)", *(f":(top,exclude,literal){p}" for p in exclude)]
    names = _git(["diff", "--name-only", "-z", *common, ref, "--", *specs], cwd)
    text = _git(["diff", *common, ref, "--", *specs], cwd)
    changed = tuple(n for n in names.split("\0") if n)
    return GitDiff(text=text, changed=changed)


def changed_names(ref: str, *, cwd: Path) -> tuple[str, ...]:
    """Only the names (to decide what to exclude before taking the diff text)."""
    if not ref or ref.startswith("-"):
        raise UsageError(f"--diff {ref!r}: a git revision cannot start with '-'")
    out = _git(["diff", "--name-only", "-z", "--no-ext-diff", ref, "--", ":(top)"], cwd)
    return tuple(n for n in out.split("\0") if n)
