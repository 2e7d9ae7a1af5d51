"""The commands that set council up, in process (docs/spec/commands.md "council skill install",
"council init / config show / schema / completion"), and what every command shares: the
lines `skill install` and `uninstall` print and the files they name, how `config show` writes
a value, each schema by its name, the global options, and a usage error for an option given
another option as its value."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from council import __version__
from council.cli import cli
from council.hosts import headless_setting, host_names


def council(*argv: str, **kw: Any) -> Any:
    return CliRunner().invoke(cli, list(argv), prog_name="council", **kw)


# -- skill ---------------------------------------------------------------------------------

PROJECT_FILES = {
    "claude": [
        ".claude/commands/debate.md",
        ".claude/commands/review.md",
        ".claude/skills/council/SKILL.md",
    ],
    "codex": [".agents/skills/council/SKILL.md", ".agents/skills/council-review/SKILL.md"],
    "gemini": [".gemini/commands/debate.toml", ".gemini/commands/review.toml"],
    "qwen": [".qwen/commands/debate.toml", ".qwen/commands/review.toml"],
}


@pytest.mark.parametrize("host", sorted(PROJECT_FILES))
def test_skill_install_names_each_file_it_wrote_and_the_headless_setting(project, host):
    result = council("skill", "install", "--host", host)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert sorted(lines[:-1]) == sorted(f"wrote {name}" for name in PROJECT_FILES[host])
    assert lines[-1] == f"to let {host} run council headless: {headless_setting(host)}"
    for name in PROJECT_FILES[host]:
        assert (project / name).is_file()


def test_skill_install_for_the_user_names_its_files_under_home(project, monkeypatch):
    (project / "home/work").mkdir(parents=True)
    monkeypatch.chdir(project / "home/work")  # not in the current directory: shown under ~
    result = council("skill", "install", "--host", "gemini", "--scope", "user")
    assert result.exit_code == 0, result.output
    assert sorted(result.stdout.splitlines()[:2]) == [
        "wrote ~/.gemini/commands/debate.toml",
        "wrote ~/.gemini/commands/review.toml",
    ]
    assert (project / "home/.gemini/commands/debate.toml").is_file()
    assert not (project / ".gemini").exists()
    assert not (project / "home/work/.gemini").exists()


def test_skill_install_all_covers_every_host_and_says_which_it_skipped(project):
    result = council("skill", "install", "--host", "all")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    wrote = sorted(line for line in lines if line.startswith("wrote "))
    assert wrote == sorted(f"wrote {n}" for files in PROJECT_FILES.values() for n in files)
    headless = [line for line in lines if line.startswith("to let ")]
    assert headless == [
        f"to let {h} run council headless: {headless_setting(h)}" for h in host_names()
    ]
    skipped = [line.split(":")[0] for line in lines if line.startswith("skipped ")]
    assert skipped and all(name.split()[1] not in host_names() for name in skipped)


def test_skill_uninstall_removes_only_that_hosts_files_and_says_so(project):
    council("skill", "install", "--host", "all")
    result = council("skill", "uninstall", "--host", "gemini")
    assert result.exit_code == 0
    assert sorted(result.stdout.splitlines()) == sorted(
        f"removed {n}" for n in PROJECT_FILES["gemini"]
    )
    assert not (project / ".gemini/commands/debate.toml").exists()
    for host in ("claude", "codex", "qwen"):
        assert all((project / n).is_file() for n in PROJECT_FILES[host]), host
    again = council("skill", "uninstall", "--host", "gemini")
    assert again.exit_code == 0 and again.stdout == ""
    assert again.stderr == "nothing of council's installed for gemini in the project scope\n"


def test_skill_uninstall_keeps_a_file_the_user_changed_unless_forced(project):
    council("skill", "install", "--host", "qwen")
    changed = project / ".qwen/commands/debate.toml"
    changed.write_text("# mine\n")
    kept = council("skill", "uninstall", "--host", "qwen")
    assert kept.exit_code == 0
    assert kept.stdout == "removed .qwen/commands/review.toml\n"
    assert kept.stderr == (
        "kept .qwen/commands/debate.toml: changed since council installed it (--force)\n"
    )
    assert changed.read_text() == "# mine\n"
    forced = council("skill", "uninstall", "--host", "qwen", "--force")
    assert forced.stdout == "removed .qwen/commands/debate.toml\n"
    assert not changed.exists()


def test_skill_uninstall_keeping_every_file_says_only_what_it_kept(project):
    council("skill", "install", "--host", "gemini")
    for name in PROJECT_FILES["gemini"]:
        (project / name).write_text("# mine\n")
    kept = council("skill", "uninstall", "--host", "gemini")
    assert kept.exit_code == 0 and kept.stdout == ""
    assert sorted(kept.stderr.splitlines()) == [
        f"kept {name}: changed since council installed it (--force)"
        for name in sorted(PROJECT_FILES["gemini"])
    ]


def test_skill_install_keeps_a_file_the_user_changed_unless_forced(project):
    council("skill", "install", "--host", "claude")
    changed = project / ".claude/commands/debate.md"
    changed.write_text("mine\n")
    again = council("skill", "install", "--host", "claude")
    assert changed.read_text() == "mine\n"
    assert again.exit_code == 2
    forced = council("skill", "install", "--host", "claude", "--force")
    assert forced.exit_code == 0 and "wrote .claude/commands/debate.md" in forced.stdout
    assert changed.read_text() != "mine\n"


# -- config show ---------------------------------------------------------------------------

SHOWN = [
    # (council.yaml, the line config show prints)
    ("scratchpad: runs\n", "scratchpad = runs  (project: ./council.yaml)"),
    ("scratchpad: 'my runs '\n", 'scratchpad = "my runs "  (project: ./council.yaml)'),
    ("debate:\n  rounds: 4\n", "debate.rounds = 4  (project: ./council.yaml)"),
    ("roles:\n  proxies: [gemini]\n", 'roles.proxies = ["gemini"]  (project: ./council.yaml)'),
]


@pytest.mark.parametrize(("text", "line"), SHOWN)
def test_config_show_prints_each_value_and_where_it_came_from(project, text, line):
    (project / "council.yaml").write_text(text)
    result = council("config", "show")
    assert result.exit_code == 0, result.output
    assert line in result.stdout.splitlines()


def test_config_show_names_a_default_and_the_user_file_under_home(project, monkeypatch):
    (project / "work").mkdir()
    monkeypatch.chdir(project / "work")  # HOME is not under the current directory
    user = project / "home/.config/council/config.yaml"
    user.parent.mkdir(parents=True)
    user.write_text("debate:\n  rounds: 3\n")
    lines = council("config", "show").stdout.splitlines()
    assert "debate.rounds = 3  (user: ~/.config/council/config.yaml)" in lines
    assert "roles.proxies = []  (default)" in lines
    shown = json.loads(council("config", "show", "--json").stdout)
    assert shown["files"] == [{"path": str(user), "level": "user"}]
    assert shown["values"]["debate.rounds"] == {"value": 3, "source": "user", "from": str(user)}


def test_config_show_with_a_preset_shows_what_it_sets(project):
    lines = council("config", "show", "--preset", "quick").stdout.splitlines()
    assert any(line.endswith("(preset: quick)") for line in lines)
    plain = council("config", "show").stdout
    assert "(preset: quick)" not in plain


def test_config_show_names_a_file_of_a_project_under_home_from_the_project(project, monkeypatch):
    monkeypatch.setenv("HOME", str(project.parent))  # the usual ~/src/project
    (project / "council.yaml").write_text("debate:\n  rounds: 4\n")
    lines = council("config", "show").stdout.splitlines()
    assert "debate.rounds = 4  (project: ./council.yaml)" in lines


def test_the_config_option_picks_the_file(project):
    (project / "other.yaml").write_text("debate:\n  rounds: 5\n")
    (project / "council.yaml").write_text("debate:\n  rounds: 4\n")
    lines = council("--config", "other.yaml", "config", "show").stdout.splitlines()
    assert "debate.rounds = 5  (project: ./other.yaml)" in lines


# -- schema, completion, version -----------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "title"),
    [
        ([], "council.result/v1"),
        (["result"], "council.result/v1"),
        (["review"], "council.review/v1"),
        (["check"], "council.check/v1"),
    ],
)
def test_schema_prints_the_schema_named(argv, title):
    result = council("schema", *argv)
    assert result.exit_code == 0
    assert json.loads(result.stdout)["title"] == title


def test_schema_config_is_the_schema_of_council_yaml():
    schema = json.loads(council("schema", "config").stdout)
    assert "debate" in schema["properties"] and "clis" in schema["properties"]


@pytest.mark.parametrize(
    ("shell", "marker"),
    [
        ("bash", "complete -o nosort -F"),
        ("zsh", "#compdef council"),
        ("fish", "complete --no-files"),
    ],
)
def test_completion_prints_the_script_of_the_shell_asked(shell, marker):
    result = council("completion", shell)
    assert result.exit_code == 0
    assert marker in result.stdout and "_COUNCIL_COMPLETE" in result.stdout


def test_version_names_the_distribution_and_the_version():
    result = council("--version")
    assert result.exit_code == 0
    assert result.stdout == f"council (council-debate) {__version__}\n"


# -- what every command shares -------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "flag", "given"),
    [
        (["debate", "q", "--rounds", "--sim"], "--rounds", "--sim"),
        (["debate", "q", "--scratchpad", "--json"], "--scratchpad", "--json"),
        (["check", "q", "--options", "--sim"], "--options", "--sim"),
        (["review", "--format", "--sim"], "--format", "--sim"),
        (["wait", "last", "--since", "--json"], "--since", "--json"),
        (["list", "--scratchpad", "--json"], "--scratchpad", "--json"),
    ],
)
def test_an_option_given_another_option_as_its_value_is_exit_2(project, argv, flag, given):
    result = council(*argv)
    assert result.exit_code == 2
    assert f"{flag} needs a value, and was given the option {given}" in result.stderr


def test_after_a_double_dash_an_option_like_word_is_the_question(project, monkeypatch):
    asked = []

    def start(_protocol: Any, flags: Any, *_: Any, **__: Any) -> Any:
        asked.append(flags.question)
        raise KeyboardInterrupt

    monkeypatch.setattr("council.panel.run.start", start)
    result = council("debate", "--sim", "--", "--rounds", "--sim")
    assert asked == ["--rounds --sim"] and result.exit_code == 130


def test_a_deleted_current_directory_is_exit_2_saying_what_to_do(tmp_path, monkeypatch):
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    os.rmdir(gone)
    result = council("list")
    assert result.exit_code == 2
    assert result.stderr == (
        "council: the current directory no longer exists; cd to one that does\n"
    )


def test_a_bug_under_verbose_shows_its_traceback(project, monkeypatch):
    def broken(*_: Any, **__: Any) -> Any:
        raise RuntimeError("planted")

    monkeypatch.setattr("council.panel.run.start", broken)
    quiet = council("debate", "q", "--sim")
    assert quiet.exit_code == 1 and "internal error: RuntimeError: planted" in quiet.stderr
    Path(quiet.stderr.rsplit("traceback in ", 1)[1].strip()).unlink()
    loud = council("-v", "debate", "q", "--sim")
    assert loud.exit_code == 1 and isinstance(loud.exception, RuntimeError)


TIMEOUTS = [
    # (--timeout's value, the line on stderr)
    ("sim=0", "council: bad --timeout for sim: '0' is not a number of seconds from 1 to 86400"),
    ("sim=0.9", "council: bad --timeout for sim: '0.9' is not a number of seconds from 1 to 86400"),
    (
        "sim=86401",
        "council: bad --timeout for sim: '86401' is not a number of seconds from 1 to 86400",
    ),
    ("sim=-5", "council: bad --timeout for sim: '-5' is not a number of seconds from 1 to 86400"),
    ("sim=inf", "council: bad --timeout for sim: 'inf' is not a number of seconds from 1 to 86400"),
    (
        "sim=60,sim=0",
        "council: bad --timeout for sim: '0' is not a number of seconds from 1 to 86400",
    ),
    ("=5", "council: bad --timeout value '=5': expected cli=value, e.g. codex=900"),
    ("sim=", "council: bad --timeout value 'sim=': expected cli=value, e.g. codex=900"),
    ("sim:30", "council: bad --timeout value 'sim:30': expected cli=value, e.g. codex=900"),
]


@pytest.mark.parametrize(("value", "line"), TIMEOUTS)
@pytest.mark.parametrize(
    "command", [["debate", "q"], ["check", "q"], ["review", "--files", "a.py"]]
)
def test_a_bad_timeout_per_cli_is_exit_2_naming_the_cli_and_the_range(
    project, command, value, line
):
    (project / "a.py").write_text("x = 1\n")
    result = council(*command, "--sim", "--timeout", value)
    assert result.exit_code == 2
    assert result.stderr == line + "\n"
    assert not (project / ".scratchpad").exists() or not any((project / ".scratchpad").glob("*-*"))


# -- doctor, from the report it is given ---------------------------------------------------


def row(name: str, **fields: Any) -> dict[str, Any]:
    return {
        "name": name,
        "vendor": name,
        "state": "ok",
        "status": "ok",
        "version": "1.2.3",
        "variant": None,
        "version_note": None,
        "known_broken": [],
        "auth": {"found": True, "source": "login"},
        "billing": {"mode": "login"},
        "default_seats": [],
        "sandbox": "-s read-only",
        "path": f"/usr/bin/{name}",
        "problem": None,
        "probe": None,
        **fields,
    }


def report(*rows: dict[str, Any], probe: dict[str, Any] | None = None) -> dict[str, Any]:
    usable = [r["name"] for r in rows if r["state"] == "ok" and r["vendor"] != "sim"]
    return {
        "clis": list(rows),
        "defaults": {"advocate": "claude", "critic": "codex", "lead": "codex"},
        "usable": usable,
        "can_debate": bool(usable),
        "write_confinement": "Landlock ABI 4",
        "probe": probe,
    }


@pytest.fixture
def doctored(project: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """`council doctor` with the report the test sets (`report`), and what it was asked."""
    seen: dict[str, Any] = {}

    async def run_doctor(_config: Any, timeout_s: float, _c: Any, probe_s: Any, _r: Any) -> Any:
        seen["timeout_s"], seen["probe_timeout_s"] = timeout_s, probe_s
        return None

    monkeypatch.setattr("council.doctor.run_doctor", run_doctor)
    monkeypatch.setattr("council.doctor.report_json", lambda _report: seen["report"])
    return seen


@pytest.mark.parametrize(
    ("argv", "timeout_s", "probe_s"),
    [
        ([], 10.0, None),
        (["--timeout", "3"], 3.0, None),
        (["--probe"], 10.0, 60.0),
        (["--probe", "--probe-timeout", "5"], 10.0, 5.0),
        (["--probe-timeout", "5"], 10.0, None),
    ],
)
def test_doctor_probes_versions_within_its_timeouts(doctored, argv, timeout_s, probe_s):
    doctored["report"] = report(row("codex"))
    assert council("doctor", *argv).exit_code == 0
    assert (doctored["timeout_s"], doctored["probe_timeout_s"]) == (timeout_s, probe_s)


def test_doctor_table_says_each_clis_state_version_auth_seats_and_sandbox(doctored):
    doctored["report"] = report(
        row("claude", default_seats=["advocate"], billing={"mode": "api_key"}),
        row("codex", default_seats=["critic", "lead"], version_note="not tested with 1.2.3"),
        row(
            "gemini",
            state="missing",
            status="missing",
            version=None,
            problem="npm i gemini",
            auth={"found": None, "source": None},
            billing={"mode": "unknown"},
        ),
        row(
            "qwen",
            auth={"found": False, "source": None},
            billing={"mode": "none"},
            variant="qwen-code",
        ),
        row("sim", vendor="sim"),
    )
    result = council("doctor")
    assert result.exit_code == 0
    lines = [line.split("  ") for line in result.stdout.splitlines()]
    cells = [[c.strip() for c in line if c.strip()] for line in lines]
    assert cells[:6] == [
        ["CLI", "STATE", "VERSION", "AUTH", "SEAT", "READ-ONLY", "PATH / PROBLEM"],
        ["claude", "ok", "1.2.3", "api key", "advocate", "-s read-only", "/usr/bin/claude"],
        ["codex", "ok", "1.2.3 *", "login", "critic,lead", "-s read-only", "/usr/bin/codex"],
        ["gemini", "missing", "-", "unknown", "-", "-s read-only", "npm i gemini"],
        ["qwen", "ok", "1.2.3 (qwen-code)", "none found", "-", "-s read-only", "/usr/bin/qwen"],
        ["sim", "ok", "1.2.3", "login", "--sim", "-s read-only", "/usr/bin/sim"],
    ]
    assert result.stdout.splitlines()[6:] == [
        "* codex: not tested with 1.2.3",
        "write confinement: Landlock ABI 4",
        "ready: advocate=claude critic=codex lead=codex (3 usable: claude, codex, qwen)",
    ]


def test_doctor_with_no_ai_cli_exits_3_saying_how_to_go_on(doctored):
    doctored["report"] = report(
        row("codex", state="missing", status="missing"), row("sim", vendor="sim")
    )
    result = council("doctor")
    assert result.exit_code == 3
    assert result.stdout.splitlines()[-1] == (
        "no AI CLI can run a debate here: install one (see PATH / PROBLEM), or run the "
        "offline simulator with --sim"
    )
    assert result.stderr == (
        "council: no usable AI CLI found; install one, or use --sim to try council offline\n"
    )
    assert json.loads(council("doctor", "--json").stdout)["can_debate"] is False


def test_doctor_probe_exits_3_naming_the_cli_of_the_roles_that_cannot_answer(doctored):
    roles = {"advocate": "claude", "critic": "codex", "lead": "codex", "proxies": ["qwen"]}
    doctored["report"] = report(
        row("claude", probe={"status": "ok", "latency_s": 2.04, "detail": ""}),
        row("codex", probe={"status": "auth", "latency_s": None, "detail": "not logged in"}),
        row("qwen", probe={"status": "ok", "latency_s": 0.5, "detail": ""}),
        probe={"failed": ["codex"], "roles": roles},
    )
    result = council("doctor", "--probe")
    assert result.exit_code == 3
    assert result.stderr == "council: a CLI of the configured roles cannot answer (codex: auth)\n"
    out = result.stdout.splitlines()
    assert [line.split()[-2] for line in out[1:4]] == ["2.0s", "auth", "0.5s"]
    assert "probe codex: auth: not logged in" in out
    assert out[-1] == (
        "probe: cannot answer: codex (roles: advocate=claude critic=codex lead=codex proxies=qwen)"
    )
    doctored["report"]["probe"]["failed"] = []
    doctored["report"]["clis"][1]["probe"] = {"status": "ok", "latency_s": 1.0, "detail": ""}
    fine = council("doctor", "--probe")
    assert fine.exit_code == 0
    assert fine.stdout.splitlines()[-1] == (
        "probe: every CLI of the roles answered (advocate=claude critic=codex lead=codex "
        "proxies=qwen)"
    )


@pytest.mark.parametrize("missing", ["mcp", "mcp.server.fastmcp", "pydantic", "mcp_types"])
def test_mcp_without_the_sdk_is_exit_2_saying_how_to_install_it(project, monkeypatch, missing):
    import builtins
    import sys

    real = builtins.__import__

    def importing(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "council.mcp.server":
            raise ModuleNotFoundError(f"No module named '{missing}'", name=missing)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", importing)
    result = council("mcp")
    assert result.exit_code == 2
    assert result.stderr == (
        f"council: the MCP server needs the MCP SDK: {sys.executable} -m pip install 'mcp>=2'\n"
    )


def test_mcp_missing_one_of_councils_own_modules_is_a_bug_not_the_sdk(project, monkeypatch):
    import builtins

    real = builtins.__import__

    def importing(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "council.mcp.server":
            raise ModuleNotFoundError(
                "No module named 'council.mcp.tools'", name="council.mcp.tools"
            )
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", importing)
    result = council("mcp")
    assert result.exit_code == 1 and "internal error: ModuleNotFoundError" in result.stderr
    Path(result.stderr.rsplit("traceback in ", 1)[1].strip()).unlink()
