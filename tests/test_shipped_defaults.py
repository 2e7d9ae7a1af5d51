"""The defaults council ships, as a user meets them when they set nothing.

Two halves. The table checks every user-visible default three ways: the value in the code, the
value the documentation in this repository states (parsed from the Markdown, never retyped) and
the number written in the row; all three must agree, so a default changed in one place only
fails here. The behaviour tests run `council debate` as a user does, with no flag beyond what
the check needs and a council.yaml only where a simulator seat needs its own fault injection
(never a `debate:` key), and look at the record for the effect of each default: the per-file
and total line caps, the hard-timeout factor, the word limits, rounds, quorum, retries.
"""

from __future__ import annotations

import inspect
import json
import random
import re
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml

from council.adapters import registered
from council.adapters.base import Status
from council.config import Config, parse_config
from council.context.files import head_tail_sizes
from council.debate.flags import DebateFlags
from council.debate.plan import resolve_plan
from council.panel.calls import Tuning
from council.runner import RetryPolicy, Timeouts, run_call
from project import QUESTION, Project

ROOT = Path(__file__).resolve().parents[1]
MIB = 1024 * 1024

# -- reading the documentation -------------------------------------------------------------

# The prose spells some counts out ("retry twice", "one retry", "doubled each time").
NUMBER_WORDS = {
    "no": 0,
    "never": 0,
    "one": 1,
    "once": 1,
    "two": 2,
    "twice": 2,
    "doubled": 2,
    "doubling": 2,
}


@cache
def doc(name: str) -> str:
    path = ROOT / name if name == "README.md" else ROOT / "docs" / "spec" / name
    return path.read_text(encoding="utf-8")


@cache
def prose(name: str) -> str:
    # Whitespace collapsed, so a sentence the Markdown wraps over two lines still matches.
    return " ".join(doc(name).split())


def value_of(text: str) -> Any:
    text = text.strip()
    if text.lower() in NUMBER_WORDS:
        return NUMBER_WORDS[text.lower()]
    if re.fullmatch(r"\d+", text):
        return int(text)
    if re.fullmatch(r"\d+\.\d+", text):
        return float(text)
    return text


def said(name: str, pattern: str, group: int = 1) -> Any:
    """What `name` states where `pattern` matches its prose: a number, or the text itself."""
    match = re.search(pattern, prose(name))
    assert match, f"{name} no longer says anything matching {pattern!r}"
    return value_of(match.group(group))


@cache
def config_md() -> dict[str, Any]:
    """The YAML block of config.md: the documented council.yaml with the defaults."""
    match = re.search(r"^ {4}version: 1\n(?:(?: {4}.*)?\n)*", doc("config.md"), re.MULTILINE)
    assert match, "config.md no longer holds the indented council.yaml block"
    return yaml.safe_load(textwrap.dedent(match.group(0)))


def debate_md(key: str) -> Any:
    return config_md()["debate"][key]


@cache
def phase_limits() -> dict[str, str]:
    """The output-limit column of protocol.md's phase table, by the phase's first word."""
    limits = {}
    for line in doc("protocol.md").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 4 and re.fullmatch(r"\d+[a-z.\d]*", cells[0]):
            limits[cells[1].split()[0].rstrip(":")] = cells[3]
    assert limits, "protocol.md no longer holds the phase table"
    return limits


def limit_md(phase: str, pattern: str) -> Any:
    match = re.search(pattern, phase_limits()[phase])
    assert match, f"protocol.md's {phase} row no longer says {pattern!r}"
    return value_of(match.group(1))


@cache
def soft_timeouts_md() -> dict[str, tuple[int, int]]:
    """clis.md's "Default soft timeouts" table: CLI -> (default, at effort xhigh)."""
    section = doc("clis.md").split("### Default soft timeouts", 1)[1].split("\n\n", 1)[0]
    table = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        seconds = [re.fullmatch(r"(\d+) s", cell) for cell in cells[1:]]
        if len(cells) == 3 and all(seconds):
            for cli in cells[0].split(","):
                table[cli.strip()] = (int(seconds[0].group(1)), int(seconds[1].group(1)))
    assert table, "clis.md no longer holds the default soft timeout table"
    return table


