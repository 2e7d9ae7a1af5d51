"""Security edges: every vendor's variables against every other vendor's CLI through the real
call path, one case per redaction rule and per secret-file name, and the project-root check's
corner cases. Rules are enumerated from the modules that declare them, so a rule, a grammar, a
file-name pattern or an adapter added without a case here fails a test."""

from __future__ import annotations

import base64
import inspect
import json
import os
import re
import string
import sys
from dataclasses import dataclass
from itertools import product
from pathlib import Path

import anyio
import pytest

from context.secrets_corpus import UPPER_DIGITS, _Gen
from council.adapters import adapter_for, host_markers, registered
from council.adapters.base import Adapter, CliSettings, Request, Status
from council.context import gather_context, redact
from council.context.paths import SECRET_NAME_PATTERNS, find_root
from council.context.redact import SHAPES, grammar_of, marker, secret_key_kind
from council.context.redact.grammars import _FENCE_FORMATS
from council.errors import UsageError
from council.runner import CallFiles, RetryPolicy, Timeouts, run_call
from council.runner.confine import EXTRA_ENV as EXTRA_WRITABLE
from council.runner.environment import CALL_MARKER
from council.runner.resolve import resolve_tool

from fakes.install import FakeClis, install_fakes

# -- 1. every vendor's variables crossed with every other vendor's CLI ------------------------

ADAPTERS = sorted(registered())
FAST_RETRY = RetryPolicy(base_delay_s=0.02, max_delay_s=0.1, other_delay_s=0.01)
PROMPT = "ACTION: PROPOSAL\nQuestion: Should sessions live in Redis or in Postgres?\n"
# What every CLI gets whatever its vendor (protocol.md section 3), as the user's shell has it.
BASICS = {
    "USER": "councillor",
    "LOGNAME": "councillor",
    "LANG": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
    "LC_MESSAGES": "C",
}
FORCED = {"TERM": "dumb", "NO_COLOR": "1"}
# Secrets no adapter declares: they reach no CLI.
NOBODYS = {"AWS_SECRET_ACCESS_KEY": "aws-never-shared", "GITHUB_TOKEN": "gh-never-shared"}


def _vendor_variables() -> dict[str, str]:
    """One variable for every prefix and name any adapter declares, valued by its own name."""
    names: set[str] = set()
    for cls in registered().values():
        names.update(f"{prefix}COUNCIL_PLANTED" for prefix in cls.env_prefixes)
        names.update(cls.env_names)
    return {name: f"value-of-{name}" for name in sorted(names)}


VENDOR_VARIABLES = _vendor_variables()
# Variables an IDE host sets for its children; each must reach no CLI unless one names it.
MARKERS = {(f"{m}ENTRYPOINT" if m.endswith("_") else m): "1" for m in host_markers()}
PLANTED = {**VENDOR_VARIABLES, **MARKERS, **NOBODYS}


def _is_marker(name: str) -> bool:
    return any(name.startswith(m) if m.endswith("_") else name == m for m in host_markers())


def declared_by(cls: type[Adapter], name: str) -> bool:
    """`name` is one of `cls`'s own variables by its declarations: named explicitly, or under
    one of its prefixes and not an IDE nesting marker (a prefix never re-allows those)."""
    return name in cls.env_names or (name.startswith(cls.env_prefixes) and not _is_marker(name))


def owners(name: str) -> list[str]:
    return [cli for cli, cls in registered().items() if declared_by(cls, name)]


def named_for(declared: str) -> set[str]:
    """The adapters whose name or vendor a variable or prefix spells: `GEMINI_` and `GOOGLE_`
    (gemini, vendor google), `CODEX_HOME` (codex), `COUNCIL_SIM_` (sim); `DASHSCOPE_` none."""
    words = set(declared.lower().strip("_").split("_"))
    return {cli for cli, cls in registered().items() if {cls.name, cls.vendor} & words}


# Reviewed exceptions: a CLI that reads variables named for another vendor, and why. Sharing
# itself is computed from the declarations; this only makes a new cross-vendor declaration (a
# prefix added to the wrong adapter) a decision someone has to write down here.
CROSS_VENDOR_GRANTS = {
    ("qwen", "OPENAI_"): "qwen-code speaks the OpenAI-compatible API with OpenAI's variables",
    ("pi", "ANTHROPIC_"): "pi talks to many providers and reads their usual key variables",
    ("pi", "OPENAI_"): "pi talks to many providers and reads their usual key variables",
    ("pi", "GEMINI_"): "pi talks to many providers and reads their usual key variables",
    ("pi", "AZURE_OPENAI_"): "pi's azure-openai provider reads AZURE_OPENAI_API_KEY",
    ("pi", "MOONSHOT_"): "pi's moonshot provider reads MOONSHOT_API_KEY",
    ("pi", "KIMI_API_KEY"): "pi's kimi-coding provider reads KIMI_API_KEY",
}


def cross_vendor_declarations() -> set[tuple[str, str]]:
    return {
        (cli, declared)
        for cli, cls in registered().items()
        for declared in (*cls.env_prefixes, *cls.env_names)
        if named_for(declared) and cli not in named_for(declared)
    }


