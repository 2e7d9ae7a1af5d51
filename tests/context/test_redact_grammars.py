"""The key/value grammars, seen through `redact`: which file name picks which grammar (case
and suffix variants included), Markdown code blocks, quoted values under keys only the line
grammar reads, commas and comments after values, YAML block scalars and flow values, and what
source code and prose leave alone. Every expectation is the literal text a CLI would get."""

from __future__ import annotations

import pytest

from council.context import redact

# -- which grammar a file name picks -------------------------------------------------------


@pytest.mark.parametrize(
    ("filename", "text", "expected"),
    [
        (".env.local", "DB_PASSWORD=Xr7ZVF-s1Iw9\n", "DB_PASSWORD=[REDACTED:password]\n"),
        (
            "deploy/.ENV.Production",
            "DB_PASSWORD=Xr7ZVF-s1Iw9\n",
            "DB_PASSWORD=[REDACTED:password]\n",
        ),
        (".envrc", "export GITHUB_TOKEN=Xr7ZVF-s1Iw9\n", "export GITHUB_TOKEN=[REDACTED:token]\n"),
        (
            "deploy.ksh",
            "export DB_PASSWORD=Xr7ZVF-s1Iw9\n",
            "export DB_PASSWORD=[REDACTED:password]\n",
        ),
        (
            "Deploy.KSH",
            "export DB_PASSWORD=Xr7ZVF-s1Iw9\n",
            "export DB_PASSWORD=[REDACTED:password]\n",
        ),
        (
            "config.json.example",
            '{"token": "Xr7ZVF-s1Iw9"}\n',
            '{"token": "[REDACTED:token]"}\n',
        ),
        (
            "Config.JSON.Example",
            '{"token": "Xr7ZVF-s1Iw9"}\n',
            '{"token": "[REDACTED:token]"}\n',
        ),
        (
            "my.cnf",
            "[client]\npassword = Xr7ZVF-s1Iw9\n",
            "[client]\npassword = [REDACTED:password]\n",
        ),
        (
            "MY.CNF",
            "[client]\npassword = Xr7ZVF-s1Iw9\n",
            "[client]\npassword = [REDACTED:password]\n",
        ),
        (".npmrc", "_authToken=Xr7ZVF-s1Iw9\n", "_authToken=[REDACTED:token]\n"),
        (".NPMRC", "_authToken=Xr7ZVF-s1Iw9\n", "_authToken=[REDACTED:token]\n"),
        (
            ".pypirc",
            "[pypi]\nusername = __token__\npassword = Xr7ZVF-s1Iw9\n",
            "[pypi]\nusername = __token__\npassword = [REDACTED:password]\n",
        ),
        (
            "home/.PYPIRC",
            "[pypi]\npassword = Xr7ZVF-s1Iw9\n",
            "[pypi]\npassword = [REDACTED:password]\n",
        ),
        (
            ".aws/credentials",
            "[default]\naws_session_token = Xr7ZVF-s1Iw9\n",
            "[default]\naws_session_token = [REDACTED:token]\n",
        ),
        (
            ".aws/CREDENTIALS",
            "[default]\naws_session_token = Xr7ZVF-s1Iw9\n",
            "[default]\naws_session_token = [REDACTED:token]\n",
        ),
        (
            ".kube/config",
            "users:\n- name: dev\n  user:\n    token: Xr7ZVF-s1Iw9\n",
            "users:\n- name: dev\n  user:\n    token: [REDACTED:token]\n",
        ),
        (
            ".kube/CONFIG",
            "users:\n- name: dev\n  user:\n    token: Xr7ZVF-s1Iw9\n",
            "users:\n- name: dev\n  user:\n    token: [REDACTED:token]\n",
        ),
    ],
)
def test_each_config_file_name_picks_a_grammar_that_redacts_its_unquoted_secret(
    filename, text, expected
):
    out, kinds = redact(text, filename=filename)
    assert out == expected
    assert sum(kinds.values()) == 1


@pytest.mark.parametrize("filename", ["NOTES.markdown", "page.mdx", "index.rst", "README.MD"])
def test_each_markdown_name_reads_its_yaml_code_block_as_yaml(filename):
    text = "Deploy with:\n```yaml\npassword: Xr7ZVF-s1Iw9\n```\n"
    assert redact(text, filename=filename) == (
        "Deploy with:\n```yaml\npassword: [REDACTED:password]\n```\n",
        {"password": 1},
    )


# -- Markdown code blocks ------------------------------------------------------------------


