"""Secret redaction: every text is passed through `redact` before a prompt or a room sees it.

Two families of rules:

- Shapes that are secrets wherever they appear (any file): PEM private-key blocks, AWS access
  key ids (and a 40-character secret next to one or to an `aws_secret_access_key` name),
  GitHub, GitLab, Slack, Stripe and npm tokens, OpenAI, Anthropic and Google keys, JWTs,
  bearer tokens, passwords in URLs and connection strings.
- Values of keys named like password/passwd/passphrase/secret/token/api_key/apikey/
  private_key: every such value in `.env`, shell, YAML, JSON, INI and TOML files (and in
  Markdown code fences of those languages); in source code only a quoted literal assigned to
  an unambiguous name (`token` alone is a lexer's variable far more often than a credential).

What keeps false positives low on ordinary code: there is no bare "high entropy" rule, so hex
hashes, UUIDs and base64 test data never match; generic prefixes (`sk-`, `Bearer`) also need
a random-looking body (upper case, lower case and digits); key/value rules skip numbers,
booleans, empty values, placeholders (`${VAR}`, `<your-key>`, `{password}`, `%s`, `***`),
references (`!secret x`, `ENC[...]`, `arn:...`), descriptions (five words or more), values
that repeat the key's own word without a digit (`nextToken`, `ExamplePassword`), plain words
under a token/key/secret name (`input_token: Marker`), and keys whose last word says the value
is not the secret (`password_file`, `token_url`, `max_tokens`, `secret_name`). In source code
a value also needs a digit or a symbol and must not be a UUID (`REFRESH_TOKEN = "REFRESH_TOKEN"`,
`request_token = "<uuid>"` are identifiers).

Each hit becomes `[REDACTED:<kind>]`; a multi-line secret keeps its line count (the marker
then blank lines) so line numbers in the rest of the file stay true.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import pairwise
from pathlib import PurePosixPath

from council.errors import ConfigError

MARKER = "[REDACTED:{kind}]"


def marker(kind: str) -> str:
    return MARKER.format(kind=kind)


# -- helpers ---------------------------------------------------------------------------------


def _looks_random(value: str, *, min_len: int = 20) -> bool:
    """A machine-made token: long, mixes upper case, lower case and digits, many distinct
    characters. Kebab-case words and hex digests fail it."""
    return (
        len(value) >= min_len
        and any(c.isupper() for c in value)
        and any(c.islower() for c in value)
        and any(c.isdigit() for c in value)
        and len(set(value)) >= 10
    )


_TEMPLATE = re.compile(
    r"""^(?:
        \$\{[^}]*\}? | \$\(.*\)? | \$[A-Za-z_]\w* |      # ${VAR} $(cmd) $VAR
        \{\{.*\}\}? | \{%.*%\}? | \{[^{}]*\} |        # templates, format fields
        %[sdr] | %\([^)]*\)[sdr] |                    # printf styles
        <[^<>]*> |                                    # <your-key>
        \*+ | x{3,} | X{3,} | \.{3,} | … | _+ | -+ |  # masks and ellipses
        ![A-Za-z][\w.:/-]*(?:\s.*)? |                  # YAML tags: !secret name, !vault
        ENC\[.* | vault:.* | op://.* | arn:aws:secretsmanager:.*
    )$""",
    re.X | re.S,
)
_PLACEHOLDER_WORDS = frozenset(
    {
        "password",
        "passwd",
        "pass",
        "pwd",
        "secret",
        "token",
        "apikey",
        "api_key",
        "api-key",
        "private_key",
        "none",
        "null",
        "nil",
        "undefined",
        "true",
        "false",
        "yes",
        "no",
        "on",
        "off",
        "redacted",
        "hidden",
        "masked",
        "example",
        "sample",
        "dummy",
        "placeholder",
        "todo",
        "tbd",
        "required",
        "optional",
        "string",
        "str",
        "bytes",
        "env",
    }
)


def is_placeholder(value: str) -> bool:
    """A value that stands for a secret instead of being one."""
    v = value.strip().strip("\"'`")
    if not v or v == "~" or "[REDACTED:" in v or not any(c.isalnum() for c in v):
        return True  # empty, already redacted, or a mask such as "****/**/**"
    if _TEMPLATE.match(v):
        return True
    low = v.lower()
    if low in _PLACEHOLDER_WORDS or low.startswith(("your", "<your", "my-", "my_", "insert")):
        return True
    if re.fullmatch(r"[+-]?\d+(?:\.\d+)?", v):  # numbers: max_tokens: 4096
        return True
    # A value that is itself made of placeholder words: "your-api-key", "API_KEY_HERE".
    words = [w for w in re.split(r"[\W_]+", low) if w]
    noise = _PLACEHOLDER_WORDS | {"here", "goes", "key", "api", "the", "a", "an", "xxx", "changeme"}
    return bool(words) and all(w in noise for w in words)


_SECRET_WORDS = ("password", "passwd", "token", "secret", "apikey", "api_key", "privatekey")


def not_a_secret_value(value: str) -> bool:
    """Values under a secret-looking key that are not secrets, in any file: placeholders,
    prose (five words or more: a description), resource names (`arn:...`), and names that
    repeat the key's own word without a digit (`nextToken`, `ExamplePassword`: identifiers
    and documentation)."""
    if is_placeholder(value):
        return True
    v = value.strip()
    if len(v.split()) >= 5 or v.startswith("arn:"):
        return True
    low = v.lower()
    return any(w in low for w in _SECRET_WORDS) and not any(c.isdigit() for c in v)


def _split_words(key: str) -> list[str]:
    """`dbPassword` -> [db, password]; `X-API-KEY` -> [x, api, key]."""
    key = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", key)
    return [w for w in re.split(r"[\s_.\-/:\[\]'\"]+", key.lower()) if w]


# The key's last word says the value is about the secret, not the secret itself.
_NOT_SECRET_SUFFIXES = frozenset(
    {
        "file",
        "files",
        "path",
        "paths",
        "dir",
        "url",
        "uri",
        "endpoint",
        "name",
        "names",
        "type",
        "env",
        "var",
        "variable",
        "length",
        "len",
        "count",
        "limit",
        "limits",
        "ttl",
        "expiry",
        "expires",
        "expiration",
        "lifetime",
        "timeout",
        "header",
        "prefix",
        "field",
        "format",
        "mode",
        "policy",
        "id",
        "ref",
        "enabled",
        "required",
        "min",
        "max",
        "size",
        "location",
        "command",
        "cmd",
        "method",
        "scope",
        "scopes",
        "algorithm",
        "alg",
        "pattern",
        "regex",
        "label",
        "hint",
        "placeholder",
        "prompt",
        "reset",
        "changed",
        "usage",
        "version",
        "store",
        "provider",
        "source",
        "kind",
        "class",
        "key_id",
        "budget",
        "expression",
        "selection",
        "arn",
        "used",
        "at",
        "on",
    }
)
# In source code `token` alone is a lexer's variable; these qualified tokens are credentials.
_TOKEN_QUALIFIERS = frozenset(
    {
        "access",
        "auth",
        "refresh",
        "api",
        "bearer",
        "session",
        "bot",
        "github",
        "gitlab",
        "slack",
        "personal",
        "private",
        "secret",
        "oauth",
        "service",
        "deploy",
        "npm",
        "pypi",
        "hf",
        "discord",
        "telegram",
        "csrf",
    }
)


def secret_key_kind(key: str, *, strict: bool = False) -> str | None:
    """The redaction kind for a value stored under `key`, or None when the name is harmless.

    `strict` is for source code, where only unambiguous names count.
    """
    words = _split_words(key)
    if not words or words[-1] in _NOT_SECRET_SUFFIXES:
        return None
    joined = "".join(words)
    if any(w in ("password", "passwd", "passphrase") for w in words) or joined.endswith(
        ("password", "passwd")
    ):
        return "password"
    if len(words) > 1 and words[-1] in ("pass", "pwd"):  # DB_PASS, SMTP_PWD (not PWD alone)
        return "password"
    if any(a == "private" and b == "key" for a, b in pairwise(words)) or ("privatekey" in words):
        return "private-key"
    if any(a == "api" and b == "key" for a, b in pairwise(words)) or ("apikey" in words):
        return "api-key"
    if "secret" in words or joined.endswith("secret"):
        return "secret"
    if "token" in words:
        i = words.index("token")
        if not strict or (i > 0 and words[i - 1] in _TOKEN_QUALIFIERS):
            return "token"
        return None
    if not strict and joined.endswith(("apitoken", "accesstoken", "authtoken")):
        return "token"
    return None


# -- shape rules (any file) ------------------------------------------------------------------


@dataclass(frozen=True)
class ShapeRule:
    kind: str
    pattern: re.Pattern[str]
    group: int | str = 0  # the part of the match that is secret
    check: Callable[[str], bool] | None = None  # extra test on the secret part
    match_check: Callable[[re.Match[str]], bool] | None = None  # extra test on the whole match


_B64ISH = r"[A-Za-z0-9+/=:,.\- \t\r\n\\]"
_PEM_LABEL = r"(?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?"

SHAPES: tuple[ShapeRule, ...] = (
    ShapeRule(
        "private-key",
        # The body only holds base64 and PEM headers, so code that merely mentions the
        # BEGIN line (a parser, a test) does not start a "block" that eats the file. A block
        # whose END line is missing is redacted as far as its base64 goes.
        re.compile(
            rf"-----BEGIN {_PEM_LABEL}-----(?P<body>{_B64ISH}{{32,}}?)-----END {_PEM_LABEL}-----"
            rf"|-----BEGIN {_PEM_LABEL}-----(?P<open>(?:{_B64ISH}){{64,}})"
        ),
        group="body",
    ),
    ShapeRule("aws-access-key-id", re.compile(r"\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b")),
    ShapeRule(
        "aws-secret-key",
        re.compile(
            r"(?i)(?:aws)?_?secret_?(?:access)?_?key[\"']?\s*(?:[:=]|=>)\s*[\"']?"
            r"(?P<v>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"
        ),
        group="v",
    ),
    ShapeRule(
        "github-token",
        re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{50,255})\b"),
    ),
    ShapeRule(
        "gitlab-token",
        re.compile(
            r"\bgl(?:pat|dt|rt|ptt|cbt|oas|soat|ft|imt|agent)-[A-Za-z0-9_-]{20,}(?![A-Za-z0-9_-])"
        ),
    ),
    ShapeRule(
        "slack-token",
        re.compile(r"\bxox[abposre]-(?:[0-9]+-)*[A-Za-z0-9-]{10,}|\bxapp-\d-[A-Za-z0-9-]{20,}"),
    ),
    ShapeRule(
        "slack-webhook",
        re.compile(r"https://hooks\.slack\.com/(?:services|workflows)/(?P<v>[A-Za-z0-9/_-]{20,})"),
        group="v",
    ),
    ShapeRule("anthropic-key", re.compile(r"\bsk-ant-[A-Za-z0-9_-]{20,}")),
    ShapeRule(
        "openai-key",
        re.compile(r"\bsk-(?!ant-)(?:proj-|svcacct-|admin-)?(?P<v>[A-Za-z0-9_-]{20,})"),
        check=lambda v: _looks_random(v),
    ),
    ShapeRule("google-api-key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])")),
    ShapeRule(
        "google-oauth",
        re.compile(r"\bGOCSPX-[A-Za-z0-9_-]{24,}|\bya29\.[0-9A-Za-z_-]{30,}"),
    ),
    ShapeRule(
        "stripe-key",
        re.compile(r"\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{24,}\b"),
    ),
    ShapeRule("npm-token", re.compile(r"\bnpm_[A-Za-z0-9]{36}\b")),
    ShapeRule(
        "jwt",
        re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*"),
    ),
    ShapeRule(
        "bearer-token",
        re.compile(r"(?i)\bbearer\s+(?P<v>[A-Za-z0-9._~+/-]{20,}=*)"),
        group="v",
        check=lambda v: _looks_random(v),
    ),
    ShapeRule(
        "basic-auth",
        re.compile(
            r"(?i)authorization[\"']?\s*[:=]\s*[\"']?basic\s+(?P<v>[A-Za-z0-9+/]{12,}={0,2})"
        ),
        group="v",
    ),
    ShapeRule(
        "url-password",
        re.compile(
            r"(?i)\b[a-z][a-z0-9+.-]{1,20}://[^\s:/?#@'\"<>()]{1,128}:"
            r"(?P<v>[^\s/@'\"<>]{1,256})@(?=[\w\[.-])"
        ),
        group="v",
        # `#` and `?` may be in the password: users paste them unencoded.
        check=lambda v: not is_placeholder(v),
    ),
    ShapeRule(
        "password",
        # Connection strings: "Server=db;User Id=app;Password=...;"
        re.compile(
            r"(?i)(?P<pre>[;\"'])[ \t]*(?:password|pwd)[ \t]*=[ \t]*"
            r"(?P<v>[^;'\"\s]{1,256})(?P<post>[;\"'])"
        ),
        group="v",
        check=lambda v: not is_placeholder(v),
        # A `;` next to it: "password={0}" in a format string is not a connection string.
        match_check=lambda m: ";" in (m.group("pre"), m.group("post")),
    ),
)

# An AWS secret key without a telling name: 40 base64 characters on the line of an access
# key id (CSV exports, `aws configure` pastes).
_AWS_ID = re.compile(r"\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b|\[REDACTED:aws-access-key-id\]")
_AWS_SECRET_BARE = re.compile(r"(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])")


# -- key/value rules -------------------------------------------------------------------------

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


# `"key": "value"` or `key = 'value'` anywhere: JSON, TOML inline tables, YAML flow maps.
_QUOTED_PAIR = re.compile(
    r"(?:^|(?<=[\s{,\[]))(?P<kq>[\"']?)(?P<key>[A-Za-z_][\w.-]{0,80})(?P=kq)\s*[:=]\s*"
    r"(?P<q>[\"'])(?P<v>(?:\\.|(?!(?P=q))[^\\\n]){1,1024}?)(?P=q)",
    re.M,
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
_INI_LINE = re.compile(
    r"^(?P<lead>\s*)(?P<key>[^\s=:#;\[][^=:]*?)(?P<sep>\s*[=:]\s*)(?P<v>.*?)\s*$"
)
_TOML_LINE = re.compile(
    r"^(?P<lead>\s*)(?P<kq>[\"']?)(?P<key>[A-Za-z0-9_.-]+)(?P=kq)(?P<sep>\s*=\s*)(?P<v>.*?)\s*$"
)


_UUID = re.compile(r"[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}")
_IDENTIFIER_LIKE = re.compile(r"[A-Za-z]+(?:[-_. :][A-Za-z]+)*")
_KEY_HINT = re.compile(r"(?i)pass|secret|token|key|pwd")


class _Counter:
    def __init__(self) -> None:
        self.kinds: dict[str, int] = {}

    def hit(self, kind: str) -> str:
        self.kinds[kind] = self.kinds.get(kind, 0) + 1
        return marker(kind)


def _unquote_value(raw: str, comment_chars: str) -> tuple[int, int] | None:
    """Span of the value's content inside `raw` (quotes and a trailing comment left out)."""
    if not raw:
        return None
    if raw[0] in "\"'":
        end = raw.find(raw[0], 1)
        while end != -1 and raw[0] == '"' and raw[end - 1] == "\\":
            end = raw.find(raw[0], end + 1)
        return (1, end) if end > 1 else None
    cut = len(raw)
    for ch in comment_chars:
        # A comment starts at " #" (YAML, env, TOML) or ";" (INI) after whitespace.
        m = re.search(rf"\s{re.escape(ch)}", raw)
        if m:
            cut = min(cut, m.start())
    value = raw[:cut].rstrip().rstrip(",")
    return (0, len(value)) if value else None