def is_granted(cli: str, name: str) -> bool:
    return any(c == cli and name.startswith(d) for c, d in CROSS_VENDOR_GRANTS)


def test_every_planted_vendor_variable_belongs_to_a_vendor_and_every_adapter_has_some():
    assert all(owners(name) for name in VENDOR_VARIABLES)
    assert all(not owners(name) for name in NOBODYS)
    # An adapter with no variables of its own would make its cross cases vacuous.
    assert all(any(declared_by(registered()[cli], n) for n in VENDOR_VARIABLES) for cli in ADAPTERS)


def test_every_cli_declaring_another_vendors_variables_is_a_reviewed_grant():
    assert cross_vendor_declarations() == set(CROSS_VENDOR_GRANTS)


_RECORDER = """\
import json, os, sys
with open({log!r}, "a", encoding="utf-8") as f:
    f.write(json.dumps({{"argv": sys.argv[2:], "env": dict(os.environ)}}) + "\\n")
os.execv(sys.argv[1], sys.argv[1:])
"""


def _seat(cli: str, fakes: FakeClis, tmp_path: Path) -> tuple[Adapter, Path | None]:
    """The adapter for `cli`, on its strict fake; a CLI with no fake (the simulator ships with
    council) runs for real behind a recorder that writes down its environment first."""
    if cli in fakes.names:
        return adapter_for(cli), None
    command = registered()[cli]().locate()
    if command is None:
        pytest.fail(f"adapter {cli!r} has neither a fake in tests/fakes nor a runnable CLI")
    log = tmp_path / f"{cli}.calls.jsonl"
    script = tmp_path / f"record-{cli}.py"
    script.write_text(_RECORDER.format(log=str(log)), encoding="utf-8")
    settings = CliSettings(
        name=cli, adapter=cli, command=(sys.executable, "-I", "-S", str(script), *command)
    )
    return adapter_for(cli, {cli: settings}), log


@dataclass(frozen=True)
class Seen:
    """What one CLI saw of a call: the env of its version probe and of its answer call."""

    environ: dict[str, str]  # what the user's shell had
    probe: dict[str, str]
    call: dict[str, str]
    # Names the adapter sets itself: for every run (`fixed_env`) or for the call (gemini's
    # trust switch).
    own: frozenset[str]
    status: Status
    detail: str


async def _run_one_call(cli: str, fakes: FakeClis, tmp_path: Path, mp: pytest.MonkeyPatch) -> Seen:
    """One seat call through `resolve_tool` and `run_call` with every vendor's variables set."""
    tmp = tmp_path / "tmp"
    tmp.mkdir(parents=True)
    environ = {
        "PATH": os.environ["PATH"],
        "HOME": os.environ["HOME"],
        "TMPDIR": str(tmp),
        "TERM": "xterm-256color",
        "COLORTERM": "truecolor",
        **BASICS,
        **PLANTED,
    }
    for name, value in environ.items():  # the probe reads the process environment
        mp.setenv(name, value)
    adapter, log = _seat(cli, fakes, tmp_path)
    resolved = await resolve_tool(adapter, timeout_s=20)
    assert resolved.tool is not None, resolved.problem
    room = tmp_path / "room"
    room.mkdir()
    files = CallFiles(tmp_path / "record", "proposal-r1")
    outcome = await run_call(
        adapter,
        resolved.tool,
        PROMPT,
        room=room,
        files=files,
        timeouts=Timeouts(soft_s=20, hard_s=30, grace_s=1),
        policy=FAST_RETRY,
        environ=environ,
    )
    if log is None:
        calls = fakes.calls(cli)
    else:
        calls = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    probes = [c for c in calls if c["argv"][-1:] in (["--version"], ["-V"])]
    answers = [c for c in calls if c not in probes]
    assert len(probes) == 1 and len(answers) == 1, calls
    request = Request(PROMPT, room, files.answer(1), files.prompt)
    own = frozenset({**adapter.fixed_env, **adapter.build(resolved.tool, request).env})
    return Seen(environ, probes[0]["env"], answers[0]["env"], own, outcome.status, outcome.detail)


@pytest.fixture(scope="module")
def seen(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Seen]:
    """One real call per registered adapter, each on its strict fake (fakes first on PATH, HOME
    in a temporary directory, like the `fakes` fixture) with every vendor's variables set."""
    base = tmp_path_factory.mktemp("vendors")
    fakes = install_fakes(base / "bin")
    home = base / "home"
    home.mkdir()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PATH", fakes.path_env(os.environ.get("PATH", "")))
        mp.setenv("HOME", str(home))
        # The fakes' and the recorder's call logs (this test is about environments, not
        # write confinement).
        mp.setenv(EXTRA_WRITABLE, str(base))
        # CODEX_HOME and CLAUDE_CONFIG_DIR hold relative names here: the state directories
        # made for them land in the current directory, which must not be the checkout.
        mp.chdir(base)
        return {cli: anyio.run(_run_one_call, cli, fakes, base / cli, mp) for cli in ADAPTERS}


