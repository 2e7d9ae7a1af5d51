"""`council show ID --html` on a real simulated debate: 3 rounds, one proxy that hangs until
its hard limit kills it, one that is rate limited once and retried. The page is read back
with the standard library's HTML parser and checked against the record it was drawn from;
then headless Chromium renders it, when it is installed (CI installs it: `.ci/run`)."""

from __future__ import annotations

import json
import os
import re
import shutil
import struct
import subprocess
import sys
import zlib
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from project import Project

# Markup in the question reaches the page several times over: the sim's replies quote it.
QUESTION = 'Redis or Postgres? <script>alert("x")</script></svg><b>bold</b> & more'
# The advocate takes 1.5 s over its RESPOND, so the REBUTTAL is asked well after the slow
# proxy's CHALLENGE was killed at its hard limit (1.5 s from its start, the phase having moved
# on at its soft 1 s): asked while that call still ran, it would sit the REBUTTAL out as busy.
CONFIG = """\
clis:
  patient:
    adapter: sim
    env:
      COUNCIL_SIM_DELAY: "1.5"
      COUNCIL_SIM_PHASES: "RESPOND"
  slow:
    adapter: sim
    env:
      COUNCIL_SIM_HANG: "1"
      COUNCIL_SIM_PHASES: "CHALLENGE,REBUTTAL"
  flaky:
    adapter: sim
    env:
      COUNCIL_SIM_RATE_LIMIT: "1"
      COUNCIL_SIM_RETRY_AFTER: "0.2"
      COUNCIL_SIM_STATE_DIR: "{state_dir}"
"""
CHROMIUM = shutil.which("chromium")


@dataclass
class Element:
    tag: str
    attrs: dict[str, str]
    title: str = ""  # the text of its <title> child: a bar's tooltip

    @property
    def classes(self) -> list[str]:
        return self.attrs.get("class", "").split()


