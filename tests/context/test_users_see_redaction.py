"""Redaction of every provider's token families (docs/redaction.md, "The rules": a table of
121 providers' token formats, "a token is caught wherever it is written, prose included"):
one row per (provider, prefix), siblings included, pinned here so a family dropped from the
rules fails by name. Each family's sample is built from its format at its shortest (the
body's pattern, read from the rules) and must come out as `[REDACTED:<provider>-token]`, or
as the kind of the earlier shape rule that knows the vendor (AWS, Google, Stripe, Anthropic);
never merely as a random-looking string caught by its look."""

from __future__ import annotations

import re
import string

import pytest

from council.context import redact
from council.context.redact.prefixes import _TABLE

# Every token family, by provider, as the rules had them when this table was written.
FAMILIES: dict[str, tuple[str, ...]] = {
    "github": ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    "gitlab": (
        "glpat-",
        "gldt-",
        "glrt-",
        "glptt-",
        "glcbt-",
        "glft-",
        "glimt-",
        "glagent-",
        "glsoat-",
        "GR1348941",
    ),
    "bitbucket": ("ATBB",),
    "atlassian": ("ATATT3", "ATCTT3", "ATOAT"),
    "npm": ("npm_",),
    "pypi": ("pypi-AgEI", "pypi-AgEN"),
    "rubygems": ("rubygems_",),
    "nuget": ("oy2",),
    "clojars": ("CLOJARS_",),
    "docker-hub": ("dckr_pat_", "dckr_oat_"),
    "jfrog": ("AKCp", "cmVmdGtuOjAxOj"),
    "sourcegraph": ("sgp_", "sgph_"),
    "sonarqube": ("squ_", "sqp_", "sqa_"),
    "buildkite": ("bkua_",),
    "circleci": ("CCIPAT_",),
    "octopus": ("API-",),
    "readme": ("rdme_",),
    "scalingo": ("tk-us-",),
    "aws": ("AKIA", "ASIA", "ABIA", "ACCA"),
    "alibaba": ("LTAI",),
    "tencent": ("AKID",),
    "scaleway": ("SCW",),
    "yandex": ("AQVN", "y0_"),
    "google": ("AIza", "GOCSPX-", "ya29."),
    "digitalocean": ("dop_v1_", "doo_v1_", "dor_v1_"),
    "heroku": ("HRKU-",),
    "netlify": ("nfp_",),
    "fly": ("fm1r_", "fm1a_", "fm2_", "fo1_"),
    "render": ("rnd_",),
    "vercel": ("vercel_blob_rw_",),
    "deno-deploy": ("ddp_", "ddo_"),
    "supabase": ("sbp_", "sb_secret_"),
    "neon": ("napi_",),
    "planetscale": ("pscale_tkn_", "pscale_pw_", "pscale_oauth_"),
    "hashicorp-vault": ("hvs.", "hvb.", "hvr."),
    "pulumi": ("pul-",),
    "doppler": ("dp.pt.", "dp.st.", "dp.ct.", "dp.sa.", "dp.scim.", "dp.audit."),
    "tailscale": ("tskey-",),
    "infracost": ("ico-",),
    "dynatrace": ("dt0c01.", "dt0s01.", "dt0s16."),
    "appwrite": ("standard_",),
    "cloudflare": ("v1.0-",),
    "backblaze": ("K00",),
    "elastic-cloud": ("essu_",),
    "kong": ("kpat_", "spat_"),
    "harness": ("pat.",),
    "adafruit": ("aio_",),
    "easypost": ("EZAK", "EZTK"),
    "prefect": ("pnu_",),
    "terraform": ("atlasv1.",),
    "slack": ("xoxb-", "xoxp-", "xoxa-", "xoxo-", "xoxs-", "xoxr-", "xoxe-", "xapp-"),
    "sendgrid": ("SG.",),
    "mailgun": ("key-",),
    "brevo": ("xkeysib-", "xsmtpsib-"),
    "resend": ("re_",),
    "twilio": ("SK",),
    "telnyx": ("KEY",),
    "pubnub": ("sec-c-",),
    "intercom": ("dG9rO",),
    "facebook": ("EAACEdEose0cBA", "EAAG", "EAAB"),
    "twitter": ("AAAAAAAAAAAAAAAAAAAAA",),
    "dropbox": ("sl.",),
    "notion": ("secret_", "ntn_"),
    "linear": ("lin_api_", "lin_oauth_"),
    "figma": ("figd_", "figu_"),
    "frameio": ("fio-u-",),
    "typeform": ("tfp_",),
    "contentful": ("CFPAT-",),
    "airtable": ("pat",),
    "hubspot": ("pat-na1-", "pat-na2-", "pat-eu1-", "pat-ap1-"),
    "cal": ("cal_live_", "cal_test_"),
    "stripe": ("sk_live_", "sk_test_", "rk_live_", "rk_test_", "whsec_"),
    "shopify": ("shpat_", "shpca_", "shppa_", "shpss_"),
    "square": ("sq0atp-", "sq0csp-", "EAAA"),
    "shippo": ("shippo_live_", "shippo_test_"),
    "plaid": ("access-sandbox-", "access-development-", "access-production-"),
    "flutterwave": ("FLWSECK_TEST-", "FLWSECK-"),
    "duffel": ("duffel_live_", "duffel_test_"),
    "paddle": ("pdl_live_apikey_", "pdl_sdbx_apikey_"),
    "polar": ("polar_oat_", "polar_pat_", "polar_at_"),
    "razorpay": ("rzp_live_", "rzp_test_"),
    "sentry": ("sntrys_", "sntryu_"),
    "grafana": ("glc_", "glsa_"),
    "new-relic": ("NRAK-", "NRII-", "NRJS-", "NRAA-"),
    "honeycomb": ("hcaik_", "hcxik_"),
    "posthog": ("phx_",),
    "launchdarkly": ("api-", "sdk-"),
    "riot": ("RGAPI-",),
    "anthropic": ("sk-ant-",),
    "openrouter": ("sk-or-v1-",),
    "deepseek": ("sk-",),
    "langfuse": ("sk-lf-",),
    "huggingface": ("hf_", "api_org_"),
    "replicate": ("r8_",),
    "groq": ("gsk_",),
    "perplexity": ("pplx-",),
    "xai": ("xai-",),
    "fireworks": ("fw_",),
    "elevenlabs": ("sk_",),
    "cerebras": ("csk-",),
    "nvidia": ("nvapi-",),
    "langsmith": ("lsv2_pt_", "lsv2_sk_"),
    "pinecone": ("pcsk_",),
    "anyscale": ("esecret_",),
    "voyage": ("pa-",),
    "tavily": ("tvly-",),
    "firecrawl": ("fc-",),
    "e2b": ("e2b_",),
    "jina": ("jina_",),
    "runpod": ("rpa_",),
    "browserbase": ("bb_live_",),
    "mapbox": ("sk.eyJ",),
    "1password": ("ops_eyJ",),
    "age": ("AGE-SECRET-KEY-1",),
    "postman": ("PMAK-",),
    "stytch": ("secret-live-", "secret-test-"),
    "liveblocks": ("sk_prod_", "sk_dev_"),
    "trigger": ("tr_dev_", "tr_prod_", "tr_stg_"),
    "inngest": ("signkey-prod-", "signkey-test-", "signkey-branch-"),
    "zuplo": ("zpka_",),
    "unkey": ("unkey_",),
}
# Families an earlier rule (`shapes.py`: "the long established vendor shapes") names itself.
SHAPE_KIND = {
    **dict.fromkeys(("AKIA", "ASIA", "ABIA", "ACCA"), "aws-access-key-id"),
    "AIza": "google-api-key",
    **dict.fromkeys(("GOCSPX-", "ya29."), "google-oauth"),
    **dict.fromkeys(("sk_live_", "sk_test_", "rk_live_", "rk_test_"), "stripe-key"),
    "sk-ant-": "anthropic-key",
}
ROWS = [(provider, prefix) for provider, prefixes in FAMILIES.items() for prefix in prefixes]
# Characters a body is built of, mixed the way a generated token mixes them.
POOL = "a7Kq3Zm9Xp2Rt5Wb8Nc4Yd6Le1Hf0GjSuVxBnCyDrEsFtHvJwMzPkQ"
POOL += "".join(c for c in string.ascii_letters + string.digits if c not in POOL) + "_-.=+/%"
_ATOM = re.compile(r"\(\?:[^)]*\)\?|\[[^\]]+\]|\\d|\\.|.")
_COUNT = re.compile(r"\{(\d+)(?:,\d*)?\}|[+?]")


