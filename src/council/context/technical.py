"""The technical context: at most 15 factual lines about the project, and the refresh that
adds facts learned in a round (tagged `[R<n>]`, at most 20 lines in all).

Anti-anchoring (docs/spec/protocol.md section 3): facts only. A line holding a directive word
(should/must/always/never), a path, or an opinion is dropped, whoever wrote it. The lines are
built from the manifests in the project root and the (redacted) given files; the refresh
reads the seats' replies and keeps only sentences that state something checkable.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from itertools import zip_longest
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from council.context.manifests import MAX_DEPS, Stack, read_stack
from council.context.structures import (
    CodeFacts,
    Structure,
    family_of,
    other_facts,
    python_facts,
)

if TYPE_CHECKING:
    from council.context.redact import Redactor

MAX_STRUCTURES = 8
DIRECTIVES = re.compile(r"\b(?:should|must|always|never)\b", re.I)
# A file path: absolute or ./ ../ ~/ relative, two slashes or more, or a file name with a
# source or config extension. One slash alone ("I/O", "async/await") is not a path.
_EXTENSIONS = (
    "py|pyi|js|mjs|ts|tsx|jsx|go|rs|java|kt|rb|php|cs|c|h|cc|cpp|hpp|swift|md|rst|json|"
    "ya?ml|toml|ini|cfg|conf|env|sh|txt|lock|sql|html|css|j2|xml|csv"
)
_PATH = re.compile(
    r"(?:^|[\s(`'\"=:])(?:\.{1,2}|~)?/[\w.-]+"
    r"|[\w.-]+/[\w.-]+/[\w./-]*"
    rf"|\b[\w-]+(?:/[\w.-]+)*\.(?:{_EXTENSIONS})\b"
)

_LANGUAGE_NAMES = {
    ".py": "Python",
    ".pyi": "Python",
    ".js": "JavaScript",
    ".mjs": "JavaScript",
    ".cjs": "JavaScript",
    ".jsx": "JavaScript",
    ".ts": "TypeScript",
    ".tsx": "TypeScript",
    ".go": "Go",
    ".rs": "Rust",
    ".java": "Java",
    ".kt": "Kotlin",
    ".rb": "Ruby",
    ".php": "PHP",
    ".cs": "C#",
    ".c": "C",
    ".h": "C",
    ".cpp": "C++",
    ".cc": "C++",
    ".swift": "Swift",
    ".scala": "Scala",
    ".sh": "Shell",
    ".sql": "SQL",
    ".md": "Markdown",
    ".json": "JSON",
    ".yaml": "YAML",
    ".yml": "YAML",
    ".toml": "TOML",
    ".j2": "Jinja2",
    ".html": "HTML",
    ".css": "CSS",
}
# What an import says about the architecture, for libraries worth naming.
_ROLES = {
    "anyio": "async",
    "asyncio": "async",
    "trio": "async",
    "click": "CLI",
    "typer": "CLI",
    "argparse": "CLI",
    "flask": "web",
    "fastapi": "web",
    "django": "web",
    "starlette": "web",
    "aiohttp": "HTTP",
    "httpx": "HTTP",
    "requests": "HTTP",
    "express": "web",
    "react": "UI",
    "vue": "UI",
    "sqlalchemy": "SQL",
    "sqlite3": "SQL",
    "psycopg": "SQL",
    "psycopg2": "SQL",
    "pymongo": "MongoDB",
    "redis": "Redis",
    "jinja2": "templates",
    "pydantic": "validation",
    "yaml": "YAML",
    "json": "JSON",
    "tomllib": "TOML",
    "subprocess": "processes",
    "multiprocessing": "processes",
    "psutil": "processes",
    "pexpect": "terminals",
    "threading": "threads",
    "pytest": "tests",
    "unittest": "tests",
    "hypothesis": "tests",
    "logging": "logging",
    "boto3": "AWS",
    "numpy": "numeric",
    "pandas": "dataframes",
    "torch": "ML",
}

if TYPE_CHECKING:
    from council.context.redact import Redactor


def clean(line: str) -> str | None:
    """`line` if it is a fact a seat may see: no directive word, no path, not empty."""
    line = " ".join(line.split())
    if not line or DIRECTIVES.search(line) or _PATH.search(line):
        return None
    return line


def _names(names: Sequence[str]) -> list[str]:
    """Names that read as file names ("chart.js") are left out rather than losing the line."""
    return [n for n in names if clean(n) is not None]


def _stack_lines(stack: Stack) -> list[str]:
    for target in (stack.dependencies, stack.dev_tools, stack.entry_points, stack.build):
        target[:] = _names(target)
    lines = []
    if stack.languages:
        text = "- Stack: " + ", ".join(stack.languages)
        if stack.build:
            text += f"; build: {', '.join(stack.build[:3])}"
        if stack.entry_points:
            text += f"; entry points: {', '.join(stack.entry_points[:5])}"
        lines.append(text)
    if stack.dependencies or stack.dev_tools:
        deps = stack.dependencies[:MAX_DEPS]
        more = len(stack.dependencies) - len(deps)
        text = "- Dependencies: " + (", ".join(deps) or "none declared")
        text += f" (+{more} more)" if more > 0 else ""
        if stack.dev_tools:
            text += "; development: " + ", ".join(stack.dev_tools[:6])
        lines.append(text)
    return lines


def _language_line(paths: Sequence[str]) -> str | None:
    counts: Counter[str] = Counter()
    for path in paths:
        name = _LANGUAGE_NAMES.get(PurePosixPath(path).suffix.lower())
        if name:
            counts[name] += 1
    if not counts:
        return None
    parts = [f"{name} ({n})" for name, n in counts.most_common(6)]
    return "- Given files by language: " + ", ".join(parts)


def _library_line(facts: CodeFacts) -> str | None:
    named = []
    for module, _ in facts.imports.most_common():
        role = _ROLES.get(module)
        if role:
            named.append(f"{module} ({role})")
    if not named:
        return None
    return "- Libraries in the given files: " + ", ".join(named[:10])


def _data_line(facts: CodeFacts, paths: Sequence[str], texts: Sequence[str]) -> str | None:
    parts = [f"{kind} ({n})" for kind, n in facts.data.most_common() if n]
    if facts.functions:
        share = round(100 * facts.annotated_functions / facts.functions)
        parts.append(f"type hints on {share}% of {facts.functions} functions")
    tables = sum(len(re.findall(r"\bcreate\s+table\b", t, re.I)) for t in texts)
    if tables:
        parts.append(f"SQL tables ({tables})")
    if not parts:
        return None
    return "- Data and types: " + ", ".join(parts[:8])


def _architecture_line(facts: CodeFacts, n_code_files: int) -> str | None:
    if not n_code_files:
        return None
    parts = [f"{n_code_files} source files given"]
    if facts.async_files:
        parts.append(f"async code in {facts.async_files}")
    classes = sum(1 for s in facts.structures if s.is_class)
    functions = sum(1 for s in facts.structures if not s.is_class)
    parts.append(f"{classes} public classes, {functions} public functions at module level")
    return "- Code shape: " + ", ".join(parts)


def _interleave(items: list[Structure]) -> list[Structure]:
    """Classes and functions alternately, each in source order: a file's first class and
    its first function say more together than its first two classes."""
    classes = [s for s in items if s.is_class]
    functions = [s for s in items if not s.is_class]
    out: list[Structure] = []
    for pair in zip_longest(classes, functions):
        out += [s for s in pair if s is not None]
    return out


def _pick_structures(per_file: Sequence[list[Structure]], limit: int) -> list[str]:
    """Up to `limit` lines spread over the files in a round-robin, so one large file does not
    take every slot."""
    queues = [_interleave(items) for items in per_file if items]
    chosen: list[str] = []
    while queues and len(chosen) < limit:
        for queue in list(queues):
            while queue:
                line = clean(queue.pop(0).line)
                if line and line not in chosen:
                    chosen.append(line)
                    break
            if not queue:
                queues.remove(queue)
            if len(chosen) >= limit:
                break
    return chosen


def build_technical_context(
    root: Path,
    files: Sequence[tuple[str, str]],
    *,
    limit: int = 15,
) -> tuple[str, ...]:
    """The technical context for `files` (shown path, redacted full text) under `root`."""
    stack = read_stack(root)
    facts = CodeFacts()
    per_file: list[list[Structure]] = []
    code_files = 0
    for path, text in files:
        suffix = PurePosixPath(path).suffix.lower()
        family = family_of(suffix)
        if family is None:
            continue
        code_files += 1
        found = (
            python_facts(text, facts) if family == "python" else other_facts(text, family, facts)
        )
        facts.structures.extend(found)
        per_file.append(found)
        if family == "python":
            stack.add_language("Python")
        elif suffix in _LANGUAGE_NAMES:
            stack.add_language(_LANGUAGE_NAMES[suffix])
    head = [
        *_stack_lines(stack),
        _language_line([p for p, _ in files]),
        _library_line(facts),
        _data_line(facts, [p for p, _ in files], [t for _, t in files]),
        _architecture_line(facts, code_files),
    ]
    lines = [c for c in (clean(h) for h in head if h) if c]
    room_for_structures = max(0, min(MAX_STRUCTURES, limit - len(lines)))
    if room_for_structures < MAX_STRUCTURES:
        # Structures are what the files show; keep at least some when the head is long.
        keep_head = max(limit - min(MAX_STRUCTURES, 4), 1)
        lines = lines[:keep_head]
        room_for_structures = limit - len(lines)
    lines += _pick_structures(per_file, room_for_structures)
    return tuple(lines[:limit])


# -- the refresh -----------------------------------------------------------------------------

# Opinion, advice and hedging: these make a sentence a position, not a fact.
_OPINION = re.compile(
    r"\b(?:should|must|always|never|recommend\w*|suggest\w*|propos\w*|prefer\w*|"
    r"better|worse|best|worst|i|we|you|my|our|your|think|believe|agree\w*|disagree\w*|"
    r"probably|likely|maybe|perhaps|might|could|would|seems?|appears?|instead|"
    r"consider|ought|need(?:s|ed)?\s+to|risk\w*|fragile|simpler|wrong|right|"
    r"advocate|critic|proposal|vote|therefore|so\s+the)\b",
    re.I,
)
# Something checkable: code, a version, a number with a unit, a CamelCase or dotted name.
_CONCRETE = re.compile(
    r"`[^`]+`|\b\d+(?:\.\d+)+\b|\b\d+\s*(?:ms|s|kb|mb|gb|%|lines|bytes|rps|req/s)\b|"
    r"\b[A-Z][a-z]+[A-Z]\w*\b|\b[a-z_]+\.[a-z_]+\(?\b|\b\w+_\w+\b|\b\w+\(\)",
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_TAG = re.compile(r"^-?\s*\[R\d+\]\s*")


def _normalise(line: str) -> str:
    line = _TAG.sub("", line.lstrip("- ").strip())
    return re.sub(r"\W+", " ", line).strip().lower()


def _candidate_sentences(text: str) -> Iterable[str]:
    for raw in _SENTENCE.split(text):
        s = raw.strip()
        s = re.sub(r"^(?:[-*>]|\d+[.)]|#+)\s*", "", s)  # list markers, headings
        s = re.sub(r"\*\*|__", "", s).strip()
        if s.endswith(":"):
            continue
        words = s.split()
        if 4 <= len(words) <= 30:
            yield s


def refresh_technical_context(
    lines: Sequence[str],
    contributions: Sequence[str],
    round_no: int,
    limit: int = 20,
    redactor: Redactor | None = None,
) -> tuple[str, ...]:
    """`lines` plus facts stated in this round's `contributions`, tagged `[R<round_no>]`,
    redacted by the run's `redactor` (a seat may quote a secret it found).

    Deterministic, no model: a sentence qualifies when it names something concrete (code, a
    version, a measured number, an identifier) and holds no opinion, advice, hedge, path or
    directive. Sentences stated by more contributions come first, then in order of appearance;
    duplicates of existing lines are skipped; the result has at most `limit` lines.
    """
    from council.context.redact import Redactor

    redactor = redactor or Redactor()
    kept = list(lines)[:limit]
    seen = {_normalise(line) for line in kept}
    candidates: dict[str, tuple[str, int, int]] = {}  # normalised -> (text, support, order)
    order = 0
    for text in contributions:
        text, _ = redactor.text(text, filename="contribution.md")
        for sentence in _candidate_sentences(text):
            if _OPINION.search(sentence) or not _CONCRETE.search(sentence):
                continue
            fact = clean(sentence)
            if fact is None:
                continue
            key = _normalise(fact)
            if not key or key in seen:
                continue
            found = candidates.get(key)
            if found:
                candidates[key] = (found[0], found[1] + 1, found[2])
            else:
                candidates[key] = (fact, 1, order)
                order += 1
    ranked = sorted(candidates.values(), key=lambda c: (-c[1], c[2]))
    for fact, _, _ in ranked:
        if len(kept) >= limit:
            break
        kept.append(f"- [R{round_no}] {fact.rstrip('.')}.")
    return tuple(kept)
