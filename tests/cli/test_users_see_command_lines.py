"""What each run command does with the command line a user types (docs/spec/commands.md), in
process through click's CliRunner: the run a command starts (its flags: the question as typed,
every option's value), what it prints on stdout and stderr when the run ends, where it writes
`--output`, which exit code it ends with, and what `--detach` prints. The run itself is
replaced by a stand-in that records what it was given and ends as a test says, so each row
costs milliseconds; the runs themselves are tested in tests/debate, tests/review and
tests/check."""

from __future__ import annotations

import errno
import json
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from click.testing import CliRunner

from council.cli import cli
from council.errors import ConfigError, ExitCode, NoUsableCliError, UsageError

RECORD = ".scratchpad/debate-20261128-143005-k3x9/"


class ShownProtocol:
    """A protocol whose result renders as `<form> of <kind>`: which form was printed or
    written is then plain on stdout and in the file."""

    def __init__(self, real: Any, notes: list[str]) -> None:
        self.kind = real.kind
        self.forms = real.forms
        self._notes = notes

    def notes(self, _result: dict[str, Any]) -> list[str]:
        return self._notes

    def render(self, _result: dict[str, Any], form: str) -> str:
        return f"{form} of {self.kind}\n"


@dataclass
class Runs:
    """What the commands started, and how the stand-in run ends."""

    started: list[SimpleNamespace] = field(default_factory=list)
    detached: list[SimpleNamespace] = field(default_factory=list)
    status: str = "completed"
    exit_code: ExitCode = ExitCode.OK
    error: str | None = None
    notes: list[str] = field(default_factory=list)
    raises: BaseException | None = None

    @property
    def flags(self) -> Any:
        (only,) = self.started or self.detached
        return only.flags


@pytest.fixture
def runs(project: Path, monkeypatch: pytest.MonkeyPatch) -> Runs:
    (project / "a.py").write_text("x = 1\n")
    (project / "b.py").write_text("y = 2\n")
    made = Runs()

    def start(protocol: Any, flags: Any, config: Any, progress: Any, **_: Any) -> Any:
        made.started.append(SimpleNamespace(kind=protocol.kind, flags=flags, progress=progress))
        if made.raises is not None:
            raise made.raises
        result = {"status": made.status, "scratchpad": RECORD}
        return SimpleNamespace(
            protocol=ShownProtocol(protocol, made.notes),
            result=result,
            exit_code=made.exit_code,
            error=made.error,
        )

    def detach(protocol: Any, flags: Any, config: Any, progress: Any, **kw: Any) -> Any:
        made.detached.append(SimpleNamespace(kind=protocol.kind, flags=flags, **kw))
        rid = f"{protocol.kind}-20261128-143005-k3x9"
        return SimpleNamespace(id=rid, display=lambda: f".scratchpad/{rid}/")

    monkeypatch.setattr("council.panel.run.start", start)
    monkeypatch.setattr("council.panel.run.detach", detach)
    return made


def council(*argv: str, stdin: str | None = None) -> Any:
    return CliRunner().invoke(cli, list(argv), prog_name="council", input=stdin)


# -- the question, as typed ----------------------------------------------------------------

QUESTIONS = [
    # (argv after the command, the question the run asks)
    (["Redis", "or", "Postgres", "for", "sessions?"], "Redis or Postgres for sessions?"),
    (["Redis or Postgres for sessions?"], "Redis or Postgres for sessions?"),
    (["Should", "we", "cache?", "--files", "a.py"], "Should we cache?"),
    (["--files", "a.py", "--", "Cache", "it?"], "Cache it?"),
]


@pytest.mark.parametrize("command", ["debate", "check"])
@pytest.mark.parametrize(("words", "asked"), QUESTIONS)
def test_the_question_is_the_words_typed_joined_by_one_space(runs, command, words, asked):
    result = council(command, "--sim", *words)
    assert result.exit_code == 0, result.output
    assert runs.flags.question == asked
    assert [s.kind for s in runs.started] == [command]


