"""Codex reads council's agent skill where `council skill install --host codex` puts it: the
real codex, run headless (`codex exec`) against the fake model server, lists the `council`
skill in the first request it sends its model. Codex 0.169.0 dropped custom prompts, so the
skill is how it learns of council at all (docs/spec/commands.md, "council skill install")."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from fakemodel.installed import installed

pytestmark = pytest.mark.realcli

SKILL_LINE = "- council: Runs a structured debate between AI coding CLIs"


def council(cwd: Path, environ: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "council", *args],
        cwd=cwd,
        env=environ,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def first_request_text(cli, project: Path, environ: dict[str, str]) -> str:
    """`codex exec` run once in `project`; the text of the first request its model got."""
    codex = installed("codex").bin_dir / "codex"
    done = subprocess.run(
        [str(codex), "exec", "say hi"],
        cwd=project,
        env=environ,
        capture_output=True,
        text=True,
        timeout=180,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    sent = cli.server.requests("codex")
    assert sent, "codex sent its model no request"
    return json.dumps(sent[0].body, ensure_ascii=False)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    made = tmp_path / "project"
    made.mkdir()
    subprocess.run(["git", "init", "-q", str(made)], check=True)
    return made


def test_codex_lists_the_council_skill_installed_in_the_project(real_cli, project):
    cli = real_cli("codex")
    said = council(project, cli.environ, "skill", "install", "--host", "codex")
    assert "wrote .agents/skills/council/SKILL.md" in said
    text = first_request_text(cli, project, cli.environ)
    assert SKILL_LINE in text and "- council-review: Reviews code" in text


def test_codex_lists_the_council_skill_installed_in_codex_home(real_cli, project):
    cli = real_cli("codex")
    moved = cli.home / "elsewhere"  # CODEX_HOME away from ~/.codex, its config with it
    shutil.copytree(cli.home / ".codex", moved)
    environ = {**cli.environ, "CODEX_HOME": str(moved)}
    said = council(project, environ, "skill", "install", "--host", "codex", "--scope", "user")
    assert "wrote ~/elsewhere/skills/council/SKILL.md" in said
    assert not (project / ".agents").exists()
    text = first_request_text(cli, project, environ)
    assert SKILL_LINE in text


def test_codex_lists_no_council_skill_before_install(real_cli, project):
    cli = real_cli("codex")
    assert SKILL_LINE not in first_request_text(cli, project, cli.environ)
