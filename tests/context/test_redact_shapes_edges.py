"""Shapes at the edges of their families (docs/redaction.md): each secret is replaced by
`[REDACTED:<kind>]` and only the secret part is."""

from __future__ import annotations

import pytest

from council.context.redact import redact

AWS_ID = "AKIA" + "QW7R2T5Y8U1I3O6P"


@pytest.mark.parametrize(
    ("text", "expected", "kinds"),
    [
        (
            "https://hooks.slack.com/workflows/T0123ABCD/A0456EFGH/123456789012345678901234",
            "https://hooks.slack.com/workflows/[REDACTED:slack-webhook]",
            {"slack-webhook": 1},
        ),
        (
            "https://hooks.slack.com/services/T0123ABCD/B0456EFGH/aBcDeFgHiJkLmNoPqRsTuVwX",
            "https://hooks.slack.com/services/[REDACTED:slack-webhook]",
            {"slack-webhook": 1},
        ),
        (
            # An AWS secret beside its key id need not hold a digit: `/` and `+` mix it too.
            f"{AWS_ID},abcdEFGH/ijklMNOP+qrstUVWX/yzabCDEF+ghij",
            "[REDACTED:aws-access-key-id],[REDACTED:aws-secret-key]",
            {"aws-access-key-id": 1, "aws-secret-key": 1},
        ),
        (
            f"{AWS_ID} abcdefghijklmnopqrstuvwxyzabcdefghijklmn",
            "[REDACTED:aws-access-key-id] abcdefghijklmnopqrstuvwxyzabcdefghijklmn",
            {"aws-access-key-id": 1},
        ),
    ],
    ids=["slack-workflow", "slack-service", "aws-secret-no-digit", "aws-one-case-stays"],
)
def test_the_secret_part_alone_becomes_its_marker(text, expected, kinds):
    assert redact(text, filename="notes.txt") == (expected, kinds)
