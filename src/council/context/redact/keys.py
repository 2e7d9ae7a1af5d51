"""Values under secret-looking names: which key names hold secrets, and which values under
them are not secrets (placeholders, references, descriptions, identifiers)."""

from __future__ import annotations

import re
from itertools import pairwise

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


# A word or identifier (`Marker`, `REFRESH_TOKEN`, `not supported`): a key or token is
# machine-made, so such a value under its name is a field name or a constant.
IDENTIFIER_LIKE = re.compile(r"[A-Za-z]+(?:[-_. :][A-Za-z]+)*")

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
        "encryption",  # postgresql.conf's password_encryption = scram-sha-256
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
        # The value names where the secret goes: `SESSION_TOKEN_QUERY_PARAM = "X-Amz-..."`.
        "param",
        "params",
        "parameter",
        "query",
        "attribute",
        "attr",
        "column",
        "property",
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
    if not strict and key.rsplit(":", 1)[-1] == "_auth":
        return "password"  # .npmrc's `_auth`: base64 of `user:password`
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
        # The qualifier before (`BOT_TOKEN`) or, in names written token-first, after it
        # (`TOKEN_BOT`).
        around = words[i - 1 : i] + words[i + 1 : i + 2]
        if not strict or any(w in _TOKEN_QUALIFIERS for w in around):
            return "token"
        return None
    if not strict and joined.endswith(("apitoken", "accesstoken", "authtoken", "identitytoken")):
        return "token"
    return None


def config_key_kind(key: str) -> str | None:
    """`secret_key_kind` for config files, plus `auth`: a registry config's
    `"auth": "<base64 of user:password>"` (docker, npm); a word under it (`auth: basic`,
    `auth: none`) is a setting and stays, as under every name but a password's."""
    kind = secret_key_kind(key)
    if kind is None and _split_words(key)[-1:] == ["auth"]:
        return "auth"
    return kind