@pytest.mark.parametrize("command", ["debate", "check"])
def test_the_question_is_read_from_stdin_with_a_dash_and_from_a_file_with_at(
    runs, project, command
):
    piped = "Which queue for jobs?\nWe run three workers.\n"
    assert council(command, "-", "--sim", stdin=piped).exit_code == 0
    (project / "q.md").write_text("Kafka or SQS?\n\nFor the billing events.\n", encoding="utf-8")
    assert council(command, "@q.md", "--sim").exit_code == 0
    assert [s.flags.question.strip() for s in runs.started] == [
        "Which queue for jobs?\nWe run three workers.",
        "Kafka or SQS?\n\nFor the billing events.",
    ]


@pytest.mark.parametrize("command", ["debate", "check"])
def test_a_question_missing_is_exit_2_naming_the_fix_and_nothing_starts(runs, command):
    result = council(command, "--files", "a.py", "--sim")
    assert result.exit_code == 2
    assert result.stderr == (
        "council: the question is missing: give it first "
        f'(council {command} "question" --files a.py'
        + (" b.py), " if command == "debate" else "), ")
        + "or end the file list with -- (--files a.py "
        + ("b.py " if command == "debate" else "")
        + '-- "question")\n'
    )
    assert runs.started == [] and runs.detached == []


def test_a_question_with_from_is_refused_naming_both(runs):
    result = council("debate", "Why?", "--from", "check-20261128")
    assert result.exit_code == 2
    assert result.stderr == (
        "council: --from check-20261128 debates the check's own question: drop the question, "
        "or --from\n"
    )
    assert runs.started == []


# -- every option reaches the run ----------------------------------------------------------

DEBATE_OPTIONS = [
    # (options, the flags field, its value)
    ([], "rounds", None),
    ([], "files", ()),
    ([], "sim", True),
    (["--files", "a.py", "b.py"], "files", ("a.py", "b.py")),
    (["--files", "a.py,b.py"], "files", ("a.py", "b.py")),
    (["--files", "b.py", "--files", "a.py"], "files", ("b.py", "a.py")),
    (["--files", "a.py", "-q"], "files", ("a.py",)),  # a short option ends the list too
    (["--diff", "main"], "diff", "main"),
    (["--with", "codex,gemini"], "proxies", ("codex", "gemini")),
    (["--with", "auto"], "proxies", ("auto",)),
    (["--advocate", "codex:gpt-5.2#high"], "advocate", "codex:gpt-5.2#high"),
    (["--critic", "gemini"], "critic", "gemini"),
    (["--lead", "caller"], "lead", "caller"),
    (["--rounds", "2"], "rounds", 2),
    (["--rounds", "5"], "rounds", 5),
    (["--preset", "deep"], "preset", "deep"),
    (["--quorum", "0"], "quorum", 0),
    (["--quorum", "2"], "quorum", 2),
    (["--max-cost", "0.5"], "max_cost", 0.5),
    (
        ["--model", "codex:gpt-5.2", "--model", "claude:opus"],
        "models",
        ("codex:gpt-5.2", "claude:opus"),
    ),
    (["--effort", "xhigh"], "effort", "xhigh"),
    (["--timeout", "codex=900"], "timeouts", ("codex=900",)),
    (["--timeout", "codex=900", "--timeout", "sim=5"], "timeouts", ("codex=900", "sim=5")),
    (["--scratchpad", "runs"], "scratchpad", "runs"),
    (["--allow-outside"], "allow_outside", True),
    (["--allow-secrets"], "allow_secrets", True),
    (["--cold"], "cold", True),
    (["--no-lean"], "no_lean", True),
    (["--no-blind"], "no_blind", True),
    ([], "no_blind", False),
    ([], "cold", False),
    ([], "no_lean", False),
    ([], "allow_outside", False),
    ([], "allow_secrets", False),
]


CHECK_OPTIONS = [
    (["--options", "Redis,Postgres"], "options", ("Redis", "Postgres")),
    (["--with", "codex"], "proxies", ("codex",)),
    (["--advocate", "claude"], "advocate", "claude"),
    (["--critic", "codex#low"], "critic", "codex#low"),
    (["--files", "a.py", "b.py"], "files", ("a.py", "b.py")),
    (["--timeout", "sim=30"], "timeouts", ("sim=30",)),
    (["--effort", "low"], "effort", "low"),
    (["--model", "codex:o3"], "models", ("codex:o3",)),
]