def _redact_config_lines(text: str, fmt: str, counter: _Counter) -> str:
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
        stripped = line.lstrip()
        if not stripped or stripped.startswith(("#", ";", "//")):
            out.append(line)
            continue
        m = None
        if fmt == "yaml":
            m = _YAML_LIST_ENV.match(line)
        if m is None:
            m = pattern.match(line)
        if m is None:
            out.append(line)
            continue
        kind = secret_key_kind(m.group("key").strip())
        raw = m.group("v") or ""
        if kind is None:
            out.append(line)
            continue
        if fmt == "yaml" and re.fullmatch(r"[|>][-+0-9]*", raw.strip()):
            # A block scalar: the secret is every more-indented line that follows.
            indent = len(line) - len(line.lstrip())
            block = 0
            while i + block < len(lines):
                nxt = lines[i + block]
                if nxt.strip() and len(nxt) - len(nxt.lstrip()) <= indent:
                    break
                block += 1
            while block and not lines[i + block - 1].strip():
                block -= 1  # trailing blank lines belong to no one
            if block:
                out.append(line)
                pad = " " * (indent + 2)
                out.append(pad + counter.hit(kind))
                out.extend([""] * (block - 1))
                i += block
                continue
            out.append(line)
            continue
        span = _unquote_value(raw, comments)
        if span is None:
            out.append(line)
            continue
        value = raw[span[0] : span[1]]
        if (
            not_a_secret_value(value)
            or value.lstrip()[:1] in ("{", "[")
            or (kind != "password" and _IDENTIFIER_LIKE.fullmatch(value))
        ):
            out.append(line)
            continue
        start = m.start("v") + span[0]
        end = m.start("v") + span[1]
        out.append(line[:start] + counter.hit(kind) + line[end:])
    return "\n".join(out)


