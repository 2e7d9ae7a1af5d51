"""A user-defined CLI from the config file (`clis.<name>.command`).

`input`: `stdin` (default), `file` (the prompt file's path replaces `{prompt_file}` in the
command, or is appended), `arg` (the prompt text replaces `{prompt}`, or is appended).
`output`: `stdout` (default), `file` (the CLI writes to the path that replaces
`{answer_file}`, which the command must contain), `json:<dotted.path>` (stdout is JSON or
JSONL; the last value's field at that path, list indexes allowed: `choices.0.text`).
`tty: true` runs it under a pseudo-terminal. `version_args` are the version probe's
arguments (default `--version`); `[]` skips the probe, for a CLI that has no such flag (it
might take `--version` as a prompt, or wait for one). `state_dirs` (`~/` paths) are where it
keeps its own state: like a built-in adapter's, the only places outside its room and temp dir
it may write to under write confinement.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from council.adapters.base import CliSettings, Invocation, RawResult, Request, Tool
from council.adapters.confinement import KeepsState
from council.adapters.output import json_objects

PROMPT_FILE = "{prompt_file}"
PROMPT_TEXT = "{prompt}"
ANSWER_FILE = "{answer_file}"
INPUT_MODES = ("stdin", "file", "arg")


def output_mode_problem(output: str, command: tuple[str, ...]) -> str | None:
    """Why an `output` setting cannot work, for config validation; None when it can."""
    if output == "stdout":
        return None
    if output == "file":
        if not any(ANSWER_FILE in part for part in command):
            return f"output: file needs {ANSWER_FILE} in the command, where the CLI writes"
        return None
    if output.startswith("json:") and output[5:].strip("."):
        return None
    return "output must be stdout, file or json:<dotted.path>"


class CustomAdapter(KeepsState):
    name = "custom"
    vendor = "custom"
    binary = ""
    sandbox = "clean room only (user-defined CLI)"

    def __init__(self, settings: CliSettings) -> None:
        super().__init__(settings)
        assert settings.command, "a user-defined CLI needs a command"
        self.vendor = f"custom:{settings.name}"  # its own vendor: no other CLI's keys
        self.binary = settings.command[0]

    def version_argv(self) -> tuple[str, ...] | None:
        version_args = self.settings.version_args
        if version_args is None:
            return super().version_argv()
        return version_args or None  # []: no probe at all, not a bare run of the command

    def state_paths(
        self, env: Mapping[str, str], home: Path
    ) -> tuple[tuple[Path, ...], tuple[Path, ...]]:
        dirs, files = super().state_paths(env, home)
        return dirs + tuple(home / d.removeprefix("~/") for d in self.settings.state_dirs), files

    def whole_output(self, tool: Tool) -> bool:
        return self.settings.output.startswith("json:")

    def build(self, tool: Tool, request: Request) -> Invocation:
        s = self.settings
        argv = [_fill(part, request) for part in tool.command]
        if (model := self.model_for(request)) and s.model_flag:
            argv += [s.model_flag, model]
        argv += s.extra_args
        stdin = None
        if s.input == "stdin":
            stdin = request.prompt.encode()
        elif s.input == "file" and not any(PROMPT_FILE in p for p in tool.command):
            argv.append(str(request.prompt_path))
        elif s.input == "arg" and not any(PROMPT_TEXT in p for p in tool.command):
            argv.append(request.prompt)
        answer_file = request.answer_path if s.output == "file" else None
        return Invocation(argv=tuple(argv), stdin=stdin, answer_file=answer_file, tty=s.tty)

    def extract(self, result: RawResult) -> str:
        output = self.settings.output
        if output == "file":
            return result.answer_file_text or ""
        if output.startswith("json:"):
            values = json_objects(result.stdout)
            if not values:
                raise ValueError("expected JSON on stdout")
            return _dig(values[-1], output[5:])
        return result.stdout


def _fill(part: str, request: Request) -> str:
    return (
        part.replace(PROMPT_FILE, str(request.prompt_path))
        .replace(ANSWER_FILE, str(request.answer_path))
        .replace(PROMPT_TEXT, request.prompt)
    )


def _dig(value: object, dotted: str) -> str:
    for key in filter(None, dotted.split(".")):
        if (
            isinstance(value, list)
            and key.lstrip("-").isdigit()
            and -len(value) <= int(key) < len(value)
        ):
            value = value[int(key)]
        elif isinstance(value, dict) and key in value:
            value = value[key]
        else:
            raise ValueError(f"no `{dotted}` in the JSON output (stopped at `{key}`)")
    return value if isinstance(value, str) else ("" if value is None else str(value))