def _leaks(env: dict[str, str], cli: str, vendor: str) -> dict[str, str]:
    """`vendor`'s planted variables `cli` got although its own declarations do not cover them."""
    theirs = [n for n in VENDOR_VARIABLES if declared_by(registered()[vendor], n)]
    return {n: env[n] for n in theirs if n in env and not declared_by(registered()[cli], n)}


CROSS = [(vendor, cli) for vendor, cli in product(ADAPTERS, ADAPTERS) if vendor != cli]


@pytest.mark.parametrize("cli", ADAPTERS)
def test_every_cli_answers_with_every_vendors_variables_set(cli, seen):
    assert seen[cli].status is Status.OK, seen[cli].detail


@pytest.mark.parametrize(
    ("vendor", "cli"), CROSS, ids=[f"{v}-variables-into-{c}" for v, c in CROSS]
)
def test_one_vendors_variables_never_reach_another_vendors_cli(vendor, cli, seen):
    probe, call = seen[cli].probe, seen[cli].call
    assert _leaks(call, cli, vendor) == {}, f"{vendor}'s variables reached {cli}'s call"
    assert _leaks(probe, cli, vendor) == {}, f"{vendor}'s variables reached {cli}'s probe"
    # A prefix both declare (codex and qwen read OPENAI_*) does reach both, unchanged...
    shared = [
        n
        for n in VENDOR_VARIABLES
        if declared_by(registered()[vendor], n) and declared_by(registered()[cli], n)
    ]
    assert {n: call.get(n) for n in shared} == {n: VENDOR_VARIABLES[n] for n in shared}
    # ...but a variable named for `vendor` reaches `cli` only by a reviewed grant.
    crossing = [n for n in shared if vendor in named_for(n) and cli not in named_for(n)]
    unreviewed = [n for n in crossing if not is_granted(cli, n)]
    assert unreviewed == [], f"{vendor}'s {unreviewed} reach {cli} without a reviewed grant"


@pytest.mark.parametrize("cli", ADAPTERS)
def test_a_cli_gets_exactly_its_own_vendors_variables_and_the_basics(cli, seen):
    environ, probe, call = seen[cli].environ, seen[cli].probe, dict(seen[cli].call)
    mine = {n: v for n, v in VENDOR_VARIABLES.items() if declared_by(registered()[cli], n)}
    basics = {n: environ[n] for n in ("PATH", "HOME", *BASICS)}
    # TMPDIR is the call's own, never the user's: write confinement allows only that one.
    assert Path(call.pop("TMPDIR")).name.startswith("council-call-")
    call_id = call.pop(CALL_MARKER, "")
    assert call_id.startswith(f"{os.getpid()}-")  # the call marker, naming this process
    for name in seen[cli].own:  # set by the adapter for the call, not from the user's env
        call.pop(name)
    assert call == {**basics, **FORCED, **mine}
    # The version probe runs under the same allow-list.
    assert {n: probe.get(n) for n in mine} == mine
    assert [n for n in PLANTED if n in probe and n not in mine] == []


@pytest.mark.parametrize("cli", ADAPTERS)
def test_ide_nesting_markers_and_unclaimed_secrets_reach_no_cli(cli, seen):
    for env in (seen[cli].probe, seen[cli].call):
        got = {n for n in MARKERS if n in env and not declared_by(registered()[cli], n)}
        assert got == set(), f"{cli} got IDE nesting markers {sorted(got)}"
        assert [n for n in NOBODYS if n in env] == []


# -- 2. one case per redaction rule ------------------------------------------------------------

G = _Gen(20260701)
PEM_BODY = G.pem_body()
AWS_ID = G.aws_id()
AWS_SECRET = G.aws_secret()
PASSWORD = G.password()
GHP = "ghp_" + G.mixed(36)
GLPAT = "glpat-" + G.mixed(20, "_-")
XOXB = f"xoxb-{G.chars(string.digits, 11)}-{G.chars(string.digits, 12)}-{G.mixed(24)}"
SLACK_HOOK = f"T{G.chars(UPPER_DIGITS, 8)}/B{G.chars(UPPER_DIGITS, 8)}/{G.mixed(24)}"
ANTHROPIC = "sk-ant-api03-" + G.mixed(93, "_-")
OPENAI = "sk-proj-" + G.mixed(64, "_-")
GOOGLE = "AIza" + G.mixed(35, "_-")
GOCSPX = "GOCSPX-" + G.mixed(28, "_-")
STRIPE = "sk_live_" + G.mixed(32)
NPM = "npm_" + G.mixed(36)
JWT = G.jwt()
BEARER = G.mixed(40)
BASIC = base64.b64encode(f"deploy:{PASSWORD}".encode()).decode()

