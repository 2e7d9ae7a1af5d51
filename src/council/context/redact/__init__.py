"""Secret redaction: every text passes through the run's `Redactor` before a prompt or a room
sees it. One `Redactor` is built per run, with the user's own patterns compiled once, and
applied to the question, the files, the diff and the context refresh. What is taken, what
stays and the measured leaks and false positives: docs/redaction.md.

The rules, a module each, in the order they run, plus how a hit is written (`marks`):

- `shapes`: secrets wherever they appear (any file): PEM private-key blocks, AWS access
  key ids (and a 40-character secret next to one or to an `aws_secret_access_key` name),
  GitHub, GitLab, Slack, Stripe and npm tokens, OpenAI, Anthropic and Google keys, JWTs,
  bearer tokens, passwords in URLs and connection strings.
- `grammars` (with `keys` and `config_lines`): values of keys named like password/passwd/
  passphrase/secret/token/api_key/apikey/private_key (and a config's `auth`): every such value
  in `.env`, shell, YAML, JSON, INI and TOML files, in Markdown code fences of those
  languages and in `key=value` quoted in Markdown; in source code only a quoted literal
  assigned to an unambiguous name (`token` alone is a lexer's variable far more often than a
  credential).
- `prefixes`: 121 vendors' token formats, known by their prefix wherever they are written.
- `unnamed`: secrets with no key name, by where they stand (headers, connection-string
  fields, URL queries, command-line flags, `.netrc`, a call's argument beside an id).
- `generated`: secrets with no key name, by their look (a machine-made token standing alone;
  digests, UUIDs, `data:` URIs, base64 blocks, identifiers and object ids stay).

What keeps false positives low: generic prefixes (`sk-`, `Bearer`) and tokens with no
context need a random-looking body (upper case, lower case and digits in short pieces); hex
needs no hash named near it; key/value rules skip numbers, booleans, empty values,
placeholders (`${VAR}`, `<your-key>`, `{password}`, `%s`, `***`), references (`!secret x`,
`ENC[...]`, `arn:...`), descriptions (five words or more), values that repeat the key's own
word without a digit (`nextToken`, `ExamplePassword`), plain words under a token/key/secret
name (`input_token: Marker`), and keys whose last word says the value is not the secret
(`password_file`, `token_url`, `max_tokens`, `secret_name`). In source code a value also
needs a digit or a symbol and must not be a UUID (`REFRESH_TOKEN = "REFRESH_TOKEN"`,
`request_token = "<uuid>"` are identifiers).

Each hit becomes `[REDACTED:<kind>]`; a multi-line secret keeps its line count (the marker
then blank lines) so line numbers in the rest of the file stay true.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from council.context.redact.generated import apply_entropy
from council.context.redact.grammars import grammar_of, redact_by_grammar
from council.context.redact.keys import is_placeholder, secret_key_kind
from council.context.redact.marks import MARKER, Hits, marker
from council.context.redact.prefixes import PROVIDERS, apply_prefixes
from council.context.redact.shapes import (
    SHAPES,
    ShapeRule,
    apply_aws_pairs,
    apply_shapes,
    compile_extra_patterns,
)
from council.context.redact.unnamed import apply_context_rules, apply_marked

_DIFF_FILE = re.compile(r"^diff --git (?:\S+) b/(?P<name>.+)$")
# Files made of digests: their hex and base64 runs are hashes, never keys.
_LOCKFILES = re.compile(
    r"(?:^|/)(?:[^/]*\.lock|[^/]*-lock\.(?:json|yaml)|go\.sum|npm-shrinkwrap\.json"
    r"|requirements[^/]*\.txt|[^/]*\.sha\d*|SHA\d*SUMS|checksums?\.txt|RECORD)$"
)


def _unnamed(text: str, filename: str, hits: Hits) -> str:
    """The rules that need no key name, over what the shapes and grammars left."""
    text = apply_prefixes(text, hits)
    text = apply_marked(text, hits)
    text = apply_context_rules(text, hits)
    return apply_entropy(text, hits, lockfile=bool(_LOCKFILES.search(filename)))


class Redactor:
    """The built-in rules plus the user's `redact.extra_patterns`, compiled once (a bad pattern
    is a `ConfigError` naming it)."""

    def __init__(self, extra_patterns: Sequence[str] = ()) -> None:
        self.extra: tuple[ShapeRule, ...] = compile_extra_patterns(extra_patterns)

    def text(self, text: str, *, filename: str) -> tuple[str, dict[str, int]]:
        """`text` with every secret replaced by `[REDACTED:<kind>]`, and the count per kind.

        `filename` selects the key/value grammar (`.env`, YAML, JSON, INI, TOML, Markdown,
        source). Idempotent: redacting the output again finds nothing. Line count is kept.
        """
        hits = Hits()
        text = apply_shapes(text, SHAPES, hits)
        text = apply_aws_pairs(text, hits)
        text = redact_by_grammar(text, filename, hits)
        text = _unnamed(text, filename, hits)
        return apply_shapes(text, self.extra, hits), hits.kinds

    def diff(self, text: str) -> tuple[str, dict[str, int]]:
        """`text` for a unified git diff: the shape rules over the whole text, then each
        file's hunks (without their ` `/`+`/`-` column) under that file's own grammar, so an
        added `password: x` line in a YAML file is caught like it would be in the file."""
        hits = Hits()
        text = apply_shapes(text, SHAPES, hits)
        text = apply_aws_pairs(text, hits)
        out = []
        for section in re.split(r"(?m)^(?=diff --git )", text):
            first = section.split("\n", 1)[0]
            m = _DIFF_FILE.match(first)
            name = m.group("name") if m else "changes.diff"
            lines = section.split("\n")
            where: list[int] = []
            in_hunk = False
            for n, line in enumerate(lines):
                if line.startswith("@@"):
                    in_hunk = True
                elif line.startswith("diff --git "):
                    in_hunk = False
                elif in_hunk and line[:1] in (" ", "+", "-"):
                    where.append(n)
            bodies = [lines[n][1:] for n in where]
            redacted = redact_by_grammar("\n".join(bodies), name, hits).split("\n")
            if len(redacted) != len(bodies):  # cannot happen (line counts are kept); stay safe
                redacted = [redact_by_grammar(b, name, hits) for b in bodies]
            # The rules without key names read the hunks' text as the file's, without the
            # column (a token at the start of an added line follows a `+`).
            if where:
                redacted = _unnamed("\n".join(redacted), name, hits).split("\n")
            for n, body in zip(where, redacted, strict=True):
                lines[n] = lines[n][0] + body
            out.append("\n".join(lines))
        return apply_shapes("".join(out), self.extra, hits), hits.kinds


_BUILT_IN = Redactor()


def redact(
    text: str, *, filename: str, extra_patterns: Sequence[str] = ()
) -> tuple[str, dict[str, int]]:
    """`Redactor(extra_patterns).text(...)`: for a single text; a run keeps one `Redactor`."""
    redactor = Redactor(extra_patterns) if extra_patterns else _BUILT_IN
    return redactor.text(text, filename=filename)


def redact_diff(text: str, *, extra_patterns: Sequence[str] = ()) -> tuple[str, dict[str, int]]:
    redactor = Redactor(extra_patterns) if extra_patterns else _BUILT_IN
    return redactor.diff(text)


__all__ = [
    "MARKER",
    "PROVIDERS",
    "SHAPES",
    "Redactor",
    "ShapeRule",
    "grammar_of",
    "is_placeholder",
    "marker",
    "redact",
    "redact_diff",
    "secret_key_kind",
]
