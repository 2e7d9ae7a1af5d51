"""A preset's `blind` (docs/spec/config.md, presets): `blind: false` in a preset of one's own
turns the BLIND TAKE off for a run with that preset, as the shipped `quick` does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from project import QUESTION, Project


@pytest.mark.parametrize(("blind", "phases"), [("false", set()), ("true", {"BLIND_TAKE"})])
def test_a_presets_blind_setting_decides_the_blind_take(tmp_path: Path, blind, phases):
    project = Project(tmp_path)
    project.write_config(f"presets:\n  mine:\n    rounds: 2\n    blind: {blind}\n")
    run = project.run("debate", QUESTION, "--sim", "--preset", "mine", "--json")
    assert run.returncode == 0, run.stderr
    seen = {c["phase"] for c in json.loads(run.stdout)["contributions"]}
    assert seen & {"BLIND_TAKE"} == phases
