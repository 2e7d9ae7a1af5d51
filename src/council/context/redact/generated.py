"""Machine-made tokens standing alone, with no key name or context around them; they run
last, over what every other rule left, and are written `[REDACTED:high-entropy]`.

Machine-made, for a token with no context, means: 20 to 256 characters of base64 or base62
with upper case, lower case and digits, cut into short camelCase pieces with few vowels and a
high entropy (identifiers have pieces that are words), that is not a path, a typed object id
(`msg_01...`) or base64 of a sentence; or 32 to 128 hex or single-case characters where no
line near it names a hash (`sha`, `digest`, `commit`, `integrity`, ...), not one of three or
more of its length (a list of digests), and not in a lockfile. Left alone on purpose: UUIDs,
lockfile and SRI digests (`sha512-...`, `sha256:...`, `h1:...`), `data:` URIs and base64 of
well-known binary files (PNG, JPEG, GIF, WOFF, PDF, gzip, zip, wasm, DER), and blocks of
base64 lines (data, not a key: a private key is the shapes' PEM rule).
"""

from __future__ import annotations

import base64
import math
import re
from collections import Counter
from itertools import pairwise

from council.context.redact.marks import Hits

_TOKEN = re.compile(r"(?<![A-Za-z0-9+/=_\-.%])[A-Za-z0-9+/_\-]{20,}={0,2}(?![A-Za-z0-9+/=_\-%])")
_HASH_WORDS = re.compile(
    r"(?i)sha|md5|hash|digest|checksum|commit|integrity|etag|fingerprint|\brev\b|revision"
    r"|\boid\b|object|blob|tree|parent|nonce|salt|uuid|guid|colou?r|vector|expected|crc"
    r"|resolved|\block|version|build|\bids?\b|_id\b|[a-z]Id\b|\bID\b|cid|hex|test"
)
# A line about a digest: its base64 token is that digest (`checksum = ...`, `"integrity": ...`).
_DIGEST_WORDS = re.compile(r"(?i)sha\d|md5|hash|digest|checksum|integrity|fingerprint|etag")
# What stands just before a digest: `sha512-`, `sha256:`, `sha256=`, go.sum's `h1:`.
_DIGEST_LEAD = re.compile(r"(?i)(?:sha\d*|sha3-\d+|md5|blake\w*|crc\d*|h\d)[:=-]$")
# Base64 of binary files: PNG, JPEG, GIF, WebP/RIFF, WOFF/WOFF2, ICO, PDF, zip, gzip, wasm,
# XML and SVG text, and a DER certificate or key (public material in tests and docs).
_BINARY_MAGIC = (
    "iVBORw0KGgo",
    "/9j/",
    "R0lGOD",
    "UklGR",
    "d09GR",
    "d09GM",
    "AAABAA",
    "JVBERi0",
    "UEsDB",
    "H4sI",
    "AGFzbQ",
    "PD94bWwg",
    "PHN2Zy",
    "MII",
    "T2dnUw",
    "SUQz",
    "AAAAHGZ0eXA",
    "AAAAIGZ0eXA",
)


def _shannon(value: str) -> float:
    counts = Counter(value)
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


def _class(c: str) -> int:
    if c.isdigit():
        return 0
    if c.isupper():
        return 1
    if c.islower():
        return 2
    return 3


def _switch_rate(value: str) -> float:
    """How often the character class (digit, upper, lower, symbol) changes from one character
    to the next: about 0.6 in a random base62 token, 0.1 to 0.3 in identifiers and paths."""
    if len(value) < 2:
        return 0.0
    pairs = [(a, b) for a, b in pairwise(value) if a.isalnum() and b.isalnum()]
    if not pairs:
        return 0.0
    return sum(_class(a) != _class(b) for a, b in pairs) / len(pairs)