# kind -> (text, the secret in it): prose and shell snippets in a file with no key/value
# grammar, so that only the shape rule can catch them.
SHAPE_CASES: dict[str, tuple[str, str]] = {
    "private-key": (
        f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\n-----END RSA PRIVATE KEY-----\n",
        PEM_BODY.split("\n")[4],
    ),
    "aws-access-key-id": (f"The deploy user's access key is {AWS_ID}.\n", AWS_ID),
    "aws-secret-key": (f"aws_secret_access_key = {AWS_SECRET}\n", AWS_SECRET),
    "github-token": (f"git push https://x-access-token:{GHP}@github.com/acme/api main\n", GHP),
    "gitlab-token": (f"curl --header 'PRIVATE-TOKEN: {GLPAT}' $API\n", GLPAT),
    "slack-token": (f"The bot logs in with {XOXB} at start-up.\n", XOXB),
    "slack-webhook": (
        f"curl -X POST https://hooks.slack.com/services/{SLACK_HOOK} -d @alert.json\n",
        SLACK_HOOK,
    ),
    "anthropic-key": (f"curl -H 'x-api-key: {ANTHROPIC}' $URL\n", ANTHROPIC),
    "openai-key": (f"Paste {OPENAI} into the dialog.\n", OPENAI),
    "google-api-key": (f"<script src='maps/api/js?key={GOOGLE}'></script>\n", GOOGLE),
    "google-oauth": (f"The OAuth client secret is {GOCSPX}.\n", GOCSPX),
    "stripe-key": (f"stripe listen --api-key {STRIPE}\n", STRIPE),
    "npm-token": (f"//registry.npmjs.org/:_authToken={NPM}\n", NPM),
    "jwt": (f"Cookie: session={JWT}; Path=/\n", JWT),
    "bearer-token": (f"curl -H 'Authorization: Bearer {BEARER}' $URL\n", BEARER),
    "basic-auth": (f"Authorization: Basic {BASIC}\n", BASIC),
    "url-password": (f"psql postgres://app:{PASSWORD}@db.internal:5432/app\n", PASSWORD),
    "password": (f"Server=db.internal;Database=app;User Id=app;Password={PASSWORD};\n", PASSWORD),
}

# kind -> ordinary text near the rule's shape that must be left exactly as it is.
SHAPE_NEAR_MISSES: dict[str, str] = {
    "private-key": f"-----BEGIN PUBLIC KEY-----\n{PEM_BODY}\n-----END PUBLIC KEY-----\n",
    "aws-access-key-id": 'if key_id.startswith("AKIA"):  # long-term keys start with AKIA\n',
    "aws-secret-key": 'aws_secret_access_key = os.environ["AWS_SECRET_ACCESS_KEY"]\n',
    "github-token": 'CLASSIC_PREFIXES = ("ghp_", "gho_", "ghu_", "ghs_", "ghr_")\n',
    "gitlab-token": 'if token.startswith("glpat-"):\n    kind = "personal"\n',
    "slack-token": 'assert bot_token.startswith("xoxb-"), "not a bot token"\n',
    "slack-webhook": "# See https://api.slack.com/messaging/webhooks for the hooks.slack.com URL\n",
    "anthropic-key": 'ANTHROPIC_KEY_PREFIX = "sk-ant-"\n',
    "openai-key": "pip install sk-video-processing-toolkit-extras\n",
    "google-api-key": 'if value.startswith("AIza"):  # a browser key\n',
    "google-oauth": 'if token.startswith("ya29."):\n    return "access"\n',
    "stripe-key": 'LIVE = key.startswith(("sk_live_", "rk_live_"))\n',
    "npm-token": 'os.environ["npm_config_cache"] = "/tmp/npm-cache"\n',
    "jwt": 'JOSE_HEADER_PREFIX = "eyJhbGciOi"  # base64 of {"alg":\n',
    "bearer-token": 'headers = {"Authorization": f"Bearer {token}"}\n',
    "basic-auth": 'headers["Authorization"] = "Basic " + b64encode(pair).decode()\n',
    "url-password": 'requests.get("https://example.com:8443/?email=ops@example.com")\n',
    "password": 'DSN = "Server={0};Password={1};".format(host, password)\n',
}


def test_every_shape_rule_has_a_case_and_a_near_miss():
    kinds = [rule.kind for rule in SHAPES]
    assert len(set(kinds)) == len(kinds)
    assert set(SHAPE_CASES) == set(kinds), "a shape rule was added or removed: add its case"
    assert set(SHAPE_NEAR_MISSES) == set(kinds)


@pytest.mark.parametrize("kind", sorted(SHAPE_CASES))
def test_each_shape_rule_redacts_its_secret_under_its_own_kind(kind):
    text, secret = SHAPE_CASES[kind]
    out, kinds = redact(text, filename="notes.txt")
    assert secret not in out
    assert marker(kind) in out
    assert kinds == {kind: 1}
    assert out.count("\n") == text.count("\n")


@pytest.mark.parametrize("kind", sorted(SHAPE_NEAR_MISSES))
def test_ordinary_code_near_each_shape_is_not_redacted(kind):
    text = SHAPE_NEAR_MISSES[kind]
    assert redact(text, filename="ordinary.py") == (text, {})


