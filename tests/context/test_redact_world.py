"""Redaction that does not depend on knowing the key's name (issue 29): secrets as the world
leaves them (`secrets_corpus_world.py`) are gone whole, their look-alikes stay, and each rule
that finds a secret by where it stands or how it looks is pinned on its own."""

from __future__ import annotations

import base64
import importlib
import random
import string

import pytest

from context.secrets_corpus_world import lookalikes, world_secrets
from council.context import redact, redact_diff
from council.context.redact import PROVIDERS

generated = importlib.import_module("council.context.redact.generated")
prefixes = importlib.import_module("council.context.redact.prefixes")

WORLD = world_secrets()
RNG = random.Random(29)
ALNUM = string.ascii_letters + string.digits


def mixed(n: int, rng: random.Random = RNG) -> str:
    while True:
        value = "".join(rng.choice(ALNUM) for _ in range(n))
        if any(c.isdigit() for c in value) and value.lower() != value != value.upper():
            return value


def hexs(n: int, rng: random.Random = RNG) -> str:
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def test_the_world_corpus_has_40_secrets_of_25_kinds_over_code_configs_shell_markdown_prose():
    assert len(WORLD) >= 40
    assert len({w.kind for w in WORLD}) >= 25
    assert {w.where for w in WORLD} == {"code", "config", "shell", "markdown", "prose"}
    assert all(len(w.secret) >= 12 and w.secret in w.text for w in WORLD)


@pytest.mark.parametrize("secret", WORLD, ids=[w.kind for w in WORLD])
def test_a_secret_as_the_world_leaves_it_is_redacted_whole(secret):
    out, kinds = redact(secret.text, filename=secret.filename)
    assert secret.survivors(out) == [], out
    assert sum(kinds.values()) >= 1
    assert "[REDACTED:" in out
    assert out.count("\n") == secret.text.count("\n")


@pytest.mark.parametrize("secret", WORLD, ids=[w.kind for w in WORLD])
def test_a_secret_as_the_world_leaves_it_is_redacted_in_a_diff_too(secret):
    lines = secret.text.rstrip("\n").split("\n")
    diff = (
        f"diff --git a/{secret.filename} b/{secret.filename}\n"
        f"--- a/{secret.filename}\n+++ b/{secret.filename}\n"
        f"@@ -0,0 +1,{len(lines)} @@\n" + "".join(f"+{line}\n" for line in lines)
    )
    out, _ = redact_diff(diff)
    assert secret.survivors(out) == [], out


@pytest.mark.parametrize(("filename", "text"), lookalikes(), ids=[f for f, _ in lookalikes()])
def test_a_look_alike_of_a_secret_stays_as_it_is(filename, text):
    assert redact(text, filename=filename) == (text, {})


def test_redacting_the_world_corpus_twice_finds_nothing_new():
    for secret in WORLD:
        once, _ = redact(secret.text, filename=secret.filename)
        assert redact(once, filename=secret.filename) == (once, {}), secret.kind


# -- the prefix table --------------------------------------------------------------------


def test_the_prefix_table_covers_at_least_a_hundred_providers():
    assert len(PROVIDERS) >= 100


@pytest.mark.parametrize(
    ("token", "provider"),
    [
        ("hf_" + mixed(34), "huggingface"),
        ("gsk_" + mixed(52), "groq"),
        ("shpat_" + hexs(32), "shopify"),
        ("dop_v1_" + hexs(64), "digitalocean"),
        ("sk-or-v1-" + hexs(64), "openrouter"),
        ("sk-" + hexs(32), "deepseek"),
        ("glsa_" + mixed(32) + "_" + hexs(8), "grafana"),
        (
            "AGE-SECRET-KEY-1"
            + "".join(RNG.choice("023456789ACDEFGHJKLMNPQRSTUVWXYZ") for _ in range(58)),
            "age",
        ),
    ],
)
def test_a_vendor_token_is_known_by_its_prefix_in_prose(token, provider):
    text = f"Use {token}. It works."
    assert redact(text, filename="notes.md") == (
        f"Use [REDACTED:{provider}-token]. It works.",
        {f"{provider}-token": 1},
    )


