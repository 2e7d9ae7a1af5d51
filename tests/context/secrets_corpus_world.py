"""Secrets as users leave them in the world, in shapes the first corpus (`secrets_corpus.py`)
does not hold: cloud connection strings, registry configs, headers on a shell line, vendor
tokens in prose, credentials passed positionally to a client, properties lines quoted in
Markdown; and their look-alikes that must stay (digests, UUIDs, lockfile integrity strings,
data URIs, long identifiers).

Every value is generated from a fixed seed in the vendor's documented shape (prefix, alphabet,
length), so nothing here is a real credential and no secret-looking literal is in the
repository. `python scripts/redaction-figures.py` reports the same corpus's leak count.
"""

from __future__ import annotations

import base64
import random
import string
from dataclasses import dataclass

HEX = "0123456789abcdef"
LOWER_ALNUM = string.ascii_lowercase + string.digits
UPPER_ALNUM = string.ascii_uppercase + string.digits
ALNUM = string.ascii_letters + string.digits
URLSAFE = ALNUM + "_-"


@dataclass(frozen=True)
class WorldSecret:
    kind: str  # what a user would call it ("Azure storage account key")
    where: str  # code | config | shell | markdown | prose
    filename: str
    text: str
    secret: str

    def survivors(self, redacted: str, span: int = 8) -> list[str]:
        """Every `span`-character piece of the secret still in `redacted` (none: fully gone)."""
        pieces = {self.secret[i : i + span] for i in range(len(self.secret) - span + 1)}
        return sorted(p for p in pieces if p in redacted)


class _Gen:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def chars(self, alphabet: str, n: int) -> str:
        while True:
            value = "".join(self.rng.choice(alphabet) for _ in range(n))
            # Generated like the vendors' keys: varied enough to have a digit and (where the
            # alphabet has both) both cases; a draw without is drawn again.
            if alphabet == HEX or not any(c.isdigit() for c in alphabet):
                return value
            if any(c.isdigit() for c in value) and (
                not (set(alphabet) & set(string.ascii_uppercase))
                or not (set(alphabet) & set(string.ascii_lowercase))
                or (any(c.isupper() for c in value) and any(c.islower() for c in value))
            ):
                return value

    def hex(self, n: int) -> str:
        return self.chars(HEX, n)

    def b64(self, nbytes: int) -> str:
        return base64.b64encode(self.rng.randbytes(nbytes)).decode()

    def uuid(self) -> str:
        h = self.hex(32)
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"

    def password(self) -> str:
        return self.chars(ALNUM, 9) + self.rng.choice("!#%^*~") + self.chars(ALNUM, 5)


