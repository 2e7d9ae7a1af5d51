"""What the fake model does with one request: the markers a prompt can carry, and the rules a
test can set for one client.

A marker is `[[fake:NAME]]` or `[[fake:NAME=VALUE]]` anywhere in the prompt:

    [[fake:delay=2.5]]       answer after 2.5 s
    [[fake:hang]]            never answer (the connection stays open until the client leaves)
    [[fake:stall]]           start the answer (headers and a first chunk), then go silent
    [[fake:status=429]]      answer every request with this HTTP status (429, 500, 401, ...)
    [[fake:retry-after=1]]   the Retry-After header sent with a 429 or 503 (default 1 s)
    [[fake:fail-first=2]]    only the first 2 requests of this prompt fail (with `status`, by
                             default 429); the ones after succeed
    [[fake:fail-calls=1]]    every request made by the first council call (attempt) with this
                             prompt fails, however often the CLI retries on its own; the
                             next attempt succeeds. Attempts are told apart by the
                             COUNCIL_CALL_ID variable (or else the session) of the
                             process that connects.
    [[fake:long=20000]]      a reply of exactly this many characters
    [[fake:write=/abs/path]] reply with a tool call that writes this file (or runs a shell
                             command that does), using whatever write or shell tool the client
                             declared; after the tool result comes back, a plain answer
    [[fake:cached=3]]        report 3 of the input tokens as read from a prompt cache
    [[fake:reasoning=5]]     report 5 of the output tokens as spent thinking (each dialect
                             reports both its API's way; the input and output totals, about
                             four characters a token, stay the same)
    [[fake:served=NAME]]     answer as model NAME, whatever model the request asked for (the
                             response's `model`/`modelVersion`), as a provider that routes or
                             falls back does

A rule can also demand a key: `key="k"` answers 401 to every request whose `Authorization`
is not `Bearer k` (how the OpenAI APIs take a key), as the real API does.

A rule alone can answer with a shell command: `shell_command="council ..."` replies with a
call of the client's shell tool running exactly that script (then a plain answer). Or with
calls of named tools, one a request in turn: `tool_calls=(("PATTERN", '{"arg": 1}'), ...)`
calls the first tool on offer whose name matches PATTERN (a regex), with those JSON
arguments; a request that offers no such tool gets a plain answer and the step waits. Or
with shell scripts in turn, one a request: `shell_commands=("council debate ...", "council
wait last")`, each a call of whatever shell tool the request offers (so a test can follow a
host's model through a command file's steps without knowing each host's shell tool).

Rules do the same for requests that carry no marker: `server.add_rule(client="qwen",
status=429, fail_first=1)`. Markers win over rules.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields, replace

_MARKER = re.compile(r"\[\[fake:([a-z-]+)(?:=([^\]]*))?\]\]")


@dataclass(frozen=True)
class Behaviour:
    delay_s: float = 0.0
    hang: bool = False
    stall: bool = False
    status: int | None = None
    retry_after_s: float | None = 1.0
    fail_first: int | None = None
    fail_calls: int | None = None
    long_chars: int | None = None
    write_path: str | None = None
    shell_command: str | None = None  # a rule's only: reply by running it in the shell tool
    # A rule's only: (tool-name pattern, JSON arguments), called in turn, one a request.
    tool_calls: tuple[tuple[str, str], ...] = ()
    # A rule's only: shell scripts, run in turn in the client's shell tool, one a request.
    shell_commands: tuple[str, ...] = ()
    cached_tokens: int = 0
    reasoning_tokens: int = 0
    key: str | None = None  # the bearer token a request must carry (else 401)
    served_model: str | None = None  # the model the answer says served it (None: the asked)

    @property
    def failing_status(self) -> int | None:
        """The HTTP status to fail with, before counting fail_first."""
        if self.status is not None:
            return self.status
        return 429 if self.fail_first or self.fail_calls else None

    def merged(self, other: Behaviour) -> Behaviour:
        """`other`'s non-default settings on top of this one's."""
        default = Behaviour()
        changes = {
            f.name: getattr(other, f.name)
            for f in fields(Behaviour)
            if getattr(other, f.name) != getattr(default, f.name)
        }
        return replace(self, **changes)


def parse_markers(text: str) -> Behaviour:
    """The behaviour the prompt's markers ask for (the default one when it has none)."""
    settings: dict[str, object] = {}
    for name, value in _MARKER.findall(text):
        if name == "delay":
            settings["delay_s"] = float(value)
        elif name in ("hang", "stall"):
            settings[name] = True
        elif name == "status":
            settings["status"] = int(value)
        elif name == "retry-after":
            settings["retry_after_s"] = float(value) if value else None
        elif name == "fail-first":
            settings["fail_first"] = int(value or 1)
        elif name == "fail-calls":
            settings["fail_calls"] = int(value or 1)
        elif name == "long":
            settings["long_chars"] = int(value)
        elif name == "write":
            settings["write_path"] = value
        elif name == "served":
            settings["served_model"] = value
        elif name in ("cached", "reasoning"):
            settings[f"{name}_tokens"] = int(value)
        else:
            raise ValueError(f"unknown fake-model marker [[fake:{name}]]")
    return Behaviour(**settings)  # type: ignore[arg-type]


def has_markers(text: str) -> bool:
    return bool(_MARKER.search(text))


@dataclass(frozen=True)
class Rule:
    """A behaviour for requests from one client (None: any) whose prompt contains `contains`."""

    behaviour: Behaviour
    client: str | None = None
    contains: str | None = None

    def matches(self, client: str | None, prompt: str) -> bool:
        if self.client is not None and self.client != client:
            return False
        return self.contains is None or self.contains in prompt