def test_an_empty_code_block_is_kept_as_is_and_does_not_swallow_the_next_one():
    text = "```yaml\n```\nThe compose file:\n```yaml\npassword: Xr7ZVF-s1Iw9\n```\n"
    assert redact(text, filename="README.md") == (
        "```yaml\n```\nThe compose file:\n```yaml\npassword: [REDACTED:password]\n```\n",
        {"password": 1},
    )


def test_consecutive_code_blocks_each_keep_their_own_language():
    text = "```yaml\nuser: app\n```\n```ini\n[db]\npassword = Xr7ZVF-s1Iw9 ; prod\n```\n"
    assert redact(text, filename="README.md") == (
        "```yaml\nuser: app\n```\n```ini\n[db]\npassword = [REDACTED:password] ; prod\n```\n",
        {"password": 1},
    )


def test_a_code_block_left_open_runs_to_the_end_of_the_text():
    text = "Setup:\n```env\nDB_PASSWORD=Xr7ZVF-s1Iw9\n"
    assert redact(text, filename="README.md") == (
        "Setup:\n```env\nDB_PASSWORD=[REDACTED:password]\n",
        {"password": 1},
    )


@pytest.mark.parametrize(
    "text",
    [
        'The lexer sets `token = "[0-9]+"` for numbers.\n',
        'Point `api_key = "https://vault.example.com/v1/keys"` at the vault.\n',
    ],
)
def test_markdown_prose_follows_the_source_code_rules(text):
    assert redact(text, filename="README.md") == (text, {})


# -- source code ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        'token = "[0-9]+"\n',  # a lexer's token, not a credential
        'db_password = "postgres"\n',  # a word: a credential in code has a digit or a symbol
        'session_token = "3f2504e0-4f89-11d3-9a0c-0305e82c3301"\n',  # a UUID is an id in code
        'password_help = "At least 8 characters"\n',  # prose
        'api_key = "sk-live-{}".format(suffix)\n',  # a template
        'api_key = "http://127.0.0.1:8200/v1/keys"\n',  # where the key is, not the key
        'api_key = "https://vault.example.com/v1/keys"\n',
        'secret_key = "/run/secrets/app-1"\n',
    ],
)
def test_source_code_leaves_words_ids_prose_templates_urls_and_paths_alone(text):
    assert redact(text, filename="client.py") == (text, {})


# -- plain words under secret names ---------------------------------------------------------


@pytest.mark.parametrize(
    ("filename", "text", "expected"),
    [
        ("conf.json", '{"password": "hunter"}', '{"password": "[REDACTED:password]"}'),
        ("values.yaml", "password: hunter\n", "password: [REDACTED:password]\n"),
    ],
)
def test_in_a_config_file_a_plain_word_under_a_password_name_is_a_weak_password(
    filename, text, expected
):
    assert redact(text, filename=filename) == (expected, {"password": 1})


@pytest.mark.parametrize(
    ("filename", "text"),
    [
        ("conf.json", '{"access_token": "Marker"}'),
        ("values.yaml", "access_token: Marker\n"),
    ],
)
def test_in_a_config_file_a_plain_word_under_a_token_name_is_a_field_name(filename, text):
    assert redact(text, filename=filename) == (text, {})


# -- quoted values the line grammar reads ---------------------------------------------------
# The quoted-pair rule takes `key: "value"` when the key is a plain identifier and the value
# fits on its line in 1024 characters; the line grammars read the rest: keys with `/` or `[`
# (YAML, INI) and longer values.


@pytest.mark.parametrize(
    ("filename", "text", "expected"),
    [
        (
            "values.yaml",
            'db/password: "Xr7ZVF-s1Iw9"\n',
            'db/password: "[REDACTED:password]"\n',
        ),
        (
            "values.yaml",
            "db/password: 'Xr7ZVF-s1Iw9'\n",
            "db/password: '[REDACTED:password]'\n",
        ),
        (
            "app.ini",
            '[db]\npassword[prod] = "Xr7ZVF-s1Iw9"\n',
            '[db]\npassword[prod] = "[REDACTED:password]"\n',
        ),
        (
            "values.yaml",
            'db/password: "Xr7ZVF-s1Iw9"  # the "old" one\n',
            'db/password: "[REDACTED:password]"  # the "old" one\n',
        ),
        (
            "values.yaml",
            'db/password: "Xr7\\"ZVF-s1"  # the "old" one\n',
            'db/password: "[REDACTED:password]"  # the "old" one\n',
        ),
        (
            "values.yaml",
            'db/password: "Xr7ZVF-s1\\""\n',
            'db/password: "[REDACTED:password]"\n',
        ),
        # In YAML single quotes a backslash is an ordinary character, also the last one.
        (
            "values.yaml",
            "db/password: 'C:\\Xr7ZVF-s1\\'\n",
            "db/password: '[REDACTED:password]'\n",
        ),
        ("values.yaml", 'db/password: "x"\n', 'db/password: "[REDACTED:password]"\n'),
        ("values.yaml", 'password: "x"\n', 'password: "[REDACTED:password]"\n'),
    ],
)
def test_a_quoted_value_under_a_key_of_any_shape_is_redacted_inside_its_quotes(
    filename, text, expected
):
    assert redact(text, filename=filename) == (expected, {"password": 1})


