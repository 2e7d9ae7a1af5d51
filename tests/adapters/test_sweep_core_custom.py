"""A user-defined CLI (`clis.<name>.command`, docs/spec/config.md and `adapters/custom.py`'s
contract) as the user configures it: the exact argv and stdin each `input` mode gives, where
the answer is read from for each `output` mode, the output modes the config refuses, its
version probe, and that it is a vendor of its own."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sweep_core_helpers import call_script

from council.adapters import adapter_for, registered
from council.adapters.base import RawResult, Request, Status, Tool
from council.config import parse_config
from council.errors import ConfigError

PROMPT = "ACTION: PROPOSAL\nQuestion: tabs or spaces?\n"


def mine(**settings: object):
    config = parse_config({"clis": {"mine": {"command": ["mine"], **settings}}})
    return adapter_for("mine", config.clis)


def call(tmp_path: Path, asked: str | None = None, **settings: object):
    """The invocation of `mine` for one call of PROMPT (`asked`: the seat's model)."""
    adapter = mine(**settings)
    request = Request(
        PROMPT,
        room=tmp_path,
        answer_path=tmp_path / "answer.txt",
        prompt_path=tmp_path / "prompt.md",
        model=asked,
    )
    return adapter.build(Tool("mine", tuple(adapter.command())), request)


# -- input: stdin, file, arg; the model flag and extra_args ---------------------------------

INPUTS = [
    # (settings, model asked) -> argv after `mine`, stdin is the prompt
    ({}, None, [], True),
    ({"model_flag": "--model"}, "m1", ["--model", "m1"], True),
    ({"model_flag": "--model", "model": "cfg"}, None, ["--model", "cfg"], True),
    ({"model_flag": "--model", "model": "cfg"}, "seat", ["--model", "seat"], True),
    ({}, "m1", [], True),  # no model_flag: the model cannot be given
    ({"extra_args": ["--fast"], "model_flag": "-m"}, "m1", ["-m", "m1", "--fast"], True),
    ({"input": "file"}, None, ["{tmp}/prompt.md"], False),
    ({"input": "file", "model_flag": "-m"}, "m1", ["-m", "m1", "{tmp}/prompt.md"], False),
    (
        {"input": "file", "command": ["mine", "--in", "{prompt_file}"]},
        None,
        ["--in", "{tmp}/prompt.md"],
        False,
    ),
    ({"input": "arg"}, None, [PROMPT], False),
    (
        {"input": "arg", "model_flag": "-m", "extra_args": ["-q"]},
        "m1",
        ["-m", "m1", "-q", PROMPT],
        False,
    ),
    (
        {"input": "arg", "command": ["mine", "-p", "{prompt}"], "model_flag": "-m"},
        "m1",
        ["-p", PROMPT, "-m", "m1"],
        False,
    ),
    (
        {"output": "file", "command": ["mine", "--out={answer_file}"]},
        None,
        ["--out={tmp}/answer.txt"],
        True,
    ),
]


def test_each_input_mode_gives_the_documented_argv_and_stdin(tmp_path):
    # One test for the table (each test pays the suite's leak check); every wrong row listed.
    wrong = []
    for settings, model, args, on_stdin in INPUTS:
        invocation = call(tmp_path, model, **settings)
        expected = ["mine", *(a.replace("{tmp}", str(tmp_path)) for a in args)]
        stdin = PROMPT.encode() if on_stdin else None
        if (list(invocation.argv), invocation.stdin) != (expected, stdin):
            wrong.append((settings, model, invocation.argv, invocation.stdin))
    assert not wrong


def test_output_file_reads_the_answer_file_and_tty_runs_under_a_terminal(tmp_path):
    invocation = call(tmp_path, command=["mine", "-o", "{answer_file}"], output="file", tty=True)
    assert invocation.answer_file == tmp_path / "answer.txt"
    assert invocation.tty is True
    assert call(tmp_path).tty is False and call(tmp_path).answer_file is None


# -- output: where the answer is read -------------------------------------------------------


OUTPUTS = [
    ("stdout", "Spaces.\n", None, Status.OK, "Spaces."),
    ("file", "progress noise\n", "Tabs, in the file.", Status.OK, "Tabs, in the file."),
    ("file", "Spaces on stdout\n", None, Status.EMPTY, ""),  # it wrote no file
    (
        "json:choices.-1.text",
        '{"choices": [{"text": "a"}, {"text": "Last."}]}',
        None,
        Status.OK,
        "Last.",
    ),
    ("json:score", '{"score": 42}', None, Status.OK, "42"),
    ("json:answer", '{"answer": null}', None, Status.EMPTY, ""),
    (
        "json:.result.",
        '{"result": "Dots around the path."}',
        None,
        Status.OK,
        "Dots around the path.",
    ),
    ("json:0.text", '[{"text": "From a list."}]', None, Status.OK, "From a list."),
    (
        "json:result",
        '{"result": "first"}\nnot json\n[1]\n{"result": "Final."}\n',
        None,
        Status.OK,
        "Final.",
    ),
]


def test_each_output_mode_reads_the_answer_where_the_docs_say():
    wrong = []
    for output, stdout, answer_file, status, text in OUTPUTS:
        command = {"command": ["mine", "{answer_file}"]} if output == "file" else {}
        verdict = mine(output=output, **command).classify(
            RawResult(0, stdout, "", answer_file_text=answer_file), PROMPT
        )
        if (verdict.status, verdict.text) != (status, text):
            wrong.append((output, stdout, verdict))
    assert not wrong


@pytest.mark.parametrize(
    ("output", "stdout", "stopped"),
    [
        ("json:choices.2.text", '{"choices": [{"text": "a"}]}', "2"),
        ("json:choices.-2.text", '{"choices": [{"text": "a"}]}', "-2"),
        ("json:answer.text", '{"answer": "flat"}', "text"),
        ("json:result", '{"other": 1}', "result"),
    ],
)
def test_a_json_path_that_is_not_there_is_an_error_naming_the_path_and_where_it_stopped(
    output, stdout, stopped
):
    verdict = mine(output=output).classify(RawResult(0, stdout, ""), PROMPT)
    assert verdict.status is Status.ERROR
    path = output.removeprefix("json:")
    assert verdict.detail == (
        f"unreadable output: no `{path}` in the JSON output (stopped at `{stopped}`)"
    )


BIG_JSON = """
import json, sys
sys.stdin.read()
print(json.dumps({"log": "x" * 1_500_000, "result": "The whole document was read."}))
"""


@pytest.mark.anyio
async def test_a_json_answer_longer_than_a_megabyte_is_read_whole(tmp_path):
    """A JSON document is read from the whole output (plain text keeps only its start and
    end in memory, which would cut the document)."""
    outcome = await call_script(tmp_path, "big", BIG_JSON, PROMPT, output="json:result")
    assert (outcome.status, outcome.text) == (Status.OK, "The whole document was read.")


# -- what the config refuses --------------------------------------------------------------


@pytest.mark.parametrize(
    ("entry", "problem"),
    [
        (
            {"command": ["mine"], "output": "file"},
            "output: file needs {answer_file} in the command, where the CLI writes",
        ),
        (
            {"command": ["mine"], "output": "json:"},
            "clis.mine.output: expected stdout, file or json:",
        ),
        (
            {"command": ["mine"], "output": "json:..."},
            "clis.mine.output: expected stdout, file or json:",
        ),
        (
            {"command": ["mine"], "output": "yaml"},
            "clis.mine.output: expected stdout, file or json:",
        ),
    ],
)
def test_an_output_mode_that_cannot_work_is_refused_with_what_to_write(entry, problem):
    with pytest.raises(ConfigError) as refused:
        parse_config({"clis": {"mine": entry}})
    assert problem in str(refused.value)


@pytest.mark.parametrize(
    "entry",
    [
        {"command": ["mine", "--out={answer_file}"], "output": "file"},
        {"command": ["mine", "--out", "{answer_file}"], "output": "file"},
        {"command": ["mine"], "output": "json:a.0.b"},
        {"command": ["mine"], "output": "stdout"},
    ],
)
def test_an_output_mode_that_can_work_is_accepted(entry):
    assert parse_config({"clis": {"mine": entry}}).clis["mine"].output == entry["output"]


# -- its probe, its vendor, its state -------------------------------------------------------


@pytest.mark.parametrize(
    ("version_args", "probe"),
    [
        (None, ("--version",)),
        (["-V"], ("-V",)),
        (["version", "--short"], ("version", "--short")),
        ([], None),
    ],
)
def test_the_version_probe_is_version_args_or_none_at_all(version_args, probe):
    settings = {} if version_args is None else {"version_args": version_args}
    assert mine(**settings).version_argv() == probe


def test_a_failed_probe_names_the_command_it_ran_and_what_went_wrong():
    info = mine(version_args=["-V"]).read_version(2, "mine 1.2.3\n", "Error: unknown flag -V\n")
    assert info.version is None
    assert info.unusable == "`mine -V` failed: Error: unknown flag -V"
    silent = mine().read_version(1, "", "")
    assert silent.unusable == "`mine --version` failed: exit 1"


@pytest.mark.parametrize(
    ("stdout", "stderr", "version"),
    [
        ("mine 2.4.1\n", "warning: node 18.2.0 is old\n", "2.4.1"),  # stdout first
        ("", "mine version 0.9.7\n", "0.9.7"),  # printed on stderr
        ("mine v3\n", "", "3"),
    ],
)
def test_the_version_is_read_from_stdout_else_stderr(stdout, stderr, version):
    assert mine().read_version(0, stdout, stderr).version == version


def test_each_user_defined_cli_is_a_vendor_of_its_own_and_always_untested():
    config = parse_config({"clis": {"one": {"command": ["one"]}, "two": {"command": ["two"]}}})
    one, two = adapter_for("one", config.clis), adapter_for("two", config.clis)
    vendors = {cls.vendor for cls in registered().values()}
    assert one.vendor != two.vendor
    assert not {one.vendor, two.vendor} & vendors
    assert (one.is_tested("1.0.0"), one.is_tested(None)) == (False, False)
    assert one.display_name == "one" and one.binary == "one"


def test_state_dirs_are_the_places_under_home_it_may_write(tmp_path):
    dirs, files = mine(state_dirs=["~/.mine", "~/.cache/mine"]).state_paths({}, tmp_path)
    assert dirs == (tmp_path / ".mine", tmp_path / ".cache" / "mine")
    assert files == ()


def test_a_user_defined_cli_takes_no_usage_and_names_no_model():
    stdout = json.dumps({"result": "ok", "usage": {"input_tokens": 5}, "model": "gpt-5"})
    adapter = mine(output="json:result")
    assert adapter.read_usage(RawResult(0, stdout, "")) is None
    assert adapter.read_model(RawResult(0, stdout, "")) == ()


CLAUDE_BIG = """
import json, sys
sys.stdin.read()
answer = "Keep the cache. " * 80_000 + "The end."
print(json.dumps({"type": "result", "subtype": "success", "is_error": False, "result": answer}))
"""


@pytest.mark.anyio
async def test_a_built_in_clis_json_answer_longer_than_a_megabyte_is_read_whole(tmp_path):
    """claude prints one JSON document (`--output-format json`): read whole, as a
    user-defined CLI's `json:` output is."""
    outcome = await call_script(tmp_path, "claude", CLAUDE_BIG, PROMPT)
    assert outcome.status is Status.OK, outcome.detail
    assert outcome.text.endswith("Keep the cache. The end.")
    assert len(outcome.text) > 1_280_000
