"""docs/github-actions.md and the workflow file it describes: the same workflow in both, it
uploads the SARIF and fails on exit 6, and its `council review` command line, run offline on
the simulator in a pull request's place, gates and writes a valid SARIF log."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
from pathlib import Path

import yaml

from council import DISTRIBUTION, __version__
from review.helpers import review_project, validate_sarif

DOCS = Path(__file__).resolve().parents[2] / "docs"
WORKFLOW = DOCS / "council-review.yml"


def steps() -> dict[str, dict]:
    workflow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    every = workflow["jobs"]["review"]["steps"]
    return {step.get("id") or step.get("name") or step["uses"]: step for step in every}


def test_the_guide_shows_the_workflow_file_as_it_is():
    guide = (DOCS / "github-actions.md").read_text(encoding="utf-8")
    own = guide.split("## A workflow of your own", 1)[1]  # after the action's own snippet
    (shown,) = re.findall(r"```yaml\n(.*?)```", own, re.S)
    file = WORKFLOW.read_text(encoding="utf-8")
    assert shown == "".join(line for line in file.splitlines(True) if not line.startswith("#"))


def test_the_workflow_uploads_the_sarif_and_fails_on_exit_6():
    workflow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    assert workflow["permissions"]["security-events"] == "write"
    found = steps()
    upload = found["Upload the findings to code scanning"]
    assert upload["uses"].startswith("github/codeql-action/upload-sarif@")
    assert upload["with"]["sarif_file"] == "council.sarif" and "always()" in upload["if"]
    gate = found["Fail on blocking findings"]
    assert "6) " in gate["run"] and "exit 6" in gate["run"]
    install = found["Install council and the reviewers' CLIs"]
    assert "@openai/codex" in install["run"]
    # The PyPI project named `council` is someone else's: council is `council-debate`, pinned.
    assert 'pip install "$COUNCIL_SOURCE"' in install["run"]
    assert install["env"]["COUNCIL_SOURCE"] == f"{DISTRIBUTION}=={__version__}"


def test_the_workflows_review_command_runs_offline_and_blocks_on_a_confirmed_finding(tmp_path):
    project = review_project(tmp_path)
    git = ["git", "-c", "user.email=t@example.com", "-c", "user.name=t"]
    for command in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "base"]):
        subprocess.run([*git, *command], cwd=project.root, check=True)
    with (project.root / "service.py").open("a") as service:
        service.write("\n\ndef remove(db, name):\n")
        service.write('    db.execute("DELETE FROM users WHERE name = " + name)\n')
    script = steps()["review"]["run"].replace("\\\n", " ")
    (line,) = [x for x in script.splitlines() if x.strip().startswith("council review")]
    argv = shlex.split(line.replace('"$base"', "HEAD"))
    argv = argv[: argv.index(">")]  # stdout goes to the job summary in CI
    assert argv[argv.index("--with") + 1] == "claude,codex"
    argv[argv.index("--with") : argv.index("--with") + 2] = ["--sim"]
    run = project.run(*argv[1:])
    assert run.returncode == 6, run.stderr
    sarif = json.loads((project.root / "council.sarif").read_text())
    validate_sarif(sarif)
    (result,) = sarif["runs"][0]["results"]
    assert result["level"] == "error" and result["properties"]["blocking"] is True
