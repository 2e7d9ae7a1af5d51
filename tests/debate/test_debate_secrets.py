"""A whole debate over files full of planted secrets, on the strict fake vendor CLIs: not one
secret reaches a prompt, a room, the transcript, the result, or any CLI's stdin."""

from __future__ import annotations

import json
import os
import secrets
import string
import subprocess
import sys
from pathlib import Path

from context.secrets_corpus import find_leaks, plant_secret_corpus, read_tree
from council.panel.calls import BLIND_GRACE_ENV
from council.runner.confine import EXTRA_ENV as EXTRA_WRITABLE
from council.runner.confine import SUITE_ENV

from fakes.install import install_fakes


def council(tmp_path: Path, project: Path, bin_dir: Path, *args: str):
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env = {
        "PATH": os.pathsep.join([str(bin_dir), str(Path(sys.executable).parent), os.defpath]),
        "HOME": str(home),
        "LANG": "C.UTF-8",
        EXTRA_WRITABLE: str(bin_dir / ".fake"),  # the fakes' call logs
        **{k: v for k, v in os.environ.items() if k in ("PYTHONPATH", SUITE_ENV, BLIND_GRACE_ENV)},
    }
    return subprocess.run(
        [sys.executable, "-m", "council", "debate", *args],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        stdin=subprocess.DEVNULL,
    )


def test_no_planted_secret_reaches_any_prompt_room_record_or_cli(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    corpus = plant_secret_corpus(project)
    assert len(corpus.planted) >= 25
    fakes = install_fakes(tmp_path / "bin")
    key_in_question = "sk-ant-api03-" + "".join(
        secrets.choice(string.ascii_letters + string.digits) for _ in range(90)
    )
    run = council(
        tmp_path,
        project,
        fakes.bin_dir,
        f"Is it safe that our key {key_in_question} is in the config?",
        "--files",
        *corpus.files,
        "--allow-secrets",
        "--advocate",
        "claude",
        "--critic",
        "codex",
        "--lead",
        "claude",
        "--with",
        "gemini",
        "--json",
    )
    assert run.returncode == 0, run.stderr
    record = project / json.loads(run.stdout)["scratchpad"]
    texts = read_tree(record)
    # The rooms (outside the project, removed at the end) are covered by tests/context/
    # test_rooms.py; the record keeps their manifest, which names files, not contents.
    assert "rooms.json" in texts
    stdin = {
        f"{name} call {i} stdin": call["stdin"]
        for name in ("claude", "codex", "gemini")
        for i, call in enumerate(fakes.calls(name))
    }
    assert len(stdin) >= 5
    everything = {**texts, **stdin, "stdout": run.stdout, "stderr": run.stderr}
    assert find_leaks(corpus, everything) == []
    assert not [where for where, text in everything.items() if text and key_in_question in text]
    redactions = sum(f["redactions"] for f in json.loads(run.stdout)["context"]["files"])
    assert redactions >= len(corpus.planted)


def test_secret_named_files_are_refused_without_allow_secrets(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    corpus = plant_secret_corpus(project)
    fakes = install_fakes(tmp_path / "bin")
    run = council(
        tmp_path, project, fakes.bin_dir, "Is this safe?", "--files", *corpus.files, "--sim"
    )
    assert run.returncode == 2
    assert all(name in run.stderr for name in corpus.secret_named)
    assert "--allow-secrets" in run.stderr
    assert not (project / ".scratchpad").exists()
