"""Versions compared as versions (`adapters/base.py`): what a CLI's `--version` prints is read
as release numbers, "tested" means a release the contract tests ran (never a prefix of one),
and a release an adapter lists as known broken is refused or warned about, at `council doctor`
and when a debate seats it."""

from __future__ import annotations

import json
import os
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from council.adapters import register
from council.adapters.base import Adapter, Invocation, Request, Tool
from council.adapters.registry import unregister
from council.adapters.versions import (
    KnownBroken,
    parse_version,
    same_version,
    version_at_least,
    versions_in,
)
from council.config import parse_config
from council.debate.flags import DebateFlags
from council.debate.protocol import DEBATE
from council.doctor import report_json, run_doctor
from council.panel.run import start
from council.progress import Progress
from council.runner.resolve import resolve_tool


@pytest.mark.parametrize(
    ("printed", "release"),
    [
        ("2.1.197 (Claude Code)", (2, 1, 197)),
        ("codex-cli 0.171.0", (0, 171, 0)),
        ("kimi, version 1.51.0", (1, 51, 0)),
        ("v22.23.3", (22, 23, 3)),
        ("0.61.0-preview.2", (0, 61, 0)),
        ("1.52.0rc1", (1, 52, 0)),
        ("pi 1.6.0+build.7\n", (1, 6, 0)),
        ("gemini2 says 0.9", (0, 9)),
    ],
)
def test_a_version_is_read_as_release_numbers_from_what_a_cli_prints(printed, release):
    assert parse_version(printed) == release


@pytest.mark.parametrize("printed", ["", None, "command not found", "v2", "node20"])
def test_text_without_a_version_has_none(printed):
    assert parse_version(printed) is None
    assert version_at_least(printed, (0,)) is False


def test_a_version_gate_compares_numbers_not_text():
    assert version_at_least("qwen 0.24.4", (0, 24))
    assert version_at_least("0.100.0", (0, 99))  # "0.100" < "0.99" as text
    assert not version_at_least("0.9.0", (0, 24))
    # A pre-release carries what its release brings.
    assert version_at_least("1.6.0-beta.1", (1, 6))


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("2.1.197 (Claude Code)", "2.1.197", True),
        ("2.1.19", "2.1.197", False),
        ("2.1", "2.1.0", True),
        ("codex-cli 0.169.0", "0.169.0", True),
        ("1.6.0-beta.1", "1.6.0", False),
        ("1.6.0-beta.1", "1.6.0-beta.1", True),
        ("unknown", "unknown", False),
    ],
)
def test_same_version_is_the_same_release_and_pre_release(a, b, same):
    assert same_version(a, b) is same


def test_every_version_a_tested_version_text_names_is_found():
    assert versions_in("1.51.0 (kimi-cli), 2.1.0 (kimi-code)") == ("1.51.0", "2.1.0")


class Pinned(Adapter):
    name = "pinned"
    vendor = "pinned-labs"
    binary = "pinned-cli"
    tested_version = "3.2.0"
    tested_versions = ("3.1.4",)


def test_tested_means_the_pin_or_an_earlier_pin_still_covered_and_nothing_close():
    adapter = Pinned()
    assert adapter.is_tested("pinned 3.2.0") is True
    assert adapter.is_tested("3.1.4") is True
    assert adapter.is_tested("3.1.44") is False
    assert adapter.is_tested("3.2.0-rc.1") is False
    assert adapter.is_tested(None) is None


def test_a_known_broken_range_holds_its_releases_and_only_its_program():
    entry = KnownBroken("breaks", "do this", since=(1, 52), variant="kimi-cli")
    assert entry.applies("1.52.0", "kimi-cli") and entry.applies("1.60.3", "kimi-cli")
    assert not entry.applies("1.51.0", "kimi-cli")
    assert not entry.applies("2.1.0", "kimi-code")  # another program behind the same binary
    assert not entry.applies(None, "kimi-cli")
    bounded = KnownBroken("breaks", "do this", since=(0, 3), before=(0, 5))
    assert [bounded.applies(v) for v in ("0.2.9", "0.3.0", "0.4.99", "0.5.0")] == [
        False,
        True,
        True,
        False,
    ]
    assert (entry.versions, bounded.versions) == ("kimi-cli >= 1.52", ">= 0.3, < 0.5")


