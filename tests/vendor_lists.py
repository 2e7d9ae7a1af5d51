"""The vendor CLIs as the registry (`council.adapters.registry`) knows them, for every test
that runs each vendor: derived, never written out, so a new adapter is tested everywhere (or
fails there) the moment it is registered. `tests/test_vendor_lists.py` checks the lists that
cannot import council (the fakes run as separate fast executables) or are not Python."""

from __future__ import annotations

import re

from council.adapters import registered
from council.adapters.base import Adapter
from council.adapters.sim import SimAdapter
from council.adapters.warm import WarmMode


def vendor_classes() -> dict[str, type[Adapter]]:
    """Every registered vendor adapter by name: all but the simulator, council's own (its
    real binary is its test double: no fake, no pin, no contract test)."""
    return {n: c for n, c in registered().items() if not issubclass(c, SimAdapter)}


def vendors() -> list[str]:
    """The vendors' names, in registration order."""
    return list(vendor_classes())


def programs_of(cls: type[Adapter]) -> list[str]:
    """The programs behind a vendor's binary that its contract tests run: those its
    `tested_version` names ("1.51.0 (kimi-cli), 2.1.0 (kimi-code)"), else the vendor."""
    return re.findall(r"\(([\w.-]+)\)", cls.tested_version or "") or [cls.name]


def programs(*, warm: bool = False) -> list[str]:
    """Every vendor's programs (`warm`: only those of a vendor with a persistent mode)."""
    return [
        program
        for cls in vendor_classes().values()
        if not warm or issubclass(cls, WarmMode)
        for program in programs_of(cls)
    ]