def preset_md(name: str, group: int) -> Any:
    return said("config.md", rf"`{name}` \((?:the defaults: )?rounds (\d+), effort (\w+)", group)


# -- reading the code ----------------------------------------------------------------------


class NoJitter(random.Random):
    """Jitter scales each backoff by a random factor around 1; pinned at 1 to read the base."""

    def uniform(self, a: float, b: float) -> float:
        return (a + b) / 2


def backoff(retries_done: int) -> float | None:
    return RetryPolicy(rng=NoJitter()).delay(Status.RATE_LIMITED, retries_done, None)


def retries_for(status: Status) -> int:
    """How many times a call that keeps ending with `status` is tried again."""
    policy = RetryPolicy(rng=NoJitter())
    for done in range(100):
        if policy.delay(status, done, None) is None:
            return done
    raise AssertionError(f"{status} is retried without end")


def default_effort() -> str | None:
    # No vendor CLI counts as installed, so the answer does not depend on this machine.
    plan = resolve_plan(DebateFlags(question=QUESTION, sim=True), Config(), lambda name: False)
    return plan.advocate.effort


# -- the table -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Default:
    name: str
    shipped: Callable[[], Any]
    documented: Callable[[], dict[str, Any]]  # where the documentation says it -> what it says
    expected: Any
    disagreement: str | None = None  # why the code and the documentation differ, if they do


WORD_LIMITS = {
    "proposal": (300, lambda: limit_md("PROPOSAL", r"(\d+) words")),
    "blind": (150, lambda: limit_md("BLIND", r"(\d+) each")),
    "challenge": (300, lambda: limit_md("CHALLENGE", r"critic (\d+)")),
    "proxy": (200, lambda: limit_md("CHALLENGE", r"proxy (\d+)")),
    "respond": (300, lambda: limit_md("RESPOND", r"(\d+)")),
    "rebuttal": (200, lambda: limit_md("REBUTTAL", r"(\d+) each")),
    # FINAL_SUMMARY shares the REBUTTAL row of the phase table.
    "final_summary": (200, lambda: limit_md("REBUTTAL", r"(\d+) each")),
}

# CLI -> (default soft timeout, soft timeout at effort xhigh), in seconds.
SOFT_TIMEOUTS = {
    "claude": (600, 900),
    "codex": (600, 1800),
    "gemini": (300, 300),
    "qwen": (300, 300),
    "kimi": (300, 600),
    "pi": (600, 900),
    "sim": (60, 60),
}
# protocol.md names a few of them in its prose; the clis.md table has them all.
PROTOCOL_TIMEOUTS = (
    r"e\.g\. codex (\d+) s, (\d+) s at `xhigh`; gemini, qwen, kimi (\d+) s",
    {("codex", 0): 1, ("codex", 1): 2, ("gemini", 0): 3, ("qwen", 0): 3, ("kimi", 0): 3},
)


def soft_timeout_docs(cli: str, column: int) -> dict[str, Any]:
    docs = {"clis.md table": soft_timeouts_md()[cli][column]}
    pattern, groups = PROTOCOL_TIMEOUTS
    if (cli, column) in groups:
        docs["protocol.md"] = said("protocol.md", pattern, groups[cli, column])
    if (cli, column) == ("codex", 0):
        docs["config.md"] = config_md()["clis"]["codex"]["timeout_s"]
    return docs


def soft_timeout_rows() -> list[Default]:
    rows = []
    for cli, (default, high) in SOFT_TIMEOUTS.items():
        rows.append(
            Default(
                f"{cli} soft timeout",
                lambda cli=cli: registered()[cli]().soft_timeout(None),
                lambda cli=cli: soft_timeout_docs(cli, 0),
                default,
            )
        )
        rows.append(
            Default(
                f"{cli} soft timeout at effort xhigh",
                lambda cli=cli: registered()[cli]().soft_timeout("xhigh"),
                lambda cli=cli: soft_timeout_docs(cli, 1),
                high,
            )
        )
    return rows