QUESTION_OPTIONS = [("debate", *row) for row in DEBATE_OPTIONS] + [
    ("check", *row) for row in CHECK_OPTIONS
]


@pytest.mark.parametrize(("command", "options", "name", "value"), QUESTION_OPTIONS)
def test_each_debate_and_check_option_reaches_the_run_as_given(runs, command, options, name, value):
    result = council(command, "Cache?", "--sim", *options)
    assert result.exit_code == 0, result.output
    assert getattr(runs.flags, name) == value


REVIEW_OPTIONS = [
    ([], "format", "md"),
    ([], "fail_on", None),
    (["--json"], "format", "json"),
    (["--format", "sarif"], "format", "sarif"),
    (["--format", "github"], "format", "github"),
    (["--format", "gitlab"], "format", "gitlab"),
    (["--json", "--format", "json"], "format", "json"),
    (["--fail-on", "high"], "fail_on", "high"),
    (["--gate", "unanimous"], "gate", "unanimous"),
    (["--seed", "7"], "seed", 7),
    (["--diff", "main"], "diff", "main"),
    (["--with", "codex,gemini#high"], "reviewers", ("codex", "gemini#high")),
    (["--output", "out.sarif"], "output", "out.sarif"),
    (["--timeout", "codex=120"], "timeouts", ("codex=120",)),
]


@pytest.mark.parametrize(("options", "name", "value"), REVIEW_OPTIONS)
def test_each_review_option_reaches_the_run_as_given(runs, options, name, value):
    result = council("review", "--files", "a.py", "--sim", *options)
    assert result.exit_code == 0, result.output
    assert getattr(runs.flags, name) == value
    assert runs.flags.files == ("a.py",)


@pytest.mark.parametrize(
    ("options", "printed"),
    [
        ([], "md of review\n"),
        (["--format", "sarif"], "sarif of review\n"),
        (["--format", "github"], "github of review\n"),
    ],
)
def test_review_prints_its_findings_in_the_form_asked(runs, options, printed):
    result = council("review", "--files", "a.py", "--sim", *options)
    assert result.stdout == printed


@pytest.mark.parametrize("options", [["--json"], ["--format", "json"]])
def test_review_json_prints_the_result_json_on_stdout(runs, options):
    result = council("review", "--files", "a.py", "--sim", *options)
    assert json.loads(result.stdout) == {"status": "completed", "scratchpad": RECORD}


@pytest.mark.parametrize("form", ["md", "sarif", "github", "gitlab"])
def test_review_json_and_another_format_is_exit_2(runs, form):
    result = council("review", "--files", "a.py", "--json", "--format", form)
    assert result.exit_code == 2
    assert f"--json and --format {form} ask for two outputs: give one" in result.stderr
    assert runs.started == []


# -- what a run prints when it ends --------------------------------------------------------


@pytest.mark.parametrize("command", [["debate", "Cache?"], ["check", "Cache?"]])
@pytest.mark.parametrize(("options", "printed"), [([], "md of {kind}\n"), (["--json"], "json")])
def test_the_result_goes_to_stdout_and_the_record_to_stderr(runs, command, options, printed):
    result = council(*command, "--sim", *options)
    if printed == "json":
        assert json.loads(result.stdout)["scratchpad"] == RECORD
    else:
        assert result.stdout == printed.format(kind=command[0])
    assert result.stderr.splitlines()[-1] == f"saved: {RECORD}"


@pytest.mark.parametrize("status", ["failed", "interrupted"])
def test_a_run_without_its_result_prints_nothing_but_its_json_status(runs, status):
    runs.status, runs.exit_code, runs.error = status, ExitCode.NO_CLI, "no seat answered"
    plain = council("debate", "Cache?", "--sim")
    assert plain.exit_code == 3 and plain.stdout == ""
    assert plain.stderr.splitlines()[-2:] == ["council: no seat answered", f"saved: {RECORD}"]
    as_json = council("debate", "Cache?", "--sim", "--json")
    assert as_json.exit_code == 3 and json.loads(as_json.stdout)["status"] == status