def test_a_quoted_value_longer_than_a_line_of_the_pair_rule_is_redacted_inside_its_quotes():
    text = 'api_key: "' + "Ab1-" * 300 + '"\n'
    assert redact(text, filename="values.yaml") == (
        'api_key: "[REDACTED:api-key]"\n',
        {"api-key": 1},
    )


def test_an_empty_quoted_value_with_a_quoted_comment_after_it_is_left_alone():
    text = 'db/password: ""  # set in "vault"\n'
    assert redact(text, filename="values.yaml") == (text, {})


def test_a_double_quoted_value_left_open_after_backslashes_does_not_hang_the_redaction():
    text = 'db/password: "C:\\\\Users\\\\\n  app"\nuser: app\n'
    out, _ = redact(text, filename="values.yaml")
    assert out.endswith("\nuser: app\n")
    assert out.count("\n") == text.count("\n")


# -- unquoted values: what ends them ---------------------------------------------------------


@pytest.mark.parametrize(
    ("filename", "text", "expected"),
    [
        (
            "values.yaml",
            "db: {\n  user: app,\n  password: Xr7ZVF-s1IwX,\n}\n",
            "db: {\n  user: app,\n  password: [REDACTED:password],\n}\n",
        ),
        (
            "values.yaml",
            "password: Xr7ZVF-s1Iw9  # prod\n",
            "password: [REDACTED:password]  # prod\n",
        ),
        (
            "app.ini",
            "[db]\npassword = Xr7ZVF-s1Iw9   ; prod\n",
            "[db]\npassword = [REDACTED:password]   ; prod\n",
        ),
        (".env", "DB_PASSWORD=Xr7ZVF-s1Iw9  # prod\n", "DB_PASSWORD=[REDACTED:password]  # prod\n"),
    ],
)
def test_an_unquoted_value_ends_before_a_trailing_comma_and_the_spaces_before_a_comment(
    filename, text, expected
):
    assert redact(text, filename=filename) == (expected, {"password": 1})


# -- YAML structure ---------------------------------------------------------------------------


def test_a_yaml_block_scalar_leaves_the_blank_lines_after_it_as_they_were():
    text = "db:\n  password: |\n    line-One-1\n    line-Two-2\n  \n  user: app\n"
    assert redact(text, filename="values.yaml") == (
        "db:\n  password: |\n    [REDACTED:password]\n\n  \n  user: app\n",
        {"password": 1},
    )


@pytest.mark.parametrize(
    "text",
    [
        "secret: [app-creds-1, db-creds-2]\n",
        "secret: {name: app-creds-1,\n        optional: true}\n",
    ],
)
def test_a_yaml_flow_sequence_or_mapping_under_a_secret_name_is_structure_left_alone(text):
    assert redact(text, filename="values.yaml") == (text, {})


# -- commented-out settings ------------------------------------------------------------------
# Old credentials are often left commented out: such a line is read like the line without its
# comment marker, which stays visible with the key. Prose comments stay as they were.


