"""Every token family of a provider is redacted, not only its best-known one (docs/redaction.md,
vendor prefixes "written from the vendors' documentation"): GitHub's five token kinds
(personal, OAuth, user-to-server, server-to-server, refresh) and AWS's access key ids
(long-term, temporary session, ...), each written in prose where no key name gives it away."""

from __future__ import annotations

import pytest

from council.context import redact

GITHUB = [
    f"{kind}_{'aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6k'}"
    for kind in ("ghp", "gho", "ghu", "ghs", "ghr")
]
AWS = [f"{kind}QX7T2K9ZL4M8N3P6" for kind in ("AKIA", "ASIA", "ABIA", "ACCA")]


@pytest.mark.parametrize("token", GITHUB + AWS)
def test_each_token_family_is_redacted_in_prose(token):
    text = f"The deploy step used {token} until we rotated it.\n"
    out, kinds = redact(text, filename="notes.md")
    assert token not in out, out
    assert kinds
    assert out.startswith("The deploy step used ") and out.endswith(" until we rotated it.\n")
