"""Secrets found without a key name, by where they stand: an `Authorization` or `X-Api-Key`
header, a connection string's `AccountKey=`, a URL's `?sig=`, a `--password` flag, `.netrc`, a
client constructor's argument beside an account id, and tokens whose shape has a telling part
that is not a prefix. These run after the shapes, the key/value grammars and the vendor
prefixes, so they only see what those left; whatever they take is written `[REDACTED:<kind>]`
like the rest. A token standing alone with nothing around it is `generated`'s.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from council.context.redact.keys import is_placeholder, secret_key_kind
from council.context.redact.marks import (
    Hits,
    Replace,
    lower_same_length,
    replace_group,
    sub_near,
)

_STOP = r"[^\s\"'`,;<>{}()\[\]\\|]"  # a header value's characters

# `Authorization: Bearer x`, `"Authorization": "token x"`, `-H 'Proxy-Authorization: Basic x'`.
_AUTH_HEADER = re.compile(
    r"(?i)(?<![\w-])(?:proxy-)?authorization[\"'`]?\s*[:=]\s*[\"'`]?"
    r"(?:(?:bearer|token|basic|bot|apikey|api-key|sso-key|key|sharedkey|ssws|otoken|hmac"
    r"|dsn|klaviyo-api-key|genieKey|splunk|zoho-oauthtoken)\s+)?"
    rf"(?P<v>{_STOP}{{8,1024}})"
)
# `X-Api-Key: x`, `"x-goog-api-key": "x"`, `Private-Token: x`, `DD-API-KEY: x`. (The name
# must not continue a longer word: checked in code, a look-behind here would be tried at
# every character.)
_KEY_HEADER = re.compile(
    r"(?i)(?P<name>x-[a-z0-9-]*?(?:key|token|secret|auth|signature|password|session)"
    r"|[a-z0-9]+-(?:api-key|application-key|access-token|auth-token|api-token)"
    r"|api-key|private-token|circle-token|ocp-apim-subscription-key|x-honeycomb-team)"
    rf"[\"'`]?[ \t]*:[ \t]*[\"'`]?(?P<v>{_STOP}{{8,2048}})"
)
# Header names that end like a credential's and are not one.
_NOT_CREDENTIAL_HEADER = re.compile(
    r"(?i)idempotency|request|correlation|trace|cache|dedup|content|routing|partition|"
    r"ratelimit|rate-limit|public|client-key-id|key-id|token-type|auth-type|auth-scheme"
)

# A `;`-separated connection string's secret field: Azure's `AccountKey=` and
# `SharedAccessKey=`, ADO.NET's `Password=`, and their kin.
_CONNECTION_FIELD = re.compile(
    r"(?i)(?P<key>AccountKey|SharedAccessKey|SharedAccessSignature|SharedSecret|AccessKey"
    r"|SecretKey|Secret|ClientSecret|Client[ _]Secret|Password|Pwd|ApiKey|Api[ _]Key|AuthToken"
    r"|Auth[ _]Token|Token|PrimaryKey|SecondaryKey|Key)"
    r"=(?P<v>[^;'\"\s<>`()\[\]{},|]{4,1024})(?P<post>;|$|[\s'\"<>`])",
    re.M,
)
# A secret in a URL's query: `?sig=`, `&access_token=`, `?key=`, presigned URLs' signatures.
_URL_QUERY = re.compile(
    r"(?i)[?&](?:access_token|accesstoken|token|auth_token|api_key|apikey|api-key|key|sig"
    r"|signature|x-amz-signature|x-amz-security-token|x-goog-signature|x-goog-credential"
    r"|secret|client_secret|password|passwd|pwd|private_token|refresh_token|id_token)"
    r"=(?P<v>[^&#\s\"'<>`]{8,1024})"
)
# A command line's flag: `--password=x`, `--api-key x`, `--token "x"`.
_FLAG = re.compile(
    r"--(?P<key>[A-Za-z][\w-]{1,40})(?:=|[ \t]+)(?P<q>[\"']?)"
    r"(?P<v>[^\s\"'`-][^\s\"'`]{5,1024})(?P=q)(?=[\s;|&)]|$)",
    re.M,
)
# `curl -u user:password`, `--user user:password`.
_USER_FLAG = re.compile(r"-(?:u|-user)[ \t]+(?P<q>[\"']?)[^\s:\"'$]+:(?P<v>[^\s\"']{4,1024})(?P=q)")
# A call whose string arguments may hold a credential beside an id:
# `Client("AC...", "token")`, `auth=("user", "pass")`, `new Twilio('AC...', '...')`.
_CALL = re.compile(
    r"(?P<callee>[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)[ \t]*(?:=[ \t]*)?"
    r"\((?P<args>[^()\n]{10,600}+)\)"
)
_LITERAL = re.compile(r"[rbuRBU]?(?P<q>[\"'`])(?P<v>(?:\\.|(?!(?P=q))[^\\\n])*)(?P=q)")
# Where such a call may be: a string literal, a comma, and a literal of credential length (in a
# look-ahead, so that the second literal can start the next pair).
_LITERAL_PAIR = re.compile(
    r"(?P<q1>[\"'`])(?:\\.|(?!(?P=q1))[^\\\n]){0,300}?(?P=q1)[ \t]*,[ \t]*"
    r"(?=[rbuRBU]?(?P<q2>[\"'`])(?P<v>(?:\\.|(?!(?P=q2))[^\\\n]){8,300}?)(?P=q2))"
)
_CALLEE_BEFORE = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*[ \t]*(?:=[ \t]*)?\($")
_AUTH_CALLEE = re.compile(
    r"(?i)client|auth|login|logon|signin|sign_in|credential|connect|session|token|secret"
    r"|apikey|api_key|account|basic|password|passwd|sdk|twilio|pusher|algolia|signer|keypair"
)
# Ids a credential stands beside: Twilio's account SID, a UUID, an e-mail address, a key id
# already redacted.
_ID = re.compile(
    r"AC[0-9a-f]{32}|[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}"
    r"|[\w.+-]+@[\w-]+\.[\w.-]+|\[REDACTED:[a-z0-9-]+\]"
)


# Tokens whose shape has a telling part that is not a prefix; each is looked for only near
# where its needle is. (kind, needle, pattern)
_MARKED: tuple[tuple[str, str, re.Pattern[str]], ...] = (
    ("telegram-token", r":AA", re.compile(r"(?<![\w:])\d{8,10}:AA[A-Za-z0-9_-]{33}(?![\w-])")),
    (
        "discord-token",
        r"\.[A-Za-z0-9_-]{6}\.",
        re.compile(
            r"(?<![\w.-])[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}(?![\w-])"
        ),
    ),
    ("mailchimp-key", r"-us\d", re.compile(r"(?<![\w-])[0-9a-f]{32}-us\d{1,2}(?![\w-])")),
    (
        "terraform-token",
        r"\.atlasv1\.",
        re.compile(r"(?<![\w.])[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,}"),
    ),
    (
        "azure-ad-client-secret",
        r"\dQ~",
        re.compile(r"(?<![\w~.-])[A-Za-z0-9_~.-]{3}\dQ~[A-Za-z0-9_~.-]{31,34}(?![\w~.-])"),
    ),
    (
        "braintree-token",
        r"access_token\$",
        re.compile(r"access_token\$(?:production|sandbox)\$[a-z0-9]{16}\$[a-f0-9]{32}"),
    ),
    ("firebase-key", r":APA91b", re.compile(r"AAAA[A-Za-z0-9_-]{7}:APA91b[A-Za-z0-9_-]{100,}")),
    (
        "salesforce-token",
        r"00D[A-Za-z0-9]{12,15}!",
        re.compile(r"(?<![\w!])00D[A-Za-z0-9]{12,15}![A-Za-z0-9._]{80,}"),
    ),
)
# `.netrc` and its kin: `machine host login me password secret`, on one line or several.
_NETRC = re.compile(
    r"(?:(?<!\S)machine\s+\S+|(?m:^)[ \t]*default)(?:\s+(?:login|account|port)\s+\S+)*"
    r"\s+password\s+(?P<v>\S+)"
)


_AUTHORIZATION = re.compile("authorization")
_KEY_HEADER_NEEDLE = re.compile(
    r"(?:key|token|secret|auth|signature|password|session|team)[\"'`]?[ \t]*:"
)
_CONNECTION_NEEDLE = re.compile(r"(?:key|signature|secret|password|pwd|token)=")


def apply_marked(text: str, counter: Hits) -> str:
    """The tokens of `_MARKED` and `.netrc` passwords."""
    for kind, needle, pattern in _MARKED:
        text = sub_near(
            text,
            re.compile(needle),
            pattern,
            lambda m, kind=kind: _marked(m, kind, counter),
            before=160,
            after=200,
        )
    if "password" in text and ("machine" in text or "default" in text):

        def netrc(m: re.Match[str]) -> str:
            if is_placeholder(m.group("v")):
                return m.group(0)
            return replace_group(m, "v", counter.hit("password"))

        text = _NETRC.sub(netrc, text)
    return text


def _marked(m: re.Match[str], kind: str, counter: Hits) -> str:
    token = m.group(0)
    if not any(c.isdigit() for c in token) or len(set(token)) < 10:
        return token
    return counter.hit(kind)


def credential_value(value: str) -> bool:
    """A value that stands where a credential goes and is one: not a placeholder, a variable,
    an expression or a word."""
    v = value.strip().strip("\"'`")
    if len(v) < 6 or is_placeholder(v) or v.startswith(("$", "%", "#", "-", "@")):
        return False
    if re.fullmatch(r"[\w$.?!]+", v) and not any(c.isdigit() for c in v):
        return False  # `token`, `self.apiKey`, `e.headers`, `options?.apiKey`, `process.env.KEY`
    if re.match(r"(?:process\.env|os\.environ|env|self|this|config|settings)\b", v):
        return False
    return any(c.isdigit() for c in v) or (len(v) >= 16 and len(set(v)) >= 8)


def _secretish_argument(value: str) -> bool:
    """A call's string argument that may be a credential: one token, not a URL, path, id,
    identifier, pattern or template, with a digit or a symbol."""
    v = value
    if (
        len(v) < 8
        or not _ARGUMENT_CHARS.fullmatch(v)
        or "://" in v
        or v.startswith(("/", "./", "~", "{"))
        or _ID.fullmatch(v)
        or not credential_value(v)
        or len(set(v)) < 8  # `http/1.1`, `v1.2.3-rc1`: versions, not credentials
    ):
        return False
    return any(not c.isalpha() for c in v)


# What a credential passed as an argument is made of: no spaces, brackets, escapes or `${`
# (`createToken("FULL", `^v?${src[t.MAIN]}$`)` builds a pattern, not a secret).
_ARGUMENT_CHARS = re.compile(r"(?!.*\$\{)[A-Za-z0-9_\-+/=.~!@#$%^&*:]+")


def _continues_a_word(text: str, start: int) -> bool:
    return start > 0 and (text[start - 1].isalnum() or text[start - 1] in "_-")


def _header_name_is_credential(name: str) -> bool:
    return not _NOT_CREDENTIAL_HEADER.search(name)


def apply_context_rules(text: str, counter: Hits) -> str:
    """Headers, connection strings, URL queries, command-line flags and call arguments."""

    def value_rule(kind: str, check: Callable[[str], bool] = credential_value) -> Replace:
        def repl(m: re.Match[str]) -> str:
            if not check(m.group("v")):
                return m.group(0)
            return replace_group(m, "v", counter.hit(kind))

        return repl

    def key_header(m: re.Match[str]) -> str:
        if (
            _continues_a_word(m.string, m.start())
            or not _header_name_is_credential(m.group("name"))
            or not credential_value(m.group("v"))
        ):
            return m.group(0)
        return replace_group(m, "v", counter.hit("api-key-header"))

    def connection(m: re.Match[str]) -> str:
        # Only a field of a `;`-separated string: `password={0}` in a format string is not,
        # nor `let key=...;` in code. The field starts the string or follows a `;`.
        source, start = m.string, m.start()
        while start > 0 and source[start - 1] in " \t":
            start -= 1
        before = source[start - 1] if start > 0 else ""
        allowed = (";",) if start < m.start() else (";", '"', "'", "`", "\n", "")
        if (
            before not in allowed
            or ";" not in (before, m.group("post"))
            or not credential_value(m.group("v"))
        ):
            return m.group(0)
        return replace_group(m, "v", counter.hit("connection-string"))

    def flag(m: re.Match[str]) -> str:
        kind = secret_key_kind(m.group("key"))
        if _continues_a_word(m.string, m.start()) or kind is None:
            return m.group(0)
        if not credential_value(m.group("v")):
            return m.group(0)
        return replace_group(m, "v", counter.hit(kind))

    def user_flag(m: re.Match[str]) -> str:
        value = m.group("v")
        if _continues_a_word(m.string, m.start()) or is_placeholder(value) or "[REDACTED:" in value:
            return m.group(0)
        return replace_group(m, "v", counter.hit("password"))

    # Each rule is tried near its needle only (see `sub_near`); the needles are lower case.
    window = 1200  # past the longest value a rule takes
    text = sub_near(
        text,
        _AUTHORIZATION,
        _AUTH_HEADER,
        value_rule("authorization-header"),
        before=16,
        after=window,
        haystack=lower_same_length(text),
    )
    text = sub_near(
        text,
        _KEY_HEADER_NEEDLE,
        _KEY_HEADER,
        key_header,
        before=64,
        after=window,
        haystack=lower_same_length(text),
    )
    text = sub_near(
        text,
        _CONNECTION_NEEDLE,
        _CONNECTION_FIELD,
        connection,
        before=32,
        after=window,
        haystack=lower_same_length(text),
    )
    if "=" in text:
        text = _URL_QUERY.sub(value_rule("url-secret"), text)
    if "-" in text:
        text = _FLAG.sub(flag, text)
        text = _USER_FLAG.sub(user_flag, text)
    return _apply_calls(text, counter)


def _apply_calls(text: str, counter: Hits) -> str:
    def call(m: re.Match[str]) -> str:
        args = m.group("args")
        literals = list(_LITERAL.finditer(args))
        if len(literals) < 2:
            return m.group(0)
        callee = m.group("callee").rsplit(".", 1)[-1]
        values = [lit.group("v") for lit in literals]
        if not _AUTH_CALLEE.search(callee) and not any(_ID.fullmatch(v) for v in values):
            return m.group(0)
        out = []
        done = 0
        for lit in literals[1:]:
            if _secretish_argument(lit.group("v")):
                start, end = lit.span("v")
                out += [args[done:start], counter.hit("call-argument")]
                done = end
        if not out:
            return m.group(0)
        out.append(args[done:])
        return replace_group(m, "args", "".join(out))

    # A call is looked at only where a literal that may be a credential follows another one:
    # matching every call of a minified bundle costs a scan of its arguments per call.
    out: list[str] = []
    done = 0
    for pair in _LITERAL_PAIR.finditer(text):
        if pair.start() < done or not _secretish_argument(pair.group("v")):
            continue
        opening = text.rfind("(", max(0, pair.start() - 600), pair.start())
        if opening == -1 or any(c in text[opening : pair.start()] for c in ")\n"):
            continue
        callee = _CALLEE_BEFORE.search(text, max(0, opening - 200), opening + 1)
        whole = _CALL.match(text, callee.start()) if callee else None
        if whole is None or whole.end() <= pair.start():
            continue
        replaced = call(whole)
        if replaced != whole.group(0):
            out += [text[done : whole.start()], replaced]
            done = whole.end()
    if not out:
        return text
    out.append(text[done:])
    return "".join(out)