def test_a_degraded_run_prints_its_result_and_its_notes(runs):
    runs.status, runs.exit_code = "degraded", ExitCode.DEGRADED
    runs.notes = ["note: no quorum"]
    result = council("debate", "Cache?", "--sim")
    assert result.exit_code == 5
    assert result.stdout == "md of debate\n"
    assert result.stderr.splitlines()[-2:] == ["note: no quorum", f"saved: {RECORD}"]


@pytest.mark.parametrize(
    "code",
    [
        ExitCode.OK,
        ExitCode.NO_CLI,
        ExitCode.DEGRADED,
        ExitCode.REVIEW_GATE,
        ExitCode.CHECK_SPLIT,
        ExitCode.CHECK_INSUFFICIENT,
        ExitCode.INTERRUPTED,
    ],
)
@pytest.mark.parametrize(
    "command", [["debate", "Cache?"], ["check", "Cache?"], ["review", "--files", "a.py"]]
)
def test_the_command_exits_with_the_runs_own_code(runs, command, code):
    runs.exit_code = code
    assert council(*command, "--sim").exit_code == int(code)


# -- errors become one line and their exit code --------------------------------------------

ERRORS = [
    # (raised by the run, exit code, the line on stderr)
    (KeyboardInterrupt(), 130, "council: interrupted"),
    (UsageError("--files x.py: no such file"), 2, "council: --files x.py: no such file"),
    (NoUsableCliError("no usable CLI for the critic"), 3, "council: no usable CLI for the critic"),
    (ConfigError("council.yaml: bad"), 4, "council: council.yaml: bad"),
    (
        OSError(errno.ENOSPC, "No space left on device"),
        2,
        "council: cannot write the output: No space left on device; a run's result stays in "
        "its record (`council show last`)",
    ),
]


@pytest.mark.parametrize(("raised", "code", "line"), ERRORS, ids=[e[2][:30] for e in ERRORS])
@pytest.mark.parametrize(
    "command", [["debate", "Cache?"], ["check", "Cache?"], ["review", "--files", "a.py"]]
)
def test_what_stops_a_run_is_one_line_and_its_exit_code(runs, command, raised, code, line):
    runs.raises = raised
    result = council(*command, "--sim")
    assert result.exit_code == code
    assert result.stderr == line + "\n"
    assert result.stdout == ""


def test_a_reader_gone_is_exit_141_and_a_closed_terminal_130(runs):
    runs.raises = BrokenPipeError()
    assert council("debate", "Cache?", "--sim").exit_code == 141
    runs.raises = OSError(errno.EIO, "Input/output error")
    assert council("debate", "Cache?", "--sim").exit_code == 130


def test_quiet_and_verbose_after_the_command_reach_the_runs_progress(runs):
    council("debate", "Cache?", "--sim", "-q")
    council("debate", "Cache?", "--sim", "--verbose")
    council("-q", "review", "--files", "a.py", "--sim")
    council("check", "Cache?", "--sim")
    shown = [(s.progress.quiet, s.progress.verbose) for s in runs.started]
    assert shown == [(True, False), (False, True), (True, False), (False, False)]


# -- --output ------------------------------------------------------------------------------

OUTPUTS = [
    # (the file, what is written in it)
    ("result.json", "json"),
    ("result.md", "md of debate\n"),
    ("result.MD", "md of debate\n"),
    ("result.txt", "md of debate\n"),  # no form of its own: as printed
]


@pytest.mark.parametrize(("name", "written"), OUTPUTS)
def test_output_is_written_in_the_form_its_suffix_names(runs, project, name, written):
    result = council("debate", "Cache?", "--sim", "--output", name)
    assert result.exit_code == 0
    text = (project / name).read_text()
    if written == "json":
        assert json.loads(text) == {"status": "completed", "scratchpad": RECORD}
    else:
        assert text == written
    assert result.stdout == "md of debate\n"


def test_output_with_json_printed_takes_the_printed_form_when_its_suffix_names_none(runs, project):
    council("debate", "Cache?", "--sim", "--json", "--output", "out.txt")
    assert json.loads((project / "out.txt").read_text())["status"] == "completed"
    council("debate", "Cache?", "--sim", "--json", "--output", "OUT.MD")  # any case
    assert (project / "OUT.MD").read_text() == "md of debate\n"


