"""Reading a debate prompt: phase, question, file name, word limit, role and seats.

The rules are documented in the package docstring (``council.sim``).
"""

from __future__ import annotations

import re

PHASES = (
    "PROPOSAL",
    "BLIND_TAKE",
    "CHECK",
    "CHALLENGE",
    "RESPOND",
    "REBUTTAL",
    "FINAL_SUMMARY",
    "DECISION",
    "CONVERGENCE",
    "REPAIR",
    "REVIEW",
    "REVIEW_REPAIR",
    "CROSS_CHECK",
    "CROSS_CHECK_REPAIR",
)
UNKNOWN = "UNKNOWN"
REVIEW_PHASES = frozenset({"REVIEW", "REVIEW_REPAIR", "CROSS_CHECK", "CROSS_CHECK_REPAIR"})
JSON_PHASES = frozenset({"DECISION", "REPAIR", "CONVERGENCE"}) | REVIEW_PHASES
DEFAULT_WORD_LIMIT = 150
QUESTION_MAX_WORDS = 30

# Optional Markdown decoration before a key ("- ", "> ", "**", "## ") and after it ("**").
_KEY_LINE = r"^[ \t>*#_-]*{key}[*_]*[ \t]*:[*_]*[ \t]*(.*)$"
_PHASE_LINE = re.compile(_KEY_LINE.format(key=r"(?:ACTION|PHASE)"), re.I | re.M)
_QUESTION_LINE = re.compile(_KEY_LINE.format(key="QUESTION"), re.I)
_QUESTION_HEADING = re.compile(r"^\s*#{1,6}\s*question\s*:?\s*$", re.I)
_ROLE_LINE = re.compile(_KEY_LINE.format(key="ROLE"), re.I | re.M)
_FILE_LINE = re.compile(_KEY_LINE.format(key="FILE"), re.I)
_HEADING_LINE = re.compile(r"^\s*#{1,6}\s+(\S+)\s*$")
_DASHED_LINE = re.compile(r"^\s*-{3,}\s*(\S+?)\s*-{3,}\s*$")
_LIMIT = re.compile(r"at\s+most\s+(\d+)\s+words", re.I)

# Keyword fallback, most specific first. The isolation header of every prompt says "challenge it
# where needed", so CHALLENGE needs more than the bare word.
_KEYWORDS: tuple[tuple[str, tuple[re.Pattern[str], ...]], ...] = (
    (
        "REPAIR",
        (
            re.compile(r"\brepair|\bmalformed\b|\bnot valid json\b", re.I),
            re.compile(r"\bjson\b", re.I),
        ),
    ),
    (
        "DECISION",
        (
            re.compile(r"\bjson\b", re.I),
            re.compile(r"\brecommendation\b", re.I),
            # Plural only: a challenge reply ending in "Vote: revise" is not a decision request.
            re.compile(r"\bvotes\b", re.I),
        ),
    ),
    ("CONVERGENCE", (re.compile(r"\bconverge(?:d|nce)?\b|\bopen_blocking\b", re.I),)),
    ("FINAL_SUMMARY", (re.compile(r"\bfinal[ _-]summary\b", re.I),)),
    ("REBUTTAL", (re.compile(r"\brebut", re.I),)),
    (
        "RESPOND",
        (
            re.compile(
                r"\brespond\b|\banswer (?:the|each|these|all) challenges?\b"
                r"|\baddress (?:the|each|these|all) (?:challenges?|objections?)\b",
                re.I,
            ),
        ),
    ),
    (
        "CHALLENGE",
        (
            re.compile(
                r"\bchallenge (?:the|this) proposal\b|\bcritique\b|\bfragile assumption"
                r"|\bweak(?:est)? points?\b|\bsimpler alternatives?\b",
                re.I,
            ),
        ),
    ),
    ("PROPOSAL", (re.compile(r"\bpropos(?:e|al)\b", re.I),)),
)

# Named by the isolation header that starts every prompt; never the file under debate.
_INSTRUCTION_FILES = frozenset(
    {"claude.md", "agents.md", "gemini.md", "qwen.md", "kimi.md", ".cursorrules", "copilot.md"}
)
_EXTENSIONS = (
    "py|pyi|md|rst|txt|js|mjs|cjs|ts|tsx|jsx|json|jsonl|yaml|yml|toml|ini|cfg|conf|lock|rs|go|"
    "java|kt|kts|swift|scala|c|h|cc|cpp|hpp|cs|rb|php|sh|bash|zsh|sql|html|htm|css|scss|vue|"
    "svelte|xml|csv|proto|tf|mk|gradle|lua|ex|exs|erl|hs|ml|dart|r|jl|ipynb"
)
_ANY_FILE = re.compile(
    rf"(?<![\w./-])((?:[\w.-]+/)*[\w-][\w.-]*\.(?:{_EXTENSIONS}))(?![\w/-])", re.I
)
_PATH_TOKEN = re.compile(r"[\w.@+~-]*(?:/[\w.@+~-]+)*/?")
_HAS_EXT = re.compile(r"\w\.[A-Za-z0-9]{1,10}$")

