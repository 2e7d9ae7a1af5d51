"""The line grammars of env, YAML, INI and TOML files (grammars.py runs them after the quoted
pairs): an unquoted value on its key's line, a YAML block scalar or a plain value on the lines
below its key, an INI value continued on indented lines, a quoted value left open over several
lines, and a setting commented out."""

from __future__ import annotations

import re

from council.context.redact.keys import IDENTIFIER_LIKE, config_key_kind, not_a_secret_value
from council.context.redact.marks import Hits

_ENV_LINE = re.compile(
    r"^(?P<lead>\s*(?:export\s+|set\s+|setenv\s+|ENV\s+|ARG\s+)?)(?P<key>[A-Za-z_][\w.-]*)"
    r"(?P<sep>\s*=\s*)(?P<v>.*?)\s*$"
)
_YAML_LINE = re.compile(
    r"^(?P<lead>\s*(?:-\s+)?)(?P<kq>[\"']?)(?P<key>[^\s:#\"'{}\[\],][^:#\"'{}\[\]]*?)(?P=kq)"
    r"(?P<sep>\s*:)(?:\s+(?P<v>.*?))?\s*$"
)
_YAML_LIST_ENV = re.compile(
    r"^(?P<lead>\s*-\s+[\"']?)(?P<key>[A-Za-z_]\w*)(?P<sep>=)(?P<v>.*?)(?P<tail>[\"']?)\s*$"
)
# An npm registry's key names its registry first: `//npm.example.com/:_authToken=...`.
_INI_LINE = re.compile(
    r"^(?P<lead>\s*)(?P<key>//[^\s=]*|[^\s=:#;\[][^=:]*?)(?P<sep>\s*[=:]\s*)(?P<v>.*?)\s*$"
)
_TOML_LINE = re.compile(
    r"^(?P<lead>\s*)(?P<kq>[\"']?)(?P<key>[A-Za-z0-9_.-]+)(?P=kq)(?P<sep>\s*=\s*)(?P<v>.*?)\s*$"
)

# An anchor names the value after it: `password: &db Xr7ZVF-s1Iw9`, `password: &db |`.
_YAML_ANCHOR = re.compile(r"^&[^\s,\[\]{}]+\s*")

# The marker of a commented-out line: `# password: x`, `; password = x`, `// token = x`.
_COMMENTED = re.compile(r"\s*(?:#|;|//)+\s*")

# Not a `//` comment: `//npm.example.com/:_authToken=...` names a registry.
_NPM_REGISTRY_KEY = re.compile(r"\s*//[^\s=]*/:")

# How far below a quote left open on its key's line its closing quote is looked for: past
# that, a stray quote would hide the rest of the file, and only the key's line is redacted.
_OPEN_QUOTE_LINES = 100


def _closing_quote(text: str, quote: str, start: int) -> int:
    """Where `quote` closes a value in `text`, looking from `start` (-1: not there): not after
    a backslash inside double quotes, not doubled inside single ones (YAML's `''`)."""
    end = text.find(quote, start)
    while end > 0 and quote == '"' and text[end - 1] == "\\":
        end = text.find(quote, end + 1)
    while end != -1 and quote == "'" and text[end + 1 : end + 2] == "'":
        end = text.find(quote, end + 2)
    return end


def _leading_quote(raw: str) -> str:
    """The quote `raw` starts with: TOML's `\"\"\"` or `'''`, `"`, `'`; "" for none."""
    return next((quote for quote in ('"""', "'''", '"', "'") if raw.startswith(quote)), "")


def _open_quote(raw: str) -> str:
    """The quote that starts `raw` when it does not close on its line ("" otherwise)."""
    quote = _leading_quote(raw)
    return quote if quote and _closing_quote(raw, quote, len(quote)) == -1 else ""


def _as_one_value(parts: list[str]) -> str:
    """A quoted value's lines as one value to judge: prose (most lines of several words)
    joined with spaces, a key or certificate broken over lines (a token a line, a PEM header
    aside) joined back into one."""
    parts = [part.strip() for part in parts if part.strip()]
    prose = 2 * sum(len(part.split()) > 1 for part in parts) > len(parts)
    return (" " if prose else "").join(parts)


def _quoted_value_end(lines: list[str], start: int, quote: str) -> tuple[int, int] | None:
    """The line (from `start` on) and column where a quoted value left open above closes;
    None when it does not within _OPEN_QUOTE_LINES lines."""
    for j in range(start, min(len(lines), start + _OPEN_QUOTE_LINES)):
        col = _closing_quote(lines[j], quote, 0)
        if col != -1:
            return j, col
    return None


def _unquote_value(raw: str, comment_chars: str) -> tuple[int, int] | None:
    """Span of the value's content inside `raw` (quotes and a trailing comment left out)."""
    if not raw:
        return None
    quote = _leading_quote(raw)
    if quote:
        end = _closing_quote(raw, quote, len(quote))
        return (len(quote), end) if end > len(quote) else None
    cut = len(raw)
    for ch in comment_chars:
        # A comment starts at " #" (YAML, env, TOML) or ";" (INI) after whitespace.
        m = re.search(rf"\s{re.escape(ch)}", raw)
        if m:
            cut = min(cut, m.start())
    value = raw[:cut].rstrip().rstrip(",")
    return (0, len(value)) if value else None