def test_a_bare_aws_secret_on_the_line_of_an_access_key_id_is_redacted():
    # `aws configure` pastes and CSV exports: no telling name, only the id next to it.
    text = f"User name,Access key ID,Secret access key\nci,{AWS_ID},{AWS_SECRET}\n"
    out, kinds = redact(text, filename="accessKeys.csv")
    assert AWS_SECRET not in out and AWS_ID not in out
    assert kinds == {"aws-access-key-id": 1, "aws-secret-key": 1}


# -- the key/value grammars ------------------------------------------------------------------

# Every grammar `redact` picks by file name: the config formats (those a Markdown fence may
# name too), Markdown, and None for source code.
GRAMMARS = {*_FENCE_FORMATS.values(), "markdown", None}
# One key per kind `secret_key_kind` can return, read from its source: a new kind needs a key.
KEY_KINDS = set(re.findall(r'return "([a-z-]+)"', inspect.getsource(secret_key_kind)))
# Config files take the plain names (`token` alone is a credential there)...
KEY_FOR_KIND = {
    "password": "db_password",
    "private-key": "private_key",
    "api-key": "api_key",
    "secret": "client_secret",
    "token": "token",
}
# ...source code only unambiguous ones (`token` alone is a lexer's variable).
SOURCE_KEY_FOR_KIND = {**KEY_FOR_KIND, "token": "access_token"}
# file name -> one `key = value` in its grammar, unquoted where the grammar allows, so that
# only that grammar (not the source-code fallback) can catch it. `.env` and shell scripts
# share a grammar; both count.
GRAMMAR_TEMPLATES = {
    ".env": "{KEY}={v}\n",
    "deploy.sh": "#!/bin/sh\nexport {KEY}={v}\nexec ./server\n",
    "values.yaml": "app:\n  replicas: 2\n  {key}: {v}\n",
    "config.json": '{{"app": {{"replicas": 2, "{key}": "{v}"}}}}\n',
    "app.ini": "[app]\nreplicas = 2\n{key} = {v}\n",
    "pyproject.toml": '[tool.app]\nreplicas = 2\n{key} = "{v}"\n',
    "SETUP.md": "Configure it:\n\n```yaml\n{key}: {v}\n```\n",
    "settings.py": 'REPLICAS = 2\n{KEY} = "{v}"\n',
}
# file name -> ordinary content of that grammar that names secrets without holding one.
GRAMMAR_NEAR_MISSES = {
    ".env": "LOG_LEVEL=debug\nPORT=8080\nTOKEN_URL=https://auth.example.com/token\n"
    "DB_PASSWORD=${VAULT_DB_PASSWORD}\n",
    "deploy.sh": "#!/bin/sh\nexport PASSWORD_FILE=/run/secrets/db\nread -rs DB_PASSWORD\n"
    'echo "$TOKEN"\n',
    "values.yaml": "max_tokens: 4096\nsecret_name: prod-db\napi_key: ${API_KEY}\n"
    "password: !secret db_password\n",
    "config.json": '{"input_token": "NextToken", "tokenizer": "cl100k_base", "password_min": 12}\n',
    "app.ini": "[auth]\ntoken_ttl = 3600\npassword_policy = strict\napi_key = <your-api-key>\n",
    "pyproject.toml": '[tool.app]\nmax_tokens = 4096\nsecret_store = "vault"\ntoken = ""\n',
    "SETUP.md": "Put `DB_PASSWORD` in `.env`:\n\n```env\nDB_PASSWORD=changeme\n```\n\n"
    "```python\nfor token in tokenize(source):\n    print(token)\n```\n",
    "settings.py": 'token = next(tokens)\nPASSWORD_FIELD = "password"\n'
    'secret = getpass("Secret: ")\napi_key = os.environ["API_KEY"]\n',
}
FENCE_LINES = {
    "env": "DB_PASSWORD={v}",
    "yaml": "db_password: {v}",
    "json": '{{"db_password": "{v}"}}',
    "ini": "db_password = {v}",
    "toml": 'db_password = "{v}"',
}
VALUE = G.mixed(20) + "!#%" + G.mixed(6)
GRAMMAR_KIND_CASES = list(product(GRAMMAR_TEMPLATES, sorted(KEY_FOR_KIND)))


def test_every_grammar_and_key_kind_has_a_case_and_a_near_miss():
    assert {grammar_of(name) for name in GRAMMAR_TEMPLATES} == GRAMMARS
    assert {grammar_of(name) for name in GRAMMAR_NEAR_MISSES} == GRAMMARS
    assert set(KEY_FOR_KIND) == set(SOURCE_KEY_FOR_KIND) == KEY_KINDS
    assert all(secret_key_kind(key) == kind for kind, key in KEY_FOR_KIND.items())
    assert all(
        secret_key_kind(key, strict=True) == kind for kind, key in SOURCE_KEY_FOR_KIND.items()
    )


@pytest.mark.parametrize(("filename", "kind"), GRAMMAR_KIND_CASES)
def test_the_value_of_each_secret_key_is_redacted_in_each_grammar(filename, kind):
    key = (SOURCE_KEY_FOR_KIND if filename.endswith(".py") else KEY_FOR_KIND)[kind]
    text = GRAMMAR_TEMPLATES[filename].format(key=key, KEY=key.upper(), v=VALUE)
    out, kinds = redact(text, filename=filename)
    assert VALUE not in out
    assert kinds == {kind: 1}
    assert out == text.replace(VALUE, marker(kind))


