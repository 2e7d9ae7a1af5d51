"""The realcli contract tests run the real vendor CLIs (installed by
scripts/install-real-clis.sh) against the fake model server. This file brings in the shared
fixtures; the versions tested and how they did are printed at the end of the run by
tests/fakemodel/report.py."""

from __future__ import annotations

import pytest

from fakemodel.fixtures import fake_model, real_cli

__all__ = ["fake_model", "real_cli"]


# A real CLI's start-up grows with the machine's load (~5 s quiet, tens of seconds with the
# cores four times over-booked): the suite's 60 s per test is a speed check for these tests,
# not a bound on a hang. Tests with a limit of their own keep it.
REALCLI_TIMEOUT_S = 180


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.get_closest_marker("realcli") and not item.get_closest_marker("timeout"):
            item.add_marker(pytest.mark.timeout(REALCLI_TIMEOUT_S))
