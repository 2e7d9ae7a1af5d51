"""The commented council.yaml that `council init` writes: every key at its default.

The file is meant to be committed and shared, so it holds nothing of this machine's but the
CLIs found and the seats picked. Its first line points editors with a YAML language server at
the schema by the URL of the installed version's copy in council's repository (the same file
as `council schema config`); a path into one machine's environment would break every other
checkout.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from council import REPOSITORY, __version__
from council.adapters.base import Adapter
from council.config.model import DebateSettings

COMMENT_COLUMN = 30


@dataclass(frozen=True)
class FoundCli:
    """A CLI `council doctor` found usable here."""

    adapter: Adapter
    version: str | None


# Where the source of a release is read: the tag `v<version>` of council's repository
# (pyproject.toml's Repository URL, checked equal by a test).
RAW_SOURCE = REPOSITORY.replace("https://github.com/", "https://raw.githubusercontent.com/", 1)


def schema_url() -> str:
    """The config schema of this version, as released."""
    return f"{RAW_SOURCE}/v{__version__}/src/council/schema/config.schema.json"


def render_template(
    advocate: str | None, critic: str | None, lead: str | None, found: Sequence[FoundCli]
) -> str:
    """council.yaml for this machine: doctor's default seats, and an entry per CLI found."""
    debate = asdict(DebateSettings())
    words = debate.pop("words")
    lines = [
        f"# yaml-language-server: $schema={schema_url()}",
        "# Written by `council init` for the CLIs found here; every key at its default.",
        "# Precedence: flag > preset > this file > user file > built-in default. Every key",
        "# here beats the user file (~/.config/council/config.yaml): delete it, or set it to",
        "# null (not set), to take the user file's. `council config show` shows the result.",
        "version: 1",
        "roles:",
    ]
    none_found = "none found here: null = pick at run time"
    lines += [
        _line(
            1, "advocate", advocate, "seat spec cli[:model][#effort]" if advocate else none_found
        ),
        _line(1, "critic", critic, "another vendor than the advocate's when one is found"),
        _line(1, "lead", lead, 'writes the DECISION; "caller" = the calling IDE agent'),
        _line(1, "proxies", [], "as --with; auto = every installed CLI not already seated"),
        "debate:",
        _line(1, "rounds", debate.pop("rounds"), "2..5"),
        _line(1, "quorum", debate.pop("quorum"), "challenges needed for a non-degraded DECISION"),
        _heading(1, "words", "word limit of each phase's contributions"),
        *(_line(2, key, count) for key, count in words.items()),
        _line(1, "context_lines", debate.pop("context_lines"), "around each diff hunk"),
        _line(1, "file_lines", debate.pop("file_lines"), "of one file"),
        _line(1, "total_lines", debate.pop("total_lines"), "of all files together"),
        _line(1, "ready_timeout_s", debate.pop("ready_timeout_s"), "for a seat's READY"),
        _line(1, "hard_timeout_factor", debate.pop("hard_timeout_factor"), "hard = soft x this"),
        _line(1, "blind", debate.pop("blind"), "BLIND TAKE: each challenger answers alone first"),
        _line(1, "max_warm_seats", debate.pop("max_warm_seats"), "seats kept as warm CLI workers"),
        _line(1, "on_injection", debate.pop("on_injection"), "warn|exclude: a suspect seat's vote"),
        *(_line(1, key, value) for key, value in debate.items()),  # a key added since
        "quorum:",
        _line(1, "distinct", "off", "off|vendor|family: what counts as one voice"),
        _line(0, "presets", {}, "your own, over the built-in quick, balanced, deep"),
        "#  mine: {rounds: 3, effort: high, quorum: 2, proxies: [auto], models: {codex: o3}}",
    ]
    lines.append("clis:" if found else _line(0, "clis", {}, "no AI CLI found here"))
    for cli in found:
        lines += _cli_lines(cli)
    lines += [
        _line(0, "scratchpad", ".scratchpad", "where run records go"),
        "redact:",
        _line(1, "extra_patterns", [], "regular expressions of your own secrets"),
        _line(1, "allow_files", [], "globs exempt from the secret-file refusal"),
    ]
    return "\n".join(lines) + "\n"


def _cli_lines(cli: FoundCli) -> list[str]:
    adapter = type(cli.adapter)
    # Not its path: that is this machine's, and the file is shared.
    found = "found here" + (f" ({cli.version})" if cli.version else "")
    if adapter.soft_timeout_high_s != adapter.soft_timeout_s:
        # Only the efforts this CLI takes: codex's longer wait is at xhigh, it has no max.
        takes = adapter.efforts or adapter.high_efforts
        high = "|".join(e for e in _ORDERED_EFFORTS if e in adapter.high_efforts and e in takes)
        timeouts = f"{adapter.soft_timeout_s:g} s, {adapter.soft_timeout_high_s:g} s at {high}"
    else:
        timeouts = f"{adapter.soft_timeout_s:g} s"
    efforts = "|".join(e for e in _ORDERED_EFFORTS if e in (adapter.efforts or ()))
    return [
        _heading(1, cli.adapter.display_name, found),
        _line(2, "command", adapter.binary, "executable name or path"),
        _line(2, "model", None, "null: the CLI's own default"),
        _line(2, "effort", None, efforts or "this CLI takes no effort setting"),
        _line(2, "timeout_s", None, f"soft timeout; null: {timeouts}"),
        _line(2, "extra_args", [], "flags that bypass sandboxes are refused"),
        _line(2, "pass_env", [], "extra environment variables to let through"),
        _line(2, "env", {}, "variables set for this CLI"),
        _line(2, "lean", True, "fewest tools, council's system prompt when files are inlined"),
        _line(2, "warm", True, "one running process per seat, a new session per call"),
    ]


_ORDERED_EFFORTS = ("off", "minimal", "low", "medium", "high", "xhigh", "max")


def _line(depth: int, key: str, value: object, comment: str = "") -> str:
    return _commented(f"{'  ' * depth}{key}: {_yaml(value)}", comment)


def _heading(depth: int, key: str, comment: str) -> str:
    """A key whose value is the indented block below it."""
    return _commented(f"{'  ' * depth}{key}:", comment)


def _commented(text: str, comment: str) -> str:
    return f"{text.ljust(COMMENT_COLUMN - 1)} # {comment}" if comment else text


def _yaml(value: object) -> str:
    """A value in YAML flow style; strings plain when YAML reads them back as the same
    string, else double-quoted (a JSON string is a YAML string)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return f"{value:g}" if isinstance(value, float) else str(value)
    if isinstance(value, str):
        return value if _reads_back(value) else json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(_yaml(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_yaml(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"no YAML for {value!r}")


_PLAIN = re.compile(r"[A-Za-z_./][A-Za-z0-9_./-]*")


def _reads_back(text: str) -> bool:
    """True when `text` written plain is read back as the same string (not as `yes` -> true,
    `.inf` -> a float, ...)."""
    import yaml

    return bool(_PLAIN.fullmatch(text)) and yaml.safe_load(text) == text
