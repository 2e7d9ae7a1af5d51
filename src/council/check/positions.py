"""The rule that turns a check's answers into positions and an agreement
(docs/spec/protocol.md section 10, "Positions"). A rule, not a model: no extra call, the same
answers always group the same way, and no model sorts its own vendor's answer.

Each answer ends with a line `POSITION: <stance>`. A stance is compared in its normalised
form: lower case, every run of characters other than letters and digits one space. With
`--options`, a stance names the option whose normalised text it equals, else the one option
whose words it holds in order (`PostgreSQL, with pgbouncer` names `PostgreSQL`); a stance
that names none or several is a position of its own. Without options, stances group when
their normalised forms are equal. Differently worded stances of one idea then count as two
positions, which errs on the side of a human looking (`split`, `needs_human`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

UNANIMOUS, MAJORITY, SPLIT, INSUFFICIENT = "unanimous", "majority", "split", "insufficient"
AGREEMENTS = (UNANIMOUS, MAJORITY, SPLIT, INSUFFICIENT)
STANCE_CHARS = 120  # a stance longer than this is cut: it is a line, not an essay

# A `POSITION:` line, read as a `VOTE:` line is: emphasis, a bullet, a heading, a full-width
# colon are all tolerated.
_LINE = re.compile(r"^[ \t>*#_-]*POSITION[*_]*[ \t]*[:\uff1a][*_]*[ \t]*(.*?)[ \t]*$", re.I | re.M)
_OTHER = re.compile(r"[^\w]+|_+")


def read_stance(answer: str) -> str | None:
    """The stance of an answer's last `POSITION:` line, as written (its decoration and a final
    stop removed); None when it has none, or an empty one."""
    found = [m.group(1) for m in _LINE.finditer(answer)]
    if not found:
        return None
    # A final stop may stand inside or outside the quotes: `'Redis'.` and `"Redis."` alike.
    stance = found[-1].strip().rstrip(".").strip().strip("*_`\"'").strip().rstrip(".").strip()
    return stance[:STANCE_CHARS] or None


def normalised(text: str) -> str:
    return _OTHER.sub(" ", text.casefold()).strip()


def option_of(stance: str, options: Sequence[str]) -> str | None:
    """The option a stance names, or None (none, or several)."""
    said = normalised(stance)
    for option in options:
        if normalised(option) == said:
            return option
    padded = f" {said} "
    named = [o for o in options if normalised(o) and f" {normalised(o)} " in padded]
    return named[0] if len(named) == 1 else None


@dataclass(frozen=True)
class Position:
    stance: str  # the option, or the first holder's stance as written
    seats: tuple[str, ...]  # its holders, in seat order
    option: bool  # one of `--options`


def group(stances: Sequence[tuple[str, str]], options: Sequence[str]) -> list[Position]:
    """(seat, stance) pairs, in seat order, as positions: the most held first, a tie in the
    order the positions were first held."""
    keys: dict[str, tuple[str, bool]] = {}
    holders: dict[str, list[str]] = {}
    for seat, stance in stances:
        option = option_of(stance, options) if options else None
        key = f"option:{option}" if option is not None else f"stance:{normalised(stance)}"
        keys.setdefault(key, (option if option is not None else stance, option is not None))
        holders.setdefault(key, []).append(seat)
    ranked = sorted(holders, key=lambda key: -len(holders[key]))  # stable: first held first
    return [Position(keys[k][0], tuple(holders[k]), keys[k][1]) for k in ranked]


def agreement(positions: Sequence[Position]) -> str:
    """`insufficient`: fewer than two seats gave a position; `unanimous`: they all hold one;
    `majority`: one is held by more than half of them; `split`: none is."""
    counted = sum(len(p.seats) for p in positions)
    if counted < 2:
        return INSUFFICIENT
    top = len(positions[0].seats)
    if top == counted:
        return UNANIMOUS
    return MAJORITY if 2 * top > counted else SPLIT


def needs_human(agreement_: str) -> bool:
    """Anything short of unanimity leaves a dissent, or too few voices, for a person to read."""
    return agreement_ != UNANIMOUS
