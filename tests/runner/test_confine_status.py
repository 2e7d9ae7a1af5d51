"""What council tells the user about write confinement (`runner/confine.py`): the `write
confinement:` line of `council doctor`, the note of a run's setup report where nothing confines
a CLI's writes, and the test-only switch that turns it off. On any kernel: the kernel's
Landlock ABI is stood in for."""

from __future__ import annotations

import os

import pytest

from council.cli.doctor import render_table
from council.context import protection_note
from council.doctor import DoctorReport, report_json
from council.panel.seating import DefaultSeats
from council.runner import confine

NOT_CONFINED = (
    "a CLI could change files outside its clean room; council checks the given files and git "
    "status after each call and reports any change"
)
AS_ROOT = "; as root, the read-only rooms do not stop a write either"


@pytest.fixture
def kernel(monkeypatch):
    """Set the kernel's Landlock ABI (0: none); the switches start unset, under the suite."""
    monkeypatch.delenv(confine.OFF_ENV, raising=False)
    monkeypatch.delenv(confine.EXTRA_ENV, raising=False)
    monkeypatch.setenv(confine.SUITE_ENV, "1")

    def set_abi(version: int) -> None:
        monkeypatch.setattr(confine, "kernel_abi", lambda: version)

    return set_abi


def doctor() -> tuple[int, str]:
    """`council doctor`'s Landlock ABI (JSON) and its `write confinement:` line (table)."""
    report = report_json(DoctorReport([], DefaultSeats(None, None, None), {}))
    lines = [line for line in render_table(report).splitlines() if "write confinement" in line]
    assert len(lines) == 1
    return report["landlock_abi"], lines[0]


def setup_note() -> str | None:
    """The warning a run's setup report gives (panel/run.py)."""
    note = protection_note()
    if note is not None and note.startswith("no write confinement") and os.geteuid() == 0:
        assert note.endswith(AS_ROOT)
        note = note.removesuffix(AS_ROOT)
    return note


@pytest.mark.parametrize("value", ["1", "off", "true", "yes", "OFF", "True", "YES", "Off"])
def test_the_test_only_switch_takes_one_off_true_or_yes_in_any_case(kernel, monkeypatch, value):
    kernel(4)
    monkeypatch.setenv(confine.OFF_ENV, value)
    assert confine.switched_off()
    assert doctor() == (
        0,
        "write confinement: Landlock ABI 4, switched off by COUNCIL_TEST_NO_LANDLOCK "
        "(a test-only setting)",
    )
    assert setup_note() == f"no write confinement (switched off): {NOT_CONFINED}"


@pytest.mark.parametrize("value", ["", "0", "no", "false", "of"])
def test_any_other_value_of_the_switch_leaves_landlock_on(kernel, monkeypatch, value):
    kernel(4)
    monkeypatch.setenv(confine.OFF_ENV, value)
    assert doctor() == (
        4,
        "write confinement: Landlock ABI 4: each CLI may write only to its room, temp dir "
        "and state",
    )
    assert setup_note() is None


def test_without_landlock_doctor_and_the_setup_report_say_writes_are_not_confined(kernel):
    kernel(0)
    assert doctor() == (
        0,
        "write confinement: Landlock not available: a CLI can write outside its room",
    )
    assert setup_note() == f"no write confinement (Landlock not available here): {NOT_CONFINED}"


@pytest.mark.parametrize("switch", [confine.OFF_ENV, confine.EXTRA_ENV])
def test_a_test_only_switch_outside_the_suite_is_ignored_and_said_so(kernel, monkeypatch, switch):
    # e.g. COUNCIL_TEST_WRITABLE=/ left in a user's shell: it must not open their disk
    kernel(4)
    monkeypatch.delenv(confine.SUITE_ENV)
    monkeypatch.setenv(switch, "1" if switch == confine.OFF_ENV else "/")
    assert not confine.switched_off() and confine.extra_dirs() == []
    assert doctor() == (
        4,
        "write confinement: Landlock ABI 4: each CLI may write only to its room, temp dir "
        f"and state; {switch} set but ignored (test-only, honoured only under council's test "
        "suite): unset it",
    )
    note = setup_note()
    assert note is not None and note.startswith(f"{switch} set but ignored")
    assert note.endswith("write confinement is unchanged")


def test_the_suites_extra_writable_dirs_are_shown_where_they_apply(kernel, monkeypatch):
    kernel(4)
    monkeypatch.setenv(confine.EXTRA_ENV, "/tmp/fake-logs")
    assert doctor()[1].endswith(
        "temp dir and state, and to /tmp/fake-logs (COUNCIL_TEST_WRITABLE, test-only)"
    )