def _redact_pairs(text: str, pattern: re.Pattern[str], strict: bool, counter: _Counter) -> str:
    def repl(m: re.Match[str]) -> str:
        kind = secret_key_kind(m.group("key"), strict=strict)
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
        return _replace_group(m, "v", counter.hit(kind))

    # Line by line, and only lines naming a likely key: the pattern may start at any
    # identifier, which on a multi-megabyte file is the difference between ms and seconds.
    lines = text.split("\n")
    for n, line in enumerate(lines):
        if _KEY_HINT.search(line):
            lines[n] = pattern.sub(repl, line)
    return "\n".join(lines)


def _replace_group(m: re.Match[str], group: int | str, replacement: str) -> str:
    whole = m.group(0)
    start, end = m.span(group)
    return whole[: start - m.start()] + replacement + whole[end - m.start() :]


def _keep_lines(replacement: str, original: str) -> str:
    return replacement + "\n" * original.count("\n")


def _apply_shapes(text: str, rules: Iterable[ShapeRule], counter: _Counter) -> str:
    for rule in rules:

        def repl(m: re.Match[str], rule: ShapeRule = rule) -> str:
            group: int | str = rule.group
            if rule.kind == "private-key" and m.group("body") is None:
                group = "open"
            secret = m.group(group)
            if (
                secret is None
                or (rule.check is not None and not rule.check(secret))
                or (rule.match_check is not None and not rule.match_check(m))
            ):
                return m.group(0)
            hit = counter.hit(rule.kind)
            if group == "body" and secret.count("\n") >= 2:
                # Keep the BEGIN/END lines (they say what was there) and the line count.
                return _replace_group(m, group, "\n" + hit + "\n" * (secret.count("\n") - 1))
            return _replace_group(m, group, _keep_lines(hit, secret))

        text = rule.pattern.sub(repl, text)
    return text