def preset_rows() -> list[Default]:
    rows = []
    for name, rounds, effort in (
        ("quick", 2, "low"),
        ("balanced", 2, "high"),
        ("deep", 3, "xhigh"),
    ):
        rows.append(
            Default(
                f"preset {name} rounds",
                lambda name=name: Config().presets[name].rounds,
                lambda name=name: {"config.md": preset_md(name, 1)},
                rounds,
            )
        )
        rows.append(
            Default(
                f"preset {name} effort",
                lambda name=name: Config().presets[name].effort,
                lambda name=name: {"config.md": preset_md(name, 2)},
                effort,
            )
        )
    return rows


DEFAULTS: list[Default] = [
    Default(
        "debate rounds",
        lambda: Config().debate.rounds,
        lambda: {
            "config.md": debate_md("rounds"),
            "protocol.md": said("protocol.md", r"`--rounds` takes 2 to 5 \(default (\d+)\)"),
            "commands.md": said("commands.md", r"`--rounds N` \| 2\.\.5, default (\d+)"),
        },
        2,
    ),
    Default(
        "quorum",
        lambda: Config().debate.quorum,
        lambda: {
            "config.md": debate_md("quorum"),
            "protocol.md": said("protocol.md", r"at least `quorum` challenges \(default (\d+)\)"),
            "commands.md": said("commands.md", r"non-degraded DECISION \(default (\d+)\)"),
        },
        1,
    ),
    *(
        Default(
            f"word limit {key}",
            lambda key=key: Config().debate.words[key],
            lambda key=key, from_table=from_table: {
                "config.md": config_md()["debate"]["words"][key],
                "protocol.md phase table": from_table(),
            },
            limit,
        )
        for key, (limit, from_table) in WORD_LIMITS.items()
    ),
    Default(
        "technical context lines",
        lambda: Config().debate.context_lines,
        lambda: {
            "config.md": debate_md("context_lines"),
            "protocol.md": said("protocol.md", r"At most (\d+) lines of facts about the project"),
        },
        15,
    ),
    Default(
        "lines per file",
        lambda: Config().debate.file_lines,
        lambda: {
            "config.md": debate_md("file_lines"),
            "protocol.md": said("protocol.md", r"At most (\d+) lines per file"),
        },
        500,
    ),
    Default(
        "lines a long file keeps at its head and tail",
        lambda: head_tail_sizes(Config().debate.file_lines),
        lambda: {
            "protocol.md": (
                said("protocol.md", r"keeps its first (\d+) and last (\d+) lines", 1),
                said("protocol.md", r"keeps its first (\d+) and last (\d+) lines", 2),
            )
        },
        (100, 100),
    ),
    Default(
        "lines in all",
        lambda: Config().debate.total_lines,
        lambda: {
            "config.md": debate_md("total_lines"),
            "protocol.md": said("protocol.md", r"and (\d+) lines in all"),
        },
        2000,
    ),
    Default(
        "READY timeout",
        lambda: Config().debate.ready_timeout_s,
        lambda: {
            "config.md": debate_md("ready_timeout_s"),
            "protocol.md": said("protocol.md", r"Each seat has (\d+) s to report READY"),
        },
        60,
    ),
    Default(
        "hard timeout factor",
        lambda: Config().debate.hard_timeout_factor,
        lambda: {
            "config.md": debate_md("hard_timeout_factor"),
            "protocol.md": said("protocol.md", r"until the hard limit ([\d.]+) x T"),
            "clis.md": said("clis.md", r"Default soft timeouts \(hard limit = ([\d.]+)x\)"),
            "README.md": said("README.md", r"Hard timeout \(([\d.]+) x soft\)"),
        },
        1.5,
    ),
    Default(
        "scratchpad",
        lambda: Config().scratchpad,
        lambda: {
            "config.md": config_md()["scratchpad"],
            "commands.md": said("commands.md", r"where records go \(default `([^`]+)`\)"),
            "protocol.md": said("protocol.md", r"The record \(`([^/`]+)/debate-"),
        },
        ".scratchpad",
    ),
    Default(
        "first rate-limit backoff (s)",
        lambda: backoff(0),
        lambda: {
            "protocol.md": said("protocol.md", r"exponential backoff from (\d+) s"),
            "README.md": said("README.md", r"backoff from (\d+) s doubling"),
        },
        5,
    ),
    Default(
        "rate-limit backoff growth per retry",
        lambda: backoff(1) / backoff(0),
        lambda: {
            "protocol.md": said("protocol.md", r"backoff from \d+ s, (doubled) each time"),
            "README.md": said("README.md", r"backoff from \d+ s (doubling) to"),
        },
        2,
    ),
    Default(
        "rate-limit backoff cap (s)",
        lambda: RetryPolicy().max_delay_s,
        lambda: {
            "protocol.md": said("protocol.md", r"doubled each time, capped at (\d+) s"),
            "README.md": said("README.md", r"doubling to (\d+) s"),
        },
        60,
    ),
    Default(
        "retries after a rate limit",
        lambda: retries_for(Status.RATE_LIMITED),
        lambda: {
            "protocol.md": said("protocol.md", r"with jitter, at most (\d+) retries"),
            "README.md": said("README.md", r"rate limits retry (\w+) with backoff"),
        },
        2,
    ),
    Default(
        "retries after empty output",
        lambda: retries_for(Status.EMPTY),
        lambda: {
            "protocol.md": said(
                "protocol.md", r"merely echoes the prompt: (\w+) retry, then `empty`"
            ),
            "README.md": said("README.md", r"`empty` and `error` (\w+)"),
        },
        1,
    ),
    Default(
        "retries after an error",
        lambda: retries_for(Status.ERROR),
        lambda: {
            "protocol.md": said(
                "protocol.md", r"Any other non-zero exit: (\w+) retry, then `error`"
            ),
            "README.md": said("README.md", r"`empty` and `error` (\w+)"),
        },
        1,
    ),
    Default(
        "retries after an auth failure",
        lambda: retries_for(Status.AUTH),
        lambda: {
            "protocol.md": said("protocol.md", r"403: (no) retry; status `auth`"),
            "README.md": said("README.md", r"`auth` and `timeout` (never)"),
        },
        0,
    ),
    Default(
        "retries after a timeout",
        lambda: retries_for(Status.TIMEOUT),
        lambda: {"README.md": said("README.md", r"`auth` and `timeout` (never)")},
        0,
    ),
    Default(
        "grace between SIGTERM and SIGKILL in a debate (s)",
        lambda: Tuning().grace_s,
        lambda: {"README.md": said("README.md", r"SIGTERM, (\d+) s grace, SIGKILL")},
        3,
    ),
    Default(
        "grace between SIGTERM and SIGKILL in any runner call (s)",
        lambda: Timeouts(soft_s=1, hard_s=2).grace_s,
        lambda: {"README.md": said("README.md", r"SIGTERM, (\d+) s grace, SIGKILL")},
        3,
    ),
    Default(
        "output kept per stream of a call (bytes)",
        lambda: inspect.signature(run_call).parameters["cap_bytes"].default,
        lambda: {"README.md": said("README.md", r"at most (\d+) MiB each") * MIB},
        20 * MIB,
    ),
    *soft_timeout_rows(),
    *preset_rows(),
    Default(
        "reasoning effort when no preset or flag names one",
        default_effort,
        lambda: {
            "config.md presets": said(
                "config.md", r"`balanced` \(the defaults: [^)]*effort (\w+)\)"
            ),
        },
        "high",
        disagreement=(
            "config.md calls balanced (effort high) the defaults, but without --preset or "
            "--effort council passes no effort at all (the CLI's own default applies)"
        ),
    ),
    Default(
        "BLIND TAKE phase on",
        lambda: getattr(Config().debate, "blind", None),
        lambda: {"config.md": debate_md("blind")},
        True,
    ),
    Default(
        "seats kept as warm CLI workers",
        lambda: getattr(Config().debate, "max_warm_seats", None),
        lambda: {"config.md": debate_md("max_warm_seats")},
        4,
    ),
]