@pytest.mark.parametrize(
    ("filename", "text", "expected"),
    [
        (
            "values.yaml",
            "db:\n  # password: old-Secret-1\n  password: ${DB_PASSWORD}\n",
            "db:\n  # password: [REDACTED:password]\n  password: ${DB_PASSWORD}\n",
        ),
        ("values.yaml", "#password: old-Secret-1\n", "#password: [REDACTED:password]\n"),
        (
            "compose.yaml",
            "environment:\n  # - POSTGRES_PASSWORD=old-Secret-1\n",
            "environment:\n  # - POSTGRES_PASSWORD=[REDACTED:password]\n",
        ),
        (
            ".env",
            "# DB_PASSWORD=old-Secret-1  # until May\n",
            "# DB_PASSWORD=[REDACTED:password]  # until May\n",
        ),
        (
            "deploy.sh",
            "#export DB_PASSWORD=old-Secret-1\n",
            "#export DB_PASSWORD=[REDACTED:password]\n",
        ),
        (
            "app.ini",
            "[db]\n; password = old-Secret-1\n",
            "[db]\n; password = [REDACTED:password]\n",
        ),
        (
            "app.ini",
            "[db]\n# password = old-Secret-1 ; 2023\n",
            "[db]\n# password = [REDACTED:password] ; 2023\n",
        ),
        ("nginx.conf", "// password = old-Secret-1\n", "// password = [REDACTED:password]\n"),
        ("app.toml", "## password = old-Secret-1\n", "## password = [REDACTED:password]\n"),
        ("app.toml", '# password = "old-Secret-1"\n', '# password = "[REDACTED:password]"\n'),
        (
            "README.md",
            "```yaml\n# password: old-Secret-1\n```\n",
            "```yaml\n# password: [REDACTED:password]\n```\n",
        ),
    ],
)
def test_a_commented_out_secret_is_redacted_keeping_its_comment_marker_and_key(
    filename, text, expected
):
    assert redact(text, filename=filename) == (expected, {"password": 1})


@pytest.mark.parametrize(
    ("filename", "text"),
    [
        ("values.yaml", "# password: set it in the vault, never here\n"),
        ("values.yaml", "# The admin password: see-wiki\n"),
        ("values.yaml", "# password: required\n"),
        ("values.yaml", "# access_token: Marker\n"),
        (".env", "# Set DB_PASSWORD to the password of the app user\n"),
        ("deploy.sh", "#!/bin/bash\n# Usage: TOKEN=<token> ./deploy.sh\n"),
        ("app.ini", "[db]\n; password = the one from the vault\n"),
        ("app.toml", "# token = see the README\n"),
    ],
)
def test_a_prose_comment_about_a_secret_is_left_alone(filename, text):
    assert redact(text, filename=filename) == (text, {})


# -- values in the places the line grammars used to miss --------------------------------------


@pytest.mark.parametrize(
    ("filename", "text", "expected"),
    [
        (
            "values.yaml",
            "db: {user: app, password: Xr7ZVF-s1Iw9}\n",
            "db: {user: app, password: [REDACTED:password]}\n",
        ),
        (
            "values.yaml",
            "db:\n  {user: app, password: Xr7ZVF-s1Iw9, port: 5432}\n",
            "db:\n  {user: app, password: [REDACTED:password], port: 5432}\n",
        ),
        (
            "README.md",
            "```yaml\ndb: {password: Xr7ZVF-s1Iw9}\n```\n",
            "```yaml\ndb: {password: [REDACTED:password]}\n```\n",
        ),
        (
            "values.yaml",
            "db:\n  password:\n    Xr7ZVF-s1Iw9\n  user: app\n",
            "db:\n  password:\n    [REDACTED:password]\n  user: app\n",
        ),
        (
            "values.yaml",
            "password:\n  Xr7ZVF-s1Iw9\n  continued-Line-2\nuser: app\n",
            "password:\n  [REDACTED:password]\n\nuser: app\n",
        ),
        (
            ".npmrc",
            "//npm.example.com/:_authToken=Xr7ZVF-s1Iw9\n",
            "//npm.example.com/:_authToken=[REDACTED:token]\n",
        ),
        (
            ".npmrc",
            "//npm.example.com/repo/:_password=WHI3WkZWLXMxSXc5\n",
            "//npm.example.com/repo/:_password=[REDACTED:password]\n",
        ),
        (".npmrc", "_auth=dXNlcjpYcjdaVkYtczFJdzk=\n", "_auth=[REDACTED:password]\n"),
        (
            ".pypirc",
            "[pypi]\npassword =\n    Xr7ZVF-s1Iw9\nusername = __token__\n",
            "[pypi]\npassword =\n  [REDACTED:password]\nusername = __token__\n",
        ),
        ("values.yaml", "password: 'it''s-Xr7ZVF-9'\n", "password: '[REDACTED:password]'\n"),
        (
            "values.yaml",
            "db/password: 'it''s-Xr7ZVF-9'\n",
            "db/password: '[REDACTED:password]'\n",
        ),
        (
            "values.yaml",
            "password: &db |\n  Xr7ZVF-s1Iw9\n",
            "password: &db |\n  [REDACTED:password]\n",
        ),
        (
            "values.yaml",
            "password: &db\n  Xr7ZVF-s1Iw9\n",
            "password: &db\n  [REDACTED:password]\n",
        ),
        ("values.yaml", "password:\n  !!str Xr7ZVF-s1Iw9\n", "password:\n  [REDACTED:password]\n"),
        ("values.yaml", 'password:\n  "Xr7ZVF-s1Iw9"\n', "password:\n  [REDACTED:password]\n"),
        (
            "values.yaml",
            "db: {user: app, api_key: 123e4567-e89b-12d3-a456-426614174000}\n",
            "db: {user: app, api_key: [REDACTED:api-key]}\n",
        ),
        (
            "values.yaml",
            "db: {password: 'it''s-Xr7ZVF-9'}\n",
            "db: {password: '[REDACTED:password]'}\n",
        ),
    ],
)
def test_flow_mappings_values_below_their_key_quotes_in_quotes_and_npm_registry_keys_are_redacted(
    filename, text, expected
):
    redacted, counts = redact(text, filename=filename)
    assert redacted == expected
    assert "Xr7ZVF" not in redacted and sum(counts.values()) == 1


