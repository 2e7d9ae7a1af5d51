"""A planted-secrets corpus and a leak checker, for the context tests and the full-debate ones.

    from context.secrets_corpus import plant_secret_corpus, find_leaks, read_tree

    corpus = plant_secret_corpus(project_dir)          # writes the files, returns what it planted
    ... run council with --files *corpus.files --allow-secrets ...
    assert find_leaks(corpus, read_tree(record_dir)) == []   # prompts, rooms, transcript, result
    assert find_leaks(corpus, {"stdin": recorded_stdin}) == []

Every secret is generated at run time from a fixed seed (realistic shapes, deterministic values,
and no secret-looking literal in the repository for scanners to trip on). A multi-line secret
(a PEM key) is planted once but checked line by line: any one body line leaking is a leak.
"""

from __future__ import annotations

import base64
import json
import random
import string
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

ALNUM = string.ascii_letters + string.digits
UPPER_DIGITS = string.ascii_uppercase + string.digits


@dataclass(frozen=True)
class Planted:
    kind: str  # the family planted ("github-token", "password in .env", ...)
    file: str  # relative path of the file holding it
    value: str  # the secret itself (for a PEM key: its base64 body)

    def needles(self) -> list[str]:
        """The strings whose presence anywhere means a leak."""
        if "\n" in self.value:
            return [line for line in self.value.split("\n") if len(line) >= 16]
        return [self.value]


@dataclass
class SecretCorpus:
    root: Path
    planted: list[Planted] = field(default_factory=list)
    files: list[str] = field(default_factory=list)  # relative paths, in a stable order
    secret_named: list[str] = field(default_factory=list)  # refused without --allow-secrets

    @property
    def ordinary_files(self) -> list[str]:
        return [f for f in self.files if f not in self.secret_named]


class _Gen:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def chars(self, alphabet: str, n: int) -> str:
        return "".join(self.rng.choice(alphabet) for _ in range(n))

    def mixed(self, n: int, extra: str = "") -> str:
        """n characters with at least one upper case letter, lower case letter and digit."""
        while True:
            value = self.chars(ALNUM + extra, n)
            if (
                any(c.isupper() for c in value)
                and any(c.islower() for c in value)
                and any(c.isdigit() for c in value)
            ):
                return value

    def password(self) -> str:
        return self.mixed(10) + self.chars("!#%^*~", 2) + self.mixed(4)

    def aws_id(self) -> str:
        return "AKIA" + self.chars(UPPER_DIGITS, 16)

    def aws_secret(self) -> str:
        return self.mixed(18, "/+") + "/" + self.mixed(10) + "+" + self.mixed(10)

    def jwt(self) -> str:
        def part(obj: object) -> str:
            raw = json.dumps(obj, separators=(",", ":")).encode()
            return base64.urlsafe_b64encode(raw).decode().rstrip("=")

        header = part({"alg": "HS256", "typ": "JWT"})
        payload = part(
            {"sub": self.mixed(12), "iat": self.rng.randrange(1_600_000_000, 1_700_000_000)}
        )
        return f"{header}.{payload}.{self.mixed(43, '-_')}"

    def pem_body(self) -> str:
        return (
            "\n".join(self.mixed(64, "+/") for _ in range(8)) + "\n" + self.mixed(24, "+/") + "=="
        )