def shortest(body: str) -> str:
    """The shortest text `body` (a format's pattern: classes, literals, counts and optional
    groups) matches, its characters mixed."""
    out, i = [], 0
    while i < len(body):
        atom = _ATOM.match(body, i)
        i = atom.end()
        count = _COUNT.match(body, i)
        n = 1
        if count:
            i = count.end()
            n = int(count.group(1)) if count.group(1) else (0 if count.group(0) == "?" else 1)
        if atom.group(0).startswith("(?:"):
            continue  # an optional group: left out
        if atom.group(0).startswith("[") or atom.group(0) == "\\d":
            allowed = [c for c in POOL if re.fullmatch(atom.group(0), c)]
            out.append("".join(allowed[k % len(allowed)] for k in range(n)))
        else:
            out.append(atom.group(0).removeprefix("\\") * n)
    text = "".join(out)
    assert re.fullmatch(body, text), (body, text)
    return text


def sample(provider: str, prefix: str) -> str:
    bodies = [body for p, prefixes, body in _TABLE if p == provider and prefix in prefixes]
    assert bodies, f"the rules have no {provider} token starting {prefix!r}"
    return prefix + shortest(bodies[0])


def test_the_table_has_as_many_providers_as_the_docs_say():
    assert len(FAMILIES) == 121


@pytest.mark.parametrize(("provider", "prefix"), ROWS)
@pytest.mark.parametrize(
    "where",
    ["deploy with {} today\n", "The key is {}.\n"],
    ids=["prose", "sentence-end"],
)
def test_every_token_family_of_every_provider_is_redacted(provider, prefix, where):
    token = sample(provider, prefix)
    out, kinds = redact(where.format(token), filename="notes.txt")
    kind = SHAPE_KIND.get(prefix, f"{provider}-token")
    assert out == where.format(f"[REDACTED:{kind}]"), out
    assert kinds == {kind: 1}