def as_param(row: Default) -> Any:
    # raises=AssertionError: the row may only fail on the disagreement, not on a broken parse.
    marks = (
        [pytest.mark.xfail(strict=True, raises=AssertionError, reason=row.disagreement)]
        if row.disagreement
        else []
    )
    return pytest.param(row, id=row.name, marks=marks)


@pytest.mark.parametrize("row", [as_param(row) for row in DEFAULTS])
def test_the_shipped_default_is_the_documented_one(row: Default) -> None:
    assert row.shipped() == row.expected, "the code ships another value"
    documented = row.documented()
    assert documented, "no document states this default"
    assert documented == dict.fromkeys(documented, row.expected), "the documentation disagrees"


def test_every_built_in_cli_has_its_soft_timeouts_in_the_table_and_in_clis_md() -> None:
    assert set(SOFT_TIMEOUTS) == set(registered()) == set(soft_timeouts_md())


def test_the_council_yaml_documented_in_config_md_is_accepted() -> None:
    parse_config(config_md())


# -- the defaults at work in `council debate` ----------------------------------------------


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)


def expected(name: str) -> Any:
    (row,) = (row for row in DEFAULTS if row.name == name)
    return row.expected


def debate(project: Project, *args: str, exit_code: int = 0) -> dict[str, Any]:
    """Run `council debate QUESTION ... --sim --json`; the result JSON."""
    run = project.run("debate", QUESTION, *args, "--sim", "--json")
    assert run.returncode == exit_code, run.stderr
    return json.loads(run.stdout)