def test_output_is_written_even_when_the_run_failed(runs, project):
    runs.status, runs.exit_code = "failed", ExitCode.NO_CLI
    result = council("debate", "Cache?", "--sim", "--output", "out.json")
    assert result.exit_code == 3
    assert json.loads((project / "out.json").read_text())["status"] == "failed"


BAD_OUTPUTS = [
    # (options, the line on stderr)
    (
        ["--output", "nowhere/out.md"],
        "the folder {project}/nowhere does not exist; create it first",
    ),
    (["--files", "a.py", "--output", "a.py"], "--output a.py is one of the run's own inputs"),
    (["--files", "b.py,a.py", "--output", "./a.py"], "is one of the run's own inputs"),
]


@pytest.mark.parametrize(("options", "said"), BAD_OUTPUTS)
def test_a_bad_output_is_refused_before_the_run_starts(runs, project, options, said):
    result = council("debate", "Cache?", "--sim", *options)
    assert result.exit_code == 2
    assert said.format(project=project.resolve()) in result.stderr
    assert result.stderr.startswith("council: --output ") and result.stderr.count("\n") == 1
    assert runs.started == []


def test_output_onto_the_question_file_is_refused(runs, project):
    (project / "q.md").write_text("Cache?\n")
    result = council("debate", "@q.md", "--sim", "--output", "q.md")
    assert result.exit_code == 2 and "is one of the run's own inputs" in result.stderr
    assert (project / "q.md").read_text() == "Cache?\n"


# -- --detach ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [["debate", "Cache?"], ["check", "Cache?"], ["review", "--files", "a.py"]],
)
def test_detach_prints_the_id_and_the_record_and_how_to_follow(runs, command):
    kind = command[0]
    rid = f"{kind}-20261128-143005-k3x9"
    plain = council(*command, "--sim", "--detach")
    assert plain.exit_code == 0
    assert plain.stdout == f"{rid} .scratchpad/{rid}/\n"
    assert plain.stderr == f"started in the background; follow it with: council wait {rid}\n"
    as_json = council(*command, "--sim", "--detach", "--json")
    assert as_json.exit_code == 0
    assert json.loads(as_json.stdout) == {"id": rid, "record": f".scratchpad/{rid}/"}
    assert runs.started == [] and [d.kind for d in runs.detached] == [kind, kind]


def test_detach_with_json_keeps_a_reviews_own_format(runs):
    council("review", "--files", "a.py", "--sim", "--detach", "--json")
    council("review", "--files", "a.py", "--sim", "--detach", "--json", "--format", "sarif")
    assert [d.flags.format for d in runs.detached] == ["md", "sarif"]


def test_detach_hands_the_global_options_to_the_run_in_the_background(runs, project):
    (project / "c.yaml").write_text("version: 1\n")
    council("--config", "c.yaml", "-v", "debate", "Cache?", "--sim", "--detach")
    council("debate", "Cache?", "--sim", "--detach")
    assert [d.council_args for d in runs.detached] == [
        ("--config", str(project.resolve() / "c.yaml"), "--verbose"),
        (),
    ]


@pytest.mark.parametrize("output", ["result.md", "result.json"])
def test_debate_detach_with_output_is_refused_and_nothing_starts(runs, project, output):
    result = council("debate", "Cache?", "--sim", "--detach", "--output", output)
    assert result.exit_code == 2
    assert result.stderr == (
        "council: --output with --detach: the run ends in the background; write its result "
        "then with `council wait ID > FILE` (or `council show ID --json > FILE`)\n"
    )
    assert runs.detached == [] and runs.started == []


@pytest.mark.parametrize("output", ["/dev/stdout", "/dev/stderr", "/dev/fd/1", "/proc/self/fd/1"])
def test_review_detach_refuses_an_output_on_its_own_descriptors(runs, output):
    result = council("review", "--files", "a.py", "--sim", "--detach", "--output", output)
    assert result.exit_code == 2
    assert f"council: --output {output} with --detach: the run ends in the background" in (
        result.stderr
    )
    assert runs.detached == []