def _apply_aws_pairs(text: str, counter: _Counter) -> str:
    lines = text.split("\n")
    for n, line in enumerate(lines):
        if _AWS_ID.search(line):
            lines[n] = _AWS_SECRET_BARE.sub(
                lambda m: counter.hit("aws-secret-key") if _mixed(m.group(0)) else m.group(0),
                line,
            )
    return "\n".join(lines)


def _mixed(value: str) -> bool:
    return (
        any(c.isupper() for c in value)
        and any(c.islower() for c in value)
        and any(c.isdigit() or c in "/+" for c in value)
    )


def compile_extra_patterns(patterns: Sequence[str]) -> tuple[ShapeRule, ...]:
    """The config's `redact.extra_patterns`; a bad one is a config error naming it."""
    rules = []
    for n, source in enumerate(patterns):
        try:
            compiled = re.compile(source)
        except re.error as exc:
            raise ConfigError(
                f"redact.extra_patterns[{n}]: not a valid regular expression ({exc}): {source!r}"
            ) from None
        if compiled.search(""):
            raise ConfigError(
                f"redact.extra_patterns[{n}]: the pattern matches the empty string: {source!r}"
            )
        group: int | str = 0
        if "secret" in compiled.groupindex:
            group = "secret"
        elif compiled.groups:
            group = 1
        rules.append(ShapeRule("custom", compiled, group=group))
    return tuple(rules)