@pytest.mark.parametrize("filename", GRAMMAR_NEAR_MISSES)
def test_ordinary_content_of_each_grammar_is_not_redacted(filename):
    text = GRAMMAR_NEAR_MISSES[filename]
    assert redact(text, filename=filename) == (text, {})


@pytest.mark.parametrize("lang", sorted(_FENCE_FORMATS))
def test_a_markdown_fence_of_each_config_language_is_read_in_that_grammar(lang):
    line = FENCE_LINES[_FENCE_FORMATS[lang]].format(v=VALUE)
    text = f"# Setup\n\n```{lang}\n{line}\n```\n"
    out, kinds = redact(text, filename="README.md")
    assert VALUE not in out
    assert kinds == {"password": 1}


# Config files by name: a fence named after the file's extension is read like the file.
CONFIG_FILE_NAMES = [
    "prod.env",
    "deploy.sh",
    "deploy.bash",
    "login.zsh",
    "values.yaml",
    "values.yml",
    "package.json",
    "tsconfig.jsonc",
    "app.json5",
    "app.ini",
    "setup.cfg",
    "nginx.conf",
    "app.properties",
    "Cargo.toml",
]


@pytest.mark.parametrize("filename", CONFIG_FILE_NAMES)
def test_a_fence_named_after_a_config_files_extension_is_read_in_that_files_grammar(filename):
    fmt = grammar_of(filename)
    assert fmt in FENCE_LINES, f"{filename} is not read as a config file"
    lang = filename.rsplit(".", 1)[1]
    text = f"```{lang}\n{FENCE_LINES[fmt].format(v=VALUE)}\n```\n"
    out, kinds = redact(text, filename="README.md")
    assert VALUE not in out
    assert kinds == {"password": 1}


def test_the_same_line_in_a_fence_of_another_language_is_redacted_as_a_quoted_setting():
    # Issue 29: a `key=value` line with a secret's name quoted in Markdown leaked when its
    # fence named no config language; Markdown's quoted settings are read wherever they are.
    text = f"```text\nDB_PASSWORD={VALUE}\n```\n"
    assert redact(text, filename="README.md") == (
        "```text\nDB_PASSWORD=[REDACTED:password]\n```\n",
        {"password": 1},
    )
    words = "```text\nDB_PASSWORD=changeme\n```\n"  # a placeholder, not a credential
    assert redact(words, filename="README.md") == (words, {})


# -- credentials in URLs ---------------------------------------------------------------------

URLS_WITH_PASSWORDS = [
    f"https://deploy:{PASSWORD}@git.example.com/acme/api.git",
    f"postgres://app:{PASSWORD}@db.internal:5432/app",
    f"mysql+pymysql://root:{PASSWORD}@127.0.0.1:3306/app?charset=utf8mb4",
    f"amqp://worker:{PASSWORD}@rabbit:5672/%2F",
    f"mongodb+srv://app:{PASSWORD}@cluster0.example.net/app",
]


URL_TEMPLATES = {
    "settings.py": 'DATABASE_URL = "{url}"\n',
    ".env": "DATABASE_URL={url}\n",
    "values.yaml": "database:\n  url: {url}\n",
    "docker-compose.json": '{{"environment": {{"DATABASE_URL": "{url}"}}}}\n',
}


@pytest.mark.parametrize("url", URLS_WITH_PASSWORDS, ids=lambda url: url.split("://")[0])
@pytest.mark.parametrize("filename", URL_TEMPLATES)
def test_the_password_in_a_url_is_redacted_and_the_rest_of_the_url_kept(url, filename):
    text = URL_TEMPLATES[filename].format(url=url)
    out, kinds = redact(text, filename=filename)
    assert PASSWORD not in out
    assert kinds == {"url-password": 1}
    assert url.replace(PASSWORD, marker("url-password")) in out


def test_even_a_one_letter_url_password_is_redacted():
    assert redact("postgres://u:p@h/db", filename="notes.txt") == (
        "postgres://u:[REDACTED:url-password]@h/db",
        {"url-password": 1},
    )


@pytest.mark.parametrize("filename", ["settings.py", ".env", "notes.txt"])
def test_a_password_only_url_is_redacted(filename):
    out, kinds = redact(f"REDIS_URL=redis://:{PASSWORD}@cache:6379/0\n", filename=filename)
    assert PASSWORD not in out
    assert kinds == {"url-password": 1}


@pytest.mark.parametrize("scheme", ["amqp", "mongodb+srv", "ftp", "smtps", "postgresql"])
def test_a_percent_encoded_password_in_a_url_of_any_scheme_is_redacted(scheme):
    encoded = "Zq%40r7%2Fw%3Ax9%25Lm2"  # `@`, `/`, `:` and `%` escaped, as URLs require
    out, kinds = redact(f"URL={scheme}://svc:{encoded}@broker.internal/vh\n", filename="notes.txt")
    assert encoded not in out and "Zq" not in out
    assert kinds == {"url-password": 1}


