"""The tool call a `[[fake:write=PATH]]` reply makes: the most direct way to write PATH that the
client's declared tools allow, so a test proves the read-only mode holds against a model that
really tries."""

from __future__ import annotations

import json
import re
import shlex
from typing import Any

from fakemodel.dialects import ToolCall, ToolSpec

CONTENT = "written by the fake model\n"
# Most direct first: a file-writing tool, then a shell.
WRITE_TOOLS = ("write_file", "Write", "write", "WriteFile", "create_file", "edit", "Edit")
SHELL_TOOLS = (
    "shell",
    "exec_command",
    "shell_command",
    "local_shell",
    "run_shell_command",
    "Bash",
    "bash",
    "Shell",
)
PATCH_TOOLS = ("apply_patch",)

_PATH_KEYS = ("file_path", "path", "absolute_path", "filename", "file")
_CONTENT_KEYS = ("content", "contents", "text", "new_string", "file_text")
_COMMAND_KEYS = ("command", "cmd", "script")


def write_call(tools: tuple[ToolSpec, ...], path: str) -> ToolCall | None:
    """A call of one of `tools` that writes CONTENT to `path`; None when no tool can."""
    by_name = {tool.name: tool for tool in tools}
    for name in WRITE_TOOLS:
        if name in by_name:
            return _file_write(by_name[name], path)
    for name in SHELL_TOOLS:
        if name in by_name:
            return _shell_write(by_name[name], path)
    for name in PATCH_TOOLS:
        if name in by_name:
            return _patch_write(by_name[name], path)
    return None


def _properties(tool: ToolSpec) -> dict[str, Any]:
    props = tool.parameters.get("properties")
    return props if isinstance(props, dict) else {}


def _file_write(tool: ToolSpec, path: str) -> ToolCall:
    props = _properties(tool)
    args: dict[str, Any] = {}
    path_key = next((k for k in _PATH_KEYS if k in props), "file_path")
    content_key = next((k for k in _CONTENT_KEYS if k in props), "content")
    args[path_key] = path
    args[content_key] = CONTENT
    if "old_string" in props:  # an edit tool: create the file from nothing
        args["old_string"] = ""
    return ToolCall(tool.name, args)


def shell_call(tools: tuple[ToolSpec, ...], script: str) -> ToolCall | None:
    """A call of the client's shell tool that runs `script`; None when it declared none."""
    by_name = {tool.name: tool for tool in tools}
    found = next((by_name[name] for name in SHELL_TOOLS if name in by_name), None)
    return _shell_run(found, script) if found else None


def named_call(tools: tuple[ToolSpec, ...], pattern: str, arguments: str) -> ToolCall | None:
    """A call, with `arguments` (JSON), of the first of `tools` whose name matches `pattern`
    (hosts name an MCP tool their own way: `mcp__council__debate`, `debate`, ...)."""
    found = next((tool for tool in tools if re.search(pattern, tool.name)), None)
    if found is None:
        return None
    return ToolCall(found.name, json.loads(arguments), namespace=found.namespace)


def _shell_write(tool: ToolSpec, path: str) -> ToolCall:
    return _shell_run(tool, f"printf %s {shlex.quote(CONTENT)} > {shlex.quote(path)}")


def _shell_run(tool: ToolSpec, script: str) -> ToolCall:
    if tool.kind == "local_shell":
        return ToolCall(tool.name, {"command": ["bash", "-lc", script]})
    props = _properties(tool)
    key = next((k for k in _COMMAND_KEYS if k in props), "command")
    value: Any = script
    if props.get(key, {}).get("type") == "array":
        value = ["bash", "-lc", script]
    return ToolCall(tool.name, {key: value})


def _patch_write(tool: ToolSpec, path: str) -> ToolCall:
    patch = (
        "*** Begin Patch\n"
        f"*** Add File: {path}\n"
        + "".join(f"+{line}\n" for line in CONTENT.splitlines())
        + "*** End Patch\n"
    )
    if tool.kind == "custom":
        return ToolCall(tool.name, patch)
    return ToolCall(tool.name, {"input": patch})