def plant_secret_corpus(root: Path, seed: int = 20261122) -> SecretCorpus:
    """Write a small project under `root` with at least 25 planted secrets of every kind the
    redactor covers, spread over Python, `.env`, YAML, JSON, INI, TOML and Markdown files."""
    g = _Gen(seed)
    corpus = SecretCorpus(root=root)

    def plant(kind: str, file: str, value: str) -> str:
        corpus.planted.append(Planted(kind, file, value))
        return value

    def write(rel: str, text: str, *, secret_named: bool = False) -> None:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        corpus.files.append(rel)
        if secret_named:
            corpus.secret_named.append(rel)

    # -- source code --------------------------------------------------------------------------
    f = "app/settings.py"
    aws_id = plant("aws-access-key-id", f, g.aws_id())
    aws_secret = plant("aws-secret-key", f, g.aws_secret())
    db_password = plant("url-password", f, g.password())
    github = plant("github-token", f, "ghp_" + g.mixed(36))
    admin = plant("password in code", f, g.password())
    rsa = plant("private-key", f, g.pem_body())
    write(
        f,
        f'''"""Application settings."""

import os

AWS_ACCESS_KEY_ID = "{aws_id}"
AWS_SECRET_ACCESS_KEY = "{aws_secret}"
DATABASE_URL = "postgres://app:{db_password}@db.internal:5432/app"
GITHUB_TOKEN = "{github}"
ADMIN_PASSWORD = "{admin}"
SIGNING_KEY = """-----BEGIN RSA PRIVATE KEY-----
{rsa}
-----END RSA PRIVATE KEY-----"""
DEBUG = os.environ.get("DEBUG") == "1"


def connect(password: str = os.environ.get("DB_PASSWORD", "")) -> str:
    return DATABASE_URL
''',
    )

    f = "app/clients.py"
    openai = plant("openai-key", f, "sk-proj-" + g.mixed(48, "_-"))
    anthropic = plant("anthropic-key", f, "sk-ant-api03-" + g.mixed(80, "_-") + "AA")
    google = plant("google-api-key", f, "AIza" + g.mixed(35, "_-"))
    slack = plant(
        "slack-token",
        f,
        f"xoxb-{g.chars(string.digits, 11)}-{g.chars(string.digits, 12)}-{g.mixed(24)}",
    )
    gitlab = plant("gitlab-token", f, "glpat-" + g.mixed(20))
    bearer = plant("bearer-token", f, g.mixed(40))
    write(
        f,
        f'''from dataclasses import dataclass


@dataclass(frozen=True)
class Clients:
    openai_key: str = "{openai}"
    anthropic_key: str = "{anthropic}"
    google_key: str = "{google}"
    slack_bot: str = "{slack}"
    gitlab: str = "{gitlab}"


def auth_headers() -> dict[str, str]:
    return {{"Authorization": "Bearer {bearer}"}}
''',
    )

    # -- .env -------------------------------------------------------------------------------------
    f = ".env"
    write(
        f,
        f"""# local development
export DB_PASSWORD={plant("password in .env", f, g.password())}
SECRET_KEY='{plant("secret in .env", f, g.mixed(50, "!@#%^*()-_"))}'
API_TOKEN="{plant("token in .env", f, g.mixed(32))}"
SMTP_PASS={plant("password in .env (PASS)", f, g.password())}  # mail relay
OPENAI_API_KEY={plant("openai-key in .env", f, "sk-" + g.mixed(48))}
LOG_LEVEL=debug
PORT=8080
""",
        secret_named=True,
    )

    # -- YAML -------------------------------------------------------------------------------------
    f = "deploy/values.yaml"
    hook = f"T{g.chars(UPPER_DIGITS, 8)}/B{g.chars(UPPER_DIGITS, 8)}/{g.mixed(24)}"
    webhook = plant("slack-webhook", f, hook)
    write(
        f,
        f"""service:
  name: api
  replicas: 3
database:
  user: app
  password: {plant("password in YAML", f, g.password())}
  url: "mysql://app:{plant("url-password in YAML", f, g.password())}@mysql:3306/app"
integrations:
  stripe_api_key: "{plant("api-key in YAML", f, g.mixed(32))}"
  webhook: https://hooks.slack.com/services/{webhook}
oauth:
  client_secret: |
    {plant("secret block in YAML", f, g.mixed(60))}
environment:
  - REDIS_PASSWORD={plant("password in compose list", f, g.password())}
  - LOG_FORMAT=json
""",
    )

    # -- JSON -------------------------------------------------------------------------------------
    f = "deploy/credentials.json"
    # A service-account file: the key is one JSON string with `\n` escapes.
    gcp_key = plant("private-key in JSON", f, g.pem_body())
    document = {
        "type": "service_account",
        "project_id": "demo-project",
        "private_key_id": g.chars("0123456789abcdef", 40),
        "private_key": f"-----BEGIN PRIVATE KEY-----\n{gcp_key}\n-----END PRIVATE KEY-----\n",
        "client_email": "svc@demo-project.iam.gserviceaccount.com",
        "password": plant("password in JSON", f, g.password()),
        "apiKey": plant("api-key in JSON", f, g.mixed(39)),
        "access_token": plant("jwt in JSON", f, g.jwt()),
    }
    write(f, json.dumps(document, indent=2) + "\n", secret_named=True)

    # -- INI and TOML -----------------------------------------------------------------------------
    f = "config/app.ini"
    write(
        f,
        f"""[database]
host = db.internal
password = {plant("password in INI", f, g.password())}

[aws]
aws_access_key_id = {plant("aws-access-key-id in INI", f, g.aws_id())}
aws_secret_access_key = {plant("aws-secret-key in INI", f, g.aws_secret())}
""",
    )
    f = "config/settings.toml"
    write(
        f,
        f"""[server]
port = 8000

[secrets]
api_key = "{plant("api-key in TOML", f, g.mixed(32))}"
db = {{ user = "app", password = "{plant("password in TOML inline table", f, g.password())}" }}
""",
    )

    # -- Markdown ---------------------------------------------------------------------------------
    f = "docs/SETUP.md"
    ssh = g.pem_body()
    pat = plant("github fine-grained token", f, f"github_pat_{g.mixed(22)}_{g.mixed(59)}")
    write(
        f,
        f"""# Setup

Log in with the bot token `{pat}`
and call the API:

    curl -H "Authorization: Bearer {plant("jwt in Markdown", f, g.jwt())}" https://api.example.com/v1/me

```env
ANTHROPIC_API_KEY={plant("anthropic-key in Markdown", f, "sk-ant-api03-" + g.mixed(90, "_-"))}
DB_PASSWORD={plant("password in Markdown env fence", f, g.password())}
```

```yaml
token: {plant("token in Markdown yaml fence", f, g.mixed(30))}
```

The deploy key:

```
-----BEGIN OPENSSH PRIVATE KEY-----
{plant("ssh private key in Markdown", f, ssh)}
-----END OPENSSH PRIVATE KEY-----
```

AWS: `{plant("aws-access-key-id in Markdown", f, g.aws_id())}` with secret
`aws_secret_access_key={plant("aws-secret-key in Markdown", f, g.aws_secret())}`.
""",
    )
    return corpus


