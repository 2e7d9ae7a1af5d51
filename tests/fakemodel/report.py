"""The realcli contract tests' closing report: which CLI versions were tested and how they
did, printed at the end of the run (the CI log's record of what the contracts were checked
against). A plugin of the top conftest, not of tests/realcli/: under pytest-xdist the process
that prints the summary collects no test, so it never loads a conftest below tests/; the
results reach it as the workers' reports."""

from __future__ import annotations

import json
import os
import re
from collections import defaultdict

import pytest

from fakemodel.fixtures import TESTED_VERSIONS
from fakemodel.installed import cache_dir, installed

REPORT_ENV = "COUNCIL_REALCLI_REPORT"  # a JSON file for scripts/check-cli-drift.sh
_PARAM = re.compile(r"\[([\w.-]+)\]$")
_results: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    match = _PARAM.search(report.nodeid)
    if match is None or "realcli" not in report.keywords:
        return
    if report.when == "call" or (report.when == "setup" and not report.passed):
        test = report.nodeid.split("::")[-1].split("[")[0]
        # A known vendor limitation pinned by a strict xfail is not a skip.
        outcome = "xfailed" if hasattr(report, "wasxfail") else report.outcome
        _results[match.group(1)][outcome].append(test)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    # A pytest-xdist worker's summary is not shown, and its JSON would hold only its share.
    if not _results or hasattr(terminalreporter.config, "workerinput"):
        return
    terminalreporter.section("real CLIs tested against the fake model server")
    terminalreporter.write_line(f"cache: {cache_dir()}")
    terminalreporter.write_line(
        f"{'CLI':<10} {'version':<26} {'passed':>6} {'failed':>6} {'xfailed':>7} skipped"
    )
    report = {}
    for cli, outcomes in sorted(_results.items()):
        version = TESTED_VERSIONS.get(cli) or installed(cli).version or "not installed"
        counts = {k: len(outcomes.get(k, [])) for k in ("passed", "failed", "xfailed", "skipped")}
        terminalreporter.write_line(
            f"{cli:<10} {version:<26} {counts['passed']:>6} {counts['failed']:>6} "
            f"{counts['xfailed']:>7} {counts['skipped']}"
        )
        report[cli] = {"version": version, **{k: list(v) for k, v in outcomes.items()}}
    if path := os.environ.get(REPORT_ENV):
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(report, handle, indent=2)