def world_secrets(seed: int = 20261128) -> list[WorldSecret]:
    g = _Gen(seed)
    out: list[WorldSecret] = []

    def add(kind: str, where: str, filename: str, template: str, secret: str) -> None:
        out.append(WorldSecret(kind, where, filename, template.format(s=secret), secret))

    # -- the six kinds issue 29 measured leaking ---------------------------------------------
    add(
        "Azure storage account key in a connection string",
        "code",
        "Storage.cs",
        'var conn = "DefaultEndpointsProtocol=https;AccountName=contosodata;AccountKey={s};'
        'EndpointSuffix=core.windows.net";\n',
        g.b64(64),
    )
    user_pass = base64.b64encode(f"deploy:{g.password()}".encode()).decode()
    add(
        "registry auth in docker config.json",
        "config",
        "config.json",
        '{{\n  "auths": {{\n    "registry.example.com": {{\n'
        '      "auth": "{s}"\n    }}\n  }}\n}}\n',
        user_pass,
    )
    add(
        "Authorization: Bearer (hex) on a curl line",
        "shell",
        "deploy.sh",
        '#!/bin/sh\ncurl -sf -H "Authorization: Bearer {s}" https://api.example.com/v2/deploy\n',
        g.hex(40),
    )
    add(
        "Hugging Face token in prose and as a call argument",
        "prose",
        "NOTES.txt",
        'Log in first: huggingface_hub.login("{s}") then push the model.\n',
        "hf_" + g.chars(ALNUM, 34),
    )
    add(
        "Twilio auth token beside its account SID",
        "code",
        "sms.py",
        'from twilio.rest import Client\n\nclient = Client("AC' + g.hex(32) + '", "{s}")\n',
        g.hex(32),
    )
    add(
        "a *.password= properties line quoted in Markdown",
        "markdown",
        "DEPLOY.md",
        "Set the datasource in `application.properties`:\n\n```\n"
        "spring.datasource.url=jdbc:postgresql://db:5432/app\n"
        "spring.datasource.password={s}\n```\n",
        g.password(),
    )

    # -- connection strings and URLs ---------------------------------------------------------
    add(
        "Azure Service Bus SharedAccessKey",
        "config",
        "appsettings.json",
        '{{\n  "ConnectionStrings": {{\n    "Bus": "Endpoint=sb://acme.servicebus.windows.net/;'
        'SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey={s}"\n  }}\n}}\n',
        g.b64(32),
    )
    add(
        "Azure SAS signature in a blob URL",
        "shell",
        "fetch.sh",
        "wget 'https://acme.blob.core.windows.net/backups/db.tar?sv=2022-11-02&ss=b&srt=o"
        "&sp=r&se=2026-12-31T00:00:00Z&sig={s}'\n",
        g.b64(32).replace("+", "%2B").replace("/", "%2F").replace("=", "%3D"),
    )
    add(
        "Firebase Cloud Messaging server key",
        "config",
        "push.properties",
        "fcm.endpoint=https://fcm.googleapis.com/fcm/send\nfcm.server=key={s}\n",
        "AAAA" + g.chars(URLSAFE, 7) + ":APA91b" + g.chars(URLSAFE, 134),
    )
    add(
        "SMB URL password in prose",
        "prose",
        "handover.txt",
        "The share is smb://backup:{s}@nas.local/archive and is mounted nightly.\n",
        g.password(),
    )
    add(
        "ODBC Pwd= at the end of a string",
        "code",
        "report.R",
        'con <- dbConnect(odbc(), .connection_string = "Driver={{SQL Server}};Server=db;'
        'Uid=report;Pwd={s}")\n',
        g.password(),
    )
    add(
        "presigned S3 URL signature",
        "markdown",
        "SHARE.md",
        "Download: <https://bucket.s3.amazonaws.com/report.pdf?X-Amz-Algorithm=AWS4-HMAC-SHA256"
        "&X-Amz-Expires=3600&X-Amz-Signature={s}>\n",
        g.hex(64),
    )

    # -- headers anywhere --------------------------------------------------------------------
    add(
        "X-Api-Key header in a Markdown HTTP example",
        "markdown",
        "API.md",
        "```http\nGET /v1/orders HTTP/1.1\nHost: api.example.com\nX-Api-Key: {s}\n```\n",
        g.hex(40),
    )
    add(
        "Ocp-Apim-Subscription-Key on a curl line",
        "shell",
        "translate.sh",
        "curl -X POST 'https://api.cognitive.example.com/translate' \\\n"
        "  -H 'Ocp-Apim-Subscription-Key: {s}' -d @body.json\n",
        g.hex(32),
    )
    add(
        "DD-API-KEY header in a Python dict",
        "code",
        "metrics.py",
        'HEADERS = {{"DD-API-KEY": "{s}", "Content-Type": "application/json"}}\n',
        g.hex(32),
    )
    add(
        "Authorization: token (GitLab-style private token) in a JS fetch",
        "code",
        "sync.js",
        "await fetch(url, {{ headers: {{ Authorization: 'Bearer {s}' }} }});\n",
        g.chars(URLSAFE, 40),
    )
    add(
        "Private-Token header in a shell script",
        "shell",
        "ci.sh",
        'curl --header "PRIVATE-TOKEN: {s}" "https://git.example.com/api/v4/projects"\n',
        g.chars(LOWER_ALNUM, 26),
    )

    # -- credentials passed to calls and command lines --------------------------------------
    add(
        "Atlassian API token in a requests auth tuple",
        "code",
        "jira.py",
        'r = requests.get(url, auth=("me@example.com", "{s}"))\n',
        "ATATT3x" + g.chars(URLSAFE, 180),
    )
    add(
        "Azure AD client secret passed positionally",
        "code",
        "graph.py",
        'cred = ClientSecretCredential("' + g.uuid() + '", "' + g.uuid() + '", "{s}")\n',
        g.chars(ALNUM, 3) + "8Q~" + g.chars(ALNUM + "_~.-", 34),
    )
    add(
        "basic-auth password passed to a Kotlin helper",
        "code",
        "Http.kt",
        'val header = Credentials.basic("svc-reports", "{s}")\n',
        g.password(),
    )
    add(
        "psql --password= on a command line",
        "shell",
        "backup.sh",
        "pg_dump --host db --username app --password={s} app > dump.sql\n",
        g.password(),
    )
    add(
        "curl -u user:password",
        "shell",
        "health.sh",
        "curl -fsS -u monitor:{s} https://grafana.internal/api/health\n",
        g.password(),
    )
    add(
        ".netrc password",
        "config",
        ".netrc",
        "machine git.example.com\n  login ci-bot\n  password {s}\n",
        g.chars(ALNUM, 24),
    )

    # -- vendor tokens by prefix, in every kind of file -------------------------------------
    add(
        "Square access token in JS",
        "code",
        "billing.js",
        "const square = new SquareClient({{ environment: 'production', token: '{s}' }});\n",
        "EAAA" + g.chars(URLSAFE, 60),
    )
    add(
        "SendGrid key passed to the client",
        "code",
        "mail.py",
        'sg = SendGridAPIClient("{s}")\n',
        "SG." + g.chars(URLSAFE, 22) + "." + g.chars(URLSAFE, 43),
    )
    add(
        "Mailgun key in Ruby",
        "code",
        "mailer.rb",
        'RestClient.post "https://api:{s}@api.mailgun.net/v3/mg.example.com/messages"\n',
        "key-" + g.chars(LOWER_ALNUM, 32),
    )
    add(
        "Shopify admin token in PHP",
        "code",
        "shop.php",
        "$client = new Shopify\\Clients\\Rest('shop.myshopify.com', '{s}');\n",
        "shpat_" + g.hex(32),
    )
    add(
        "DigitalOcean token in Terraform",
        "config",
        "main.tf",
        'provider "digitalocean" {{\n  token = "{s}"\n}}\n',
        "dop_v1_" + g.hex(64),
    )
    add(
        "PyPI token on a twine line",
        "shell",
        "release.sh",
        "twine upload -u __token__ -p {s} dist/*\n",
        "pypi-AgEIcHlwaS5vcmc" + g.chars(URLSAFE, 120),
    )
    add(
        "Groq key in prose",
        "prose",
        "README.txt",
        "My Groq key is {s} - rotate it after the demo.\n",
        "gsk_" + g.chars(ALNUM, 52),
    )
    add(
        "Telegram bot token in a Go call",
        "code",
        "bot.go",
        'bot, err := tgbotapi.NewBotAPI("{s}")\n',
        str(g.rng.randrange(10**8, 10**9)) + ":AA" + g.chars(URLSAFE, 33),
    )
    add(
        "Discord bot token passed to login",
        "code",
        "bot.ts",
        "client.login('{s}');\n",
        "M" + g.chars(ALNUM, 25) + "." + g.chars(URLSAFE, 6) + "." + g.chars(URLSAFE, 38),
    )
    add(
        "Mailchimp key in a YAML list item",
        "config",
        "newsletter.yml",
        "providers:\n  - mailchimp\n  - {s}\n",
        g.hex(32) + "-us21",
    )
    add(
        "Linear API key in TypeScript",
        "code",
        "linear.ts",
        "const linear = new LinearClient({{ apiKey: process.env.K ?? '{s}' }});\n",
        "lin_api_" + g.chars(ALNUM, 40),
    )
    add(
        "Notion token in a Markdown table",
        "markdown",
        "INTEGRATIONS.md",
        "| service | credential |\n|---|---|\n| notion | `{s}` |\n",
        "ntn_" + g.chars(ALNUM, 46),
    )
    add(
        "Vault token on a vault login line",
        "shell",
        "unseal.sh",
        "vault login {s}\n",
        "hvs." + g.chars(URLSAFE, 90),
    )
    add(
        "Doppler service token as a flag",
        "shell",
        "Dockerfile",
        "RUN doppler secrets download --no-file --token {s}\n",
        "dp.st.prd." + g.chars(ALNUM, 43),
    )
    add(
        "age secret key in prose",
        "prose",
        "keys.txt",
        "# created: 2026-11-01\n{s}\n",
        "AGE-SECRET-KEY-1" + g.chars("023456789ACDEFGHJKLMNPQRSTUVWXYZ", 58),
    )
    add(
        "Sentry auth token in a workflow step",
        "config",
        "release.yml",
        "steps:\n  - run: sentry-cli releases new v1 --auth-token {s}\n",
        "sntryu_" + g.hex(64),
    )
    add(
        "Grafana service account token in Go",
        "code",
        "dash.go",
        'c := gapi.New(baseURL, "{s}")\n',
        "glsa_" + g.chars(ALNUM, 32) + "_" + g.hex(8),
    )
    add(
        "New Relic user key in Java",
        "code",
        "Metrics.java",
        'NewRelicClient nr = new NewRelicClient("{s}");\n',
        "NRAK-" + g.chars(UPPER_ALNUM, 27),
    )
    add(
        "Tailscale auth key in cloud-init",
        "config",
        "cloud-init.yaml",
        "runcmd:\n  - tailscale up --authkey={s}\n",
        "tskey-auth-" + g.chars(ALNUM, 12) + "-" + g.chars(ALNUM, 33),
    )
    add(
        "Terraform Cloud token in .terraformrc",
        "config",
        ".terraformrc",
        'credentials "app.terraform.io" {{\n  token = "{s}"\n}}\n',
        g.chars(ALNUM, 14) + ".atlasv1." + g.chars(ALNUM, 67),
    )
    add(
        "Braintree access token in Ruby",
        "code",
        "pay.rb",
        "gateway = Braintree::Gateway.new(ENV.fetch('BT', '{s}'))\n",
        "access_token$production$" + g.chars(LOWER_ALNUM, 16) + "$" + g.hex(32),
    )
    add(
        "Hugging Face token in a notebook cell's JSON",
        "code",
        "train.ipynb",
        '{{"cells": [{{"source": ["login(token=\\"{s}\\")"]}}]}}\n',
        "hf_" + g.chars(ALNUM, 34),
    )
    add(
        "Postman API key in an env export",
        "shell",
        "newman.sh",
        "newman run collection.json --postman-api-key {s}\n",
        "PMAK-" + g.hex(24) + "-" + g.hex(34),
    )
    add(
        "OpenRouter key in a chat message pasted in Markdown",
        "markdown",
        "chat-log.md",
        "> user: here is my OpenRouter key {s}, why does it 401?\n",
        "sk-or-v1-" + g.hex(64),
    )

    # -- no prefix, no name: only its look gives it away ------------------------------------
    add(
        "webhook signing secret in prose (base62)",
        "prose",
        "incident.md",
        "We rotated the webhook signing secret; the old one was {s} and is revoked.\n",
        g.chars(ALNUM, 32),
    )
    add(
        "random base64 key passed to a decoder",
        "code",
        "crypto.go",
        'key, _ := base64.StdEncoding.DecodeString("{s}")\n',
        g.b64(32),
    )
    add(
        "Azure DevOps PAT (52 lower-case base32) in a git remote",
        "shell",
        "clone.sh",
        "git clone https://build:{s}@dev.azure.com/acme/app/_git/app\n",
        g.chars("abcdefghijklmnopqrstuvwxyz234567", 52),
    )
    return out


