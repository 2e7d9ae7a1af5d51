"""The simulator answers a review (council.sim.review): findings derived from the code in the
prompt, verdicts on the others' findings, the same answers to a repair ask, all as JSON and
all deterministic; prompts are rendered from council's own templates, as a review sends them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from council.context.fences import Fences
from council.context.render import number_lines
from council.prompts import render
from council.sim import prompt as sim_prompt
from council.sim.replies import build_reply

SRC = Path(__file__).resolve().parents[2] / "src"
CODE = """\
import os, pickle

def load(blob):
    return pickle.loads(blob)

def run(command):
    os.system(command)  # SIM_ONLY(beta)
"""
DIFF = """\
diff --git a/app.py b/app.py
--- a/app.py
+++ b/app.py
@@ -10,2 +10,3 @@ def main():
     start()
+    print("debug")
     stop()
"""


FENCES = Fences.new()


def files(code: str = CODE, path: str = "app.py") -> str:
    text = number_lines(code.rstrip("\n"), len(code.splitlines()))
    block = f"```python\n{text}\n```"
    return f"### {path}\n{FENCES.begin('file', path)}\n{block}\n{FENCES.end('file', path)}\n"


def prompt(template: str, **values: object) -> str:
    base = {"phase": "REVIEW", "round": 1, "limit": 1500, "vote": False, "subject": "app.py",
            "technical": [], "diff": False, "files": files(), "fences": FENCES}  # fmt: skip
    return render(template, **{**base, **values})


def answer(text: str, model: str | None = None) -> dict:
    phase = sim_prompt.detect_phase(text)
    return json.loads(build_reply(text.encode(), text, phase, model))


def test_every_review_phase_is_detected_from_its_action_line():
    review = prompt("review")
    assert sim_prompt.detect_phase(review) == "REVIEW"
    assert sim_prompt.detect_phase(prompt("cross_check", phase="CROSS_CHECK", findings=[])) == (
        "CROSS_CHECK"
    )
    for phase in ("REVIEW_REPAIR", "CROSS_CHECK_REPAIR"):
        repair = prompt("review_repair", phase=phase, problem="p", previous="x", original=review)
        assert sim_prompt.detect_phase(repair) == phase  # its own line first, the task's later
    assert sim_prompt.JSON_PHASES >= sim_prompt.REVIEW_PHASES


def test_findings_come_from_the_numbered_lines_and_only_the_named_model_sees_sim_only():
    plain = answer(prompt("review"))["findings"]
    assert [(f["title"], f["line"]) for f in plain] == [
        ("Unpickling data that may not be trusted", 4)
    ]
    beta = answer(prompt("review"), model="beta")["findings"]
    assert [f["line"] for f in beta] == [4, 7]
    assert beta[0] == plain[0]  # the same finding, word for word, from any reviewer
    assert all(f["detail"].startswith("[SIMULATED]") for f in beta)
    assert answer(prompt("review"), model="beta") == answer(prompt("review"), model="beta")


def test_with_a_diff_only_the_added_lines_are_reviewed():
    text = prompt("review", diff=True, files=f"### git diff HEAD\n```diff\n{DIFF}```\n" + files())
    (finding,) = answer(text)["findings"]
    assert (finding["file"], finding["line"], finding["title"]) == (
        "app.py", 11, "Debug print left in the code",
    )  # fmt: skip


def test_clean_code_gets_one_low_finding_that_no_test_covers_it():
    (finding,) = answer(prompt("review", files=files("x = 1\n")))["findings"]
    assert (finding["severity"], finding["kind"], finding["line"]) == ("low", "testing", 1)


def listed(*items: tuple[str, int]) -> list[dict]:
    return [
        {"id": f"F{n}", "label": "Reviewer B", "severity": "high", "kind": "security",
         "file": "app.py", "line": line, "end_line": None, "title": title, "detail": "",
         "suggestion": ""}
        for n, (title, line) in enumerate(items, 1)
    ]  # fmt: skip


def test_a_cross_check_confirms_what_this_reviewer_would_raise_and_disputes_the_rest():
    findings = listed(("Unpickling data that may not be trusted", 5),
                      ("Shell command built from a string", 7))  # fmt: skip
    text = prompt("cross_check", phase="CROSS_CHECK", round=2, findings=findings)
    verdicts = answer(text)["verdicts"]
    assert [(v["id"], v["verdict"]) for v in verdicts] == [("F1", "confirm"), ("F2", "dispute")]
    assert verdicts[1]["reason"] == "[SIMULATED] Nothing at app.py:7 shows this problem."
    beta = answer(text, model="beta")["verdicts"]
    assert [v["verdict"] for v in beta] == ["confirm", "confirm"]


def test_a_repair_is_answered_as_the_task_it_repairs():
    review = prompt("review")
    repair = prompt("review_repair", phase="REVIEW_REPAIR", problem="no JSON object found",
                    previous="oops", original=review[review.find("ACTION:"):])  # fmt: skip
    assert answer(repair)["findings"] == answer(review)["findings"]


def run_sim(text: str, **faults: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("COUNCIL_SIM_")}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(SRC), env.get("PYTHONPATH")) if p)
    env.update({f"COUNCIL_SIM_{k}": v for k, v in faults.items()})
    return subprocess.run(
        [sys.executable, "-m", "council.sim"], input=text, capture_output=True, text=True,
        env=env, timeout=20, check=False,
    )  # fmt: skip


@pytest.mark.parametrize(("phases", "garbled"), [("REVIEW", True), ("REVIEW_REPAIR", False)])
def test_faults_can_be_aimed_at_a_review_phase(phases, garbled):
    done = run_sim(prompt("review"), WORDS="7", PHASES=phases)
    assert done.returncode == 0, done.stderr
    if garbled:
        assert len(done.stdout.split()) == 7
    else:
        assert json.loads(done.stdout)["findings"]
