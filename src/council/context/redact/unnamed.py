"""Secrets found without a key name: by where they stand (an `Authorization` or `X-Api-Key`
header, a connection string's `AccountKey=`, a URL's `?sig=`, a `--password` flag, a
client constructor's argument beside an account id) or by what they look like (a long
machine-made token). These run after the shapes and the key/value grammars, so they only see
what those left; whatever they take is written `[REDACTED:<kind>]` like the rest.

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
from collections.abc import Callable
from itertools import pairwise

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


# -- tokens that look machine-made ----------------------------------------------------------

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