@pytest.mark.parametrize(
    ("filename", "text"),
    [
        ("values.yaml", "password:\n  name: app-creds\n"),
        ("values.yaml", "secret:\n  name: app-creds\n  key: db-password\n"),
        ("values.yaml", "secret:\n  db name: app-creds\n"),
        ("values.yaml", "password: &db\n  name: app-creds\n"),
        ("values.yaml", "password:\n  [app-creds-1, db-creds-2]\n"),
        ("values.yaml", "password:\n  # set by the operator\n"),
        ("values.yaml", "password:\n  *pw1\n"),
        ("values.yaml", "password:\n  !secret db_pw\n"),
        ("values.yaml", "password:\n  changeme\n  here\n"),
        ("values.yaml", "password:\n  - app-creds\n"),
        ("values.yaml", "password:\n  ${DB_PASSWORD}\n"),
        ("values.yaml", "password:\nuser: app\n"),
        ("values.yaml", "password: # set by the operator\nuser: app\n"),
        ("values.yaml", "password:\n  &pw # set later\n"),
        ("values.yaml", "password:\n  # rotated\n"),
        (".env", "API_KEY=\n  LOG_LEVEL=debug\n"),
        (".env", "API_KEY= # later\nDEBUG=1\n"),
        (".env", "API_KEY= #later\nDEBUG=1\n"),
        (".npmrc", "//npm.example.com/:always-auth=true\nregistry=https://npm.example.com/\n"),
    ],
)
def test_structure_references_and_comments_where_a_value_could_be_are_left_alone(filename, text):
    assert redact(text, filename=filename) == (text, {})