class Page(HTMLParser):
    """Every element of the page in document order, with its tooltip; and its text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[Element] = []
        self.text: list[str] = []
        self._open: list[Element] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, {k: v or "" for k, v in attrs})
        self.elements.append(element)
        self._open.append(element)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append(Element(tag, {k: v or "" for k, v in attrs}))

    def handle_endtag(self, tag: str) -> None:
        for i in range(len(self._open) - 1, -1, -1):  # <meta> and friends are never closed
            if self._open[i].tag == tag:
                del self._open[i:]
                return

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if len(self._open) >= 2 and self._open[-1].tag == "title":
            self._open[-2].title += data

    def having(self, tag: str, css: str) -> list[Element]:
        return [e for e in self.elements if e.tag == tag and css in e.classes]


@dataclass
class Shown:
    project: Project
    record: Path
    report: Path
    html: str
    page: Page
    state: dict[str, Any]


@pytest.fixture(scope="module")
def shown(tmp_path_factory: pytest.TempPathFactory) -> Shown:
    root = tmp_path_factory.mktemp("show-html")
    project = Project(root)
    project.write_config(CONFIG.format(state_dir=root / "sim-state"))
    ran = project.run(
        "debate",
        QUESTION,
        "--sim",
        "--rounds",
        "3",
        "--advocate",
        "patient",
        "--with",
        "slow,flaky",
        "--timeout",
        "slow=1",
        "--files",
        "app.py",
    )
    assert ran.returncode == 0, ran.stderr
    return show_html(project)


def show_html(project: Project) -> Shown:
    """`council show last --html` and the page it wrote, read back."""
    out = project.run("show", "last", "--html")
    assert out.returncode == 0, out.stderr
    record = project.record()
    assert out.stdout == f".scratchpad/{record.name}/report.html\n"  # the path, nothing else
    report = project.root / out.stdout.strip()
    html = report.read_text(encoding="utf-8")
    page = Page()
    page.feed(html)
    page.close()
    state = json.loads((record / "state.json").read_text())
    return Shown(project, record, report, html, page, state)


def calls_of(state: dict[str, Any], seat: str | None = None) -> list[dict[str, Any]]:
    return [c for c in state["calls"].values() if seat is None or c["seat"] == seat]


def test_the_page_is_written_into_the_record_privately(shown):
    assert shown.report.parent == shown.record
    assert shown.report.stat().st_mode & 0o777 == 0o600
    assert shown.html.startswith("<!DOCTYPE html>")


def test_one_bar_per_attempt_of_every_call_in_the_state(shown):
    attempts = sum(len(c["spans"]) for c in calls_of(shown.state))
    bars = shown.page.having("rect", "call")
    assert len(bars) == attempts
    assert attempts >= 11  # the run really had its calls: 9 seat calls, a retry, the DECISION
    lead = [b for b in bars if b.title.startswith("lead · DECISION")]
    assert len(lead) == 1  # the lead's own call has a row and a bar
    rows = [e.title for e in shown.page.having("text", "seat")]
    assert rows == ["advocate", "critic", "proxy-slow", "proxy-flaky", "lead"]


def test_a_timed_out_proxy_is_drawn_as_timeout_with_its_soft_and_hard_limits(shown):
    timed_out = [c for c in calls_of(shown.state, "proxy-slow") if c["status"] == "timeout"]
    assert len(timed_out) == 2  # CHALLENGE and REBUTTAL: it never answers
    bars = [b for b in shown.page.having("rect", "call") if b.title.startswith("proxy-slow ·")]
    bars = [b for b in bars if "BLIND_TAKE" not in b.title]  # it answers that one in time
    assert len(bars) == 2
    limits = [line for line in shown.page.having("line", "limit") if line.title]  # not the legend
    for call, bar in zip(timed_out, bars, strict=True):
        assert bar.classes == ["call", "timeout"]
        assert f"proxy-slow · {call['phase']} (round {call['round']}) · timeout · " in bar.title
        mine = [line for line in limits if line.title.startswith(f"proxy-slow {call['phase']}:")]
        soft, hard = sorted(mine, key=lambda line: float(line.attrs["x1"]))
        assert "soft" in soft.classes and "soft limit 1s" in soft.title
        assert "hard" in hard.classes and "hard limit 1.5s" in hard.title
        start, end = float(bar.attrs["x"]), float(bar.attrs["x"]) + float(bar.attrs["width"])
        # Both limits count from the call's start; the tree is killed at the hard one.
        assert start < float(soft.attrs["x1"]) < float(hard.attrs["x1"]) <= end + 0.5
        # The soft limit sits at 1/1.5 of the way from the start to the hard one.
        ratio = (float(soft.attrs["x1"]) - start) / (float(hard.attrs["x1"]) - start)
        assert ratio == pytest.approx(1 / 1.5, abs=0.02)
    assert {line.title.split(":")[0] for line in limits} == {
        "proxy-slow CHALLENGE",
        "proxy-slow REBUTTAL",
    }  # nobody else was a straggler


def test_a_retried_attempt_is_marked_as_retried(shown):
    flaky = calls_of(shown.state, "proxy-flaky")
    retried = sum(len(c["spans"]) - 1 for c in flaky)
    assert retried >= 1
    marked = [b for b in shown.page.having("rect", "call") if "retried" in b.classes]
    assert len(marked) == retried
    assert all(b.classes == ["call", "rate_limited", "retried"] for b in marked)
    assert all(b.title.startswith("proxy-flaky ·") and "attempt 1 of 2" in b.title for b in marked)


def test_phase_boundaries_are_lines_named_after_the_phases(shown):
    transcript = shown.project.transcript()
    entered = [
        e["body"].removeprefix("phase ")
        for e in transcript
        if e["kind"] == "system" and e["body"].startswith("phase ")
    ]
    assert entered[:3] == ["SETUP", "PROPOSAL", "CHALLENGE"] and entered[-1] == "DECISION"
    names = [e.title.split(" (round")[0] for e in shown.page.having("text", "phase-name")]
    assert names == entered
    assert len(shown.page.having("line", "phase")) == len(entered) + 1  # one in the legend


def test_replies_with_markup_are_text_on_the_page(shown):
    contributions = json.loads((shown.record / "result.json").read_text())["contributions"]
    quoting = [c for c in contributions if "<script>" in c["text"]]
    assert quoting  # the sim quoted the question: untrusted markup in the replies
    assert not [e for e in shown.page.elements if e.tag in ("script", "b")]
    svgs = [e for e in shown.page.elements if e.tag == "svg"]
    assert shown.html.count("</svg>") == len(svgs)  # none closed early by a reply
    assert "&lt;/svg&gt;" in shown.html and "&lt;script&gt;" in shown.html
    text = "".join(shown.page.text)
    assert QUESTION in text
    assert quoting[0]["text"] in text


def test_nothing_is_fetched_from_anywhere(shown):
    html = shown.html
    assert not re.search(r"https?://", html)
    assert "<link" not in html.lower() and "<script" not in html.lower()
    assert "@import" not in html and "@font-face" not in html
    assert re.findall(r"url\((.)", html) == ["#"] * len(re.findall(r"url\(", html))
    for element in shown.page.elements:
        assert "src" not in element.attrs, element
        href = element.attrs.get("href")
        assert href is None or href.startswith("#"), element
    policy = [
        e for e in shown.page.elements if e.attrs.get("http-equiv") == "Content-Security-Policy"
    ]
    assert policy and "default-src 'none'" in policy[0].attrs["content"]


def test_the_decision_and_every_contribution_are_on_the_page(shown):
    result = json.loads((shown.record / "result.json").read_text())
    text = " ".join("".join(shown.page.text).split())
    recommendation = " ".join(result["decision"]["recommendation"].split())
    assert recommendation in text
    articles = [e for e in shown.page.elements if e.tag == "article"]
    assert len(articles) == len(result["contributions"])
    by_round = sorted(result["contributions"], key=lambda c: c["round"])  # stable
    assert [a.classes[1] for a in articles] == [c["status"] for c in by_round]
    for round_no in {c["round"] for c in result["contributions"]}:
        assert f"Round {round_no}" in text


def test_version_does_not_load_jinja_or_the_report(tmp_path):
    ran = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "council", "--version"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
        check=True,
    )
    imported = {line.rsplit("|", 1)[-1].strip() for line in ran.stderr.splitlines()}
    assert "council.cli.runs" in imported  # the list is real
    assert (
        not {"jinja2", "council.debate.report", "council.review.report", "council.report.chart"}
        & imported
    )


def png_size_and_pixels(path: Path) -> tuple[int, int, bytes]:
    """Width, height and the (still filtered) pixel bytes of a PNG, with the standard library."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    width = height = 0
    chunks, at = [], 8
    while at < len(data):
        (length,) = struct.unpack(">I", data[at : at + 4])
        kind, body = data[at + 4 : at + 8], data[at + 8 : at + 8 + length]
        if kind == b"IHDR":
            width, height = struct.unpack(">II", body[:8])
        elif kind == b"IDAT":
            chunks.append(body)
        at += 12 + length
    return width, height, zlib.decompress(b"".join(chunks))


