"""A review's command line: `ReviewFlags`, the run's shared flags (`panel/flags.py`) and the
review's own, each field the one declaration of its option (`council.options`): `council
review`'s options are generated from it."""

from __future__ import annotations

from dataclasses import dataclass

from council.options import option
from council.panel.flags import RunFlags
from council.review.findings import SEVERITIES
from council.review.merge import GATES

FORMATS = ("md", "json", "sarif", "github", "gitlab")


@dataclass(frozen=True, kw_only=True)
class ReviewFlags(RunFlags):
    """The command line as given; None means "not given"."""

    reviewers: tuple[str, ...] | None = option(
        "--with",
        "Reviewers, seat specs cli[:model][#effort]; `auto` = every installed CLI. Default: two "
        "installed CLIs of different vendors",
        metavar="CLI[,CLI...]",
    )
    fail_on: str | None = option(
        "--fail-on",
        "Exit 6 when a finding at or above this severity has the support --gate asks (by "
        "default a majority's)",
        choices=SEVERITIES,
    )
    gate: str | None = option(
        "--gate",
        "Which findings block: majority (default), any (one reviewer is enough unless another "
        "disputed it) or unanimous; for every severity, over council.yaml's review.gate",
        choices=GATES,
    )
    format: str = option(
        "--format",
        "What stdout gets: md (default), json (council.review/v1), sarif (SARIF 2.1.0), "
        "github (Actions annotations) or gitlab (a code quality report)",
        default="md",
        choices=FORMATS,
        tool=False,  # a tool's result is the findings as Markdown and as data, never SARIF
    )
    output: str | None = option(
        "--output",
        "Also write the result here: .sarif, .json or .md by its suffix (a gitlab report "
        "keeps .json), else as --format",
        metavar="FILE",
    )
    seed: int | None = option(
        "--seed",
        "Seed of the cross-check's shuffled orders (default: from the code under review)",
        low=0,
    )
