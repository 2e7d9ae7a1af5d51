#!/usr/bin/env python3
"""Print the CHANGELOG.md entry of one version: the release notes of its GitHub release.

    python scripts/changelog-entry.py 0.1.0            # or v0.1.0, as the tag is named
    python scripts/changelog-entry.py 0.1.0 --check    # also: the version council declares

Exits 1 naming the problem when the changelog has no entry for that version, or an empty one,
or (with --check) when src/council/__init__.py declares another version: a tag pushed without
its changelog entry, or before the version was raised, must not publish.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHANGELOG = ROOT / "CHANGELOG.md"
INIT = ROOT / "src" / "council" / "__init__.py"

# Keep a Changelog's version heading: `## [1.2.3] - 2026-11-28`.
HEADING = re.compile(r"^## \[(?P<version>[^\]]+)\](?: - (?P<date>\d{4}-\d{2}-\d{2}))?\s*$")
LINK_REFERENCE = re.compile(r"^\[[^\]]+\]: \S")
SEMVER = re.compile(r"^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$")


class EntryError(Exception):
    pass


def entry(changelog: str, version: str) -> str:
    """The text under `## [version] - date`, up to the next version heading or the link
    references at the end, stripped."""
    version = version.removeprefix("v")
    if not SEMVER.match(version):
        raise EntryError(f"{version!r} is not a semantic version (MAJOR.MINOR.PATCH)")
    lines = changelog.splitlines()
    start = None
    for number, line in enumerate(lines):
        found = HEADING.match(line)
        if found and start is None and found["version"] == version:
            if not found["date"]:
                raise EntryError(f"the heading of {version} has no date: {line.strip()}")
            start = number + 1
        elif start is not None and (line.startswith("## ") or LINK_REFERENCE.match(line)):
            lines = lines[start:number]
            break
    else:
        if start is None:
            raise EntryError(f"CHANGELOG.md has no entry for {version}")
        lines = lines[start:]
    text = "\n".join(lines).strip()
    if not text:
        raise EntryError(f"the entry of {version} in CHANGELOG.md is empty")
    return text + "\n"


def declared_version(init: str) -> str:
    found = re.search(r'^__version__ = "([^"]+)"', init, re.MULTILINE)
    if not found:
        raise EntryError("src/council/__init__.py declares no __version__")
    return found.group(1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("version", help="the version, or the tag (v1.2.3)")
    parser.add_argument(
        "--check", action="store_true", help="fail unless council declares this version"
    )
    args = parser.parse_args(argv)
    try:
        text = entry(CHANGELOG.read_text(encoding="utf-8"), args.version)
        declared = declared_version(INIT.read_text(encoding="utf-8"))
        if args.check and declared != args.version.removeprefix("v"):
            raise EntryError(f"the tag says {args.version}, council declares {declared}")
    except EntryError as exc:
        print(f"changelog-entry: {exc}", file=sys.stderr)
        return 1
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
