"""Which installed CLI takes which seat when the user does not say (docs/spec/protocol.md
section 1).

The one home of the rule, used by the plan of a debate, the plan of a review and by
`council doctor`: the first seat (a debate's advocate, a review's first reviewer) is the first
usable CLI in the registry's default order; the other seats (the critic and the lead, the
second reviewer) the first usable one of another vendor than the first, else the first's own
CLI.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from council.adapters import default_order


@dataclass(frozen=True)
class DefaultSeats:
    advocate: str | None
    critic: str | None
    lead: str | None

    def seats_of(self, cli: str) -> list[str]:
        return [role for role in ("advocate", "critic", "lead") if getattr(self, role) == cli]


def pick_advocate(usable: Callable[[str], bool]) -> str | None:
    return next((name for name in default_order() if usable(name)), None)


def pick_other_vendor(
    cli: str, usable: Callable[[str], bool], vendor_of: Callable[[str], str]
) -> str | None:
    """The first usable CLI of another vendor than `cli`'s, or None."""
    vendor = vendor_of(cli)
    return next((n for n in default_order() if usable(n) and vendor_of(n) != vendor), None)


def default_seats(usable: Sequence[str], vendor_of: Callable[[str], str]) -> DefaultSeats:
    def is_usable(name: str) -> bool:
        return name in usable

    advocate = pick_advocate(is_usable)
    if advocate is None:
        return DefaultSeats(None, None, None)
    # The critic and the lead alike: another vendor than the advocate's, so no model rules
    # on its own vendor's proposal; the advocate's own CLI only when there is no other.
    other = pick_other_vendor(advocate, is_usable, vendor_of) or advocate
    return DefaultSeats(advocate, other, other)
