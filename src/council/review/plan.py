"""What a review will do, decided once from the flags, the config files and the defaults.

Reviewers: `--with codex,gemini[,...]` (seat specs `cli[:model][#effort]`; `auto` = every
installed CLI); by default the first two installed CLIs of different vendors (the registry's
order), or one CLI twice when only one vendor is installed (with a warning). A review needs
at least two reviewers: the cross-check is the point. `--sim` seats every reviewer on the
simulator. The context limits, the READY timeout, the hard-limit factor, the warm seats and
the injection policy are the settings every run reads (`config.run`), written under `debate:`
in council.yaml (`debate.file_lines`, ...), so one config serves both protocols.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from council.adapters import adapter_for, default_order
from council.config import Config
from council.errors import NoUsableCliError, UsageError
from council.panel.seat import (
    SeatPlan,
    SeatSpec,
    check_cli_name,
    cli_pairs,
    parse_seat_spec,
    timeouts_by_cli,
    unique_seat_name,
)
from council.panel.seating import pick_advocate, pick_other_vendor
from council.panel.setup import RunSetup, shared_setup
from council.review.findings import SEVERITIES
from council.review.flags import FORMATS, ReviewFlags
from council.review.merge import GATES, gate_rules

# `--output` names its own form by its suffix (as a debate's `--output x.json` does).
OUTPUT_SUFFIXES = {".sarif": "sarif", ".json": "json", ".md": "md"}
ROLE = "reviewer"
MIN_REVIEWERS = 2


@dataclass(frozen=True, kw_only=True)
class ReviewPlan(RunSetup):
    subject: str  # what is reviewed, in words: `git diff main + app.py`
    reviewers: tuple[SeatPlan, ...]
    fail_on: str | None = None  # low | medium | high | critical; None: never blocks
    # The gate rule by severity (majority | any | unanimous); a plan stored before the rule
    # could be chosen has none: majority throughout.
    gate: Mapping[str, str] = field(default_factory=dict)
    format: str = "md"
    output: str | None = None  # an absolute path the result is also written to
    output_format: str = "md"  # by the output's suffix, else `format`
    seed: int | None = None  # None: derived from the context (same code, same order)

    def labels(self) -> dict[str, str]:
        """How prompts name each reviewer (docs/spec/protocol.md, "Anonymity"): `Reviewer A`,
        `Reviewer B`, ... in seat order; never a CLI, vendor or model."""
        letters = string.ascii_uppercase
        return {
            seat.name: f"Reviewer {letters[i % 26]}{i // 26 or ''}"
            for i, seat in enumerate(self.reviewers)
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ReviewPlan:
        values = cls.known_fields(data)
        values["reviewers"] = tuple(SeatPlan(**r) for r in values["reviewers"])
        return cls(**values)


def resolve_review_plan(
    flags: ReviewFlags,
    config: Config,
    *,
    cwd: Path,
    installed: Callable[[str], bool] | None = None,
    warn: Callable[[str], None] = lambda _text: None,
) -> ReviewPlan:
    """Everything a review will do; bad flags are a `UsageError` (exit 2)."""
    is_installed = installed or (lambda name: adapter_for(name, config.clis).locate() is not None)
    if not flags.files and flags.diff is None:
        raise UsageError("nothing to review: give --diff REF (e.g. --diff main) or --files F ...")
    if flags.fail_on is not None and flags.fail_on not in SEVERITIES:
        raise UsageError(f"--fail-on must be one of {', '.join(SEVERITIES)}")
    if flags.gate is not None and flags.gate not in GATES:
        raise UsageError(f"--gate must be one of {', '.join(GATES)}")
    if flags.format not in FORMATS:
        raise UsageError(f"--format must be one of {', '.join(FORMATS)}")
    models = cli_pairs(flags.models, ":", "--model")
    timeouts = timeouts_by_cli(flags.timeouts)
    specs = _reviewer_specs(flags, config, is_installed, warn)
    reviewers: list[SeatPlan] = []
    for spec in specs:
        cli = spec.cli
        if flags.sim and adapter_for(cli, config.clis).settings.adapter != "sim":
            cli = "sim"
        base = f"{ROLE}-{cli}"
        reviewers.append(
            SeatPlan(
                name=unique_seat_name(base, [r.name for r in reviewers]),
                role=ROLE,
                cli=cli,
                model=spec.model or models.get(spec.cli),
                effort=spec.effort or flags.effort,
                soft_timeout_s=timeouts.get(cli, timeouts.get(spec.cli)),
            )
        )
    output, output_format = None, flags.format
    if flags.output is not None:
        path = Path(flags.output).expanduser()
        output = str(path if path.is_absolute() else cwd / path)
        suffix = path.suffix.lower()
        # A gitlab report is JSON too: `--format gitlab --output gl-code-quality.json`.
        same = flags.format == "gitlab" and suffix == ".json"
        output_format = flags.format if same else OUTPUT_SUFFIXES.get(suffix, flags.format)
        _check_output(Path(output), flags.files, cwd)
    return ReviewPlan(
        subject=_subject(flags),
        reviewers=tuple(reviewers),
        fail_on=flags.fail_on,
        gate=gate_rules(flags.gate, config.review.gate),
        format=flags.format,
        output=output,
        output_format=output_format,
        seed=flags.seed,
        simulated=flags.sim,
        **shared_setup(flags, config),
    )


def _reviewer_specs(
    flags: ReviewFlags,
    config: Config,
    is_installed: Callable[[str], bool],
    warn: Callable[[str], None],
) -> list[SeatSpec]:
    specs: list[SeatSpec] = []
    for text in flags.reviewers or ():
        if text.strip().lower() == "auto":
            specs += [
                SeatSpec(n)
                for n in default_order()
                if is_installed(n) and n not in {s.cli for s in specs}
            ]
            continue
        spec = parse_seat_spec(text)
        check_cli_name(spec.cli, config)
        specs.append(spec)
    if flags.reviewers is None:
        specs = _default_reviewers(flags.sim, config, is_installed, warn)
    if len(specs) < MIN_REVIEWERS:
        given = ", ".join(s.cli for s in specs) or "none installed"
        raise UsageError(
            f"a review needs at least {MIN_REVIEWERS} reviewers, got {len(specs)} ({given}): "
            "name them with --with, e.g. --with codex,gemini (the same CLI twice works too)"
        )
    return specs


def _default_reviewers(
    sim: bool,
    config: Config,
    is_installed: Callable[[str], bool],
    warn: Callable[[str], None],
) -> list[SeatSpec]:
    """The first installed CLI and the first of another vendor; the first one twice when no
    other vendor is installed."""
    if sim:
        return [SeatSpec("sim"), SeatSpec("sim")]
    first = pick_advocate(is_installed)
    if first is None:
        raise NoUsableCliError(
            "no AI CLI found to review with: install one (see `council doctor`) "
            "or try council offline with --sim"
        )
    other = pick_other_vendor(first, is_installed, lambda n: adapter_for(n, config.clis).vendor)
    if other is None:
        warn(f"only one vendor's CLI is installed: both reviewers are {first}")
        other = first
    return [SeatSpec(first), SeatSpec(other)]


def _subject(flags: ReviewFlags) -> str:
    """`git diff main + app.py, db.py` (more than three files: `+ 5 files`)."""
    parts = [f"git diff {flags.diff}"] if flags.diff is not None else []
    if len(flags.files) > 3:
        parts.append(f"{len(flags.files)} files")
    elif flags.files:
        parts.append(", ".join(flags.files))
    return " + ".join(parts)


__all__ = ["ReviewPlan", "resolve_review_plan"]


def _check_output(output: Path, files: tuple[str, ...], cwd: Path) -> None:
    """Before any CLI runs: `--output` is never a folder nor one of the reviewed files (its
    missing folders are made at the end: `--output reports/council.sarif` in CI)."""
    if output.is_dir():
        raise UsageError(f"--output {output} is a directory; give a file name")
    given = {(cwd / Path(f).expanduser()).resolve() for f in files}
    if output.resolve() in given:
        raise UsageError(
            f"--output {output} is one of the reviewed files and would be overwritten; "
            "write the result somewhere else"
        )
