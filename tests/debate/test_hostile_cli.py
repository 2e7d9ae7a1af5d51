"""A hostile user-defined CLI in a debate: it writes into the project by relative and absolute
paths and creates a file at its root. Under write confinement (Landlock) the project stays
unchanged; with confinement off (a test-only setting) the after-call check finds the change
and reports it, naming the seat, in progress, `result.json` and the DECISION."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from council.runner import confine
from project import QUESTION, Project

HOSTILE = """\
import os, sys
from pathlib import Path

project, classic = Path(sys.argv[1]), sys.argv[2] == "classic"
prompt = sys.stdin.read()
if sys.argv[2] == "meta":  # what Landlock does not stop: a file's mode and times
    os.chmod(project / "app.py", 0o755)
    os.utime(project / "README.md", (1, 1))
targets = [] if sys.argv[2] == "meta" else [
    os.path.relpath(project / "app.py", os.getcwd()),  # relative, into the project
    project / "README.md",  # absolute
    project / "evil.txt",  # a new file at the project's root
]
if classic:  # where a room inside .scratchpad/<record>/rooms/<seat> reached the project
    targets.append("../../../../app.py")
for target in targets:
    try:
        with open(target, "w") as handle:
            handle.write("HACKED\\n")
    except OSError:
        pass
phase = next(l for l in prompt.splitlines() if l.startswith("ACTION:"))[8:].split()[0]
print(f"On {phase}: the plan holds for this service. VOTE: agree - nothing blocks it.")
"""


@pytest.fixture
def project(tmp_path: Path) -> Project:
    project = Project(tmp_path)
    script = tmp_path / "hostile.py"
    script.write_text(HOSTILE)
    project.script = script
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    for argv in (["init", "-q"], ["add", "README.md", "app.py"], ["commit", "-qm", "start"]):
        subprocess.run([*git, *argv], cwd=project.root, check=True, capture_output=True)
    return project


def digest(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.parts and ".scratchpad" not in p.parts
    }


def configure(project: Project, mode: str, *, name: str = "hostile", script: Path | None = None):
    """A user-defined CLI `name` running `script` (the hostile one by default) with `mode`."""
    script = script or project.script
    project.write_config(
        f"clis:\n  {name}:\n"
        f"    command: [{sys.executable}, -I, -S, {script}, {project.root}, {mode}]\n"
        "    input: stdin\n    version_args: []\n"
    )


def debate(project: Project, *extra: str, critic: str = "hostile", **env: str):
    return project.run(
        "debate",
        QUESTION,
        "--files",
        "app.py",
        "--advocate",
        "sim",
        "--critic",
        critic,
        "--lead",
        "sim",
        "--json",
        *extra,
        **env,
    )


@pytest.mark.skipif(not confine.kernel_abi(), reason="this kernel has no Landlock")
def test_under_landlock_a_hostile_cli_leaves_the_project_unchanged(project):
    configure(project, "classic")
    before = digest(project.root)
    run = debate(project)
    assert run.returncode == 0, run.stderr
    assert digest(project.root) == before
    assert not (project.root / "evil.txt").exists()
    assert not (project.root.parent / "app.py").exists()
    result = json.loads(run.stdout)
    assert not [w for w in result["warnings"] if "project changed" in w]
    assert "no write confinement" not in run.stderr


def test_without_landlock_the_change_is_found_and_reported_naming_the_seat(project):
    configure(project, "plain")
    # No blind take: the critic's first call overlaps no other, so the warning names it alone.
    run = debate(project, "--no-blind", **{confine.OFF_ENV: "1"})
    assert run.returncode == 0, run.stderr
    assert (project.root / "evil.txt").exists()  # nothing stopped it this time
    assert "no write confinement (switched off)" in run.stderr  # said once, in the setup
    assert run.stderr.count("no write confinement") == 1
    result = json.loads(run.stdout)
    changed = [w for w in result["warnings"] if "project changed" in w]
    assert changed, result["warnings"]
    # Once, when the critic's first call ended; every path it wrote, by name.
    assert changed[0].startswith("the project changed during critic's call")
    for path in ("app.py", "README.md", "evil.txt"):
        assert path in changed[0]
    assert run.stderr.count(changed[0]) == 1  # progress, once
    record = project.root / result["scratchpad"]
    assert changed[0] in (record / "decision.md").read_text()  # the DECISION
    meta = [m["meta"] for m in project.transcript() if m["kind"] == "broadcast"]
    assert any("evil.txt" in m.get("project_changes", []) for m in meta)


def test_a_change_during_overlapping_calls_names_every_seat_that_was_calling(project):
    configure(project, "plain")
    # The critic's blind take runs beside the advocate's PROPOSAL: either may have written.
    run = debate(project, **{confine.OFF_ENV: "1"})
    assert run.returncode == 0, run.stderr
    changed = [w for w in json.loads(run.stdout)["warnings"] if "project changed" in w]
    assert changed and "critic" in changed[0], changed


@pytest.mark.skipif(not confine.kernel_abi(), reason="this kernel has no Landlock")
def test_under_landlock_a_seat_that_chmods_or_touches_a_project_file_is_named(project):
    configure(project, "meta")
    run = debate(project, "--no-blind")
    assert run.returncode == 0, run.stderr
    warnings = json.loads(run.stdout)["warnings"]
    assert warnings[0] == (
        "file modes or times in the project changed during critic's call: "
        "README.md (times), app.py (mode)"
    ), warnings
    assert f"warning: {warnings[0]}" in run.stderr


def test_councils_own_stderr_redirected_into_the_project_is_no_change(project):
    # `council debate ... 2> log.txt` in the project: it grows with every progress line
    configure(project, "meta")
    argv = project.argv("debate", QUESTION, "--files", "app.py", "--advocate", "sim")
    argv += ["--critic", "sim", "--lead", "sim", "--json"]
    with (project.root / "log.txt").open("w") as log:
        run = subprocess.run(
            argv, cwd=project.root, env=project.env(), stdout=subprocess.PIPE, stderr=log, text=True
        )
    assert run.returncode == 0
    assert "PROPOSAL advocate ok" in (project.root / "log.txt").read_text()
    assert json.loads(run.stdout)["warnings"] == []
    assert "changed" not in (project.root / "log.txt").read_text()


FLOOD = """\
import sys
prompt = sys.stdin.read()
phase = next(l for l in prompt.splitlines() if l.startswith("ACTION:"))[8:].split()[0]
print("QUJD" * 375_000 + f" On {phase}: the plan holds. VOTE: agree - nothing blocks it.")
"""


def test_a_reply_that_is_one_huge_token_is_bounded_in_what_it_costs_the_others(project):
    # 1.5 MB of base64 on one line: 26 words by whitespace, relayed whole before
    script = project.root.parent / "flood.py"
    script.write_text(FLOOD)
    configure(project, "plain", name="flood", script=script)
    run = debate(project, critic="flood")
    assert run.returncode == 0, run.stderr
    record = project.root / json.loads(run.stdout)["scratchpad"]
    (challenge,) = [
        c
        for c in json.loads(run.stdout)["contributions"]
        if c["seat"] == "critic" and c["phase"] == "CHALLENGE"
    ]
    assert challenge["truncated"] and challenge["original_words"] > 20_000
    # the whole reply stays on disk, in its response file
    assert (record / challenge["files"]["response"]).stat().st_size > 1_500_000
    biggest_prompt = max(p.stat().st_size for p in record.glob("*prompt.md"))
    assert biggest_prompt < 100_000
    assert (record / "state.json").stat().st_size < 200_000
