"""Scripted seats for the debate tests of what users see: a user-defined CLI (council.yaml
`command`) that answers each phase with exactly the text a test gives it, or fails it the
way a test asks, so a test knows every reply and every failure of the run in advance."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from pathlib import Path

from project import Project

# The replies file maps a phase (`CHALLENGE`, `BLIND_TAKE`, ...) to the reply text, or to a
# failure: {"exit": N, "stderr": "..."} (exit N after that line on stderr), {"empty": true}
# (exit 0, nothing printed) or {"hang": true} (never answers). `{canary}` in a reply is the
# run's canary, read from the prompt's isolation header (a seat that echoes it is suspect).
# A phase it has no entry for gets a short reply naming the phase.
SCRIPTED_SEAT = """\
import json, re, sys, time
if "--version" in sys.argv[1:]:
    print("scripted 1.0")
    raise SystemExit
prompt = sys.stdin.read()
phase = next(l[7:].split()[0] for l in prompt.splitlines() if l.startswith("ACTION:"))
with open(sys.argv[1], encoding="utf-8") as replies:
    reply = json.load(replies).get(phase, f"On {phase}: the plan holds up.")
if isinstance(reply, dict):
    if reply.get("hang"):
        time.sleep(3600)
    if reply.get("empty"):
        raise SystemExit(0)
    print(reply.get("stderr", ""), file=sys.stderr)
    raise SystemExit(reply.get("exit", 1))
canary = re.search(r"CANARY-[0-9a-fA-F]+", prompt)
print(reply.replace("{canary}", canary.group(0) if canary else ""))
"""


def scripted_clis(project: Project, script: str, answers: Mapping[str, object]) -> str:
    """council.yaml's `clis:` section for one user-defined CLI per entry of `answers` (CLI
    name -> what it answers): each runs `script` (written beside the project) with the path
    of a JSON file of its answers as its one argument."""
    path = project.root.parent / "scripted_cli.py"
    path.write_text(script)
    lines = ["clis:"]
    for name, answer in answers.items():
        answers_file = project.root.parent / f"{name}.json"
        answers_file.write_text(json.dumps(answer))
        lines += [f"  {name}:", f"    command: [{sys.executable}, -I, -S, {path}, {answers_file}]"]
    return "\n".join(lines) + "\n"


def scripted_seats(project: Project, seats: Mapping[str, Mapping[str, object]]) -> str:
    """council.yaml's `clis:` section for one scripted CLI per entry of `seats` (CLI name ->
    its replies by phase, see SCRIPTED_SEAT)."""
    return scripted_clis(project, SCRIPTED_SEAT, seats)


def prompts(record: Path) -> dict[str, str]:
    """Every prompt of the run by file name (`critic-r2-prompt.md`, `lead-decision-...`)."""
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(record.glob("*-prompt.md"))}
