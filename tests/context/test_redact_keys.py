"""Which key names hold secrets and which values under them are not secrets (`redact/keys.py`),
seen the way a user sees them: a config file's `password: <value>` line sent redacted or as
written. Every case is a literal: the expected outcome never comes from the module's own
word lists."""

from __future__ import annotations

import pytest

from context.secrets_corpus import _Gen
from council.context import redact

G = _Gen(23)
VALUE = G.mixed(20)  # upper, lower and digits: a machine-made secret


# -- key names -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "kind"),
    [
        # `password`, `passwd`, `passphrase` anywhere in the name, not only as its last word.
        ("PASSWORD_HASH", "password"),
        ("password_confirmation", "password"),
        ("PASSWD_HASH", "password"),
        ("GPG_PASSPHRASE", "password"),
        # Glued to the word before it, or written as two capitalised words.
        ("DBPASSWD", "password"),
        ("PassWord", "password"),
        ("userPassWord", "password"),
        # `pass` and `pwd` as the last of two words or more.
        ("SMTP_PWD", "password"),
        ("SMTP_AUTH_PASS", "password"),
        ("dbPass", "password"),
        ("userPwd", "password"),
        ("SSH_PRIVATEKEY", "private-key"),
        ("JWTSECRET", "secret"),
        # A token glued to what it is for.
        ("APITOKEN", "token"),
        ("ACCESSTOKEN", "token"),
        ("NGROK_AUTHTOKEN", "token"),
    ],
)
def test_each_form_of_a_secret_key_name_has_its_value_redacted_with_its_kind(key, kind):
    text = f"{key}={VALUE}\n"
    out, kinds = redact(text, filename=".env")
    assert out == f"{key}=[REDACTED:{kind}]\n"
    assert kinds == {kind: 1}


def test_ngroks_authtoken_is_redacted_as_a_token():
    text = f"version: 2\nauthtoken: {VALUE}\n"
    out, kinds = redact(text, filename="ngrok.yml")
    assert out == "version: 2\nauthtoken: [REDACTED:token]\n"
    assert kinds == {"token": 1}


@pytest.mark.parametrize(
    ("filename", "line", "kind"),
    [
        # camelCase names in code are split into their words: `access` qualifies `Token`.
        ("client.js", 'this.accessToken = "{v}";', "token"),
        ("client.ts", 'const refreshToken = "{v}";', "token"),
        ("db.js", 'const dbPwd = "{v}";', "password"),
    ],
)
def test_camel_case_secret_names_in_source_code_are_redacted(filename, line, kind):
    text = line.format(v=VALUE)
    out, kinds = redact(text, filename=filename)
    assert out == line.format(v=f"[REDACTED:{kind}]")
    assert kinds == {kind: 1}


@pytest.mark.parametrize(
    "line",
    [
        # In code a token needs a word before it saying it is a credential: a page token is
        # a pagination cursor.
        'next_page_token = "{v}"',
        'lexer_token = "{v}"',
    ],
)
def test_in_source_code_a_token_not_named_as_a_credential_is_left_alone(line):
    # A cursor with a digit in it: a random-looking one is redacted for its look alone
    # (test_redact_world.py), whatever its name.
    text = line.format(v="cursor_0042_next")
    assert redact(text, filename="client.py") == (text, {})


# -- values that are not secrets -------------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    [
        # Quoted with backticks, copied from Markdown.
        "`<your-key>`",
        "`${DB_PASSWORD_FROM_VAULT}`",
        # A placeholder word that is a key's name.
        "private_key",
        # Starting with "your", "<your", "my-", "my_" or "insert".
        "your_db_pw",
        "YourDbPw",
        "<your-user>:<your-pw>",
        "my-db-pw",
        "my_db_pw",
        "insert-db-pw-here",
        "INSERT_DB_PW",
        # Made only of placeholder words.
        "KEY_GOES_HERE",
        "pass-here",
        "the key goes here",
        "a key goes here",
        "an api key here",
        "xxx-xxx-xxx",
        "XXX_XXX",
        # A description: five words or more.
        "Ask the platform team first",
        # A resource name.
        "arn:aws:ssm:us-east-1:123456789012:parameter/prod/db",
        # An identifier repeating the key's own word, without a digit.
        "ExamplePassword",
        "defaultPasswd",
    ],
)
def test_a_placeholder_under_a_password_key_is_sent_as_written(value):
    text = f"db:\n  password: {value}\n"
    assert redact(text, filename="values.yaml") == (text, {})


@pytest.mark.parametrize(
    "line",
    [
        "secret_rotation_days: 90",
        "token_refresh_seconds: 3600",
        "password_max_age: -1",
        "api_key_weight: 0.5",
        "token_refresh_margin: +30",
    ],
)
def test_a_number_under_a_secret_looking_key_is_a_setting_not_a_secret(line):
    text = f"auth:\n  {line}\n"
    assert redact(text, filename="values.yaml") == (text, {})


@pytest.mark.parametrize(
    "value",
    [
        # A bare number is a setting; with a letter to it, it is a (weak) password.
        "X12345",
        "12345X",
        "XX2024XX",
        # Four words are not yet a description.
        "correct horse battery staple",
        # Repeating the key's word with a digit: a password someone chose.
        "MyPassword2024",
    ],
)
def test_a_password_that_only_resembles_a_placeholder_is_redacted(value):
    text = f"db:\n  password: {value}\n"
    out, kinds = redact(text, filename="values.yaml")
    assert out == "db:\n  password: [REDACTED:password]\n"
    assert kinds == {"password": 1}


def test_a_setting_naming_how_passwords_are_stored_is_not_taken_for_one():
    # The stock postgresql.conf: the method, not a password; commented out or not.
    text = "password_encryption = scram-sha-256\n#password_encryption = md5\n"
    assert redact(text, filename="postgresql.conf") == (text, {})


@pytest.mark.parametrize("name", ["TOKEN_BOT", "token_github", "TokenAccess"])
def test_a_credential_named_token_first_in_source_code_is_redacted(name):
    line = f'{name} = "{VALUE}"\n'
    out, kinds = redact(line, filename="bot.py")
    assert out == f'{name} = "[REDACTED:token]"\n'
    assert kinds == {"token": 1}
