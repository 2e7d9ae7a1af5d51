"""Simulated code review: findings derived from the code in the prompt (REVIEW), verdicts on
the other reviewers' findings (CROSS_CHECK), and the same answers to their repair asks.

The code is read from the prompt's blocks: with a ``### git diff REF`` block, the lines the
diff adds (numbered as in the new file, from its ``@@`` headers); otherwise each file block
(``### path`` followed by a fence) whose lines start ``<n> | ``. Each line is checked against
a small list of smells (eval/exec, a shell command, SQL built by formatting, a bare except,
disabled TLS checks, pickle, a TODO, a debug print); the first that matches makes one finding.
With nothing found, one low ``testing`` finding on the first line says no test covers it.

A line holding ``SIM_ONLY(alpha,beta)`` is reported only by a simulator started with
``--model alpha`` or ``--model beta``: tests seat ``sim:alpha`` and ``sim:beta`` to make
reviewers disagree. In a cross-check a simulator confirms a finding when it would itself
report the same one (its title) in that file within three lines of it, and disputes it
otherwise.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, replace

_HEADING = re.compile(r"^###\s+(.+?)\s*$")
_FENCE = re.compile(r"^(`{3,})")
_NONCE_BEGIN = re.compile(r"^<<<UNTRUSTED [0-9a-f]+ BEGIN ")
_NUMBERED = re.compile(r"^\s*(\d+) \| ?(.*)$")
_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@")
_ONLY = re.compile(r"SIM_ONLY\(([^)]*)\)")
_LISTED = re.compile(r"^###\s+(F\d+)\s+\(from\b")
_BULLET = re.compile(r"^-\s+(file|lines|title):\s*(.*)$")
NEARBY = 3
MAX_FINDINGS = 20

# (pattern, severity, kind, title, detail, suggestion)
RULES: tuple[tuple[re.Pattern[str], str, str, str, str, str], ...] = (
    (
        re.compile(  # an SQL statement, and formatting anywhere on its line
            r"^(?=.*\b(select\b.*\bfrom|insert\s+into|update\s+\w+\s+set|delete\s+from)\b)"
            r"(?=.*(\bf[\"']|\.format\(|[\"']\s*\+|\+\s*[\"']|[\"']\s*%\s*[\w(]))",
            re.I,
        ),
        "critical",
        "security",
        "SQL query built by string formatting",
        "The query text is assembled from values, so input that reaches it can change the "
        "query (SQL injection).",
        "Pass the values as query parameters instead of formatting them into the text.",
    ),
    (
        re.compile(r"\b(eval|exec)\s*\("),
        "high",
        "security",
        "Dynamic code execution with eval or exec",
        "Text that reaches eval/exec runs as code with the program's rights.",
        "Parse the input explicitly (a schema, ast.literal_eval) instead of executing it.",
    ),
    (
        re.compile(r"shell\s*=\s*True|\bos\.system\s*\("),
        "high",
        "security",
        "Shell command built from a string",
        "A shell parses the command, so a value with shell syntax in it runs other commands.",
        "Run the program with an argument list and no shell.",
    ),
    (
        re.compile(r"verify\s*=\s*False"),
        "high",
        "security",
        "TLS certificate verification disabled",
        "Any server can impersonate the real one; the connection is open to interception.",
        "Keep verification on; give the CA bundle if the certificate is private.",
    ),
    (
        re.compile(r"\bpickle\.loads?\s*\("),
        "high",
        "security",
        "Unpickling data that may not be trusted",
        "Unpickling runs code chosen by whoever wrote the data.",
        "Use a data-only format such as JSON for anything from outside.",
    ),
    (
        re.compile(r"^\s*except\s*:|except\s+\w*Exception\s*:\s*pass\b"),
        "medium",
        "reliability",
        "Bare except swallows every error",
        "Every error, including interrupts and bugs, is caught and hidden here.",
        "Catch the specific exceptions expected and let the others propagate.",
    ),
    (
        re.compile(r"\b(TODO|FIXME|XXX)\b"),
        "low",
        "maintainability",
        "Unfinished work left in a TODO",
        "The comment marks behaviour that is known to be incomplete.",
        "Finish it before merging, or track it in an issue and reference that.",
    ),
    (
        re.compile(r"^\s*print\s*\("),
        "low",
        "style",
        "Debug print left in the code",
        "Output on stdout that callers did not ask for.",
        "Use the logging module, or remove the print.",
    ),
)


@dataclass(frozen=True)
class CodeLine:
    file: str
    number: int
    text: str


def code_lines(text: str) -> list[CodeLine]:
    """The lines under review: a diff's added lines if the prompt has a diff, else every
    numbered line of its file blocks."""
    blocks = _blocks(text)
    diffs = [body for title, body in blocks if title.startswith("git diff")]
    if diffs:
        return [line for body in diffs for line in _added_lines(body)]
    found = []
    for title, body in blocks:
        for raw in body:
            match = _NUMBERED.match(raw)
            if match:
                found.append(CodeLine(title, int(match.group(1)), match.group(2)))
    return found


def _blocks(text: str) -> list[tuple[str, list[str]]]:
    """Every ``### title`` directly followed by a fence (inside the run's nonce fence when
    the prompt has one): (title, the lines inside)."""
    lines = text.splitlines()
    blocks = []
    i = 0
    while i < len(lines) - 1:
        heading = _HEADING.match(lines[i])
        start = i + 2 if _NONCE_BEGIN.match(lines[i + 1]) else i + 1
        fence = _FENCE.match(lines[start]) if start < len(lines) else None
        if not heading or not fence:
            i += 1
            continue
        end = start + 1
        while end < len(lines) and lines[end].rstrip() != fence.group(1):
            end += 1
        blocks.append((heading.group(1), lines[start + 1 : end]))
        i = end + 1
    return blocks


def _added_lines(diff: list[str]) -> list[CodeLine]:
    found = []
    file, number = "", 0
    for raw in diff:
        if raw.startswith("+++ "):
            path = raw[4:].strip()
            file = path[2:] if path.startswith("b/") else path
        elif hunk := _HUNK.match(raw):
            number = int(hunk.group(1))
        elif raw.startswith("+") and file:
            found.append(CodeLine(file, number, raw[1:]))
            number += 1
        elif raw.startswith(" ") and file:
            number += 1
    return found


def findings_for(text: str, model: str | None) -> list[dict[str, object]]:
    """The findings this simulated reviewer reports on the code in `text`."""
    lines = code_lines(text)
    findings: list[dict[str, object]] = []
    for line in lines:
        only = _ONLY.search(line.text)
        if only and (model or "") not in {n.strip() for n in only.group(1).split(",")}:
            continue
        for pattern, severity, kind, title, detail, suggestion in RULES:
            if pattern.search(line.text):
                findings.append(
                    _finding(line, line.number, severity, kind, title, detail, suggestion)
                )
                break
        if len(findings) >= MAX_FINDINGS:
            break
    if not findings and lines:
        first = lines[0]
        findings.append(
            _finding(
                first,
                first.number,
                "low",
                "testing",
                "No test covers this code",
                "Nothing in the change shows this code being exercised by a test.",
                "Add a test that runs this path and checks its result.",
            )
        )
    return findings


def _finding(
    line: CodeLine, number: int, severity: str, kind: str, title: str, detail: str, fix: str
) -> dict[str, object]:
    seed = hashlib.sha256(f"{line.file}:{number}:{title}".encode()).digest()
    return {
        "severity": severity,
        "kind": kind,
        "file": line.file,
        "line": number,
        "end_line": None,
        "title": title,
        "detail": f"[SIMULATED] {detail}",
        "suggestion": fix,
        "confidence": 60 + seed[0] % 36,
    }


@dataclass(frozen=True)
class Listed:
    """A finding as a cross-check prompt lists it."""

    id: str
    file: str = ""
    line: int | None = None
    end_line: int | None = None
    title: str = ""

    def matches(self, finding: dict[str, object]) -> bool:
        """The same finding: same title, same file, within three lines."""
        if (finding["title"], finding["file"]) != (self.title, self.file):
            return False
        line = finding["line"]
        if self.line is None or not isinstance(line, int):
            return True
        last = self.end_line or self.line
        return self.line - NEARBY <= line <= last + NEARBY


def verdicts_for(text: str, model: str | None) -> list[dict[str, str]]:
    """Confirm each listed finding this reviewer would report itself (same title and file,
    within three lines), dispute the others."""
    mine = findings_for(text, model)
    verdicts = []
    for listed in _listed(text):
        where = f"{listed.file}:{listed.line}" if listed.line is not None else listed.file
        if any(listed.matches(f) for f in mine):
            verdict, reason = "confirm", f"[SIMULATED] The problem is there at {where}."
        else:
            verdict, reason = "dispute", f"[SIMULATED] Nothing at {where} shows this problem."
        verdicts.append({"id": listed.id, "verdict": verdict, "reason": reason})
    return verdicts


def _listed(text: str) -> list[Listed]:
    """The findings a cross-check prompt lists, in its order."""
    listed: list[Listed] = []
    for raw in text.splitlines():
        if heading := _LISTED.match(raw):
            listed.append(Listed(heading.group(1)))
        elif listed and (bullet := _BULLET.match(raw.strip())):
            key, value = bullet.group(1), bullet.group(2).strip()
            if key == "file":
                listed[-1] = replace(listed[-1], file=value)
            elif key == "title":
                listed[-1] = replace(listed[-1], title=value)
            elif key == "lines":
                numbers = [int(n) for n in re.findall(r"\d+", value)]
                first = numbers[0] if numbers else None
                last = numbers[1] if len(numbers) > 1 else None
                listed[-1] = replace(listed[-1], line=first, end_line=last)
    return listed
