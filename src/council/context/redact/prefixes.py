"""Vendor tokens known by their prefix: one table, written for council from the vendors' own
documentation of their key formats, so a token is caught wherever it is written (code, a
config, a shell line, prose) without a key name beside it.

A row is (provider, prefixes, body): a token is the prefix followed by a body that matches
`body` to the token's end. Tokens are found by one scan for runs of `[A-Za-z0-9_.-]`; a run is
looked up by its first two characters, so the table's size costs a dictionary look-up per run,
not a pattern per row. Publishable keys meant for browsers (Stripe `pk_`, Mapbox `pk.`, PostHog
`phc_`) are not secrets and are not in the table.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from council.context.redact.marks import Hits

_HEX = "[0-9a-f]"
_UUID = f"{_HEX}{{8}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{12}}"

# (provider, prefixes, body). The body is matched right after the prefix, up to the token's
# end (a trailing `.` of a sentence aside).
_TABLE: tuple[tuple[str, tuple[str, ...], str], ...] = (
    # Forges, registries and package hosts
    ("github", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"), r"[A-Za-z0-9]{36,255}"),
    ("github", ("github_pat_",), r"[A-Za-z0-9_]{50,255}"),
    (
        "gitlab",
        ("glpat-", "gldt-", "glrt-", "glptt-", "glcbt-", "glft-", "glimt-", "glagent-", "glsoat-"),
        r"[A-Za-z0-9_-]{20,}",
    ),
    ("gitlab", ("GR1348941",), r"[A-Za-z0-9_-]{20,}"),  # runner registration token
    ("bitbucket", ("ATBB",), r"[A-Za-z0-9_=.-]{28,}"),
    ("atlassian", ("ATATT3", "ATCTT3", "ATOAT"), r"[A-Za-z0-9_=-]{40,}"),
    ("npm", ("npm_",), r"[A-Za-z0-9]{36}"),
    # A macaroon: its base64 starts with the location (`pypi.org`, `test.pypi.org`).
    ("pypi", ("pypi-AgEI", "pypi-AgEN"), r"[A-Za-z0-9_-]{50,}"),
    ("rubygems", ("rubygems_",), r"[a-f0-9]{48}"),
    ("nuget", ("oy2",), r"[a-z0-9]{43}"),
    ("clojars", ("CLOJARS_",), r"[a-z0-9]{60}"),
    ("docker-hub", ("dckr_pat_", "dckr_oat_"), r"[A-Za-z0-9_-]{27,}"),
    ("jfrog", ("AKCp",), r"[A-Za-z0-9]{60,}"),
    ("jfrog", ("cmVmdGtuOjAxOj",), r"[A-Za-z0-9]{40,}"),
    ("sourcegraph", ("sgp_", "sgph_"), r"(?:local_)?[A-Za-z0-9_]{40,}"),
    ("sonarqube", ("squ_", "sqp_", "sqa_"), r"[a-f0-9]{40}"),
    ("buildkite", ("bkua_",), r"[a-f0-9]{40}"),
    ("circleci", ("CCIPAT_",), r"[A-Za-z0-9]{22}_[a-f0-9]{40}"),
    ("octopus", ("API-",), r"[A-Z0-9]{26,}"),
    ("readme", ("rdme_",), r"[a-z0-9]{70}"),
    ("scalingo", ("tk-us-",), r"[A-Za-z0-9_-]{48}"),
    # Cloud and hosting
    ("aws", ("AKIA", "ASIA", "ABIA", "ACCA"), r"[A-Z0-9]{16}"),
    ("alibaba", ("LTAI",), r"[A-Za-z0-9]{12,20}"),
    ("tencent", ("AKID",), r"[A-Za-z0-9]{32}"),
    ("scaleway", ("SCW",), r"[A-Z0-9]{17}"),
    ("yandex", ("AQVN",), r"[A-Za-z0-9_-]{35,38}"),
    ("yandex", ("y0_",), r"[A-Za-z0-9_-]{50,}"),
    ("google", ("AIza",), r"[0-9A-Za-z_-]{35}"),
    ("google", ("GOCSPX-",), r"[A-Za-z0-9_-]{24,}"),
    ("google", ("ya29.",), r"[0-9A-Za-z_-]{30,}"),
    ("digitalocean", ("dop_v1_", "doo_v1_", "dor_v1_"), r"[a-f0-9]{64}"),
    ("heroku", ("HRKU-",), r"[A-Za-z0-9_-]{40,}"),
    ("netlify", ("nfp_",), r"[A-Za-z0-9]{36,}"),
    ("fly", ("fm1r_", "fm1a_", "fm2_", "fo1_"), r"[A-Za-z0-9+/=_-]{40,}"),
    ("render", ("rnd_",), r"[A-Za-z0-9]{30,}"),
    ("vercel", ("vercel_blob_rw_",), r"[A-Za-z0-9]{16}_[A-Za-z0-9]{30}"),
    ("deno-deploy", ("ddp_", "ddo_"), r"[A-Za-z0-9]{36}"),
    ("supabase", ("sbp_",), r"[a-f0-9]{40}"),
    ("supabase", ("sb_secret_",), r"[A-Za-z0-9_-]{20,}"),
    ("neon", ("napi_",), r"[a-z0-9]{40,}"),
    ("planetscale", ("pscale_tkn_", "pscale_pw_", "pscale_oauth_"), r"[A-Za-z0-9_.-]{32,}"),
    ("hashicorp-vault", ("hvs.", "hvb.", "hvr."), r"[A-Za-z0-9_-]{24,}"),
    ("pulumi", ("pul-",), r"[a-f0-9]{40}"),
    (
        "doppler",
        ("dp.pt.", "dp.st.", "dp.ct.", "dp.sa.", "dp.scim.", "dp.audit."),
        r"(?:[a-z0-9_-]{2,35}\.)?[A-Za-z0-9]{40,}",
    ),
    (
        "tailscale",
        ("tskey-",),
        r"(?:api-|auth-|client-|webhook-|scim-)?[A-Za-z0-9]{6,}-[A-Za-z0-9]{20,}",
    ),
    ("infracost", ("ico-",), r"[A-Za-z0-9]{32}"),
    ("dynatrace", ("dt0c01.", "dt0s01.", "dt0s16."), r"[A-Z0-9]{24}\.[A-Z0-9]{64}"),
    ("appwrite", ("standard_",), r"[a-f0-9]{128,}"),
    ("cloudflare", ("v1.0-",), r"[a-f0-9]{24}-[a-f0-9]{140,}"),
    ("backblaze", ("K00",), r"[A-Za-z0-9+/]{28}"),
    ("elastic-cloud", ("essu_",), r"[A-Za-z0-9+/=_-]{40,}"),
    ("kong", ("kpat_", "spat_"), r"[A-Za-z0-9]{37,}"),
    ("harness", ("pat.",), r"[A-Za-z0-9_-]{22}\.[a-f0-9]{24}\.[A-Za-z0-9]{20}"),
    ("adafruit", ("aio_",), r"[A-Za-z0-9]{28}"),
    ("easypost", ("EZAK", "EZTK"), r"[A-Za-z0-9]{54}"),
    ("prefect", ("pnu_",), r"[A-Za-z0-9]{36}"),
    ("terraform", ("atlasv1.",), r"[A-Za-z0-9_=-]{60,}"),
    # Chat, mail and messaging
    (
        "slack",
        ("xoxb-", "xoxp-", "xoxa-", "xoxo-", "xoxs-", "xoxr-", "xoxe-"),
        r"[A-Za-z0-9-]{10,}",
    ),
    ("slack", ("xapp-",), r"\d-[A-Za-z0-9-]{20,}"),
    ("sendgrid", ("SG.",), r"[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}"),
    ("mailgun", ("key-",), r"[0-9a-z]{32}"),
    ("brevo", ("xkeysib-", "xsmtpsib-"), r"[a-f0-9]{64}-[A-Za-z0-9]{16}"),
    ("resend", ("re_",), r"[A-Za-z0-9]{8}_[A-Za-z0-9]{20,}"),
    ("twilio", ("SK",), r"[0-9a-fA-F]{32}"),
    ("telnyx", ("KEY",), r"[0-9A-F]{32}_[A-Za-z0-9]{22}"),
    ("pubnub", ("sec-c-",), r"[A-Za-z0-9]{40,}"),
    ("intercom", ("dG9rO",), r"[A-Za-z0-9_=-]{40,}"),
    ("facebook", ("EAACEdEose0cBA", "EAAG", "EAAB"), r"[A-Za-z0-9]{80,}"),
    ("twitter", ("AAAAAAAAAAAAAAAAAAAAA",), r"[A-Za-z0-9%]{30,}"),
    ("dropbox", ("sl.",), r"[A-Za-z0-9_-]{130,}"),
    ("notion", ("secret_",), r"[A-Za-z0-9]{43}"),
    ("notion", ("ntn_",), r"[A-Za-z0-9]{40,}"),
    ("linear", ("lin_api_", "lin_oauth_"), r"[A-Za-z0-9]{40,}"),
    ("figma", ("figd_", "figu_"), r"[A-Za-z0-9_-]{40,}"),
    ("frameio", ("fio-u-",), r"[A-Za-z0-9_=-]{64}"),
    ("typeform", ("tfp_",), r"[A-Za-z0-9_.=-]{40,}"),
    ("contentful", ("CFPAT-",), r"[A-Za-z0-9_-]{43}"),
    ("airtable", ("pat",), r"[A-Za-z0-9]{14}\.[a-f0-9]{64}"),
    ("hubspot", ("pat-na1-", "pat-na2-", "pat-eu1-", "pat-ap1-"), _UUID),
    ("cal", ("cal_live_", "cal_test_"), r"[a-f0-9]{32}"),
    # Payments and commerce
    ("stripe", ("sk_live_", "sk_test_", "rk_live_", "rk_test_"), r"[0-9A-Za-z]{24,}"),
    ("stripe", ("whsec_",), r"[0-9A-Za-z+/=]{24,}"),
    ("shopify", ("shpat_", "shpca_", "shppa_", "shpss_"), r"[a-fA-F0-9]{32}"),
    ("square", ("sq0atp-",), r"[A-Za-z0-9_-]{22}"),
    ("square", ("sq0csp-",), r"[A-Za-z0-9_-]{43}"),
    ("square", ("EAAA",), r"[A-Za-z0-9_-]{60}"),
    ("shippo", ("shippo_live_", "shippo_test_"), r"[a-f0-9]{40}"),
    ("plaid", ("access-sandbox-", "access-development-", "access-production-"), _UUID),
    ("flutterwave", ("FLWSECK_TEST-", "FLWSECK-"), r"[a-h0-9]{32}-X"),
    ("duffel", ("duffel_live_", "duffel_test_"), r"[A-Za-z0-9_=-]{43}"),
    ("paddle", ("pdl_live_apikey_", "pdl_sdbx_apikey_"), r"[A-Za-z0-9_]{30,}"),
    ("polar", ("polar_oat_", "polar_pat_", "polar_at_"), r"[A-Za-z0-9]{40,}"),
    ("razorpay", ("rzp_live_", "rzp_test_"), r"[A-Za-z0-9]{14}"),
    # Observability and analytics
    ("sentry", ("sntrys_",), r"[A-Za-z0-9+/=_]{50,}"),
    ("sentry", ("sntryu_",), r"[a-f0-9]{64}"),
    ("grafana", ("glc_",), r"[A-Za-z0-9+/]{32,}={0,2}"),
    ("grafana", ("glsa_",), r"[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}"),
    ("new-relic", ("NRAK-", "NRII-", "NRJS-", "NRAA-"), r"[A-Z0-9]{27}"),
    ("honeycomb", ("hcaik_", "hcxik_"), r"[a-z0-9]{58}"),
    ("posthog", ("phx_",), r"[A-Za-z0-9]{40,}"),
    ("launchdarkly", ("api-", "sdk-"), _UUID),
    ("riot", ("RGAPI-",), _UUID),
    # AI and model providers
    ("anthropic", ("sk-ant-",), r"[A-Za-z0-9_-]{20,}"),
    ("openrouter", ("sk-or-v1-",), r"[a-f0-9]{64}"),
    ("deepseek", ("sk-",), r"[a-f0-9]{32}"),
    ("langfuse", ("sk-lf-",), _UUID),
    ("huggingface", ("hf_",), r"[A-Za-z0-9]{34,}"),
    ("huggingface", ("api_org_",), r"[A-Za-z0-9]{34}"),
    ("replicate", ("r8_",), r"[A-Za-z0-9]{37}"),
    ("groq", ("gsk_",), r"[A-Za-z0-9]{52}"),
    ("perplexity", ("pplx-",), r"[A-Za-z0-9]{48}"),
    ("xai", ("xai-",), r"[A-Za-z0-9]{70,}"),
    ("fireworks", ("fw_",), r"[A-Za-z0-9]{24,}"),
    ("elevenlabs", ("sk_",), r"[a-f0-9]{48}"),
    ("cerebras", ("csk-",), r"[a-z0-9]{48}"),
    ("nvidia", ("nvapi-",), r"[A-Za-z0-9_-]{64}"),
    ("langsmith", ("lsv2_pt_", "lsv2_sk_"), r"[a-f0-9]{32}_[a-f0-9]{10}"),
    ("pinecone", ("pcsk_",), r"[A-Za-z0-9_]{50,}"),
    ("anyscale", ("esecret_",), r"[A-Za-z0-9]{20,}"),
    ("voyage", ("pa-",), r"[A-Za-z0-9_-]{40,}"),
    ("tavily", ("tvly-",), r"(?:dev-)?[A-Za-z0-9]{32}"),
    ("firecrawl", ("fc-",), r"[a-f0-9]{32}"),
    ("e2b", ("e2b_",), r"[a-f0-9]{40}"),
    ("jina", ("jina_",), r"[A-Za-z0-9_-]{40,}"),
    ("runpod", ("rpa_",), r"[A-Za-z0-9]{30,}"),
    ("browserbase", ("bb_live_",), r"[A-Za-z0-9_-]{20,}"),
    ("mapbox", ("sk.eyJ",), r"[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}"),
    # Secrets managers, auth and developer platforms
    ("1password", ("ops_eyJ",), r"[A-Za-z0-9+/=_-]{100,}"),
    ("age", ("AGE-SECRET-KEY-1",), r"[02-9AC-HJ-NP-Z]{58}"),
    ("postman", ("PMAK-",), r"[a-f0-9]{24}-[a-f0-9]{34}"),
    ("stytch", ("secret-live-", "secret-test-"), r"[A-Za-z0-9_=-]{36,}"),
    ("liveblocks", ("sk_prod_", "sk_dev_"), r"[A-Za-z0-9_-]{40,}"),
    ("trigger", ("tr_dev_", "tr_prod_", "tr_stg_"), r"[A-Za-z0-9]{20,}"),
    ("inngest", ("signkey-prod-", "signkey-test-", "signkey-branch-"), r"[a-f0-9]{64}"),
    ("zuplo", ("zpka_",), r"[a-f0-9]{32}_[a-f0-9]{8}"),
    ("unkey", ("unkey_",), r"[A-Za-z0-9]{20,}"),
)


@dataclass(frozen=True)
class _Row:
    provider: str
    prefix: str
    body: re.Pattern[str]


def _index() -> dict[str, tuple[_Row, ...]]:
    by_start: dict[str, list[_Row]] = {}
    for provider, prefixes, body in _TABLE:
        for prefix in prefixes:
            by_start.setdefault(prefix[:2], []).append(_Row(provider, prefix, re.compile(body)))
    # The longest prefix first: `sk-ant-` before `sk-`, `sk_live_` before `sk_`.
    return {k: tuple(sorted(v, key=lambda r: -len(r.prefix))) for k, v in by_start.items()}


_BY_START = _index()
PROVIDERS = frozenset(provider for provider, _, _ in _TABLE)

# Where a token may start: a run of word characters, dots and dashes not inside a longer one
# (`key=AIza...` starts a run at `A`, since `=` is not in it).
_RUN = re.compile(r"(?<![A-Za-z0-9_.\-+/])[A-Za-z0-9][A-Za-z0-9_.\-]{7,}")
# What may not follow a token: more of a word, or more base64 (`AAAA...` inside an image).
_TOKEN_CHAR = re.compile(r"[A-Za-z0-9_\-]|[+/][A-Za-z0-9]")


def prefixed_token(text: str, start: int) -> tuple[str, int] | None:
    """The provider and the end of the known token starting at `text[start]`, if one does."""
    for row in _BY_START.get(text[start : start + 2], ()):
        if not text.startswith(row.prefix, start):
            continue
        m = row.body.match(text, start + len(row.prefix))
        # The token must end where the word does: a prefix at the start of a longer word
        # (`key-value-store-...`) or a body longer than the format's is not a token.
        if m is None or _TOKEN_CHAR.match(text, m.end()):
            continue
        end = m.end()
        # A format whose alphabet has `.` would take the full stop of the sentence it ends.
        while text[end - 1] == "." and row.body.fullmatch(text, start + len(row.prefix), end - 1):
            end -= 1
        body = text[start + len(row.prefix) : end]
        # Every format's body is random: it has a digit and more than a few distinct
        # characters. `API-REFERENCE-DOCUMENTATION` starts like an Octopus key; it is prose.
        if any(c.isdigit() for c in body) and len(set(body)) >= 6:
            return row.provider, end
    return None


def apply_prefixes(text: str, counter: Hits) -> str:
    out: list[str] = []
    done = 0
    for m in _RUN.finditer(text):
        if m.start() < done or m.group(0)[:2] not in _BY_START:
            continue
        found = prefixed_token(text, m.start())
        if found is None:
            continue
        provider, end = found
        out += [text[done : m.start()], counter.hit(f"{provider}-token")]
        done = end
    if not out:
        return text
    out.append(text[done:])
    return "".join(out)