@pytest.mark.parametrize(
    "text",
    [
        "key-value-store-for-the-session-cache",  # `key-` then words: no digit, no token
        "API-REFERENCE-DOCUMENTATION-FOR-USERS",  # Octopus's `API-` then words
        "sk-" + hexs(33),  # one hex digit too many for DeepSeek's 32
        "data:image/png;base64,AAAAAAAAAAAAAAAAAAAAA/" + mixed(40),  # inside base64
    ],
)
def test_a_prefix_inside_or_before_something_longer_is_no_token(text):
    assert redact(text, filename="notes.md") == (text, {})


def test_a_vendor_token_must_end_where_its_word_ends():
    rng = random.Random(29)
    token = "hf_" + mixed(rng=rng, n=34)
    assert prefixes.prefixed_token(token + " ", 0) == ("huggingface", len(token))
    assert prefixes.prefixed_token(token + "-suffix", 0) is None
    shopify = "shpat_" + hexs(rng=rng, n=32)  # exactly 32 hex digits
    assert prefixes.prefixed_token(shopify + ";", 0) == ("shopify", len(shopify))
    assert prefixes.prefixed_token(shopify + "0", 0) is None


# -- by where it stands --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ('curl -H "Authorization: Bearer {v}" https://x', "authorization-header"),
        ("Proxy-Authorization: Basic {v}", "authorization-header"),
        ("Authorization: token {v}", "authorization-header"),
        ("  -H 'X-Api-Key: {v}' \\", "api-key-header"),
        ("curl -H 'x-goog-api-key: {v}' https://x", "api-key-header"),
        ("Server=db;Database=app;SharedAccessKey={v};", "connection-string"),
        ("AccountName=a;AccountKey={v}", "connection-string"),
        ("https://files.example.com/a.zip?sv=1&sig={v}&se=2", "url-secret"),
        ("mysqldump --password={v} app", "password"),
        ("deploy --api-key {v} --yes", "api-key"),
        ("curl -u admin:{v} https://x", "password"),
    ],
)
def test_a_secret_is_known_by_where_it_stands_without_a_key_name(text, kind):
    rng = random.Random(29)
    value = (
        hexs(rng=rng, n=8) + "-" + hexs(rng=rng, n=16)
    )  # no upper case: the bearer shape does not take it
    out, kinds = redact(text.format(v=value), filename="run.sh")
    assert out == text.format(v=f"[REDACTED:{kind}]")
    assert kinds == {kind: 1}


@pytest.mark.parametrize(
    "text",
    [
        'curl -H "Authorization: Bearer $TOKEN" https://x',
        "headers.Authorization = `Bearer ${this.token}`",
        "Authorization: Bearer <token>",
        '"Authorization": "Bearer " + self.access_token',
        "X-Request-Id: 3f2504e0-4f89-11d3-9a0c-0305e82c3301",
        "Idempotency-Key: 9b2c7f3e-41d2-4b7a-9a51-4b1f0b8c2d11",
        'fmt = "password={0}"',
        "var key = options.key;",
        "parser.add_argument('--password', help='the password')",
        "pg_dump --password-file /run/secrets/db --username app",
        "curl -u $USER:$PASS https://x",
        "see https://example.com/search?key=value&q=1",
        # Minified code: assignments end in `;` like a connection string's fields do.
        "let key=header.slice(0,firstColon).toLowerCase(),value=header.slice(firstColon+1);",
        "let apiKey=provider2.auth.apiKey;if(!apiKey)return;",
        "{signal:options?.signal,apiKey:apiKey||options?.apiKey,fetch:options?.fetch}",
    ],
)
def test_a_credentials_place_holding_a_variable_or_a_word_is_left_alone(text):
    assert redact(text, filename="run.sh") == (text, {})


