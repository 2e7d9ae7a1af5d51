"""The review's findings as CI annotations, for CI that has no code scanning.

`github`: GitHub Actions workflow commands (`::error file=app.py,line=4,title=...::message`),
one line per finding, which the runner turns into annotations on the changed lines of the pull
request; the level by severity (critical and high: error, medium: warning, low: notice).
`gitlab`: GitLab's code quality report (`artifacts: reports: codequality:`), a JSON array of
issues with `description`, `check_name`, `fingerprint`, `severity` and `location` (the format
https://docs.gitlab.com/ci/testing/code_quality/ documents).

What was not reviewed (a finding out of scope) is never reported, as in SARIF.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

GITHUB_LEVELS = {"critical": "error", "high": "error", "medium": "warning", "low": "notice"}
GITLAB_SEVERITIES = {"critical": "critical", "high": "major", "medium": "minor", "low": "info"}


def render_github(result: Mapping[str, Any]) -> str:
    lines = [_workflow_command(f) for f in _reported(result)]
    return "".join(line + "\n" for line in lines)


def render_gitlab(result: Mapping[str, Any]) -> str:
    issues = [
        {
            "description": f"{f['title']}: {_message(f)}",
            "check_name": f"council/{f['kind']}",
            "fingerprint": f["fingerprint"],
            "severity": GITLAB_SEVERITIES.get(f["severity"], "info"),
            "location": {"path": f["file"], "lines": _gitlab_lines(f)},
        }
        for f in _reported(result)
    ]
    return json.dumps(issues, indent=2, ensure_ascii=False) + "\n"


def _reported(result: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return [f for f in result["findings"] if not f.get("out_of_scope") and f.get("file")]


def _message(finding: Mapping[str, Any]) -> str:
    parts = [finding.get("detail") or "", finding.get("suggestion") or ""]
    support = f"support {finding['support']} of {finding['reviewers']} reviewers"
    # No detail and no suggestion: the support alone, with no space before it.
    return " ".join([*(p.strip() for p in parts if p.strip()), f"({support}, {finding['id']})"])


def _workflow_command(finding: Mapping[str, Any]) -> str:
    level = GITHUB_LEVELS.get(finding["severity"], "notice")
    properties = {"file": finding["file"]}
    if finding.get("line"):
        properties["line"] = str(finding["line"])
        if finding.get("end_line"):
            properties["endLine"] = str(finding["end_line"])
    properties["title"] = f"council {finding['severity']}: {finding['title']}"
    shown = ",".join(f"{key}={_property(value)}" for key, value in properties.items())
    return f"::{level} {shown}::{_data(_message(finding))}"


def _data(text: str) -> str:
    """A workflow command's message: `%`, CR and LF escaped (the runner's own rules), so a
    reviewer's text cannot end the command early or start another one."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    """A workflow command's property value: as a message, and `:` and `,` too."""
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def _gitlab_lines(finding: Mapping[str, Any]) -> dict[str, int]:
    begin = finding.get("line") or 1
    lines = {"begin": begin}
    if finding.get("end_line") and finding["end_line"] > begin:
        lines["end"] = finding["end_line"]
    return lines
