"""What the review tests share: a project with code worth reviewing, the two schemas its
outputs follow, and readers for the record."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import jsonschema

from council.review.result import review_schema
from project import Project

SARIF_SCHEMA = Path(__file__).with_name("sarif-schema-2.1.0.json")  # the official 2.1.0 schema

# Line numbers matter: the simulator reports the smell on each line (council.sim.review).
SERVICE = """\
import os


def run(command):
    os.system(command)


def find(db, name):
    return db.execute(f"SELECT * FROM users WHERE name = '{name}'")


try:
    import json
except:
    json = None
# TODO: cache the lookups
"""


# The gate's rules when neither --gate nor review.gate chose one.
MAJORITY_RULES = dict.fromkeys(("low", "medium", "high", "critical"), "majority")


def review_project(root: Path, service: str = SERVICE) -> Project:
    project = Project(root)
    (project.root / "service.py").write_text(service)
    return project


def validate_review(result: dict) -> None:
    jsonschema.Draft202012Validator(review_schema()).validate(result)


@cache
def sarif_validator() -> jsonschema.Draft4Validator:
    schema = json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))
    return jsonschema.Draft4Validator(schema, format_checker=jsonschema.FormatChecker())


def validate_sarif(document: dict) -> None:
    sarif_validator().validate(document)


def result_of(run) -> dict:
    assert run.returncode in (0, 5, 6), run.stderr
    return json.loads(run.stdout)


def finding_titled(result: dict, words: str) -> dict:
    (found,) = [f for f in result["findings"] if words in f["title"]]
    return found


def reviewer(result: dict, name: str) -> dict:
    (found,) = [r for r in result["reviewers"] if r["name"] == name]
    return found