def test_a_credential_beside_an_account_id_in_a_call_is_redacted_and_the_id_stays():
    rng = random.Random(29)
    sid = "AC" + hexs(rng=rng, n=32)
    token = hexs(rng=rng, n=32)
    text = f'client = Client("{sid}", "{token}")'
    out, kinds = redact(text, filename="sms.py")
    assert out == f'client = Client("{sid}", "[REDACTED:call-argument]")'
    assert kinds == {"call-argument": 1}


@pytest.mark.parametrize(
    "text",
    [
        'self.assertEqual(compute("abc123def456"), "abc123def456")',  # no auth-like callee
        'client = Client("localhost", "the default region")',  # words, not a credential
        'session = Session("https://api.example.com/v1", "./cache/dir2")',  # URL and path
        'login("alice", "password")',  # a placeholder word
        'createToken("FULLPLAIN", `v?${src[t.MAINVERSION]}${src[t.PRERELEASE]}?`)',  # a pattern
        'tls.connect({ALPNProtocols: ["h2", "http/1.1"]})',  # a version
    ],
)
def test_string_arguments_that_are_not_credentials_stay(text):
    assert redact(text, filename="x.py") == (text, {})


def test_a_netrc_entry_password_is_redacted_on_one_line_or_several():
    rng = random.Random(29)
    secret = mixed(rng=rng, n=20)
    for text in (
        f"machine api.example.com login bot password {secret}\n",
        f"machine api.example.com\n  login bot\n  password {secret}\n",
    ):
        out, kinds = redact(text, filename="netrc.txt")
        assert secret not in out
        assert kinds == {"password": 1}
    prose = "The default password is set on first login.\n"
    assert redact(prose, filename="x.py") == (prose, {})


def test_a_properties_password_quoted_in_markdown_prose_is_redacted():
    rng = random.Random(29)
    secret = mixed(rng=rng, n=12) + "%"
    text = f"Then set `spring.datasource.password={secret}` and restart.\n"
    out, kinds = redact(text, filename="README.md")
    assert out == "Then set `spring.datasource.password=[REDACTED:password]` and restart.\n"
    assert kinds == {"password": 1}
    words = "Set `spring.datasource.password=changeme` or a token: see below.\n"
    assert redact(words, filename="README.md") == (words, {})


# -- by how it looks -----------------------------------------------------------------------


def test_a_machine_made_token_alone_in_prose_is_redacted():
    rng = random.Random(29)
    token = mixed(rng=rng, n=32)
    out, kinds = redact(f"The old signing secret was {token} until May.", filename="a.md")
    assert out == "The old signing secret was [REDACTED:high-entropy] until May."
    assert kinds == {"high-entropy": 1}


def test_random_tokens_pass_the_machine_made_test_and_identifiers_do_not():
    rng = random.Random(29)
    tokens = [mixed(rng=rng, n=rng.randrange(20, 65)) for _ in range(300)]
    assert sum(map(generated.looks_generated, tokens)) >= 270  # 90 %: the rest have no digit etc.
    identifiers = [
        "resolveAwsSdkSigV4Config",
        "getSpanByIdV1ObservabilityTracesTraceIdSpansSpanIdGet",
        "ipIsPrivateV4Address",
        "N11evp_pkey_st4DOLLAR_12E",
        "assets/index11-1rn8G5-L",
        "agent_011CZkYpogX7uDKUyvBTophP",  # a typed object id
        "VGhpcyBpcyB0aGUgd2F5IGl0IGlz",  # base64 of a sentence
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
    ]
    assert [t for t in identifiers if generated.looks_generated(t)] == []


