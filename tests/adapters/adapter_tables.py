"""The rows the adapter table tests share (test_users_see_adapter_tables*.py): every
registered CLI as a tool of the version its contract tests run, and small argv helpers."""

from __future__ import annotations

from pathlib import Path

from council.adapters import adapter_for, registered
from council.adapters.base import CliSettings, Request, Tool

PROMPT = "ACTION: PROPOSAL\nQuestion: one queue or two?\n"
SERVED = Path(__file__).parents[1] / "data" / "served"

# Each CLI as a tool of the version its contract tests run; kimi is two programs behind one
# binary, told apart by `kimi --version`, each with its own argv.
TOOLS: dict[str, tuple[Tool, ...]] = {
    "claude": (Tool("claude", ("claude",), "2.1.332"),),
    "codex": (Tool("codex", ("codex",), "0.171.0"),),
    "gemini": (Tool("gemini", ("gemini",), "0.61.0"),),
    "qwen": (Tool("qwen", ("qwen",), "0.24.4"),),
    "kimi": (
        Tool("kimi", ("kimi",), "1.51.0", "kimi-cli"),
        Tool("kimi", ("kimi",), "2.1.0", "kimi-code"),
    ),
    "pi": (Tool("pi", ("pi",), "1.6.0"),),
    "sim": (Tool("sim", ("council-sim",)),),
}
ROWS = [(t.name, t) for name in registered() for t in TOOLS.get(name, ())]
IDS = [f"{name}-{tool.variant or tool.version}" for name, tool in ROWS]


def model_args(cli: str, model: str) -> list[str]:
    """The argv a model becomes (clis.md "model / effort"; README's headless argv)."""
    return {"claude": ["--model", model], "pi": ["--model", model], "sim": ["--model", model]}.get(
        cli, ["-m", model]
    )


def effort_args(tool: Tool, effort: str) -> list[str]:
    """The argv an effort becomes; [] for a CLI that takes no effort setting (gemini, qwen,
    kimi-code) and for kimi-cli below thinking's threshold (its effort is thinking on/off)."""
    if tool.name in ("claude", "sim"):
        return ["--effort", effort]
    if tool.name == "codex":
        return ["-c", f'model_reasoning_effort="{effort}"']
    if tool.name == "pi":
        return ["--thinking", effort]
    if tool.variant == "kimi-cli" and effort in ("high", "xhigh", "max"):
        return ["--thinking"]
    return []


# Every form an effort can take on the command line, so "no effort" is checked as no trace.
EFFORT_MARKS = ("--effort", "--thinking", "model_reasoning_effort")


def argv_of(tool: Tool, request: Request, **settings) -> tuple[str, ...]:
    clis = {tool.name: CliSettings(name=tool.name, adapter=tool.name, **settings)}
    return adapter_for(tool.name, clis).build(tool, request).argv


def request(tmp_path: Path, **fields) -> Request:
    return Request(prompt="Say hi.", room=tmp_path, answer_path=tmp_path / "answer.txt", **fields)


def contains(argv: tuple[str, ...] | list[str], part: list[str]) -> bool:
    n = len(part)
    return any(list(argv[i : i + n]) == part for i in range(len(argv) - n + 1))