def test_review_detach_writes_a_file_output_when_the_run_ends(runs):
    result = council("review", "--files", "a.py", "--sim", "--detach", "--output", "r.sarif")
    assert result.exit_code == 0
    assert runs.flags.output == "r.sarif"


# -- --args-stdin --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "typed", "question", "name", "value"),
    [
        ("debate", "Should we cache $HOME? --rounds 3", "Should we cache $HOME?", "rounds", 3),
        ("debate", "what's `id` --files a.py b.py", "what's `id`", "files", ("a.py", "b.py")),
        (
            "check",
            "'Redis or Postgres' --options Redis,Postgres",
            "Redis or Postgres",
            "options",
            ("Redis", "Postgres"),
        ),
    ],
)
def test_args_on_stdin_are_parsed_as_if_typed_there(runs, command, typed, question, name, value):
    result = council(command, "--sim", "--args-stdin", stdin=typed)
    assert result.exit_code == 0, result.output
    assert runs.flags.question == question and getattr(runs.flags, name) == value


def test_review_takes_its_options_from_stdin(runs):
    result = council("review", "--sim", "--args-stdin", stdin="--files a.py --format sarif")
    assert result.exit_code == 0, result.output
    assert runs.flags.files == ("a.py",) and result.stdout == "sarif of review\n"


@pytest.mark.parametrize(
    "argv",
    [
        ["--args-stdin", "--sim", "--args-stdin"],
        ["--args-stdin", "--args-stdin"],
        ["--sim", "--args-stdin", "--args-stdin"],
    ],
)
def test_args_on_stdin_given_twice_is_exit_2(runs, argv):
    result = council("debate", *argv, stdin="Why?")
    assert result.exit_code == 2
    assert result.stderr == (
        "council: --args-stdin given twice: stdin holds one set of arguments\n"
    )
    assert runs.started == []


def test_args_stdin_after_a_double_dash_is_the_question_itself(runs):
    result = council("debate", "--sim", "--", "--args-stdin", stdin="ignored")
    assert result.exit_code == 0
    assert runs.flags.question == "--args-stdin"


def test_output_under_home_and_onto_a_device_are_written_as_a_shell_would(runs, project):
    (project / "home").mkdir()
    result = council("debate", "Cache?", "--sim", "--output", "~/out.json")
    assert result.exit_code == 0, result.output
    assert json.loads((project / "home/out.json").read_text())["status"] == "completed"
    assert not (project / "~").exists()
    assert council("debate", "Cache?", "--sim", "--output", "/dev/null").exit_code == 0
    assert Path("/dev/null").is_char_device()


REFUSED_VALUES = [
    # (argv, a fragment of click's one-line reason)
    (["debate", "q", "--max-cost", "0"], "'--max-cost': 0.0 is not in the range x>0"),
    (["debate", "q", "--max-cost", "-1"], "'--max-cost': -1.0 is not in the range x>0"),
    (["debate", "q", "--rounds", "6"], "'--rounds': 6 is not in the range 2<=x<=5"),
    (["debate", "q", "--rounds", "two"], "'two' is not a valid integer"),
    (["debate", "q", "--effort", "max"], "'max' is not one of 'low', 'medium', 'high', 'xhigh'"),
    (["review", "--files", "a.py", "--gate", "most"], "'most' is not one of 'majority', 'any'"),
    (["review", "--files", "a.py", "--fail-on", "urgent"], "'urgent' is not one of 'low'"),
    (["check", "q", "--effort", "huge"], "'huge' is not one of 'low'"),
]


@pytest.mark.parametrize(("argv", "said"), REFUSED_VALUES)
def test_a_value_out_of_its_bounds_is_exit_2_and_nothing_starts(runs, argv, said):
    result = council(*argv)
    assert result.exit_code == 2
    assert said in result.stderr
    assert runs.started == []


@pytest.mark.parametrize(
    ("options", "name", "value"),
    [(["--max-cost", "0.01"], "max_cost", 0.01), (["--quorum", "0"], "quorum", 0)],
)
def test_the_smallest_values_a_bound_allows_are_taken(runs, options, name, value):
    assert council("debate", "q", "--sim", *options).exit_code == 0
    assert getattr(runs.flags, name) == value
