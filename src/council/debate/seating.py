"""Which installed CLI takes which seat when the user does not say (protocol.md section 1)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from council.adapters import VENDOR_ORDER


@dataclass(frozen=True)
class DefaultSeats:
    advocate: str | None
    critic: str | None
    lead: str | None

    def seats_of(self, cli: str) -> list[str]:
        return [role for role in ("advocate", "critic", "lead") if getattr(self, role) == cli]


def default_seats(usable: Sequence[str], vendor_of: Callable[[str], str]) -> DefaultSeats:
    """Advocate: first usable in vendor order. Critic: first of another vendor, else the same
    CLI. Lead: claude when usable, else the advocate's CLI."""
    ordered = [name for name in VENDOR_ORDER if name in usable]
    if not ordered:
        return DefaultSeats(None, None, None)
    advocate = ordered[0]
    critic = next((n for n in ordered if vendor_of(n) != vendor_of(advocate)), advocate)
    lead = "claude" if "claude" in ordered else advocate
    return DefaultSeats(advocate, critic, lead)