_VOTE_REQUEST = re.compile(r"VOTE:\s*agree\s*\|\s*revise\s*\|\s*disagree", re.I)

# Hiragana, katakana, CJK ideographs (with extension A and compatibility) and Hangul syllables.
# Checked by hand: a regex character class over these ranges costs ~5 ms to compile at start-up.


def _phase_name(value: str) -> str | None:
    words = re.findall(r"[A-Za-z]+", value.upper())
    for length in (3, 2):  # the longest name first: CROSS_CHECK_REPAIR before CROSS_CHECK
        joined = "_".join(words[:length])
        if len(words) >= length and joined in PHASES:
            return joined
    if words and words[0] in PHASES:
        return words[0]
    return None


def detect_phase(text: str) -> str:
    """Return the phase the prompt asks for, or ``UNKNOWN``."""
    for match in _PHASE_LINE.finditer(text):
        phase = _phase_name(match.group(1))
        if phase:
            return phase
    for phase, patterns in _KEYWORDS:
        if all(p.search(text) for p in patterns):
            return phase
    return UNKNOWN


def _clean(text: str) -> str:
    text = " ".join(text.split()).strip().strip("`\"'*_").strip()
    words = text.split()
    if len(words) > QUESTION_MAX_WORDS:
        text = " ".join(words[:QUESTION_MAX_WORDS]) + "..."
    return text


def find_question(text: str) -> str | None:
    """Return the debate question, or ``None`` when the prompt has none."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if _QUESTION_HEADING.match(line):
            paragraph: list[str] = []
            for below in lines[i + 1 :]:
                if not below.strip():
                    if paragraph:
                        break
                    continue
                if below.lstrip().startswith("#"):
                    break
                paragraph.append(below)
            if paragraph:
                return _clean(" ".join(paragraph)) or None
            continue
        match = _QUESTION_LINE.match(line)
        if match:
            rest = match.group(1).strip()
            if not rest:
                rest = next((b for b in lines[i + 1 :] if b.strip()), "")
            if _clean(rest):
                return _clean(rest)
    for line in lines:
        if line.rstrip().endswith("?"):
            return _clean(line) or None
    return None


def _path_like(token: str, *, explicit: bool) -> str | None:
    token = token.strip("`\"'*").rstrip(":,;.)").lstrip("(")
    if not token or token.lower() in _INSTRUCTION_FILES or not _PATH_TOKEN.fullmatch(token):
        return None
    if explicit or "/" in token or _HAS_EXT.search(token):
        return token
    return None


def find_file(text: str) -> str | None:
    """Return the first file name the prompt talks about, or ``None``."""
    for line in text.splitlines():
        for pattern, explicit in (
            (_FILE_LINE, True),
            (_HEADING_LINE, False),
            (_DASHED_LINE, False),
        ):
            match = pattern.match(line)
            if match and match.group(1).strip():
                found = _path_like(match.group(1).split()[0], explicit=explicit)
                if found:
                    return found
    for match in _ANY_FILE.finditer(text):
        if match.group(1).lower() not in _INSTRUCTION_FILES:
            return match.group(1)
    return None


def word_limit(text: str) -> int:
    """Return the prompt's ``at most N words`` limit (default 150, at least 1)."""
    match = _LIMIT.search(text)
    return max(1, int(match.group(1))) if match else DEFAULT_WORD_LIMIT


def find_role(text: str) -> str | None:
    """Return ``advocate``, ``critic`` or ``proxy`` from a ``ROLE:`` line, else ``None``."""
    match = _ROLE_LINE.search(text)
    if not match:
        return None
    value = match.group(1).strip().lower()
    for role in ("advocate", "critic", "proxy"):
        if value.startswith(role):
            return role
    return None


def role_value(text: str) -> str | None:
    """The first word of the ``ROLE:`` line as written (``reviewer``, ``lead``, ...)."""
    match = _ROLE_LINE.search(text)
    words = match.group(1).split() if match else []
    return words[0].lower() if words else None


def asks_for_vote(text: str) -> bool:
    """True when the prompt asks the seat to close with a `VOTE:` line (its last word)."""
    return _VOTE_REQUEST.search(text) is not None
