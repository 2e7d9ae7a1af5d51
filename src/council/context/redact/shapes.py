"""Shapes that are secrets wherever they appear, in any file: private keys, cloud and forge
tokens, vendor API keys, JWTs, bearer tokens, credentials in URLs; and the user's own
patterns (`redact.extra_patterns`)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from council.context.redact.keys import is_placeholder
from council.context.redact.marks import (
    Hits,
    keep_lines,
    lower_same_length,
    replace_group,
    sub_near,
)
from council.errors import ConfigError


def looks_random(value: str, *, min_len: int = 20) -> bool:
    """A machine-made token: long, mixes upper case, lower case and digits, many distinct
    characters. Kebab-case words and hex digests fail it."""
    return (
        len(value) >= min_len
        and any(c.isupper() for c in value)
        and any(c.islower() for c in value)
        and any(c.isdigit() for c in value)
        and len(set(value)) >= 10
    )


@dataclass(frozen=True)
class ShapeRule:
    kind: str
    pattern: re.Pattern[str]
    group: int | str = 0  # the part of the match that is secret
    check: Callable[[str], bool] | None = None  # extra test on the secret part
    match_check: Callable[[re.Match[str]], bool] | None = None  # extra test on the whole match
    # Where to look: the pattern is tried only from `before` characters ahead of a hit of
    # `needle` (in the lower-cased text when `lower`) to `after` past it. Every match holds a
    # needle hit; `after` is past the longest match. None: the whole text.
    needle: re.Pattern[str] | None = None
    before: int = 0
    after: int = 0
    lower: bool = False


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
    ShapeRule(
        "aws-access-key-id",
        re.compile(r"\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b"),
        needle=re.compile(r"AKIA|ASIA|ABIA|ACCA"),
        before=1,
        after=24,
    ),
    ShapeRule(
        "aws-secret-key",
        re.compile(
            r"(?i)(?:aws)?_?secret_?(?:access)?_?key[\"']?\s*(?:[:=]|=>)\s*[\"']?"
            r"(?P<v>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"
        ),
        group="v",
        needle=re.compile(r"secret"),
        before=8,
        after=120,
        lower=True,
    ),
    ShapeRule(
        "github-token",
        re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{50,255})\b"),
        needle=re.compile(r"gh[pousr]_|github_pat_"),
        before=1,
        after=300,
    ),
    ShapeRule(
        "gitlab-token",
        re.compile(
            r"\bgl(?:pat|dt|rt|ptt|cbt|oas|soat|ft|imt|agent)-[A-Za-z0-9_-]{20,}(?![A-Za-z0-9_-])"
        ),
        needle=re.compile(r"gl(?:pat|dt|rt|ptt|cbt|oas|soat|ft|imt|agent)-"),
        before=1,
        after=8192,
    ),
    ShapeRule(
        "slack-token",
        re.compile(r"\bxox[abposre]-(?:[0-9]+-)*[A-Za-z0-9-]{10,}|\bxapp-\d-[A-Za-z0-9-]{20,}"),
        needle=re.compile(r"xox[abposre]-|xapp-"),
        before=1,
        after=8192,
    ),
    ShapeRule(
        "slack-webhook",
        re.compile(r"https://hooks\.slack\.com/(?:services|workflows)/(?P<v>[A-Za-z0-9/_-]{20,})"),
        group="v",
    ),
    ShapeRule(
        "anthropic-key",
        re.compile(r"\bsk-ant-[A-Za-z0-9_-]{20,}"),
        needle=re.compile(r"sk-ant-"),
        before=1,
        after=8192,
    ),
    ShapeRule(
        "openai-key",
        re.compile(r"\bsk-(?!ant-)(?:proj-|svcacct-|admin-)?(?P<v>[A-Za-z0-9_-]{20,})"),
        check=lambda v: looks_random(v),
        needle=re.compile(r"sk-"),
        before=1,
        after=8192,
    ),
    ShapeRule(
        "google-api-key",
        re.compile(r"\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])"),
        needle=re.compile(r"AIza"),
        before=1,
        after=48,
    ),
    ShapeRule(
        "google-oauth",
        re.compile(r"\bGOCSPX-[A-Za-z0-9_-]{24,}|\bya29\.[0-9A-Za-z_-]{30,}"),
        needle=re.compile(r"GOCSPX-|ya29\."),
        before=1,
        after=8192,
    ),
    ShapeRule(
        "stripe-key",
        re.compile(r"\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{24,}\b"),
        needle=re.compile(r"[sr]k_(?:live|test)_"),
        before=1,
        after=8192,
    ),
    ShapeRule(
        "npm-token",
        re.compile(r"\bnpm_[A-Za-z0-9]{36}\b"),
        needle=re.compile(r"npm_"),
        before=1,
        after=48,
    ),
    ShapeRule(
        "jwt",
        re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*"),
        needle=re.compile(r"eyJ"),
        before=1,
        after=16384,
    ),
    ShapeRule(
        "bearer-token",
        re.compile(r"(?i)\bbearer\s+(?P<v>[A-Za-z0-9._~+/-]{20,}=*)"),
        group="v",
        check=lambda v: looks_random(v),
        needle=re.compile(r"bearer"),
        before=1,
        after=8192,
        lower=True,
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
            # The user may be empty (`redis://:secret@cache`), never a marker already put
            # there (`https://[REDACTED:github-token]@host`): no `[` or `]` in it.
            r"(?i)\b[a-z][a-z0-9+.-]{1,20}://[^\s:/?#@'\"<>()\[\]]{0,128}:"
            r"(?P<v>[^\s/@'\"<>]{1,256})@(?=[\w\[.-])"
        ),
        group="v",
        # `#` and `?` may be in the password: users paste them unencoded.
        check=lambda v: not is_placeholder(v),
        needle=re.compile(r"://"),
        before=24,
        after=400,
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


def apply_shapes(text: str, rules: Iterable[ShapeRule], counter: Hits) -> str:
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
                return replace_group(m, group, "\n" + hit + "\n" * (secret.count("\n") - 1))
            return replace_group(m, group, keep_lines(hit, secret))

        if rule.needle is None:
            text = rule.pattern.sub(repl, text)
        else:
            text = sub_near(
                text,
                rule.needle,
                rule.pattern,
                repl,
                before=rule.before,
                after=rule.after,
                haystack=lower_same_length(text) if rule.lower else None,
            )
    return text


def apply_aws_pairs(text: str, counter: Hits) -> str:
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