def screenshot(report: Path, tmp_path: Path) -> Path:
    """The page as headless Chromium draws it, 1280x2000."""
    assert CHROMIUM is not None
    png = tmp_path / "report.png"
    # The flags keep Chromium off the network and away from the user's profile.
    argv = [
        CHROMIUM,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
        f"--user-data-dir={tmp_path / 'profile'}",
        "--window-size=1280,2000",
        f"--screenshot={png}",
        report.as_uri(),
    ]
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "TMPDIR")}
    ran = subprocess.run(
        argv,
        capture_output=True,
        text=True,
        timeout=45,
        env={**env, "HOME": str(tmp_path)},
        stdin=subprocess.DEVNULL,
    )
    assert png.is_file(), ran.stderr[-2000:]
    return png


def assert_drawn(png: Path) -> None:
    width, height, pixels = png_size_and_pixels(png)
    assert (width, height) == (1280, 2000)
    # A blank page compresses to a handful of byte values whatever the PNG filter; text,
    # anti-aliasing and coloured bars give well over a hundred.
    assert len(set(pixels)) > 100


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)")
def test_headless_chromium_renders_the_page(shown, tmp_path):
    assert_drawn(screenshot(shown.report, tmp_path))


# A review's page, from a real simulated review: the simulator finds one smell a line.
REVIEWED = """\
import pickle


def load(db, blob, name):
    rows = db.execute(f"SELECT * FROM users WHERE name = '{name}'")
    try:
        return eval(blob), rows
    except:
        # TODO: a schema
        return pickle.loads(blob)
"""