# -- checking -----------------------------------------------------------------------------------


def read_tree(path: Path) -> dict[str, str]:
    """Every regular file under `path` (read-only rooms included), as text, by relative path."""
    found: dict[str, str] = {}
    if path.is_file():
        return {path.name: path.read_bytes().decode("utf-8", "replace")}
    for item in sorted(path.rglob("*")):
        if item.is_file() and not item.is_symlink():
            found[str(item.relative_to(path))] = item.read_bytes().decode("utf-8", "replace")
    return found


def find_leaks(corpus: SecretCorpus, texts: Mapping[str, str | None]) -> list[str]:
    """`"<kind> from <file> in <where>"` for every planted secret found in any text."""
    leaks = []
    for where, text in texts.items():
        if not text:
            continue
        for planted in corpus.planted:
            if any(needle in text for needle in planted.needles()):
                leaks.append(f"{planted.kind} from {planted.file} in {where}")
    return leaks


def snapshot(root: Path, *, skip: tuple[str, ...] = ()) -> dict[str, tuple[int, bytes]]:
    """Relative path -> (mode, content) of everything under `root` except the `skip` top-level
    names: to prove that nothing in the user's tree changed."""
    state: dict[str, tuple[int, bytes]] = {}
    for item in sorted(root.rglob("*")):
        rel = item.relative_to(root)
        if rel.parts and rel.parts[0] in skip:
            continue
        st = item.lstat()
        content = item.read_bytes() if item.is_file() and not item.is_symlink() else b""
        state[rel.as_posix()] = (st.st_mode, content)
    return state