def _redact_markdown(text: str, counter: _Counter) -> str:
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
    return _redact_pairs("\n".join(out), _SOURCE_ASSIGN, True, counter)


def _redact_config(text: str, fmt: str, counter: _Counter) -> str:
    text = _redact_pairs(text, _QUOTED_PAIR, False, counter)
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


def _redact_by_grammar(text: str, filename: str, counter: _Counter) -> str:
    grammar = grammar_of(filename)
    if grammar == "markdown":
        return _redact_markdown(text, counter)
    if grammar is not None:
        return _redact_config(text, grammar, counter)
    return _redact_pairs(text, _SOURCE_ASSIGN, True, counter)


def _extra_rules(extra_patterns: Sequence[str] | Sequence[ShapeRule]) -> tuple[ShapeRule, ...]:
    if not extra_patterns:
        return ()
    if isinstance(extra_patterns[0], ShapeRule):
        return tuple(extra_patterns)  # type: ignore[arg-type]
    return compile_extra_patterns(extra_patterns)  # type: ignore[arg-type]


def redact(
    text: str,
    *,
    filename: str,
    extra_patterns: Sequence[str] | Sequence[ShapeRule] = (),
) -> tuple[str, dict[str, int]]:
    """`text` with every secret replaced by `[REDACTED:<kind>]`, and the count per kind.

    `filename` selects the key/value grammar (`.env`, YAML, JSON, INI, TOML, Markdown, source).
    `extra_patterns` are the config's regular expressions (or rules compiled from them).
    Idempotent: redacting the output again finds nothing. Line count is kept.
    """
    counter = _Counter()
    text = _apply_shapes(text, SHAPES, counter)
    text = _apply_aws_pairs(text, counter)
    text = _redact_by_grammar(text, filename, counter)
    extra = _extra_rules(extra_patterns)
    if extra:
        text = _apply_shapes(text, extra, counter)
    return text, counter.kinds