@pytest.fixture(scope="module")
def reviewed(tmp_path_factory: pytest.TempPathFactory) -> Shown:
    project = Project(tmp_path_factory.mktemp("show-html-review"))
    (project.root / "x.py").write_text(REVIEWED)
    ran = project.run("review", "--files", "x.py", "--sim")
    assert ran.returncode == 0, ran.stderr
    return show_html(project)


def words(text: str) -> str:
    return " ".join(text.split())


def test_a_reviews_page_shows_every_finding_as_council_show_prints_it(reviewed):
    result = json.loads((reviewed.record / "result.json").read_text())
    markdown = (reviewed.record / "review.md").read_text()
    text = words("".join(reviewed.page.text))
    assert f"Review of {result['subject']}" in text
    findings = result["findings"]
    assert {f["severity"] for f in findings} >= {"critical", "high", "medium", "low"}
    articles = [e for e in reviewed.page.elements if e.tag == "article"]
    severity_rank = ["critical", "high", "medium", "low"]
    by_severity = sorted(findings, key=lambda f: severity_rank.index(f["severity"]))
    assert [a.classes[2] for a in articles] == [f["severity"] for f in by_severity]
    for finding in findings:
        # Its heading, then the same Markdown lines `council show` prints under it.
        assert f"{finding['id']} · {finding['severity']} · {finding['title']}" in text
        body = markdown.split(f"### {finding['id']} {finding['title']}\n", 1)[1]
        body = body.split("\n### ", 1)[0].split("\n## ", 1)[0]
        assert words(body) in text
        assert finding["detail"] in text and finding["suggestion"] in text
    assert not re.search(r"https?://|<script|<link", reviewed.html)
    for reviewer in result["reviewers"]:
        assert reviewer["name"] in text


def test_a_reviews_page_draws_every_call_in_its_timeline(reviewed):
    calls = calls_of(reviewed.state)
    assert len(calls) == 4  # two reviewers, a REVIEW and a CROSS_CHECK each
    bars = [e for e in reviewed.page.elements if e.tag == "rect" and "call" in e.classes]
    drawn = sorted(b.title.split(" · ok")[0] for b in bars)
    assert drawn == sorted(f"{c['seat']} · {c['phase']} (round {c['round']})" for c in calls)
    rows = [e.title for e in reviewed.page.having("text", "seat")]
    assert rows == ["reviewer-sim", "reviewer-sim-2"]
    phases = [e.title.split(" (round")[0] for e in reviewed.page.having("text", "phase-name")]
    assert phases == ["SETUP", "REVIEW", "CROSS_CHECK", "MERGE"]
    listed = [e for e in reviewed.page.elements if e.tag == "tr" and "call-row" in e.classes]
    assert len(listed) == len(calls)


def test_markup_in_a_finding_is_text_on_a_reviews_page(reviewed):
    from council.review.report import render_report

    result = json.loads((reviewed.record / "result.json").read_text())
    hostile = "</pre></svg><script>alert(1)</script>"
    findings = [{**f, "title": hostile, "detail": hostile} for f in result["findings"]]
    html = render_report({**result, "findings": findings}, reviewed.state, [])
    assert "<script" not in html and "</svg><" not in html
    assert html.count("&lt;/pre&gt;&lt;/svg&gt;&lt;script&gt;") == 2 * len(findings)


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)")
def test_headless_chromium_renders_a_reviews_page(reviewed, tmp_path):
    assert_drawn(screenshot(reviewed.report, tmp_path))