# A camelCase or PascalCase identifier's pieces: `resolve`, `Aws`, `Sdk`, `V`, `4`, `Config`.
_SEGMENT = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
# A path's pieces that are words: `dist`, `a2a-js`, `chunk-name`.
_PATH_WORD = re.compile(r"[a-z][a-z0-9]*(?:[-_.][a-z0-9]+)*")


def _wordiness(body: str) -> tuple[float, float]:
    """The mean length of the token's camelCase pieces (about 1.7 in random base62, 3 and more
    in identifiers) and the share of vowels among its letters (about 0.19 random, 0.35 and
    more in words)."""
    pieces = _SEGMENT.findall(body)
    mean = sum(map(len, pieces)) / max(1, len(pieces))
    letters = [c for c in body if c.isalpha()]
    vowels = sum(c in "aeiouAEIOU" for c in letters) / max(1, len(letters))
    return mean, vowels


def _is_path(token: str) -> bool:
    parts = token.split("/")
    words = [p for p in parts if _PATH_WORD.fullmatch(p) and re.search("[aeiou]", p)]
    return len(parts) >= 2 and (len(words) >= 2 or (parts[0] in words and len(parts[0]) >= 4))


# A typed object id: `msg_01XFDUDYJgAACzvnptvVoYEL`, `cus_NffrFeUfNV2Hib`, `env_011CZk...`.
# A prefix that says "secret" makes it a credential of a vendor not in the table.
_OBJECT_ID = re.compile(r"(?P<type>[a-z]{2,12})_[A-Za-z0-9]{14,}")
_SECRET_TYPES = re.compile(
    r"sk|rk|keys?|secret|sec|token|tok|pat|pass|pwd|auth|api|apikey|creds?|priv|private"
    r"|access|refresh|bearer|bot|client|sig|sign|signing|whsec|live|prod|sess"
)


def _is_object_id(token: str) -> bool:
    m = _OBJECT_ID.fullmatch(token)
    return m is not None and not _SECRET_TYPES.fullmatch(m.group("type"))


def _is_separated_identifier(token: str) -> bool:
    """`N11evp_pkey_st4DOLLAR_12E`, `index11-1rn8G5-L`: short parts between `_` and `-`, where
    random base64url has one separator in 32 characters."""
    parts = re.split(r"[_-]", token)
    return len(parts) >= 3 and sum(map(len, parts)) / len(parts) < 8


def _is_encoded_text(token: str) -> bool:
    """Base64 of a sentence (test data, examples): decodes to text with spaces in it."""
    try:
        raw = base64.b64decode(token + "=" * (-len(token) % 4), validate=True)
        text = raw.decode("utf-8")
    except (ValueError, UnicodeDecodeError):
        return False
    return text.count(" ") >= 2 and text.isprintable()


