"""Key/value grammars: secrets stored under secret-looking names in `.env`, shell, YAML,
JSON, INI and TOML files, in Markdown code fences of those languages, and (strictly) in
source code assignments."""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from council.context.redact.keys import config_key_kind, not_a_secret_value, secret_key_kind
from council.context.redact.marks import Hits, lower_same_length, replace_group, sub_near

_FENCE_FORMATS = {
    "env": "env",
    "dotenv": "env",
    "sh": "env",
    "bash": "env",
    "shell": "env",
    "zsh": "env",
    "console": "env",
    "yaml": "yaml",
    "yml": "yaml",
    "json": "json",
    "jsonc": "json",
    "json5": "json",
    "ini": "ini",
    "cfg": "ini",
    "conf": "ini",
    "properties": "ini",
    "toml": "toml",
}


def file_format(filename: str) -> str | None:
    """Which key/value grammar a file follows, by its name; None for source and prose."""
    name = PurePosixPath(filename).name.lower()
    suffix = PurePosixPath(name).suffix
    if name.startswith(".env") or name.endswith(".env") or name in (".envrc", ".netrc"):
        return "env"
    if suffix in (".sh", ".bash", ".zsh", ".ksh"):
        return "env"
    if suffix in (".yaml", ".yml"):
        return "yaml"
    if suffix in (".json", ".jsonc", ".json5") or name.endswith(".json.example"):
        return "json"
    if suffix in (".ini", ".cfg", ".conf", ".properties", ".cnf") or name in (
        ".npmrc",
        ".pypirc",
        ".pgpass",
        "credentials",
        "config",
    ):
        return "ini"
    if suffix == ".toml":
        return "toml"
    return None


def is_markdown(filename: str) -> bool:
    return PurePosixPath(filename).suffix.lower() in (".md", ".markdown", ".mdx", ".rst")


# `"key": "value"` or `key = 'value'` anywhere: JSON, TOML inline tables, YAML flow maps
# (TOML's triple quotes are the line rules').
_QUOTED_PAIR = re.compile(
    r"(?:^|(?<=[\s{,\[]))(?P<kq>[\"']?)(?P<key>[A-Za-z_][\w.-]{0,80})(?P=kq)\s*[:=]\s*"
    r"(?P<q>[\"'])(?!(?P=q){2})"
    r"(?P<v>(?:\\.|(?P=q){2}|(?!(?P=q))[^\\\n]){1,1024}?)(?P=q)(?!(?P=q))",
    re.M,
)
# YAML flow mappings hold plain values too: `{user: app, password: Xr7ZVF-s1Iw9}`.
_YAML_FLOW_PAIR = re.compile(
    r"(?<=[{,])\s*(?P<key>[A-Za-z_][\w.-]{0,80})\s*:\s+"
    r"(?P<v>[^\s,{}\[\]\"'#&*!|>][^,{}\[\]\n]*?)\s*(?=[,}])"
)
# Source code: a quoted literal assigned to a name, a dict key or a keyword argument.
_SOURCE_ASSIGN = re.compile(
    r"(?P<kq>[\"']?)(?P<key>[A-Za-z_][\w.-]{0,80})(?P=kq)"
    r"\s*(?::\s*[A-Za-z_][\w\[\], .|]*?\s*)?(?::=|=>|\?\?=|=|:)\s*"
    r"[rRbBuU]{0,2}(?P<q>[\"'`])(?P<v>(?:\\.|(?!(?P=q))[^\\\n]){6,512}?)(?P=q)"
)
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

_UUID = re.compile(r"[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}")
_IDENTIFIER_LIKE = re.compile(r"[A-Za-z]+(?:[-_. :][A-Za-z]+)*")
_KEY_HINT = re.compile(r"(?i)pass|secret|token|key|pwd")
# Config files also take `auth` (a registry's `"auth": "<base64>"`); source code does not, and
# its long minified lines are not scanned for it.
_CONFIG_KEY_HINT = re.compile(r"(?i)pass|secret|token|key|pwd|auth")
# The same, in a lower-cased line.
_HINT_NEEDLE = re.compile(r"pass|secret|token|key|pwd")
_CONFIG_HINT_NEEDLE = re.compile(r"pass|secret|token|key|pwd|auth")
_LONG_LINE = 4096

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


def _redact_config_lines(text: str, fmt: str, counter: Hits) -> str:
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
            or (kind != "password" and _IDENTIFIER_LIKE.fullmatch(value))
            # In a comment only `key: value` with one word on each side is a setting.
            or (commented and re.search(r"\s", key + value))
        ):
            out.append(line)
            continue
        start = skip + m.start("v") + span[0]
        end = skip + m.start("v") + span[1]
        out.append(line[:start] + counter.hit(kind) + line[end:])
    return "\n".join(out)


