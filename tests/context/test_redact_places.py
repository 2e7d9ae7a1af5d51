"""Secrets known by where they stand or by their key's name, each replaced by its
`[REDACTED:<kind>]` and nothing around it (docs/spec/protocol.md section 4, "By place" and
"By name"; docs/redaction.md)."""

from __future__ import annotations

import pytest

from council.context.redact import redact

ROWS = [
    # (file name, text, what it becomes, kind)
    (
        "notes.txt",
        "curl --user admin:Zq81xPw9 https://api.example.com",
        "curl --user admin:[REDACTED:password] https://api.example.com",
        "password",
    ),
    (
        "run.sh",
        "curl -u admin:Zq81xPw9 https://api.example.com",
        "curl -u admin:[REDACTED:password] https://api.example.com",
        "password",
    ),
    (
        "notes.txt",
        "GET https://idp.example.com/cb?id_token=Zq81xPw9aB3cD4",
        "GET https://idp.example.com/cb?id_token=[REDACTED:url-secret]",
        "url-secret",
    ),
    (
        "notes.txt",
        "X-Api-Key: 7f3a9c2e5b1d4f6a",
        "X-Api-Key: [REDACTED:api-key-header]",
        "api-key-header",
    ),
    (
        "notes.txt",
        "Proxy-Authorization: token 7f3a9c2e5b1d4f6a",
        "Proxy-Authorization: token [REDACTED:authorization-header]",
        "authorization-header",
    ),
    (
        "app.py",
        'CONN = "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=Zq81xPw9aB3cD4eF==;'
        'EndpointSuffix=core.windows.net"',
        'CONN = "DefaultEndpointsProtocol=https;AccountName=acct;'
        'AccountKey=[REDACTED:connection-string];EndpointSuffix=core.windows.net"',
        "connection-string",
    ),
    (
        "deploy.sh",
        "deploy --api-key Zq81xPw9aB3cD4 --region eu",
        "deploy --api-key [REDACTED:api-key] --region eu",
        "api-key",
    ),
    (
        "deploy.sh",
        "deploy --password=Zq81xPw9aB3cD4 --region eu",
        "deploy --password=[REDACTED:password] --region eu",
        "password",
    ),
    (
        "config.yaml",
        "ssh_passphrase: Zq81xPw9",
        "ssh_passphrase: [REDACTED:password]",
        "password",
    ),
    ("config.yaml", "clientsecret: Zq81xPw9", "clientsecret: [REDACTED:secret]", "secret"),
    ("config.yaml", "smtp_pwd: Zq81xPw9", "smtp_pwd: [REDACTED:password]", "password"),
    ("config.yaml", "db_pass: Zq81xPw9", "db_pass: [REDACTED:password]", "password"),
    ("app.py", 'db_pass = "Zq81xPw9"', 'db_pass = "[REDACTED:password]"', "password"),
    ("app.py", 'bot_token = "Zq81xPw9aB"', 'bot_token = "[REDACTED:token]"', "token"),
    ("app.py", 'deploy_token = "Zq81xPw9aB"', 'deploy_token = "[REDACTED:token]"', "token"),
    (".npmrc", "//registry.npmjs.org/:_auth=Zq81xPw9aB==", None, "password"),
]


@pytest.mark.parametrize(("filename", "text", "expected", "kind"), ROWS)
def test_a_secret_in_its_place_becomes_its_kinds_marker(filename, text, expected, kind):
    out, kinds = redact(text, filename=filename)
    assert kinds == {kind: 1}
    if expected is not None:
        assert out == expected
    else:
        assert "Zq81xPw9aB" not in out and f"[REDACTED:{kind}]" in out


@pytest.mark.parametrize(
    ("filename", "text"),
    [
        ("notes.txt", "Idempotency-Key: 7f3a9c2e5b1d4f6a"),
        ("notes.txt", "X-Request-Token: 7f3a9c2e5b1d4f6a"),
        ("config.yaml", "password_file: /run/secrets/db"),
        ("config.yaml", "token_url: https://auth.example.com/token"),
        ("config.yaml", "max_tokens: 4096"),
        ("config.yaml", "password: your-password-here"),
        ("config.yaml", "api_key: ${API_KEY}"),
        ("app.py", 'parser = Lexer(token="IDENT")'),
    ],
)
def test_what_only_names_a_secret_stays_as_written(filename, text):
    assert redact(text, filename=filename) == (text, {})


@pytest.mark.parametrize(
    ("filename", "text", "expected"),
    [
        (".envrc", "export API_TOKEN=Zq81xPw9aB", "export API_TOKEN=[REDACTED:token]"),
        ("deploy.ksh", "DB_PASSWORD=opensesame", "DB_PASSWORD=[REDACTED:password]"),
        ("build.zsh", "DB_PASSWORD=opensesame", "DB_PASSWORD=[REDACTED:password]"),
        ("my.cnf", "[client]\npassword = opensesame", "[client]\npassword = [REDACTED:password]"),
        (".pypirc", "[pypi]\npassword = opensesame", "[pypi]\npassword = [REDACTED:password]"),
        ("app.properties", "db.password=opensesame", "db.password=[REDACTED:password]"),
        (
            "settings.json.example",
            '{"password": "opensesame"}',
            '{"password": "[REDACTED:password]"}',
        ),
        (
            "README.md",
            "Run:\n\n```shell\nexport DB_PASSWORD=opensesame\n```\n",
            "Run:\n\n```shell\nexport DB_PASSWORD=[REDACTED:password]\n```\n",
        ),
        (
            "docs/index.rst",
            "Set it:\n\n```yaml\ndb:\n  password: opensesame\n```\n",
            "Set it:\n\n```yaml\ndb:\n  password: [REDACTED:password]\n```\n",
        ),
    ],
)
def test_each_config_file_kind_reads_a_plain_word_under_a_password_name_as_one(
    filename, text, expected
):
    # A plain word is a password in a config file; in source code or prose it is not.
    assert redact(text, filename=filename)[0] == expected
    assert redact(text, filename="notes.txt") == (text, {})