def test_a_token_used_as_a_urls_user_name_is_redacted_once_under_its_own_kind():
    text = f"git push https://{GHP}@github.com/acme/api main\n"
    out, kinds = redact(text, filename="notes.txt")
    assert GHP not in out
    assert out == text.replace(GHP, marker("github-token"))
    assert kinds == {"github-token": 1}


@pytest.mark.parametrize(
    "text",
    [
        "See https://user:pass@host for the syntax.",  # documentation placeholders
        'url = f"postgres://{user}:{password}@{host}/db"',
        "git clone ssh://git@github.com/acme/api.git",
        'requests.get("https://example.com:8443/?email=ops@example.com")',
        "DSN=postgres://app:${DB_PASSWORD}@db/app",
    ],
)
def test_urls_without_a_real_password_are_left_alone(text):
    assert redact(text, filename="ordinary.py") == (text, {})


# -- 3. one case per secret-file name pattern ------------------------------------------------

# pattern -> names it covers (the exact stem, a longer name, upper case).
SECRET_NAMES = {
    ".env*": [".env", ".env.production", ".ENV.local"],
    "*.pem": ["server.pem", "CA-Bundle.PEM"],
    "*.key": ["tls.key", "Server.KEY"],
    "id_rsa*": ["id_rsa", "id_rsa_github"],
    "id_dsa*": ["id_dsa", "id_dsa.old"],
    "id_ecdsa*": ["id_ecdsa", "id_ecdsa_sk"],
    "id_ed25519*": ["id_ed25519", "id_ed25519_deploy"],
    "credentials*": ["credentials", "credentials.json"],
    "*.p12": ["signing.p12"],
    "*.pfx": ["codesign.pfx"],
    ".netrc": [".netrc", ".NETRC"],
    "_netrc": ["_netrc"],
    ".pgpass": [".pgpass"],
    ".git-credentials": [".git-credentials"],
}
# pattern -> ordinary names close to it that are shared like any other file.
NEAR_SECRET_NAMES = {
    ".env*": ["environment.py", "env.example.md", "dotenv_loader.py"],
    "*.pem": ["pemfile.txt", "pem.py", "pem_utils.py"],
    "*.key": ["keys.py", "key.txt", "keyboard.key.md"],
    "id_rsa*": ["test_id_rsa.py", "rsa.py"],
    "id_dsa*": ["dsa_id.py"],
    "id_ecdsa*": ["ecdsa.py"],
    "id_ed25519*": ["ed25519.py", "my_id_ed25519.md"],
    "credentials*": ["test_credentials.py", "credential.py"],
    "*.p12": ["p12.md", "pkcs12.py"],
    "*.pfx": ["pfx_loader.py"],
    ".netrc": ["netrc.py", "test_netrc.py", ".netrc.example.md"],
    "_netrc": ["netrc_parse.py"],
    ".pgpass": ["pgpass.py", "pgpass_docs.md"],
    ".git-credentials": ["git_credentials.py", "git-credentials.md"],
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """`<tmp>/work/proj`, a git top level (its `.git`), next to `proj-other` and `proj2`."""
    root = tmp_path / "work" / "proj"
    (root / ".git").mkdir(parents=True)
    (root / "a.py").write_text("A = 1\n", encoding="utf-8")
    for sibling in ("proj-other", "proj2"):
        (tmp_path / "work" / sibling).mkdir()
        (tmp_path / "work" / sibling / "a.py").write_text("B = 2\n", encoding="utf-8")
    return root


def refusal(file_args: list[str], cwd: Path, **options) -> str:
    with pytest.raises(UsageError) as caught:
        gather_context(file_args, cwd=cwd, **options)
    return str(caught.value)


def shown(file_args: list[str], cwd: Path, **options) -> list[str]:
    return [f.path for f in gather_context(file_args, cwd=cwd, **options).files]


def test_every_secret_name_pattern_has_names_and_near_misses():
    assert set(SECRET_NAMES) == set(SECRET_NAME_PATTERNS)
    assert set(NEAR_SECRET_NAMES) == set(SECRET_NAME_PATTERNS)


SECRET_NAME_CASES = [(p, name) for p, names in SECRET_NAMES.items() for name in names]


@pytest.mark.parametrize(("pattern", "name"), SECRET_NAME_CASES)
def test_a_file_with_a_secret_name_is_refused_unless_allow_secrets(pattern, name, project):
    (project / "conf").mkdir()
    (project / "conf" / name).write_text("HOST = 'db.internal'\n", encoding="utf-8")
    given = f"conf/{name}"
    message = refusal([given], project)
    assert f"{given}: may hold secrets" in message
    assert "--allow-secrets" in message
    assert shown([given], project, allow_secrets=True) == [given]


NEAR_NAME_CASES = [(p, name) for p, names in NEAR_SECRET_NAMES.items() for name in names]


@pytest.mark.parametrize(("pattern", "name"), NEAR_NAME_CASES)
def test_a_name_close_to_a_secret_pattern_is_shared_like_any_file(pattern, name, project):
    (project / name).write_text("HOST = 'db.internal'\n", encoding="utf-8")
    assert shown([name], project) == [name]


def test_all_secret_named_files_are_refused_in_one_message(project):
    names = [names[0] for names in SECRET_NAMES.values()]
    for name in names:
        (project / name).write_text("x\n", encoding="utf-8")
    message = refusal([*names, "a.py"], project)
    assert message.startswith(f"cannot use {len(names)} files:")
    assert all(f"{name}: may hold secrets" in message for name in names)


def test_an_innocent_name_linking_to_a_secret_file_is_refused(project):
    (project / ".env").write_text("DEBUG=1\n", encoding="utf-8")
    (project / "settings.txt").symlink_to(".env")
    assert "settings.txt: may hold secrets" in refusal(["settings.txt"], project)


# -- 4. the project-root check ---------------------------------------------------------------


@pytest.mark.parametrize("sibling", ["proj-other", "proj2"])
def test_a_sibling_directory_sharing_the_roots_name_prefix_is_outside(sibling, project):
    for given in (f"../{sibling}/a.py", str(project.parent / sibling / "a.py")):
        message = refusal([given], project)
        assert f"{given}: is outside the project root {project}" in message
        assert "--allow-outside" in message


@pytest.mark.parametrize("sibling", ["proj-other", "proj2"])
def test_allow_outside_lets_a_sibling_file_in_under_its_base_name(sibling, project):
    assert shown([f"../{sibling}/a.py"], project, allow_outside=True) == ["_outside/a.py"]


def test_a_symlink_inside_the_root_pointing_outside_is_refused(project):
    (project / "b.py").symlink_to(project.parent / "proj-other" / "a.py")
    (project / "vendored").symlink_to(project.parent / "proj2", target_is_directory=True)
    message = refusal(["b.py", "vendored/a.py"], project)
    assert f"b.py: points outside the project root {project}" in message
    assert f"vendored/a.py: points outside the project root {project}" in message
    assert shown(["b.py"], project, allow_outside=True) == ["b.py"]


@pytest.mark.parametrize("given", ["sub/../a.py", "../proj/a.py", "./sub/./../a.py"])
def test_a_dotdot_path_that_comes_back_inside_the_root_is_accepted(given, project):
    (project / "sub").mkdir()
    assert shown([given], project) == ["a.py"]


def test_the_root_is_the_git_top_level_above_the_current_directory(project):
    src = project / "src" / "pkg"
    src.mkdir(parents=True)
    assert find_root(src) == project
    # A file above the current directory but inside the repository is inside.
    context = gather_context(["../../a.py"], cwd=src)
    assert context.root == project
    assert [f.path for f in context.files] == ["a.py"]
    # A worktree's `.git` is a file; it marks the top level all the same.
    worktree = project.parent / "proj2"
    (worktree / ".git").write_text("gitdir: /elsewhere/.git/worktrees/proj2\n")
    (worktree / "lib").mkdir()
    assert find_root(worktree / "lib") == worktree
    assert shown(["../a.py"], worktree / "lib") == ["a.py"]


def test_without_a_git_top_level_the_root_is_the_current_directory(tmp_path):
    plain = tmp_path / "plain"
    (plain / "src").mkdir(parents=True)
    (plain / "README.md").write_text("# plain\n", encoding="utf-8")
    (plain / "src" / "main.py").write_text("print(1)\n", encoding="utf-8")
    assert find_root(plain / "src") == plain / "src"  # no `.git` above the temporary dir
    assert shown(["main.py"], plain / "src") == ["main.py"]
    message = refusal(["../README.md"], plain / "src")
    assert f"../README.md: is outside the project root {plain / 'src'}" in message
    assert shown(["../README.md"], plain / "src", allow_outside=True) == ["_outside/README.md"]


def test_a_project_reached_through_a_symlinked_directory_keeps_its_files_inside(project):
    link = project.parent.parent / "link-to-proj"
    link.symlink_to(project, target_is_directory=True)
    assert shown(["a.py", str(link / "a.py")], link) == ["a.py"]
    assert "is outside" in refusal(["../proj-other/a.py"], link)


def test_allow_outside_lifts_every_outside_refusal_but_not_the_secret_one(project):
    (project.parent / "proj-other" / ".env").write_text("X=1\n", encoding="utf-8")
    (project.parent / "proj2" / "c.py").write_text("C = 3\n", encoding="utf-8")
    (project / "c.py").symlink_to(project.parent / "proj2" / "c.py")
    given = ["../proj-other/a.py", str(project.parent / "proj2" / "a.py"), "c.py"]
    assert "cannot use 3 files" in refusal(given, project)
    # Two outside files with one base name do not collide in the rooms.
    expected = ["_outside/a.py", "_outside/2/a.py", "c.py"]
    assert shown(given, project, allow_outside=True) == expected
    message = refusal(["../proj-other/.env"], project, allow_outside=True)
    assert "../proj-other/.env: may hold secrets" in message
