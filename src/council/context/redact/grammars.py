"""Key/value grammars: secrets stored under secret-looking names in `.env`, shell, YAML,
JSON, INI and TOML files, in Markdown code fences of those languages, and (strictly) in
source code assignments. The quoted pairs are here; the line grammars of env, YAML, INI and
TOML are `config_lines`'."""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from council.context.redact.config_lines import redact_config_lines
from council.context.redact.keys import (
    IDENTIFIER_LIKE,
    config_key_kind,
    not_a_secret_value,
    secret_key_kind,
)
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

_UUID = re.compile(r"[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}")
_KEY_HINT = re.compile(r"(?i)pass|secret|token|key|pwd")
# Config files also take `auth` (a registry's `"auth": "<base64>"`); source code does not, and
# its long minified lines are not scanned for it.
_CONFIG_KEY_HINT = re.compile(r"(?i)pass|secret|token|key|pwd|auth")
# The same, in a lower-cased line.
_HINT_NEEDLE = re.compile(r"pass|secret|token|key|pwd")
_CONFIG_HINT_NEEDLE = re.compile(r"pass|secret|token|key|pwd|auth")
_LONG_LINE = 4096


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
        if kind != "password" and IDENTIFIER_LIKE.fullmatch(value):
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
            or IDENTIFIER_LIKE.fullmatch(value)
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
            or IDENTIFIER_LIKE.fullmatch(value)
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
        text = redact_config_lines(text, fmt, counter)
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