def _indented_block(lines: list[str], start: int, indent: int) -> int:
    """How many lines from `start` on are indented deeper than `indent` (blank lines inside
    included, trailing ones not)."""
    block = 0
    while start + block < len(lines):
        nxt = lines[start + block]
        if nxt.strip() and len(nxt) - len(nxt.lstrip()) <= indent:
            break
        block += 1
    while block and not lines[start + block - 1].strip():
        block -= 1  # trailing blank lines belong to no one
    return block


def _value_lines_below(raw: str, lines: list[str], start: int) -> int:
    """How many lines below a YAML (or INI) key hold its value (0: none): a block scalar
    (`|`, `>-`), or a plain scalar when the key ends its line (an anchor, `&name`, may come
    first) and what follows is neither a mapping, a sequence, a flow sequence, a comment, an
    alias, nor a placeholder (`!secret name`, `${VAR}`). INI continues a value on indented
    lines the same way."""
    indent = len(lines[start - 1]) - len(lines[start - 1].lstrip())
    block = _indented_block(lines, start, indent)
    if not block:
        return 0
    raw = _YAML_ANCHOR.sub("", raw.strip())
    if re.fullmatch(r"[|>][-+0-9]*", raw):
        return block
    if raw:
        return 0
    below = _YAML_ANCHOR.sub("", "\n".join(lines[start : start + block]).strip())
    if (
        not below
        or below[:1] in ("-", "[", "#", "*")
        or _YAML_LINE.match(below.split("\n")[0].strip())
        or not_a_secret_value(" ".join(below.split()))
    ):
        return 0
    return block


def redact_config_lines(text: str, fmt: str, counter: Hits) -> str:
    """The line grammars of env, YAML, INI and TOML, for unquoted values and YAML blocks."""
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    grammars = {
        "env": (_ENV_LINE, "#"),
        "yaml": (_YAML_LINE, "#"),
        "ini": (_INI_LINE, ";#"),
        "toml": (_TOML_LINE, "#"),
    }
    pattern, comments = grammars[fmt]
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line.strip():
            out.append(line)
            continue
        # A commented-out setting (old credentials are often left so) is read like the line
        # without its comment marker; prose comments are left by the check on spaces below.
        commented = None if _NPM_REGISTRY_KEY.match(line) else _COMMENTED.match(line)
        skip = commented.end() if commented else 0
        m = None
        if fmt == "yaml":
            m = _YAML_LIST_ENV.match(line[skip:])
        if m is None:
            m = pattern.match(line[skip:])
        if m is None:
            out.append(line)
            continue
        key = m.group("key").strip()
        kind = config_key_kind(key)
        raw = m.group("v") or ""
        if kind is None:
            out.append(line)
            continue
        below = fmt in ("yaml", "ini") and not commented
        block = _value_lines_below(raw, lines, i) if below else 0
        if block:
            # A block scalar (`key: |`), a plain value on the lines below (`key:` alone), an
            # INI value continued on indented lines: the secret is every more-indented line.
            indent = len(line) - len(line.lstrip())
            out.append(line)
            out.append(" " * (indent + 2) + counter.hit(kind))
            out.extend([""] * (block - 1))
            i += block
            continue
        if raw[:1] in tuple(comments) and line[skip + m.start("v") - 1].isspace():
            out.append(line)  # `KEY= # note`, `password: # note`: no value, a comment
            continue
        quote = _open_quote(raw)
        if quote:
            # A quoted value continued on the lines below (a YAML scalar, a private key in a
            # .env, TOML's triple quotes): the secret runs to the closing quote. In a comment,
            # or when the quote never closes, its line alone.
            start = skip + m.start("v") + len(quote)
            close = None if commented else _quoted_value_end(lines, i, quote)
            value = [line[start:]]
            if close is not None:
                value += [*lines[i : close[0]], lines[close[0]][: close[1]]]
            one = _as_one_value(value)
            if not_a_secret_value(one) or (commented and re.search(r"\s", key + one)):
                out.append(line)
                continue
            out.append(line[:start] + counter.hit(kind))
            if close is not None:
                j, col = close
                out.extend([""] * (j - i))  # the line count stays
                indent = len(lines[j]) - len(lines[j].lstrip())
                out.append(lines[j][: min(indent, col)] + lines[j][col:])
                i = j + 1
            continue
        span = _unquote_value(raw, comments)
        if span is None:
            out.append(line)
            continue
        value = raw[span[0] : span[1]]
        if (
            not_a_secret_value(value)
            or value.lstrip()[:1] in ("{", "[")
            or (fmt == "yaml" and _YAML_ANCHOR.fullmatch(value))  # `&name` over a mapping
            or (kind != "password" and IDENTIFIER_LIKE.fullmatch(value))
            # In a comment only `key: value` with one word on each side is a setting.
            or (commented and re.search(r"\s", key + value))
        ):
            out.append(line)
            continue
        start = skip + m.start("v") + span[0]
        end = skip + m.start("v") + span[1]
        out.append(line[:start] + counter.hit(kind) + line[end:])
    return "\n".join(out)
