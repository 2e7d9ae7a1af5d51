"""A whole `council review` on two real vendor CLIs of two vendors, both pointed at the local
fake model server, which answers a review's phases with the simulator's JSON: the real CLIs
carry council's prompts to a model and its findings and verdicts back. Exit 6 on the
majority-confirmed critical finding; a result that validates against council.review/v1 and a
SARIF log against the official SARIF 2.1.0 schema."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from fakemodel.fixtures import _skip_or_fail, council_env
from fakemodel.installed import installed
from review.helpers import SERVICE, validate_review, validate_sarif

pytestmark = pytest.mark.realcli

REVIEWERS = ("claude", "codex")


def test_a_review_by_two_real_clis_merges_their_findings_and_gates_on_them(fake_model, tmp_path):
    for name in REVIEWERS:
        if not installed(name).ok:
            _skip_or_fail(installed(name).problem())
    home, tmpdir, project = tmp_path / "home", tmp_path / "tmp", tmp_path / "project"
    for directory in (home, tmpdir, project):
        directory.mkdir()
    (project / "service.py").write_text(SERVICE)
    env, models = council_env(fake_model, REVIEWERS, home, tmpdir)
    run = subprocess.run(
        [
            sys.executable, "-m", "council", "review", "--files", "service.py",
            "--with", ",".join(REVIEWERS), "--model", ",".join(models),
            "--timeout", ",".join(f"{cli}=120" for cli in REVIEWERS),
            "--fail-on", "critical", "--format", "json", "--output", "council.sarif",
        ],
        cwd=project, env=env, capture_output=True, text=True, timeout=600,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert run.returncode == 6, run.stderr
    result = json.loads(run.stdout)
    validate_review(result)
    assert result["status"] == "completed" and result["simulated"] is False
    assert [r["cli"] for r in result["reviewers"]] == list(REVIEWERS)
    assert all(r["review"] == "ok" and r["cross_check"] == "ok" for r in result["reviewers"]), [
        (r["name"], r["review"], r["cross_check"], r["problems"]) for r in result["reviewers"]
    ]
    assert all(c["status"] == "ok" for c in result["calls"]), result["calls"]
    # Both reviewers were given the same findings by the model: each merges into one finding
    # both raised, and the critical one blocks.
    assert len(result["findings"]) == 4
    assert all(f["raised_by"] == ["reviewer-claude", "reviewer-codex"] for f in result["findings"])
    sql = result["findings"][0]
    assert (sql["severity"], sql["file"], sql["line"]) == ("critical", "service.py", 9)
    assert result["gate"]["blocking"] == [sql["id"]]
    validate_sarif(json.loads((project / "council.sarif").read_text()))
