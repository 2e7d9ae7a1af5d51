"""CHANGELOG.md and scripts/changelog-entry.py, which gives a release its notes: every
version has a dated entry, the current one among them, and the script prints exactly it."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from council import __version__

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "changelog-entry.py"


def load_script():
    spec = importlib.util.spec_from_file_location("changelog_entry", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


script = load_script()

SAMPLE = """# Changelog

Intro.

## [Unreleased]

- not yet

## [1.1.0] - 2026-12-01

### Added

- a thing
[a link](https://example.com) at the start of a line

## [1.0.0] - 2026-11-28

### Fixed

- another

[Unreleased]: https://example.com/compare/v1.1.0...HEAD
[1.1.0]: https://example.com/v1.1.0
"""


def test_the_entry_is_the_text_between_its_heading_and_the_next():
    assert script.entry(SAMPLE, "1.1.0") == (
        "### Added\n\n- a thing\n[a link](https://example.com) at the start of a line\n"
    )


def test_the_last_entry_ends_before_the_link_references():
    assert script.entry(SAMPLE, "v1.0.0") == "### Fixed\n\n- another\n"


@pytest.mark.parametrize(
    ("version", "problem"),
    [
        ("1.2.0", "no entry for 1.2.0"),
        ("Unreleased", "not a semantic version"),
        ("1.0", "not a semantic version"),
    ],
)
def test_a_version_without_an_entry_is_refused(version, problem):
    with pytest.raises(script.EntryError, match=problem):
        script.entry(SAMPLE, version)


def test_an_undated_or_empty_entry_is_refused():
    with pytest.raises(script.EntryError, match="no date"):
        script.entry("## [2.0.0]\n\n- x\n", "2.0.0")
    with pytest.raises(script.EntryError, match="empty"):
        script.entry("## [2.0.0] - 2026-12-01\n\n## [1.0.0] - 2026-11-01\n- x\n", "2.0.0")


def test_the_current_version_has_its_entry_and_is_declared_once():
    run = subprocess.run(
        [sys.executable, str(SCRIPT), f"v{__version__}", "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() and "## [" not in run.stdout
    assert script.declared_version((ROOT / "src/council/__init__.py").read_text()) == __version__


def test_a_tag_that_is_not_the_declared_version_is_refused(tmp_path, monkeypatch, capsys):
    init = tmp_path / "__init__.py"
    init.write_text('__version__ = "0.0.9"\n')
    monkeypatch.setattr(script, "INIT", init)
    assert script.main([f"v{__version__}", "--check"]) == 1
    assert capsys.readouterr().err == (
        f"changelog-entry: the tag says v{__version__}, council declares 0.0.9\n"
    )
    assert script.main([f"v{__version__}"]) == 0  # without --check: only the notes


def test_every_changelog_version_is_semantic_and_dated():
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    headings = [line for line in text.splitlines() if line.startswith("## [")]
    assert headings[0] == "## [Unreleased]"
    for heading in headings[1:]:
        found = script.HEADING.match(heading)
        assert found and found["date"], heading
        assert script.SEMVER.match(found["version"]), heading