_DIFF_FILE = re.compile(r"^diff --git (?:\S+) b/(?P<name>.+)$")


def redact_diff(
    text: str, *, extra_patterns: Sequence[str] | Sequence[ShapeRule] = ()
) -> tuple[str, dict[str, int]]:
    """`redact` for a unified git diff: the shape rules over the whole text, then each file's
    hunks (without their ` `/`+`/`-` column) under that file's own grammar, so an added
    `password: x` line in a YAML file is caught like it would be in the file."""
    counter = _Counter()
    text = _apply_shapes(text, SHAPES, counter)
    text = _apply_aws_pairs(text, counter)
    out = []
    for section in re.split(r"(?m)^(?=diff --git )", text):
        first = section.split("\n", 1)[0]
        m = _DIFF_FILE.match(first)
        name = m.group("name") if m else "changes.diff"
        lines = section.split("\n")
        where: list[int] = []
        in_hunk = False
        for n, line in enumerate(lines):
            if line.startswith("@@"):
                in_hunk = True
            elif line.startswith("diff --git "):
                in_hunk = False
            elif in_hunk and line[:1] in (" ", "+", "-"):
                where.append(n)
        bodies = [lines[n][1:] for n in where]
        redacted = _redact_by_grammar("\n".join(bodies), name, counter).split("\n")
        if len(redacted) != len(bodies):  # cannot happen (line counts are kept); stay safe
            redacted = [_redact_by_grammar(b, name, counter) for b in bodies]
        for n, body in zip(where, redacted, strict=True):
            lines[n] = lines[n][0] + body
        out.append("\n".join(lines))
    text = "".join(out)
    extra = _extra_rules(extra_patterns)
    if extra:
        text = _apply_shapes(text, extra, counter)
    return text, counter.kinds
