"""Where an ADR goes and in which form: the decisions directory (`--dir`, else council.yaml's
`adr.dir`, else the first of `CANDIDATES` that exists, else `DEFAULT_DIR`), the next number
with the zero padding its files use (`NNNN-slug.md`: four digits in a new directory), and the
template its latest numbered record follows (MADR or Nygard; MADR when there is none or it
follows neither)."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from council.errors import UsageError

CANDIDATES = ("docs/adr", "docs/decisions", "doc/adr", "docs/architecture/decisions")
DEFAULT_DIR = "docs/decisions"
DEFAULT_WIDTH = 4
NUMBERED = re.compile(r"^(\d+)-.+\.md$")
SLUG_CHARS = 60
MADR, NYGARD = "madr", "nygard"
_NYGARD_TITLE = re.compile(r"^# \d+\. ", re.M)
_HEADING = re.compile(r"^## +(.+?) *$", re.M)


@dataclass(frozen=True)
class Layout:
    """What the next ADR of a directory looks like."""

    dir: Path
    number: int
    width: int  # digits in the file name, zero padded
    template: str  # MADR | NYGARD
    front_matter: bool  # MADR: YAML front matter (MADR 3 and later) or a status list (MADR 2)

    def path(self, title: str) -> Path:
        return self.dir / f"{self.number:0{self.width}d}-{slug(title)}.md"


def decisions_dir(cwd: Path, given: str | None) -> Path:
    """`given` (`--dir` or `adr.dir`) relative to `cwd`, else a directory the project already
    keeps its decisions in, else `docs/decisions`."""
    if given:
        path = Path(given).expanduser()
        chosen = path if path.is_absolute() else cwd / path
        if chosen.exists() and not chosen.is_dir():
            raise UsageError(f"{given} is a file, not a decisions directory; give a directory")
        return chosen
    for candidate in CANDIDATES:
        if (cwd / candidate).is_dir():
            return cwd / candidate
    return cwd / DEFAULT_DIR


def numbered(directory: Path) -> list[tuple[int, Path]]:
    """The directory's numbered records, by number."""
    if not directory.is_dir():
        return []
    found = []
    for entry in directory.iterdir():
        match = NUMBERED.match(entry.name)
        if match and entry.is_file():
            found.append((int(match.group(1)), entry))
    return sorted(found)


def layout_of(directory: Path) -> Layout:
    records = numbered(directory)
    if not records:
        return Layout(directory, 1, DEFAULT_WIDTH, MADR, front_matter=True)
    last_number, last = records[-1]
    digits = [NUMBERED.match(p.name).group(1) for _, p in records]  # type: ignore[union-attr]
    padded = [d for d in digits if d.startswith("0") and len(d) > 1]
    width = max(len(d) for d in padded) if padded else 1
    template, front_matter = template_of(_read(last))
    return Layout(directory, last_number + 1, width, template, front_matter)


def template_of(text: str) -> tuple[str, bool]:
    """(MADR or NYGARD, whether it opens with YAML front matter) of an existing record."""
    headings = {h.strip().lower() for h in _HEADING.findall(text)}
    front_matter = text.startswith("---\n")
    madr = {"context and problem statement", "decision outcome", "considered options"}
    if headings & madr:
        return MADR, front_matter
    if _NYGARD_TITLE.search(text) or {"status", "context", "decision"} <= headings:
        return NYGARD, False
    return MADR, True


def slug(title: str) -> str:
    """`Redis or Postgres for sessions?` -> `redis-or-postgres-for-sessions`, cut at a word
    within `SLUG_CHARS`; ASCII only (accents dropped), `decision` when nothing is left."""
    ascii_text = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode()
    words = re.findall(r"[a-z0-9]+", ascii_text.lower())
    out = ""
    for word in words:
        joined = f"{out}-{word}" if out else word
        if len(joined) > SLUG_CHARS:
            break
        out = joined
    return out or (words[0][:SLUG_CHARS] if words else "decision")


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None
