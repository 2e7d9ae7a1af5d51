"""Redaction: every kind is caught in every file family, replaced by `[REDACTED:<kind>]` and
counted; ordinary code (hashes, UUIDs, base64 test data, parsers' `token` variables) is left
alone."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from context.secrets_corpus import _Gen
from council.context import redact, redact_diff
from council.context.redact import Redactor, is_placeholder, secret_key_kind
from council.errors import ConfigError

G = _Gen(7)
PEM_BODY = G.pem_body()
AWS_ID = G.aws_id()
AWS_SECRET = G.aws_secret()
GHP = "ghp_" + G.mixed(36)
GITHUB_PAT = f"github_pat_{G.mixed(22)}_{G.mixed(59)}"
GLPAT = "glpat-" + G.mixed(20)
XOXB = f"xoxb-{G.chars('0123456789', 11)}-{G.chars('0123456789', 12)}-{G.mixed(24)}"
OPENAI = "sk-proj-" + G.mixed(60, "_-")
OPENAI_CLASSIC = "sk-" + G.mixed(48)
ANTHROPIC = "sk-ant-api03-" + G.mixed(90, "_-")
GOOGLE = "AIza" + G.mixed(35, "_-")
JWT = G.jwt()
PASSWORD = G.password()
PNG_B64 = (  # a 1x1 PNG: base64 test data
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)


@pytest.mark.parametrize(
    ("text", "secret", "kind"),
    [
        (
            f"key = '''-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\n"
            "-----END RSA PRIVATE KEY-----'''",
            PEM_BODY.split("\n")[3],
            "private-key",
        ),
        (
            f"-----BEGIN OPENSSH PRIVATE KEY-----\n{PEM_BODY}\n-----END OPENSSH PRIVATE KEY-----\n",
            PEM_BODY.split("\n")[0],
            "private-key",
        ),
        (f"id = {AWS_ID!r}", AWS_ID, "aws-access-key-id"),
        (f"aws_secret_access_key = {AWS_SECRET!r}", AWS_SECRET, "aws-secret-key"),
        (f"{AWS_ID},{AWS_SECRET}", AWS_SECRET, "aws-secret-key"),
        (f"headers = {{'Authorization': 'token {GHP}'}}", GHP, "github-token"),
        (f"pat = {GITHUB_PAT!r}", GITHUB_PAT, "github-token"),
        (f"client = Gitlab(private_token={GLPAT!r})", GLPAT, "gitlab-token"),
        (f"SLACK = {XOXB!r}", XOXB, "slack-token"),
        (f"client = OpenAI(api_key={OPENAI!r})", OPENAI, "openai-key"),
        (f"openai.api_key = {OPENAI_CLASSIC!r}", OPENAI_CLASSIC, "openai-key"),
        (f"Anthropic(api_key={ANTHROPIC!r})", ANTHROPIC, "anthropic-key"),
        (f"genai.configure(api_key={GOOGLE!r})", GOOGLE, "google-api-key"),
        (f"session = {JWT!r}", JWT, "jwt"),
        (f"engine = create_engine('postgresql://app:{PASSWORD}@db/app')", PASSWORD, "url-password"),
        (f'conn = "Server=db;User Id=app;Password={PASSWORD};"', PASSWORD, "password"),
        (f"ADMIN_PASSWORD = {PASSWORD!r}", PASSWORD, "password"),
    ],
)
def test_each_secret_shape_is_redacted_in_source_code(text, secret, kind):
    out, kinds = redact(text, filename="module.py")
    assert secret not in out
    assert f"[REDACTED:{kind}]" in out
    assert kinds.get(kind, 0) >= 1


@pytest.mark.parametrize(
    ("filename", "text", "kind"),
    [
        (".env", "DB_PASSWORD={v}\n", "password"),
        (".env.local", "export API_TOKEN='{v}'\n", "token"),
        ("prod.env", 'SECRET_KEY="{v}" # rotate monthly\n', "secret"),
        ("settings.yaml", "db:\n  password: {v}\n", "password"),
        ("settings.yml", "stripe:\n  api_key: '{v}'\n", "api-key"),
        ("compose.yaml", "environment:\n  - POSTGRES_PASSWORD={v}\n", "password"),
        ("conf.json", '{{"auth": {{"apiKey": "{v}"}}}}', "api-key"),
        ("conf.json", '{{"password":"{v}","user":"x"}}', "password"),
        ("app.ini", "[db]\npassword = {v}\n", "password"),
        ("app.cfg", "[auth]\nprivate_key: {v}\n", "private-key"),
        ("pyproject.toml", '[tool.x]\ntoken = "{v}"\n', "token"),
        ("Cargo.toml", 'db = {{ user = "a", passwd = "{v}" }}\n', "password"),
        ("deploy.sh", "export SMTP_PASS={v}\n", "password"),
        ("README.md", "```env\nCLIENT_SECRET={v}\n```\n", "secret"),
        ("README.md", "```yaml\naccess_token: {v}\n```\n", "token"),
        ("README.md", 'Set `password = "{v}"` in the config.\n', "password"),
    ],
)
def test_values_of_secret_keys_are_redacted_in_config_files(filename, text, kind):
    value = "k" + G.mixed(23, "!#%")  # a leading "!" would be a YAML tag
    out, kinds = redact(text.format(v=value), filename=filename)
    assert value not in out
    assert kinds == {kind: 1}
    assert f"[REDACTED:{kind}]" in out


@pytest.mark.parametrize(
    ("filename", "text", "secret"),
    [
        # Users paste passwords into URLs unencoded, `#` and `?` included.
        ("values.yaml", 'url: "mysql://app:Xr7ZVF#s?Iw9@mysql:3306/app"\n', "Xr7ZVF#s?Iw9"),
        # A quoted value that starts with `!` is not a YAML tag.
        (".env", "SECRET_KEY='!b(puIOxot#O^*V4HA)Ybth'\n", "!b(puIOxot#O^*V4HA)Ybth"),
        ("values.yaml", "password: '!fO_jw)OQG*6v^1D'\n", "!fO_jw)OQG*6v^1D"),
    ],
)
def test_secrets_with_symbols_are_redacted_whole(filename, text, secret):
    out, kinds = redact(text, filename=filename)
    assert secret not in out
    assert sum(kinds.values()) == 1


def test_a_yaml_block_scalar_is_redacted_whole_and_keeps_its_lines():
    lines = [G.mixed(40) for _ in range(3)]
    text = "tls:\n  private_key: |\n" + "".join(f"    {x}\n" for x in lines) + "other: 1\n"
    out, kinds = redact(text, filename="values.yaml")
    assert not any(x in out for x in lines)
    assert kinds == {"private-key": 1}
    assert out.count("\n") == text.count("\n")
    assert out.endswith("other: 1\n")


def test_a_private_key_keeps_its_begin_and_end_lines_and_the_line_count():
    text = f"a\n-----BEGIN EC PRIVATE KEY-----\n{PEM_BODY}\n-----END EC PRIVATE KEY-----\nz\n"
    out, kinds = redact(text, filename="notes.txt")
    assert kinds == {"private-key": 1}
    assert out.splitlines()[1] == "-----BEGIN EC PRIVATE KEY-----"
    assert out.splitlines()[2] == "[REDACTED:private-key]"
    assert out.count("\n") == text.count("\n")
    assert out.endswith("-----END EC PRIVATE KEY-----\nz\n")


def test_a_private_key_whose_body_is_one_line_gets_its_marker_on_a_line_of_its_own():
    body = PEM_BODY.replace("\n", "")
    text = f"-----BEGIN PRIVATE KEY-----\n{body}\n-----END PRIVATE KEY-----\n"
    assert redact(text, filename="key.pem") == (
        "-----BEGIN PRIVATE KEY-----\n[REDACTED:private-key]\n-----END PRIVATE KEY-----\n",
        {"private-key": 1},
    )


def test_a_40_character_value_is_an_aws_secret_only_on_the_line_of_an_aws_key_id():
    # A checksum two lines below a key id is a checksum; beside one it is the key's secret.
    checksum = _Gen(40).mixed(40)
    text = f"aws_access_key_id = {AWS_ID}\nregion = eu-west-1\nchecksum = {checksum}\n"
    out, kinds = redact(text, filename="notes.txt")
    assert kinds == {"aws-access-key-id": 1}
    assert out.endswith(f"\nregion = eu-west-1\nchecksum = {checksum}\n")
    out, kinds = redact(f"{AWS_ID} {checksum}\n", filename="notes.txt")
    assert kinds == {"aws-access-key-id": 1, "aws-secret-key": 1}


def test_a_private_key_without_its_end_line_is_still_redacted():
    text = f"-----BEGIN PRIVATE KEY-----\n{PEM_BODY}\n"
    out, kinds = redact(text, filename="snippet.txt")
    assert kinds == {"private-key": 1}
    assert not any(line in out for line in PEM_BODY.split("\n"))


def test_code_that_only_names_the_pem_header_is_left_alone():
    text = (
        'if data.startswith(b"-----BEGIN RSA PRIVATE KEY-----"):\n'
        "    return load(data)\n"
        'FOOTER = "-----END RSA PRIVATE KEY-----"\n'
    )
    assert redact(text, filename="keys.py") == (text, {})


@pytest.mark.parametrize(
    "text",
    [
        'digest = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"',
        'commit = "9fceb02d0ae598e95dc970b74767f19372d61af8"',
        'request_id = "3f2504e0-4f89-11d3-9a0c-0305e82c3301"',
        'ID = UUID("123e4567-e89b-12d3-a456-426614174000")',
        f'PNG = base64.b64decode("{PNG_B64}")',
        'token = "NUMBER"',
        "token = next(tokens)",
        'if token == "(":',
        "max_tokens = 4096",
        'password = getpass.getpass("Password: ")',
        'password = os.environ["DB_PASSWORD"]',
        'PASSWORD_FIELD = "password"',
        'REFRESH_TOKEN = "REFRESH_TOKEN"',
        'url = f"postgres://{user}:{password}@{host}/db"',
        'url = "https://%s:%s@%s" % (user, password, host)',
        'dsn = "postgres://user:${DB_PASSWORD}@db/app"',
        'print(f"password={password!r}")',
        'help = "Enter the password for the admin account"',
        'secret_name = "prod/db"',
        "task-runner-with-a-very-long-kebab-name-for-testing-sk-values",
        'class_name = "sk-learn-pipeline-estimator-transformer-x"',
        "Authorization: Bearer <token>",
        "# Use `Bearer` authentication with an access token issued by the server",
    ],
)
def test_ordinary_code_is_not_redacted(text):
    assert redact(text, filename="ordinary.py") == (text, {})


@pytest.mark.parametrize(
    ("filename", "text"),
    [
        (".env", "DB_PASSWORD=${VAULT_DB_PASSWORD}\nAPI_KEY=<your-api-key>\nTOKEN=\n"),
        ("values.yaml", "password: !secret db_password\napi_key: ${API_KEY}\ntoken: null\n"),
        ("values.yaml", "max_tokens: 4096\ntoken_url: https://auth.example.com/token\n"),
        ("values.yaml", "password_file: /run/secrets/db\nsecret_name: prod-db\n"),
        ("paginators.json", '{"input_token": "NextToken", "output_token": "Marker"}'),
        ("app.ini", "[auth]\npassword = ********\napi_key = your-api-key-here\n"),
        ("conf.json", '{"Password": "The password for the admin user of the cluster."}'),
        ("conf.json", '{"SecretArn": "arn:aws:secretsmanager:us-east-1:1:secret:x"}'),
    ],
)
def test_placeholders_references_and_descriptions_are_not_redacted(filename, text):
    assert redact(text, filename=filename) == (text, {})


def test_redacting_twice_finds_nothing_new():
    text = (
        f"DB_PASSWORD={PASSWORD}\nGH={GHP}\nURL=postgres://a:{PASSWORD}@h/d\n"
        f"-----BEGIN PRIVATE KEY-----\n{PEM_BODY}\n-----END PRIVATE KEY-----\n"
    )
    once, kinds = redact(text, filename=".env")
    assert sum(kinds.values()) == 4
    assert redact(once, filename=".env") == (once, {})


def test_counts_are_per_kind_and_never_hold_the_secret():
    text = f"a = {GHP!r}\nb = {GHP!r}\nc = {GOOGLE!r}\n"
    _, kinds = redact(text, filename="x.py")
    assert kinds == {"github-token": 2, "google-api-key": 1}
    assert all(GHP not in k and GOOGLE not in k for k in kinds)


def test_extra_patterns_from_the_config_redact_their_group_or_the_whole_match():
    text = "employee id: ACME-12345-XY\ninternal host: build-7.corp.acme\n"
    out, kinds = redact(
        text,
        filename="notes.txt",
        extra_patterns=[r"ACME-\d{5}-[A-Z]{2}", r"internal host: (?P<secret>\S+)"],
    )
    assert out == "employee id: [REDACTED:custom]\ninternal host: [REDACTED:custom]\n"
    assert kinds == {"custom": 2}


@pytest.mark.parametrize("pattern", ["([unclosed", "a*", "^$"])
def test_a_bad_extra_pattern_is_a_config_error_that_names_it(pattern):
    with pytest.raises(ConfigError, match=r"redact\.extra_patterns\[0\]"):
        redact("x", filename="x.txt", extra_patterns=[pattern])


def test_a_diff_is_redacted_under_each_changed_files_own_grammar():
    value = "k" + G.mixed(19, "!#")  # a leading "!" would be a YAML tag
    diff = (
        "diff --git a/deploy/values.yaml b/deploy/values.yaml\n"
        "--- a/deploy/values.yaml\n+++ b/deploy/values.yaml\n"
        "@@ -1,2 +1,2 @@\n"
        " db:\n"
        "-  password: old-but-still-secret-1\n"
        f"+  password: {value}\n"
        "diff --git a/app.py b/app.py\n"
        "--- a/app.py\n+++ b/app.py\n"
        "@@ -1 +1 @@\n"
        f"-KEY = None\n+KEY = {GHP!r}\n"
    )
    out, kinds = redact_diff(diff)
    assert value not in out and GHP not in out and "old-but-still-secret-1" not in out
    assert kinds == {"password": 2, "github-token": 1}
    assert "+  password: [REDACTED:password]\n" in out
    assert out.count("\n") == diff.count("\n")


@pytest.mark.parametrize(
    ("key", "kind"),
    [
        ("DB_PASSWORD", "password"),
        ("PGPASSWORD", "password"),
        ("dbPassword", "password"),
        ("SMTP_PASS", "password"),
        ("x-api-key", "api-key"),
        ("APIKEY", "api-key"),
        ("private_key", "private-key"),
        ("client_secret", "secret"),
        ("GITHUB_TOKEN", "token"),
        ("PWD", None),
        ("password_file", None),
        ("max_tokens", None),
        ("tokenizer", None),
        ("token_url", None),
        ("secrets", None),
    ],
)
def test_secret_key_names_are_recognised_by_their_words(key, kind):
    assert secret_key_kind(key) == kind


def test_in_source_code_a_bare_token_name_is_not_a_credential():
    assert secret_key_kind("token", strict=True) is None
    assert secret_key_kind("access_token", strict=True) == "token"


@pytest.mark.parametrize(
    "value", ["${X}", "$X", "{{ .Values.pw }}", "<password>", "***", "xxxx", "changeme-api-key"]
)
def test_placeholders_are_recognised(value):
    assert is_placeholder(value)


# -- the ordinary corpus ---------------------------------------------------------------------


def _package_sources(name: str) -> list[Path]:
    spec = importlib.util.find_spec(name)
    assert spec is not None and spec.origin is not None
    return sorted(Path(spec.origin).parent.rglob("*.py"))


def ordinary_corpus() -> list[Path]:
    """council's own sources and README plus three of its dependencies' sources."""
    repo = Path(__file__).resolve().parents[2]
    files = [*sorted((repo / "src" / "council").rglob("*.py")), repo / "README.md"]
    for package in ("click", "jinja2", "anyio"):
        files += _package_sources(package)
    return files


def test_an_ordinary_corpus_of_code_yields_no_redaction():
    lines = 0
    found = {}
    for path in ordinary_corpus():
        text = path.read_text(encoding="utf-8")
        lines += text.count("\n")
        out, kinds = redact(text, filename=path.name)
        if kinds:
            found[str(path)] = kinds
        assert out == text or kinds
    assert lines >= 2000
    assert found == {}


# -- Edges that mutation testing found unguarded (docs/mutation.md) -------------------------


def test_an_unchanged_context_line_of_a_config_file_in_a_diff_is_redacted_too():
    value = "k" + G.mixed(19, "!#")  # a leading "!" would be a YAML tag
    diff = (
        "diff --git a/values.yaml b/values.yaml\n"
        "--- a/values.yaml\n+++ b/values.yaml\n"
        "@@ -1,3 +1,3 @@\n"
        f" password: {value}\n"
        "-replicas: 1\n"
        "+replicas: 2\n"
    )
    out, kinds = redact_diff(diff)
    assert value not in out
    assert " password: [REDACTED:password]\n" in out
    assert kinds == {"password": 1}


def test_an_aws_key_pair_on_one_line_of_a_diff_is_redacted_both_ways():
    diff = (
        "diff --git a/creds.csv b/creds.csv\n"
        "--- a/creds.csv\n+++ b/creds.csv\n"
        "@@ -0,0 +1 @@\n"
        f"+{AWS_ID},{AWS_SECRET}\n"
    )
    out, kinds = redact_diff(diff)
    assert AWS_ID not in out and AWS_SECRET not in out
    assert kinds == {"aws-access-key-id": 1, "aws-secret-key": 1}


def test_extra_patterns_from_the_config_apply_to_a_diff():
    diff = (
        "diff --git a/notes.txt b/notes.txt\n"
        "--- a/notes.txt\n+++ b/notes.txt\n"
        "@@ -0,0 +1 @@\n"
        "+employee id: ACME-12345-XY\n"
    )
    out, kinds = redact_diff(diff, extra_patterns=[r"ACME-\d{5}-[A-Z]{2}"])
    assert "+employee id: [REDACTED:custom]\n" in out
    assert kinds == {"custom": 1}
    assert redact_diff(diff)[0] == diff  # without the pattern, nothing to redact


def test_a_bearer_token_at_the_shortest_and_least_varied_machine_made_shape_is_redacted():
    shortest = G.mixed(20)  # 20 characters: the minimum
    least_varied = "Aa1Bb2Cc3D" * 2  # 10 distinct characters: the minimum
    for token in (shortest, least_varied):
        out, kinds = redact(f'headers = {{"Authorization": "Bearer {token}"}}', filename="x.py")
        assert token not in out, token
        assert kinds == {"bearer-token": 1}
    # A 19-character token is no machine-made secret.
    text = f"Bearer {G.mixed(19)}"
    assert redact(text, filename="x.py") == (text, {})


def test_a_hex_bearer_token_is_redacted_though_hex_alone_may_be_a_digest():
    text = "Bearer 3f786850e387550fdab836ed7e6dc881de23001b"
    assert redact(text, filename="x.py") == ("Bearer [REDACTED:high-entropy]", {"high-entropy": 1})
    digest = "sha1 = 3f786850e387550fdab836ed7e6dc881de23001b"
    assert redact(digest, filename="x.py") == (digest, {})


def test_beside_an_aws_key_id_only_a_mixed_40_character_value_is_taken_for_its_secret():
    sha = "3f786850e387550fdab836ed7e6dc881de23001b"  # a commit: lower case and digits
    camel = "XmlHttpRequestFactoryProviderBuilderImpl"  # letters only
    assert len(camel) == 40
    out, kinds = redact(f"{AWS_ID} {sha} {camel}\n", filename="notes.txt")
    assert out == f"[REDACTED:aws-access-key-id] {sha} {camel}\n"
    assert kinds == {"aws-access-key-id": 1}


def test_a_quoted_secret_value_keeps_its_quotes_and_the_comment_after_it():
    value = G.mixed(16)
    for filename, text, kind in (
        ("values.yaml", f'password: "{value}"  # the "old" one\n', "password"),
        (".env", f"API_TOKEN='{value}' # rotated\n", "token"),
        ("app.toml", f'secret = "{value}"\n', "secret"),
    ):
        out, kinds = redact(text, filename=filename)
        assert out == text.replace(value, f"[REDACTED:{kind}]"), (filename, out)
        assert kinds == {kind: 1}


@pytest.mark.parametrize(
    ("filename", "text"),
    [
        (".env", "PASSWORD=correct horse Xenon staple # prod\n"),
        ("values.yaml", "password: correct horse Xenon staple # prod\n"),
        ("app.ini", "[db]\npassword = correct horse Xenon staple ; prod\n"),
    ],
)
def test_an_unquoted_value_with_spaces_is_redacted_whole_up_to_its_comment(filename, text):
    out, kinds = redact(text, filename=filename)
    assert "Xenon" not in out and "staple" not in out
    assert out == text.replace("correct horse Xenon staple", "[REDACTED:password]")
    assert kinds == {"password": 1}


def test_a_yaml_block_scalar_ends_at_a_sibling_key_and_at_the_end_of_the_text():
    sibling = "db:\n  password: |\n    line-One-1\n    line-Two-2\n  user: app\n"
    assert redact(sibling, filename="values.yaml") == (
        "db:\n  password: |\n    [REDACTED:password]\n\n  user: app\n",
        {"password": 1},
    )
    at_end = "password: |\n  line-One-1\n  line-Two-2"
    assert redact(at_end, filename="values.yaml") == (
        "password: |\n  [REDACTED:password]\n",
        {"password": 1},
    )
    empty = "password: |\nuser: app\n"  # an empty block: the next key is no part of it
    assert redact(empty, filename="values.yaml") == (empty, {})


def test_a_secret_over_several_lines_is_replaced_keeping_the_line_count():
    redactor = Redactor([r"(?s)BEGIN SECRET.*?END SECRET"])
    out, kinds = redactor.text("a\nBEGIN SECRET\nxyz\nEND SECRET\nb\n", filename="notes.txt")
    assert out == "a\n[REDACTED:custom]\n\n\nb\n"
    assert kinds == {"custom": 1}


def test_an_extra_patterns_secret_is_its_named_group_else_its_first_group():
    text = "admin password: hunter2-X\nuser token=abc123\n"
    out, kinds = redact(
        text,
        filename="notes.txt",
        extra_patterns=[r"(admin|user) password: (?P<secret>\S+)", r"token=(\w+)"],
    )
    assert out == "admin password: [REDACTED:custom]\nuser token=[REDACTED:custom]\n"
    assert kinds == {"custom": 2}
