"""`council doctor`, run as a user would: with no AI CLI it lists them all as missing and exits
3; with CLIs on PATH it lists them with versions, default seats and read-only flags, exit 0."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from council.runner import confine
from council.runner.confine import EXTRA_ENV as EXTRA_WRITABLE
from vendor_lists import vendors

from fakes.install import install_fakes


def doctor(
    tmp_path: Path, path_dirs: list[Path], *args: str, config: str | None = None, **env: str
) -> subprocess.CompletedProcess[str]:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    argv = [sys.executable, "-m", "council"]
    if config is not None:
        (tmp_path / "council.yaml").write_text(config)
        argv += ["--config", str(tmp_path / "council.yaml")]
    return subprocess.run(
        [*argv, "doctor", *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        env={
            "PATH": ":".join(map(str, path_dirs)),
            "HOME": str(home),
            "LANG": "C.UTF-8",
            confine.SUITE_ENV: "1",  # the test-only writable dirs below count only so
            **env,
        },
    )


def cli_row(result: subprocess.CompletedProcess[str], name: str) -> dict:
    return next(c for c in json.loads(result.stdout)["clis"] if c["name"] == name)


@pytest.fixture
def empty_bin(tmp_path: Path) -> Path:
    path = tmp_path / "empty-bin"
    path.mkdir()
    return path


def test_no_ai_cli_lists_every_one_as_missing_and_exits_3(tmp_path, empty_bin):
    result = doctor(tmp_path, [empty_bin], "--json")
    report = json.loads(result.stdout)
    states = {c["name"]: c["state"] for c in report["clis"]}
    assert result.returncode == 3
    assert {k: v for k, v in states.items() if k != "sim"} == dict.fromkeys(vendors(), "missing")
    assert states["sim"] == "ok"  # the simulator ships with council
    assert report["can_debate"] is False
    assert "no usable AI CLI" in result.stderr


def test_the_table_says_how_to_install_a_missing_cli(tmp_path, empty_bin):
    result = doctor(tmp_path, [empty_bin])
    assert result.returncode == 3
    assert "npm install -g @openai/codex" in result.stdout
    assert "--sim" in result.stdout


def test_fake_clis_on_path_are_listed_with_versions_and_default_seats(tmp_path):
    fakes = install_fakes(tmp_path / "bin")
    result = doctor(tmp_path, [fakes.bin_dir], "--json", CODEX_API_KEY="sk-x")
    report = json.loads(result.stdout)
    by_name = {c["name"]: c for c in report["clis"]}
    assert result.returncode == 0, result.stderr
    assert by_name["codex"]["version"] == "0.169.0"
    assert by_name["claude"]["version"] == "2.1.197"
    assert by_name["kimi"]["variant"] == "kimi-cli"
    assert report["defaults"] == {"advocate": "claude", "critic": "codex", "lead": "codex"}
    assert by_name["claude"]["default_seats"] == ["advocate"]
    assert by_name["codex"]["default_seats"] == ["critic", "lead"]
    assert by_name["codex"]["sandbox"] == "-s read-only"
    assert by_name["codex"]["auth"] == {"found": True, "source": "CODEX_API_KEY"}
    assert by_name["gemini"]["auth"]["found"] is False


def test_a_version_council_was_not_tested_with_says_untested_in_the_state(tmp_path):
    fakes = install_fakes(tmp_path / "bin", ["codex"])
    fakes.set("codex", "ok", version="0.200.0")
    result = doctor(tmp_path, [fakes.bin_dir])
    (line,) = [line for line in result.stdout.splitlines() if line.startswith("codex ")]
    assert line.split()[:3] == ["codex", "untested", "0.200.0"]
    assert "* codex: not tested with 0.200.0; tested with 0.171.0" in result.stdout
    assert result.returncode == 0  # untested still debates
    codex = cli_row(doctor(tmp_path, [fakes.bin_dir], "--json"), "codex")
    assert (codex["state"], codex["status"], codex["tested"]) == ("ok", "untested", False)


def test_the_tested_version_says_ok_and_tested(tmp_path):
    fakes = install_fakes(tmp_path / "bin", ["codex"])
    codex = cli_row(doctor(tmp_path, [fakes.bin_dir], "--json"), "codex")
    assert (codex["status"], codex["tested"], codex["version_note"]) == ("ok", True, None)


def test_versions_are_compared_as_versions_not_as_text(tmp_path):
    # 2.1.19 is a prefix of the tested 2.1.197, and is still another release.
    fakes = install_fakes(tmp_path / "bin", ["claude"])
    fakes.set("claude", "ok", version="2.1.19")
    claude = cli_row(doctor(tmp_path, [fakes.bin_dir], "--json"), "claude")
    assert (claude["version"], claude["status"], claude["tested"]) == ("2.1.19", "untested", False)


def test_a_user_defined_cli_is_untested_whatever_its_version(tmp_path, empty_bin):
    script = tmp_path / "agy.py"
    script.write_text("print('1.0.0')\n")
    config = (
        f"clis:\n  agy:\n    command: [{sys.executable}, {script}]\n"
        f"  quiet:\n    command: [{sys.executable}, {script}]\n    version_args: []\n"
    )
    result = doctor(tmp_path, [empty_bin], "--json", config=config)
    for name, version in (("agy", "1.0.0"), ("quiet", None)):
        row = cli_row(result, name)
        assert (row["version"], row["status"], row["tested"]) == (version, "untested", False)
        assert row["version_note"] == "a user-defined CLI: no contract test of council's has run it"
    table = doctor(tmp_path, [empty_bin], config=config).stdout
    assert "* agy: a user-defined CLI: no contract test of council's has run it" in table


def test_a_version_probe_that_crashes_with_a_stack_trace_is_one_line_naming_the_error(
    tmp_path, empty_bin
):
    script = tmp_path / "crashy.py"
    script.write_text(
        "import sys\n"
        "sys.stderr.write('file:///opt/crashy/dist/cli.js:12\\n'\n"
        "    'import { DatabaseSync } from \"node:sqlite\";\\n'\n"
        "    '         ^^^^^^^^^^^^\\n'\n"
        "    'SyntaxError: The requested module does not provide an export named X\\n'\n"
        "    '    at ModuleJob._instantiate (node:internal/modules/esm/module_job:180:21)\\n'\n"
        "    '    at new NodeError (node:internal/errors:405:5)\\n'\n"
        "    '\\nNode.js v20.20.2\\n')\n"
        "sys.exit(1)\n"
    )
    config = f"clis:\n  crashy:\n    command: [{sys.executable}, {script}]\n"
    crashy = cli_row(doctor(tmp_path, [empty_bin], "--json", config=config), "crashy")
    assert crashy["state"] == "unusable"
    assert crashy["problem"] == (
        f"`{sys.executable} --version` failed: "
        "SyntaxError: The requested module does not provide an export named X"
    )


def test_codex_with_only_openai_api_key_is_reported_not_logged_in(tmp_path):
    """codex never reads OPENAI_API_KEY (its own key is CODEX_API_KEY): doctor must not call
    it logged in by that key."""
    fakes = install_fakes(tmp_path / "bin", ["codex"])
    result = doctor(tmp_path, [fakes.bin_dir], "--json", OPENAI_API_KEY="sk-x")
    codex = next(c for c in json.loads(result.stdout)["clis"] if c["name"] == "codex")
    assert codex["auth"]["found"] is False
    assert "no CODEX_API_KEY" in codex["auth"]["source"]
    assert "OPENAI_API_KEY is set, but codex does not read it" in codex["auth"]["source"]


def test_the_archived_kimi_is_unusable_with_the_fix_and_never_run_bare(tmp_path):
    fakes = install_fakes(tmp_path / "bin", ["kimi"])
    fakes.set("kimi", "ok", variant="kimi-cli-1.52")
    report = json.loads(doctor(tmp_path, [fakes.bin_dir], "--json").stdout)
    kimi = next(c for c in report["clis"] if c["name"] == "kimi")
    assert kimi["state"] == "unusable"
    assert "npm install -g @moonshot-ai/kimi-code" in kimi["problem"]
    assert [c["argv"] for c in fakes.calls("kimi")] == [["--version"]]


def test_a_user_defined_cli_whose_version_probe_hangs_is_reported_not_waited_for(
    tmp_path, empty_bin
):
    script = tmp_path / "slowtool.py"
    script.write_text("import time\ntime.sleep(60)\n")
    config = f"clis:\n  slowtool:\n    command: [{sys.executable}, {script}]\n"
    result = doctor(tmp_path, [empty_bin], "--json", "--timeout", "1", config=config)
    slow = next(c for c in json.loads(result.stdout)["clis"] if c["name"] == "slowtool")
    assert slow["state"] == "unusable"
    assert "did not answer within 1s" in slow["problem"]


def test_a_broken_config_file_is_exit_4_with_one_line(tmp_path, empty_bin):
    result = doctor(tmp_path, [empty_bin], config="debate: {rounds: 9}\n")
    assert result.returncode == 4
    assert result.stderr.strip().count("\n") == 0
    assert "debate.rounds: expected an integer from 2 to 5, got 9" in result.stderr


def test_doctor_reports_the_landlock_abi_or_that_writes_are_not_confined(tmp_path, empty_bin):

    report = json.loads(doctor(tmp_path, [empty_bin], "--json").stdout)
    assert report["landlock_abi"] == confine.kernel_abi()
    table = doctor(tmp_path, [empty_bin]).stdout
    if confine.kernel_abi():
        assert f"write confinement: Landlock ABI {confine.kernel_abi()}" in table
    else:
        assert "write confinement: Landlock not available" in table
    off = doctor(tmp_path, [empty_bin], "--json", **{confine.OFF_ENV: "1"})
    assert json.loads(off.stdout)["landlock_abi"] == 0


def probe(tmp_path: Path, fakes, *args: str, config: str | None = None, **env: str):
    """`council doctor --probe --json` with the fakes first on PATH, their logs writable."""
    return doctor(
        tmp_path,
        [fakes.bin_dir],
        "--probe",
        "--json",
        *args,
        config=config,
        **{EXTRA_WRITABLE: str(fakes.state_dir), **env},
    )


def project_files(root: Path) -> list[Path]:
    """What the project (doctor's cwd) holds, but for the fakes' logs and HOME."""
    found = (p.relative_to(root) for p in root.rglob("*"))
    return sorted(p for p in found if ".fake" not in p.parts and p.parts[0] != "home")


def calls_made(fakes, name: str) -> list[dict]:
    return [c for c in fakes.calls(name) if c["argv"] != ["--version"]]


def test_probe_makes_one_call_per_cli_in_an_empty_room_and_exits_0_when_all_answer(tmp_path):
    fakes = install_fakes(tmp_path / "bin")
    before = project_files(tmp_path)
    result = probe(tmp_path, fakes)
    report = json.loads(result.stdout)
    assert result.returncode == 0, result.stderr
    for name in vendors():
        assert cli_row(result, name)["probe"]["status"] == "ok", name
        (call,) = calls_made(fakes, name)
        room = Path(call["cwd"])
        assert not room.is_relative_to(tmp_path) and not room.exists(), name
    assert cli_row(result, "sim")["probe"] is None  # no role names the simulator
    assert report["probe"]["roles"] == {
        "advocate": "claude",
        "critic": "codex",
        "lead": "codex",
        "proxies": [],
    }
    assert (report["probe"]["failed"], report["probe"]["ok"]) == ([], True)
    # Nothing written to the project: no .scratchpad, no file of council's.
    assert project_files(tmp_path) == before


@pytest.mark.parametrize(
    ("mode", "status"),
    [("auth", "auth"), ("rate_limit", "rate_limited"), ("hang", "timeout")],
)
def test_probe_exits_3_with_the_reason_when_a_cli_of_the_roles_cannot_answer(
    tmp_path, mode, status
):
    fakes = install_fakes(tmp_path / "bin", ["claude", "codex"])
    fakes.set("codex", mode)
    result = probe(tmp_path, fakes, "--probe-timeout", "2")
    codex = cli_row(result, "codex")
    assert result.returncode == 3
    assert codex["probe"]["status"] == status
    assert "\n" not in codex["probe"]["detail"] and codex["probe"]["detail"]
    assert json.loads(result.stdout)["probe"]["failed"] == ["codex"]
    assert f"cannot answer (codex: {status})" in result.stderr
    assert len(calls_made(fakes, "codex")) == 1  # one call: never retried
    assert fakes.leftovers() == []


def test_a_cli_that_is_not_logged_in_gets_its_login_hint(tmp_path):
    from council.adapters.codex import CodexAdapter

    fakes = install_fakes(tmp_path / "bin", ["claude", "codex"])
    fakes.set("codex", "auth")
    codex = cli_row(probe(tmp_path, fakes), "codex")
    assert codex["probe"]["hint"] == CodexAdapter.login_hint
    table = doctor(
        tmp_path, [fakes.bin_dir], "--probe", **{EXTRA_WRITABLE: str(fakes.state_dir)}
    ).stdout
    assert "probe codex: auth: codex is not logged in" in table
    assert "probe: cannot answer: codex (roles: advocate=claude critic=codex lead=codex)" in table


def test_probe_failing_outside_the_roles_is_shown_and_exits_0(tmp_path):
    fakes = install_fakes(tmp_path / "bin", ["claude", "codex", "gemini"])
    fakes.set("gemini", "auth")
    result = probe(tmp_path, fakes)
    assert result.returncode == 0, result.stderr
    assert cli_row(result, "gemini")["probe"]["status"] == "auth"
    assert json.loads(result.stdout)["probe"]["failed"] == []


def test_probe_follows_the_configured_roles_and_a_missing_one_fails(tmp_path):
    fakes = install_fakes(tmp_path / "bin", ["claude", "codex"])
    config = "roles:\n  critic: codex\n  lead: claude\n  proxies: [gemini]\n"
    result = probe(tmp_path, fakes, config=config)
    report = json.loads(result.stdout)
    assert result.returncode == 3
    assert report["probe"]["roles"] == {
        "advocate": "claude",
        "critic": "codex",
        "lead": "claude",
        "proxies": ["gemini"],
    }
    assert report["probe"]["failed"] == ["gemini"]
    gemini = cli_row(result, "gemini")["probe"]
    assert gemini["status"] == "missing"
    assert gemini["detail"].startswith("`gemini` not found on PATH; install: npm install -g")


def test_probe_uses_the_model_the_roles_give_a_cli(tmp_path):
    fakes = install_fakes(tmp_path / "bin", ["claude", "codex"])
    config = "roles:\n  critic: codex:gpt-probe-model\n"
    assert probe(tmp_path, fakes, config=config).returncode == 0
    (call,) = calls_made(fakes, "codex")
    assert "gpt-probe-model" in call["argv"]