def looks_generated(token: str) -> bool:
    """A base64/base62 token without context that a machine made: see the module's doc."""
    body = token.rstrip("=")
    n = len(body)
    if n < 20 or n > 256:
        return False
    upper = sum(c.isupper() for c in body)
    lower = sum(c.islower() for c in body)
    digits = sum(c.isdigit() for c in body)
    if upper < 2 or lower < 2 or digits < 1:
        return False
    mean_piece, vowels = _wordiness(body)
    return (
        mean_piece <= 2.6
        and vowels <= 0.34
        and _shannon(body) >= min(4.2, 0.85 * math.log2(n))
        and max(Counter(body).values()) <= max(3, n // 8)
        and not _is_path(token)
        and not _is_object_id(token)
        and not _is_separated_identifier(token)
        and not _is_encoded_text(token)
    )


def looks_generated_single_case(token: str) -> bool:
    """Hex or single-case letters and digits, 32 to 128 long, varied like random output."""
    n = len(token)
    if n < 32 or n > 128 or not token.isalnum():
        return False
    if not (token.islower() or token.isupper() or token.isdigit()):
        return False
    digits = sum(c.isdigit() for c in token)
    if digits < n * 0.15 or digits > n * 0.85:
        return False
    return _switch_rate(token) >= 0.3 and _shannon(token) >= 3.4


def _in_base64_block(text: str, start: int, end: int) -> bool:
    """The token is a whole line beside a long line of base64: data (a certificate, an
    image, a test fixture), not a key; the private keys are the shapes' PEM rule."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end == -1 else line_end
    rest = text[line_start:start] + text[end:line_end]
    if not re.fullmatch(r"[\s\"'`,+();bB]*", rest):
        return False
    for neighbour_start, neighbour_end in (
        (text.rfind("\n", 0, max(line_start - 1, 0)) + 1, line_start - 1),
        (line_end + 1, _line_end(text, line_end + 1)),
    ):
        neighbour = text[neighbour_start:neighbour_end].strip().strip("\"',+")
        if len(neighbour) >= 60 and re.fullmatch(r"[A-Za-z0-9+/=_-]+", neighbour):
            return True
    return False


def _line_end(text: str, start: int) -> int:
    end = text.find("\n", start)
    return len(text) if end == -1 else end


# What stands before a credential: `Bearer <hex>`, `token: <hex>`, `key=<hex>`.
_CREDENTIAL_LEAD = re.compile(r"(?i)(?:bearer|token|key|secret|password|passwd|pwd)[\s:=\"']+$")


def _is_hex(token: str) -> bool:
    return all(c in "0123456789abcdef" for c in token)


def _lines_around(text: str, start: int, end: int, above: int = 3) -> str:
    """The token's line and up to `above` lines before it (a digest's name is often the
    block's: `"sha256": {` over a list of files)."""
    first = start
    for _ in range(above + 1):
        first = text.rfind("\n", 0, max(first - 1, 0))
        if first == -1:
            break
    return text[first + 1 : _line_end(text, end)]


def apply_entropy(text: str, counter: Hits, *, lockfile: bool = False) -> str:
    """Machine-made tokens standing alone (see `looks_generated`)."""
    candidates = [m for m in _TOKEN.finditer(text) if len(m.group(0)) >= 20]
    if not candidates:
        return text
    # Three or more hex or single-case tokens of one length are a list of digests (a
    # manifest, test vectors), not keys.
    lengths = Counter(
        len(m.group(0)) for m in candidates if looks_generated_single_case(m.group(0))
    )
    out: list[str] = []
    done = 0
    for m in candidates:
        token = m.group(0)
        start = m.start()
        if _skip_token(text, token, start):
            continue
        if looks_generated(token):
            if _in_base64_block(text, start, m.end()) or _DIGEST_WORDS.search(
                _lines_around(text, start, m.end(), above=0)
            ):
                continue
        elif looks_generated_single_case(token):
            # A hex or single-case token is as likely a digest as a key: after `Bearer` or
            # `token` it is a credential; otherwise only where it is not a git or sha256
            # digest's length in lower-case hex, no line near it names a hash, and never in
            # a lockfile.
            credential = _CREDENTIAL_LEAD.search(text[max(0, start - 16) : start])
            if not credential and (
                lockfile
                or (len(token) in (40, 64) and token.islower() and _is_hex(token))
                or lengths[len(token)] >= 3
                or _HASH_WORDS.search(_lines_around(text, start, m.end()))
                or _in_base64_block(text, start, m.end())
            ):
                continue
        else:
            continue
        out += [text[done:start], counter.hit("high-entropy")]
        done = m.end()
    if not out:
        return text
    out.append(text[done:])
    return "".join(out)


def _skip_token(text: str, token: str, start: int) -> bool:
    """Digests and encoded files, told by what stands before them or how they start."""
    lead = text[max(0, start - 12) : start]
    return (
        token.startswith(_BINARY_MAGIC)
        or lead.endswith(("base64,", "base64, ", "?b?", "?B?"))
        or _DIGEST_LEAD.search(lead) is not None
        or token.lower().startswith(("sha1-", "sha256-", "sha384-", "sha512-", "md5-"))
    )
