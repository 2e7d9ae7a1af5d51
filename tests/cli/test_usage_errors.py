"""Every command's usage errors, through click's CliRunner: the exit code of docs/spec/protocol.md
section 8 and one line that names the problem and the fix, never a traceback. Nothing here
needs an AI CLI: each error is found before any seat would start."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from council.cli import cli


@pytest.fixture
def runner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    (tmp_path / "a.py").write_text("x = 1\n")
    return CliRunner()


CASES = [
    # (argv, exit code, a fragment of the message)
    ([], 2, "Usage: council"),
    (["frobnicate"], 2, "No such command 'frobnicate'"),
    (["--config", "missing.yaml", "doctor"], 4, "missing.yaml: config file not found"),
    (["debate"], 2, "the question is missing: give it first"),
    (["debate", "--files", "a.py", "What now?"], 2, "or end the file list with --"),
    (["debate", "q", "--rounds", "9"], 2, "'--rounds': 9 is not in the range 2<=x<=5"),
    (["debate", "q", "--rounds", "1"], 2, "is not in the range 2<=x<=5"),
    (["debate", "q", "--effort", "huge"], 2, "'huge' is not one of 'low', 'medium'"),
    (["debate", "q", "--quorum", "-1"], 2, "'--quorum': -1 is not in the range x>=0"),
    (["debate", "q", "--bogus"], 2, "No such option '--bogus'"),
    (["debate", "q", "--files"], 2, "Option '--files' requires an argument"),
    (["debate", "   "], 2, "the question is empty"),
    (["debate", "@nope.md", "--sim"], 2, "cannot read the question from nope.md"),
    (["debate", "q", "--sim", "--files", "nope.py"], 2, "nope.py: no such file"),
    (["debate", "q", "--sim", "--timeout", "sim=abc"], 2, "'abc' is not a number of seconds"),
    (["debate", "q", "--sim", "--timeout", "sim=nan"], 2, "'nan' is not a number of seconds"),
    # Under a second no CLI answers, and the plan keeps it: every resume would fail alike.
    (
        ["debate", "q", "--sim", "--timeout", "sim=1e-9"],
        2,
        "'1e-9' is not a number of seconds from 1",
    ),
    (["review", "--files", "a.py", "--sim", "--timeout", "sim=0.5"], 2, "from 1 to 86400"),
    (["debate", "q", "--sim", "--timeout", "codex=60"], 2, "codex, which has no seat"),
    (["debate", "q", "--sim", "--advocate", "claude"], 2, "names a real CLI: drop --sim"),
    (["debate", "q", "--sim", "--timeout", "sim"], 2, "bad --timeout value 'sim'"),
    (["debate", "q", "--sim", "--model", "gpt"], 2, "bad --model value 'gpt'"),
    (["debate", "q", "--sim", "--preset", "fast"], 2, "unknown preset 'fast'"),
    (["debate", "q", "--sim", "--advocate", "codex#turbo"], 2, "bad effort 'turbo'"),
    (["debate", "q", "--sim", "--with", "foobar"], 2, "unknown CLI 'foobar'"),
    (["resume"], 2, "Missing argument 'ID'"),
    (["resume", "debate-20990101-000000-zzzz"], 2, "no run 'debate-20990101-000000-zzzz'"),
    (["doctor", "--timeout", "0"], 2, "'--timeout': 0.0 is not in the range x>=0.5"),
    (["doctor", "--bogus"], 2, "No such option '--bogus'"),
    (["doctor", "--timeout", "nan"], 2, "'--timeout': 'nan' is not a finite number"),
    (["debate", "q", "--diff", "--sim"], 2, "--diff needs a value, and was given the option --sim"),
    (["review", "--diff", "--sim"], 2, "--diff needs a value, and was given the option --sim"),
    (["wait", "last", "--timeout", "--json"], 2, "--timeout needs a value, and was given"),
    (["init", "--timeout", "inf"], 2, "'--timeout': 'inf' is not a finite number"),
    (["wait", "last", "--timeout", "nan"], 2, "'--timeout': 'nan' is not a finite number"),
    (["debate", "q", "--sim", "--max-cost", "inf"], 2, "'--max-cost': 'inf' is not a finite"),
    (["schema", "extra"], 2, "'extra' is not one of 'result', 'config', 'review'"),
    (["schema", "result", "config"], 2, "Got unexpected extra argument (config)"),
    (["config"], 2, "Usage: council config"),
    (["config", "hide"], 2, "No such command 'hide'"),
    (["config", "show", "--bogus"], 2, "No such option '--bogus'"),
    (["config", "show", "--preset", "fast"], 2, "unknown preset 'fast': use one of quick"),
    (["--config", "missing.yaml", "config", "show"], 4, "missing.yaml: config file not found"),
    (["init", "--bogus"], 2, "No such option '--bogus'"),
    (["init", "--timeout", "0"], 2, "'--timeout': 0.0 is not in the range x>=0.5"),
    (["completion"], 2, "Missing argument '{bash|zsh|fish}'"),
    (["completion", "tcsh"], 2, "'tcsh' is not one of 'bash', 'zsh', 'fish'"),
    (["wait"], 2, "Missing argument 'ID'"),
    (["wait", "last"], 2, "no runs in"),
    (["wait", "x", "--timeout", "-1"], 2, "'--timeout': -1.0 is not in the range x>=0"),
    (["wait", "x", "--since", "-3"], 2, "'--since': -3 is not in the range x>=0"),
    (["status", "nope"], 2, "no run 'nope'"),
    (["list", "--limit", "0"], 2, "'--limit': 0 is not in the range x>=1"),
    (["show", "last"], 2, "no runs in"),
    (["show", "x", "--yaml"], 2, "No such option '--yaml'"),
    (["show", "last", "--html"], 2, "no runs in"),
    (["cancel"], 2, "Missing argument 'ID'"),
    (["cancel", "x"], 2, "no run 'x'"),
    (["skill", "install"], 2, "Missing option '--host'"),
    (["skill", "install", "--host", "vim"], 2, "'vim' is not one of 'claude', 'codex'"),
    (["skill", "uninstall", "--host", "all", "--scope", "team"], 2, "'team' is not one of"),
    (["mcp", "extra"], 2, "Got unexpected extra argument (extra)"),
    (["review"], 2, "nothing to review: give --diff REF (e.g. --diff main) or --files F"),
    (["review", "--sim"], 2, "nothing to review"),
    (["review", "--bogus"], 2, "No such option '--bogus'"),
    (["review", "--files"], 2, "Option '--files' requires an argument"),
    (["review", "--files", "a.py", "--sim", "--with", "sim"], 2, "needs at least 2 reviewers"),
    (["review", "--files", "a.py", "--fail-on", "urgent"], 2, "'urgent' is not one of 'low'"),
    (["review", "--files", "a.py", "--format", "xml"], 2, "'xml' is not one of 'md', 'json'"),
    (["review", "--files", "a.py", "--json", "--format", "sarif"], 2, "--json and --format sarif"),
    (["review", "--files", "nope.py", "--sim"], 2, "nope.py: no such file"),
    (["review", "--files", "a.py", "--with", "foobar,sim"], 2, "unknown CLI 'foobar'"),
    (
        ["review", "--files", "a.py", "--sim", "--timeout", "sim=abc"],
        2,
        "'abc' is not a number of seconds",
    ),
    (["review", "--files", "a.py", "--sim", "--model", "gpt"], 2, "bad --model value 'gpt'"),
    (["review", "--files", "a.py", "--sim", "--with", "sim#turbo,sim"], 2, "bad effort 'turbo'"),
    (["review", "--files", "a.py", "--seed", "-1"], 2, "'--seed': -1 is not in the range x>=0"),
    (["review", "--diff=--output=x", "--sim"], 2, "a git revision cannot start with '-'"),
    (["show", "x", "--sarif"], 2, "no run 'x'"),
]


@pytest.mark.parametrize(
    ("argv", "code", "message"), CASES, ids=[" ".join(argv) or "-" for argv, _, _ in CASES]
)
def test_a_usage_error_exits_with_its_code_and_names_the_problem(runner, argv, code, message):
    result = runner.invoke(cli, argv, prog_name="council")
    assert result.exit_code == code, result.output
    assert message in result.output
    assert "Traceback" not in result.output and "internal error" not in result.output
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit)


def test_a_config_error_names_the_file_and_the_key(runner, tmp_path):
    (tmp_path / "council.yaml").write_text("debate:\n  rounds: 7\n")
    result = runner.invoke(cli, ["debate", "q", "--sim"], prog_name="council")
    assert result.exit_code == 4
    assert "council.yaml: debate.rounds: expected an integer from 2 to 5, got 7" in result.output


def test_init_refuses_to_overwrite_and_names_the_file_and_force(runner, tmp_path):
    (tmp_path / "council.yaml").write_text("version: 1\n")
    result = runner.invoke(cli, ["init"], prog_name="council")
    assert result.exit_code == 2
    assert "council.yaml exists; use --force to overwrite it" in result.output


def test_a_bug_is_reported_briefly_with_exit_1(runner, monkeypatch):
    def broken(*_args, **_kwargs):
        raise RuntimeError("planted")

    monkeypatch.setattr("council.panel.run.start", broken)
    result = runner.invoke(cli, ["debate", "q", "--sim"], prog_name="council")
    assert result.exit_code == 1
    assert "council: internal error: RuntimeError: planted; this is a bug: please report" in (
        result.output
    )
    where = Path(result.output.rsplit("traceback in ", 1)[1].strip())
    assert "RuntimeError: planted" in where.read_text()  # the traceback, kept for the report
    where.unlink()
    assert "Traceback" not in result.output


def test_schema_review_prints_the_review_schema(runner):
    import json

    from council.review.result import SCHEMA_FILE

    result = runner.invoke(cli, ["schema", "review"], prog_name="council")
    assert result.exit_code == 0
    assert json.loads(result.output)["title"] == "council.review/v1"
    assert result.output == SCHEMA_FILE.read_text(encoding="utf-8")


def test_every_command_has_help_with_an_example(runner):
    for name, command in cli.commands.items():
        if command.hidden:
            continue
        result = runner.invoke(cli, [name, "--help"], prog_name="council")
        assert result.exit_code == 0, name
        assert "Example" in result.output, name
        for sub in getattr(command, "commands", {}):  # a group's commands too (config show)
            result = runner.invoke(cli, [name, sub, "--help"], prog_name="council")
            assert result.exit_code == 0 and "Example" in result.output, f"{name} {sub}"