# Things that look like secrets and are not: each must come out of the redactor unchanged.
def lookalikes(seed: int = 20261128) -> list[tuple[str, str]]:
    g = _Gen(seed + 1)
    sha1 = g.hex(40)
    sha256 = g.hex(64)
    sri = base64.b64encode(g.rng.randbytes(48)).decode()
    sha512 = base64.b64encode(g.rng.randbytes(64)).decode()
    png = (
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJ"
        "RU5ErkJggg=="
    )
    woff = "d09GMgABAAAAA" + base64.b64encode(g.rng.randbytes(90)).decode()
    return [
        ("CHANGELOG.md", f"Fixed in commit {sha1} (see also {sha1[:7]}).\n"),
        ("Dockerfile", f"FROM python:3.12-slim@sha256:{sha256}\n"),
        (
            "package-lock.json",
            '{\n  "node_modules/left-pad": {\n    "version": "1.3.0",\n'
            f'    "integrity": "sha512-{sha512}"\n  }}\n}}\n',
        ),
        ("yarn.lock", f'left-pad@^1.3.0:\n  resolved "https://r.example/lp.tgz#{sha1}"\n'),
        ("requirements.txt", f"requests==2.32.3 \\\n    --hash=sha256:{sha256}\n"),
        ("go.sum", f"golang.org/x/text v0.14.0 h1:{sri[:43]}=\n"),
        ("Cargo.lock", f'[[package]]\nname = "serde"\nchecksum = "{sha256}"\n'),
        ("index.html", f'<script src="/app.js" integrity="sha384-{sri}"></script>\n'),
        ("ids.py", f'REQUEST_ID = "{g.uuid()}"\nTENANT = UUID("{g.uuid()}")\n'),
        ("style.css", f".logo {{ background: url(data:image/png;base64,{png}); }}\n"),
        ("fonts.css", f"@font-face {{ src: url(data:font/woff2;base64,{woff}) }}\n"),
        ("icon.py", f'ICON = base64.b64decode("{png}")\n'),
        (
            "Names.java",
            "AbstractSingletonProxyFactoryBeanDefinitionRegistryPostProcessor2 factory = null;\n",
        ),
        (
            "b64.js",
            'const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";\n',
        ),
        ("paths.py", 'ROOT = "src/main/java/com/example/service/UserAccountService2Impl.java"\n'),
        ("deploy.sh", 'curl -H "Authorization: Bearer ${TOKEN}" -u "$USER:$PASS" https://x\n'),
        ("run.sh", "psql --password-file /run/secrets/db --username app\n"),
        ("sms.py", "client = Client(account_sid, auth_token)\n"),
        ("http.md", f"X-Request-Id: {g.uuid()}\nIdempotency-Key: {g.uuid()}\n"),
        ("test_hash.py", f'self.assertEqual(hashlib.md5(b"abc").hexdigest(), "{g.hex(32)}")\n'),
        ("theme.scss", "$brand: #1a2b3c; $accent: #ffcc00;\n"),
        ("app.js", "//# sourceMappingURL=app.js.map\n"),
        ("slug.md", "See /blog/2026/11/how-we-cut-build-times-by-forty-percent-with-caching\n"),
        ("git.txt", f"tree {sha1}\nparent {g.hex(40)}\nauthor A <a@example.com>\n"),
        ("docker.txt", f"Digest: sha256:{sha256}\n"),
        ("log.txt", f"{g.hex(40)} Fix the parser (#12)\n{sha1} Bump deps\n"),
        ("release.md", f"The image {sha256} is the one in production.\n"),
        ("settings.py", 'SECRET_KEY = os.environ["DJANGO_SECRET_KEY"]\n'),
        ("README.md", "Pass `--token YOUR_TOKEN` or set `Authorization: Bearer <token>`.\n"),
        ("conn.cs", 'var conn = $"Server=db;User Id=app;Password={password};";\n'),
    ]
