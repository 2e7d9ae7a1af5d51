"""A check's command line: `CheckFlags`, the run's shared flags (`panel/flags.py`), the seats
as a debate takes them (the same declarations as `debate/flags.py`'s) and the check's own
`--options`. Each field is the one declaration of its option (`council.options`): `council
check`'s options and the MCP `check` tool's parameters are generated from it."""

from __future__ import annotations

from dataclasses import dataclass, field, fields

from council.debate.flags import DebateFlags
from council.options import option
from council.panel.flags import RunFlags

_DEBATE = {each.name: each for each in fields(DebateFlags)}


def _as_debate(name: str) -> object:
    """The debate's own declaration of a seat option: one help text, one flag, for both."""
    return field(default=None, metadata=_DEBATE[name].metadata)


@dataclass(frozen=True, kw_only=True)
class CheckFlags(RunFlags):
    """The command line as given; None means "not given"."""

    question: str
    options: tuple[str, ...] | None = option(
        "--options",
        "The answers to choose from (e.g. Redis,Postgres): each seat ends with one of them, "
        "and answers are grouped by the option they name",
        metavar="OPTION[,OPTION...]",
    )
    proxies: tuple[str, ...] | None = _as_debate("proxies")
    advocate: str | None = _as_debate("advocate")
    critic: str | None = _as_debate("critic")