def record_of(project: Project, result: dict[str, Any]) -> Path:
    return project.root / result["scratchpad"]


def transcript_of(record: Path) -> list[dict[str, Any]]:
    lines = (record / "transcript.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def contribution(result: dict[str, Any], seat: str, phase: str) -> dict[str, Any]:
    (found,) = (c for c in result["contributions"] if c["seat"] == seat and c["phase"] == phase)
    return found


def numbered_lines(name: str, count: int) -> list[str]:
    return [f"{name}_{n} = {n}" for n in range(1, count + 1)]


def write_lines(project: Project, path: str, lines: list[str]) -> None:
    (project.root / path).write_text("\n".join(lines) + "\n")


def sim_variants(variants: dict[str, dict[str, str]]) -> str:
    """A council.yaml that only adds simulator seats with their own fault injection."""
    text = "clis:\n"
    for name, env in variants.items():
        text += f"  {name}:\n    adapter: sim\n    env:\n"
        text += "".join(f"      {key}: '{value}'\n" for key, value in env.items())
    return text


def test_a_600_line_file_is_sent_as_its_first_and_last_100_lines(project):
    lines = numbered_lines("line", 600)
    write_lines(project, "big.py", lines)
    result = debate(project, "--files", "big.py")
    assert result["context"]["files"] == [
        {"path": "big.py", "lines_sent": 200, "truncated": True, "redactions": 0}
    ]
    excerpt = "\n".join(
        [*lines[:100], "[... 400 lines left out (lines 101-500 of 600) ...]", *lines[500:]]
    )
    record = record_of(project, result)
    assert excerpt in (record / "context.md").read_text()
    # The prompts, not just the record's summary, carry the cut file.
    assert excerpt in (record / "advocate-r1-prompt.md").read_text()
    assert excerpt in (record / "critic-r2-prompt.md").read_text()


def test_a_500_line_file_is_sent_whole(project):
    write_lines(project, "edge.py", numbered_lines("line", 500))
    result = debate(project, "--files", "edge.py")
    assert result["context"]["files"][0]["lines_sent"] == 500
    assert result["context"]["files"][0]["truncated"] is False


def test_files_past_2000_lines_in_all_are_cut_with_a_marker(project):
    # Seven files of 300 lines, each under the per-file cap: only the total cap cuts.
    names = [f"part{n}.py" for n in range(1, 8)]
    for name in names:
        write_lines(project, name, numbered_lines(name.removesuffix(".py"), 300))
    result = debate(project, "--files", *names)
    files = result["context"]["files"]
    assert [f["path"] for f in files] == names
    assert [f["lines_sent"] for f in files] == [300] * 6 + [200]
    assert [f["truncated"] for f in files] == [False] * 6 + [True]
    assert "part7.py: cut to 200 lines, the 2000-line total was reached" in result["warnings"]
    context = (record_of(project, result) / "context.md").read_text()
    assert (
        "part7_200 = 200\n[... 100 more lines not sent: the 2000-line total was reached ...]"
        in context
    )
    assert "part7_201 = 201" not in context


def test_a_hung_proxy_is_killed_at_one_and_a_half_times_its_soft_timeout(project):
    project.write_config(
        sim_variants({"sim-hung": {"COUNCIL_SIM_HANG": "1", "COUNCIL_SIM_PHASES": "CHALLENGE"}})
    )
    result = debate(project, "--with", "sim-hung", "--timeout", "sim-hung=1")
    hung = contribution(result, "proxy-sim-hung", "CHALLENGE")
    assert hung["status"] == "timeout"
    (broadcast,) = (
        m
        for m in transcript_of(record_of(project, result))
        if m["kind"] == "broadcast" and m["from"] == "proxy-sim-hung" and m["phase"] == "CHALLENGE"
    )
    assert broadcast["meta"]["status"] == "timeout"
    assert "no answer within the hard limit of 1.5s" in broadcast["meta"]["detail"]


# (phase, seat, word limit) checked by each run; one seat answers one word count, so the
# advocate's 300-word phases and its 200-word FINAL_SUMMARY need runs of their own.
WORD_RUNS = {
    "proposal_challenge_respond": (
        "2",
        {
            "adv": ("PROPOSAL,RESPOND", 300),
            "crit": ("CHALLENGE", 300),
            "prox": ("CHALLENGE", 200),
        },
        [
            ("PROPOSAL", "advocate", 300),
            ("RESPOND", "advocate", 300),
            ("CHALLENGE", "critic", 300),
            ("CHALLENGE", "proxy-prox", 200),
        ],
    ),
    "rebuttal_final_summary": (
        "3",
        {
            "adv": ("FINAL_SUMMARY", 200),
            "crit": ("REBUTTAL", 200),
            "prox": ("REBUTTAL", 200),
        },
        [
            ("FINAL_SUMMARY", "advocate", 200),
            ("REBUTTAL", "critic", 200),
            ("REBUTTAL", "proxy-prox", 200),
        ],
    ),
}


@pytest.mark.parametrize("over", [0, 1], ids=["exactly_at_the_limit", "one_word_over"])
@pytest.mark.parametrize("run_name", list(WORD_RUNS))
def test_a_reply_is_cut_exactly_when_it_has_more_words_than_its_phase_allows(
    project, run_name, over
):
    # A reply of exactly the limit going through whole and one of a word more being cut
    # pins the limit itself; the sentence-end rule makes the cut reply's length vary.
    rounds, seats, checks = WORD_RUNS[run_name]
    project.write_config(
        sim_variants(
            {
                name: {"COUNCIL_SIM_WORDS": str(words + over), "COUNCIL_SIM_PHASES": phases}
                for name, (phases, words) in seats.items()
            }
        )
    )
    result = debate(
        project, "--advocate", "adv", "--critic", "crit", "--with", "prox", "--rounds", rounds
    )
    record = record_of(project, result)
    for phase, seat, limit in checks:
        c = contribution(result, seat, phase)
        assert c["original_words"] == limit + over, (seat, phase)
        assert f"in at most {limit} words." in (record / c["files"]["prompt"]).read_text()
        if over:
            assert c["truncated"] and c["words"] <= limit, (seat, phase, c["words"])
            assert c["text"].endswith(f"[truncated: original ~{limit + 1} words]")
        else:
            assert not c["truncated"] and c["words"] == limit, (seat, phase, c["words"])


def test_a_debate_with_nothing_set_runs_two_rounds(project):
    result = debate(project)
    assert result["rounds"] == {"requested": 2, "run": 2, "stopped_early": False}
    phases = [(c["phase"], c["round"]) for c in result["contributions"]]
    assert phases == [("PROPOSAL", 1), ("BLIND_TAKE", 1), ("CHALLENGE", 2), ("RESPOND", 2)]


def test_one_answered_challenge_meets_the_default_quorum_and_none_does_not(project):
    answered = debate(project)
    assert answered["status"] == "completed"
    assert answered["decision"]["unchallenged"] is False
    project.write_config(
        sim_variants({"crit-out": {"COUNCIL_SIM_AUTH": "1", "COUNCIL_SIM_PHASES": "CHALLENGE"}})
    )
    unanswered = debate(project, "--critic", "crit-out", exit_code=5)
    assert unanswered["status"] == "degraded"
    assert unanswered["decision"]["unchallenged"] is True


def test_a_debate_with_nothing_set_records_the_documented_defaults_in_its_plan(project):
    result = debate(project)
    assert result["scratchpad"].startswith(expected("scratchpad") + "/debate-")
    record = record_of(project, result)
    plan = json.loads((record / "state.json").read_text())["plan"]
    assert {
        "rounds": plan["rounds"],
        "quorum": plan["quorum"],
        "words": plan["words"],
        "context_lines": plan["context_lines"],
        "file_lines": plan["file_lines"],
        "total_lines": plan["total_lines"],
        "ready_timeout_s": plan["ready_timeout_s"],
        "hard_timeout_factor": plan["hard_timeout_factor"],
    } == {
        "rounds": expected("debate rounds"),
        "quorum": expected("quorum"),
        "words": {key: expected(f"word limit {key}") for key in WORD_LIMITS},
        "context_lines": expected("technical context lines"),
        "file_lines": expected("lines per file"),
        "total_lines": expected("lines in all"),
        "ready_timeout_s": expected("READY timeout"),
        "hard_timeout_factor": expected("hard timeout factor"),
    }
    # Each seat reports at READY the soft timeout it will be held to: the sim's default.
    ready = [m for m in transcript_of(record) if m["kind"] == "ready"]
    assert {m["from"]: m["meta"]["timeout_s"] for m in ready} == {
        "advocate": expected("sim soft timeout"),
        "critic": expected("sim soft timeout"),
    }


def test_a_rate_limited_seat_is_tried_three_times_and_an_empty_one_twice(project, tmp_path):
    # "retry after 0s" keeps the backoff out of the run time; the count is what is checked.
    project.write_config(
        sim_variants(
            {
                "crit-limited": {
                    "COUNCIL_SIM_RATE_LIMIT": "9",
                    "COUNCIL_SIM_RETRY_AFTER": "0",
                    "COUNCIL_SIM_STATE_DIR": str(tmp_path / "sim-state"),
                    "COUNCIL_SIM_PHASES": "CHALLENGE",
                },
                "prox-empty": {"COUNCIL_SIM_EMPTY": "1", "COUNCIL_SIM_PHASES": "CHALLENGE"},
            }
        )
    )
    result = debate(project, "--critic", "crit-limited", "--with", "prox-empty", exit_code=5)
    limited = contribution(result, "critic", "CHALLENGE")
    assert (limited["status"], limited["attempts"]) == ("rate_limited", 3)
    empty = contribution(result, "proxy-prox-empty", "CHALLENGE")
    assert (empty["status"], empty["attempts"]) == ("empty", 2)