# -- a synthetic CLI whose installed release is listed as known broken ----------------------

ECHO_CLI = """#!{python}
import sys
if sys.argv[1:] == ["--version"]:
    print("echo-cli 3.1.4")
    sys.exit(0)
prompt = sys.stdin.read().splitlines()
phase = next((l[7:].strip() for l in prompt if l.startswith("ACTION:")), "?")
print(f"Echo answers {{phase}}: bound the cache by entries, not by bytes.")
"""

BROKEN = KnownBroken(
    "its answers lose their last line",
    "install echo-cli 3.2 or later",
    since=(3, 1),
    before=(3, 2),
)
WARNING = (
    "echo 3.1.4 is a known-broken release (>= 3.1, < 3.2): its answers lose their last "
    "line; install echo-cli 3.2 or later"
)


class BrokenEcho(Adapter):
    name = "echo"
    vendor = "echo-labs"
    binary = "echo-cli"
    tested_version = "3.1.4"
    known_broken = (BROKEN,)

    def build(self, tool: Tool, request: Request) -> Invocation:
        return Invocation(argv=tool.command, stdin=request.prompt.encode())


class RefusedEcho(BrokenEcho):
    known_broken = (
        KnownBroken("an archived stub", "install echo-code", since=(3,), unusable=True),
    )


@pytest.fixture
def echo_bin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "echo-cli"
    script.write_text(ECHO_CLI.format(python=sys.executable))
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    yield script
    unregister("echo")


@pytest.mark.anyio
async def test_a_release_listed_as_unusable_is_refused_with_what_breaks_and_the_fix(echo_bin):
    resolved = await resolve_tool(RefusedEcho())
    assert resolved.tool is None
    assert resolved.problem == (
        "echo 3.1.4 is a known-broken release (>= 3): an archived stub; install echo-code"
    )


@pytest.mark.anyio
async def test_doctor_shows_a_known_broken_release_in_its_state_and_notes(echo_bin):
    register(BrokenEcho)
    report = report_json(await run_doctor(parse_config({})))
    echo = next(c for c in report["clis"] if c["name"] == "echo")
    assert (echo["state"], echo["status"], echo["tested"]) == ("ok", "known-broken", True)
    assert echo["known_broken"] == [
        {
            "versions": ">= 3.1, < 3.2",
            "breaks": "its answers lose their last line",
            "workaround": "install echo-cli 3.2 or later",
            "unusable": False,
            "warning": WARNING,
        }
    ]


@pytest.mark.parametrize(
    "roles",
    [
        {"lead": "sim", "proxies": ["echo"]},
        {"lead": "echo"},  # the lead's CLI is resolved beside the seats
        {"lead": "echo", "proxies": ["echo"]},  # one warning for the CLI, not one per seat
    ],
    ids=["proxy", "lead", "both"],
)
def test_a_seat_on_a_known_broken_release_runs_with_a_warning_naming_it(echo_bin, tmp_path, roles):
    register(BrokenEcho)
    project = tmp_path / "project"
    project.mkdir()
    (project / "app.py").write_text("CACHE = {}\n")
    config = parse_config({"roles": {"advocate": "sim", "critic": "sim", **roles}})
    flags = DebateFlags(question="Should the cache be bounded?", files=("app.py",))
    progress = Progress(open(os.devnull, "w"), quiet=True)  # noqa: SIM115 - closed with the test
    run = start(DEBATE, flags, config, progress, cwd=project)
    progress.stream.close()
    for seat in run.result["seats"]:
        if seat["cli"] == "echo":
            assert (seat["version"], seat["status"]) == ("3.1.4", "ok")  # it runs: warned only
    assert run.result["warnings"].count(WARNING) == 1
    state = json.loads((run.record.path / "state.json").read_text())
    assert WARNING in state["warnings"]