def _redact_pairs(text: str, pattern: re.Pattern[str], strict: bool, counter: Hits) -> str:
    def repl(m: re.Match[str]) -> str:
        kind = (
            secret_key_kind(m.group("key"), strict=True)
            if strict
            else config_key_kind(m.group("key"))
        )
        value = m.group("v")
        if kind is None or not_a_secret_value(value):
            return m.group(0)
        if kind != "password" and _IDENTIFIER_LIKE.fullmatch(value):
            # Keys, tokens and secrets are machine-made: a bare word under `input_token` is
            # a field name ("Marker"). A word may be a (weak) password, so those stay.
            return m.group(0)
        if strict and (
            re.search(r"\s", value)  # prose: "Enter your password"
            or "{" in value
            or value.startswith(("http://", "https://", "/"))
            # Words and identifiers: enum values, constants, dictionary keys
            # ("REFRESH_TOKEN", "privateKeyUsagePeriod", "not_supported"). A credential
            # in code has a digit or a symbol in it.
            or _IDENTIFIER_LIKE.fullmatch(value)
            # Identifiers again: a UUID in code is a request or resource id (in a config
            # file under a secret's name it is redacted: some services issue UUID keys).
            or _UUID.fullmatch(value)
        ):
            return m.group(0)
        return replace_group(m, "v", counter.hit(kind))

    # Line by line, and only lines naming a likely key: the pattern may start at any
    # identifier, which on a multi-megabyte file is the difference between ms and seconds.
    hint = _KEY_HINT if strict else _CONFIG_KEY_HINT
    lines = text.split("\n")
    for n, line in enumerate(lines):
        if len(line) > _LONG_LINE:
            # A minified bundle's line: the pattern may start at any identifier, so it is
            # tried only around the hints (every key it takes holds one, at most 80
            # characters in; the value ends within 700 past it).
            low = lower_same_length(line)
            lines[n] = sub_near(
                line, _HINT_NEEDLE, pattern, repl, before=90, after=700, haystack=low
            )
        elif hint.search(line):
            lines[n] = pattern.sub(repl, line)
    return "\n".join(lines)


def _redact_markdown(text: str, counter: Hits) -> str:
    """Config rules inside code fences of config languages; source rules everywhere."""
    out = []
    fence = re.compile(r"^(?P<f>\s*(?:`{3,}|~{3,}))\s*(?P<lang>[\w.+-]*)[^\n]*$")
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        m = fence.match(lines[i])
        if not m:
            out.append(lines[i])
            i += 1
            continue
        closer = m.group("f").strip()
        j = i + 1
        while j < len(lines) and not lines[j].strip().startswith(closer):
            j += 1
        body = "\n".join(lines[i + 1 : j])
        fmt = _FENCE_FORMATS.get(m.group("lang").lower())
        if fmt is not None:
            body = _redact_config(body, fmt, counter)
        out.append(lines[i])
        if j > i + 1:
            out.append(body)
        if j < len(lines):
            out.append(lines[j])
        i = j + 1
    text = _redact_pairs("\n".join(out), _SOURCE_ASSIGN, True, counter)
    return _redact_loose_pairs(text, counter)


# Prose and unlabelled fences quote settings unquoted: `spring.datasource.password=x`,
# `password: x` in a sentence, a table cell.
_LOOSE_PAIR = re.compile(
    r"(?:^|(?<=[\s`>|(]))(?P<key>[A-Za-z_][\w.-]{0,80})[ \t]*[=:][ \t]*"
    r"(?P<v>[^\s`'\"|<>()\[\]{},;]{4,512})(?=[\s`|,;.)]|$)",
    re.M,
)


def _redact_loose_pairs(text: str, counter: Hits) -> str:
    """`key=value` and `key: value` with a secret's name, in prose: the value must look like
    a credential (a digit or a symbol, not an identifier), since prose is full of words."""

    def repl(m: re.Match[str]) -> str:
        kind = secret_key_kind(m.group("key"))
        value = m.group("v").rstrip(".")
        if (
            kind is None
            or not_a_secret_value(value)
            or _IDENTIFIER_LIKE.fullmatch(value)
            or all(c.isalpha() or c in "._-" for c in value)
            or value.startswith(("http://", "https://", "/", "$"))
        ):
            return m.group(0)
        start, end = m.span("v")
        whole = m.group(0)
        cut = end - len(m.group("v")) + len(value)
        return whole[: start - m.start()] + counter.hit(kind) + whole[cut - m.start() :]

    lines = text.split("\n")
    for n, line in enumerate(lines):
        if _KEY_HINT.search(line):
            lines[n] = _LOOSE_PAIR.sub(repl, line)
    return "\n".join(lines)


def _redact_config(text: str, fmt: str, counter: Hits) -> str:
    text = _redact_pairs(text, _QUOTED_PAIR, False, counter)
    if fmt == "yaml":
        text = _redact_pairs(text, _YAML_FLOW_PAIR, False, counter)
    if fmt != "json":
        text = _redact_config_lines(text, fmt, counter)
    return text


def grammar_of(filename: str) -> str | None:
    """The key/value grammar `redact` applies to `filename`: a config format, "markdown", or
    None for source code and everything else."""
    fmt = file_format(filename)
    if fmt is not None:
        return fmt
    return "markdown" if is_markdown(filename) else None


def redact_by_grammar(text: str, filename: str, counter: Hits) -> str:
    grammar = grammar_of(filename)
    if grammar == "markdown":
        return _redact_markdown(text, counter)
    if grammar is not None:
        return _redact_config(text, grammar, counter)
    return _redact_pairs(text, _SOURCE_ASSIGN, True, counter)