@pytest.mark.parametrize(
    ("filename", "text", "expected"),
    [
        (
            "values.yaml",
            "password: 'Xr7ZVF-s1Iw9\n  continued-Line2'\nuser: app\n",
            "password: '[REDACTED:password]\n  '\nuser: app\n",
        ),
        (
            "values.yaml",
            'db/password: "Xr7ZVF-s1Iw9\n  more\\"Line2\n  end-Xr7ZVF" # rotated\nuser: app\n',
            'db/password: "[REDACTED:password]\n\n  " # rotated\nuser: app\n',
        ),
        (
            ".env",
            'PRIVATE_KEY="MIIEvQIBADANBg\nXr7ZVF-s1Iw9\n"\nDEBUG=1\n',
            'PRIVATE_KEY="[REDACTED:private-key]\n\n"\nDEBUG=1\n',
        ),
        (
            "config.toml",
            'password = """\nXr7ZVF-s1Iw9"""\nuser = "app"\n',
            'password = """[REDACTED:password]\n"""\nuser = "app"\n',
        ),
        (
            "config.toml",
            "password = '''it's-\nXr7ZVF-s1Iw9\n'''\n",
            "password = '''[REDACTED:password]\n\n'''\n",
        ),
        ("values.yaml", "password: 'it''s-Xr7ZVF\n", "password: '[REDACTED:password]\n"),
        (
            ".env",
            'API_KEY="Xr7ZVF-s1Iw9\n\\"still-Xr7ZVF\n"\n',  # an escaped quote opens a line
            'API_KEY="[REDACTED:api-key]\n\n"\n',
        ),
        (
            ".env",
            'API_KEY="Xr7ZVF-s1Iw9\n" # from C:\\\nDEBUG="1"\n',  # a line ending in `\`
            'API_KEY="[REDACTED:api-key]\n" # from C:\\\nDEBUG="1"\n',
        ),
        (
            "values.yaml",
            "password: 'Xr7ZVF-s1Iw9\n  changeme'\n",  # a placeholder word on its last line
            "password: '[REDACTED:password]\n  '\n",
        ),
        (
            "values.yaml",
            "password: 'Xr7ZVF-s1Iw9\n  end'\nnote: not part of the value at all\n",
            "password: '[REDACTED:password]\n  '\nnote: not part of the value at all\n",
        ),
        (
            ".env",
            'SSH_PRIVATE_KEY="-----BEGIN OPENSSH PRIVATE KEY-----\nXr7ZVF-s1Iw9AAAA\n"\n',
            'SSH_PRIVATE_KEY="[REDACTED:private-key]\n\n"\n',
        ),
        (
            "values.yaml",
            "# password: 'Xr7ZVF-s1Iw9\nuser: 'app'\n",  # commented out: its line alone
            "# password: '[REDACTED:password]\nuser: 'app'\n",
        ),
        (
            "config.toml",
            'password = """Xr7ZVF-s1Iw9"""\n',
            'password = """[REDACTED:password]"""\n',
        ),
        (
            ".env",
            'PRIVATE_KEY="-----BEGIN EC PARAMETERS-----\n' + "Xr7ZVF-s1Iw9+abc/\n" * 20 + '"\n',
            'PRIVATE_KEY="[REDACTED:private-key]' + "\n" * 21 + '"\n',
        ),
    ],
)
def test_a_quoted_value_continued_below_its_key_is_redacted_to_its_closing_quote(
    filename, text, expected
):
    redacted, counts = redact(text, filename=filename)
    assert redacted == expected
    assert "Xr7ZVF" not in redacted and sum(counts.values()) == 1


def test_a_quote_that_does_not_close_within_100_lines_hides_only_its_own_line():
    below = "".join(f"line_{n}: kept\n" for n in range(100)) + "end: 'x'\n"
    redacted, counts = redact("password: 'Xr7ZVF-s1Iw9\n" + below, filename="values.yaml")
    assert redacted == "password: '[REDACTED:password]\n" + below
    assert counts == {"password": 1}


def test_a_quote_closing_on_the_hundredth_line_below_hides_the_lines_up_to_it():
    below = "".join(f"line_{n}\n" for n in range(99)) + "end'\nuser: app\n"
    redacted, _ = redact("password: 'Xr7ZVF-s1Iw9\n" + below, filename="values.yaml")
    assert redacted == "password: '[REDACTED:password]" + "\n" * 100 + "'\nuser: app\n"


@pytest.mark.parametrize(
    "text",
    [
        "password: '${DB_PASSWORD}\n  '\nuser: app\n",
        "password: ''\nuser: 'app'\n",
        'password: ""\nuser: "app"\n',
        "# password: 'the one in\n# the vault'\n",
        "password: 'please ask\n  the ops\n  team first'\n",
        "password: 'your password\n  goes here'\n",
        "password: 'api key\n  goes here'\n",
        "password: 'change\n  me'\n",  # judged whole: changeme
    ],
)
def test_an_open_quote_around_a_placeholder_nothing_or_prose_is_left_alone(text):
    assert redact(text, filename="values.yaml") == (text, {})


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            'db/password: "Xr7\\"ZVF" # see "docs"\n',
            'db/password: "[REDACTED:password]" # see "docs"\n',
        ),
        (
            'db/password: "Xr7ZVF\\"" # see "docs"\n',
            'db/password: "[REDACTED:password]" # see "docs"\n',
        ),
        (
            "db/password: 'Xr7''ZVF' # see 'docs'\n",
            "db/password: '[REDACTED:password]' # see 'docs'\n",
        ),
        (
            "db/password: 'Xr7ZVF-s1''' # see 'docs'\n",
            "db/password: '[REDACTED:password]' # see 'docs'\n",
        ),
    ],
)
def test_a_quoted_value_ends_at_its_own_closing_quote_past_escaped_and_doubled_ones(text, expected):
    # `db/password` is a key the quoted-pair rule does not take: the line rule reads these.
    redacted, counts = redact(text, filename="values.yaml")
    assert redacted == expected
    assert counts == {"password": 1}
