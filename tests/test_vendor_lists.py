"""Every test- and script-side list of vendor CLIs that cannot be derived from the registry is
checked against it here: a registered vendor missing from one fails, naming the vendor and
the list, instead of going untested. (The rest derive from `tests/vendor_lists.py`.)"""

from __future__ import annotations

from collections.abc import Callable, Collection
from pathlib import Path

import pytest

from council.adapters import register
from council.adapters.base import Adapter
from council.adapters.registry import unregister
from council.adapters.versions import same_version, versions_in
from fakemodel.clients import CLIENTS
from vendor_lists import programs, programs_of, vendor_classes, vendors

from fakes import engine
from fakes.helpers import WORKING

ROOT = Path(__file__).resolve().parents[1]
LOCK = ROOT / "scripts" / "real-clis.lock"
# What the lock pins beside the vendors' CLIs: the Node the newer ones need.
LOCK_RUNTIMES = {"node22"}


def lock_pins() -> dict[str, str]:
    """Name -> pinned version of every line of scripts/real-clis.lock."""
    pins = {}
    for line in LOCK.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            name, _source, _package, version, *_ = line.split()
            pins[name] = version
    return pins


def missing(wanted: list[str], listed: Collection[str], where: str) -> list[str]:
    return [f"{name} is missing from {where}" for name in wanted if name not in listed]


def fakes_engine_vendors() -> list[str]:
    binaries = [cls.binary for cls in vendor_classes().values()]
    problems = missing(binaries, engine.VENDORS, "tests/fakes/engine.py VENDORS")
    strays = [n for n in engine.VENDORS if n not in binaries]
    return problems + [f"{n} in tests/fakes/engine.py VENDORS is no vendor's" for n in strays]


def fakes_engine_classes() -> list[str]:
    problems = missing(programs(), engine.CLASSES, "tests/fakes/engine.py CLASSES")
    for key, (module, name) in engine.CLASSES.items():
        path = Path(engine.__file__).with_name(f"{module}.py")
        if f"class {name}(" not in path.read_text(encoding="utf-8"):
            problems.append(f"tests/fakes/engine.py CLASSES[{key!r}]: no {name} in {path.name}")
    return problems


def fakes_self_test_targets() -> list[str]:
    return missing(programs(), [t.id for t in WORKING], "tests/fakes/helpers.py WORKING")


def fake_model_clients() -> list[str]:
    return missing(programs(), CLIENTS, "tests/fakemodel/clients.py _SETUPS")


def real_cli_pins() -> list[str]:
    pins = lock_pins()
    problems = missing(programs(), pins, "scripts/real-clis.lock")
    for cls in vendor_classes().values():
        named = versions_in(cls.tested_version)
        for program in programs_of(cls):
            if program in pins and not any(same_version(pins[program], v) for v in named):
                problems.append(
                    f"{program} is pinned at {pins[program]} in scripts/real-clis.lock, but its "
                    f"adapter's tested_version is {cls.tested_version}"
                )
    strays = sorted(set(pins) - set(programs()) - LOCK_RUNTIMES)
    return problems + [
        f"{name} in scripts/real-clis.lock is no vendor's program" for name in strays
    ]


CHECKS: list[Callable[[], list[str]]] = [
    fakes_engine_vendors,
    fakes_engine_classes,
    fakes_self_test_targets,
    fake_model_clients,
    real_cli_pins,
]


@pytest.mark.parametrize("check", CHECKS, ids=[c.__name__ for c in CHECKS])
def test_every_registered_vendor_is_in_the_list(check):
    problems = check()
    assert not problems, "\n".join(problems)


class NewVendor(Adapter):
    name = "newvendor"
    vendor = "new-labs"
    binary = "newvendor"
    tested_version = "1.0.0"


@pytest.mark.parametrize("check", CHECKS, ids=[c.__name__ for c in CHECKS])
def test_a_vendor_registered_and_listed_nowhere_is_named_by_every_check(check):
    register(NewVendor)
    try:
        assert any(p.startswith("newvendor is missing from") for p in check())
    finally:
        unregister("newvendor")


def test_the_derived_lists_hold_every_vendor_and_not_the_simulator():
    assert "sim" not in vendors() and "claude" in vendors()
    assert "kimi-cli" in programs() and "kimi-code" in programs() and "kimi" not in programs()