def test_hex_alone_is_redacted_unless_it_may_be_a_digest():
    rng = random.Random(29)
    key = hexs(32, rng)
    out, kinds = redact(f"export thing {key}\n", filename="x.sh")
    assert (out, kinds) == ("export thing [REDACTED:high-entropy]\n", {"high-entropy": 1})
    sha = hexs(40, rng)
    for text in (
        f"sha1 {key}\n",  # a hash named on its line
        f"This reverts {sha}.\n",  # a git SHA's length, lower-case hex
        f"digest {hexs(64, rng)}\n",
        '"sha256": {\n' + "".join(f'  "bin/{n}": "{hexs(64, rng)}",\n' for n in "ab") + "}\n",
        "".join(f'"{n}": "{hexs(48, rng)}",\n' for n in "abcd"),  # a list of one length
    ):
        assert redact(text, filename="manifest.json") == (text, {}), text
    lock = f'"left-pad": "{key}"\n'
    assert redact(lock, filename="pnpm-lock.yaml") == (lock, {})
    # After `Bearer` or `token` even a git SHA's length is a credential.
    out, kinds = redact(f"echo token: {sha}\n", filename="x.sh")
    assert sha not in out and kinds == {"high-entropy": 1}


def test_base64_data_is_not_a_key_a_base64_key_is():
    rng = random.Random(29)
    block = "\n".join(base64.b64encode(rng.randbytes(45)).decode() for _ in range(4))
    assert redact(block, filename="fixture.py") == (block, {})
    key = base64.b64encode(rng.randbytes(32)).decode()
    out, kinds = redact(f'key := decode("{key}")', filename="x.go")
    assert kinds == {"high-entropy": 1}
    assert key not in out


def test_a_minified_bundle_naming_keys_and_tokens_in_variables_yields_no_redaction():
    """A bundle is one long line of `key=`, `token=` and short quoted names."""
    rng = random.Random(29)
    line = ";".join(f"var k{n}=e.key;o.token=t;x['{mixed(rng=rng, n=8)}']=1" for n in range(20000))
    out, kinds = redact(line, filename="bundle.js")
    assert out == line
    assert kinds == {}


def test_a_registry_configs_auth_field_is_redacted_by_name_and_a_setting_under_auth_stays():
    auth = base64.b64encode(b"deploy:s3cret-pass").decode()
    text = f'{{"auths": {{"r.example.com": {{"auth": "{auth}", "identitytoken": "a.b-12345"}}}}}}'
    out, kinds = redact(text, filename="config.json")
    assert auth not in out and "a.b-12345" not in out
    assert kinds == {"auth": 1, "token": 1}
    settings = 'auth: basic\nauth: none\nbasic_auth: true\n"auth": {"type": "oidc"}\n'
    assert redact(settings, filename="values.yaml") == (settings, {})


def test_a_header_after_letters_whose_lower_case_is_longer_is_still_redacted_in_place():
    # `İ`.lower() is two characters: the needles are found in a lower-cased copy, which must
    # keep every index of the text.
    value = hexs(24, random.Random(3))
    text = "İstanbul İzmir\n" * 3 + f"curl -H 'Authorization: Bearer {value}' https://x\n"
    out, kinds = redact(text, filename="run.sh")
    assert out == text.replace(value, "[REDACTED:authorization-header]")
    assert kinds == {"authorization-header": 1}


def test_a_secret_far_along_a_long_line_is_found_near_its_own_needle():
    value = hexs(24, random.Random(4))
    line = "x" * 50_000 + f" X-Api-Key: {value} " + "y" * 50_000
    out, kinds = redact(line, filename="bundle.js")
    assert value not in out
    assert kinds == {"api-key-header": 1}


@pytest.mark.parametrize(
    ("filename", "pair"),
    [
        ("bundle.js", 'const dbPassword="{v}"'),
        ("app.json", '"api_key": "{v}"'),
        ("values.yaml", "{{user: app, password: {v}}}"),
    ],
)
def test_a_named_secret_deep_in_a_minified_line_is_redacted(filename, pair):
    value = mixed(24, random.Random(5))
    filler = ",".join(f'"k{n}":{n}' for n in range(8000))  # one line of 80 kB
    line = filler + "," + pair.format(v=value) + "," + filler
    out, kinds = redact(line, filename=filename)
    assert value not in out
    assert sum(kinds.values()) == 1
