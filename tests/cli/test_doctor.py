"""`council doctor`, run as a user would: with no AI CLI it lists them all as missing and exits
3; with CLIs on PATH it lists them with versions, default seats and read-only flags, exit 0."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

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
        env={"PATH": ":".join(map(str, path_dirs)), "HOME": str(home), "LANG": "C.UTF-8", **env},
    )


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
    assert {k: v for k, v in states.items() if k != "sim"} == dict.fromkeys(
        ("claude", "codex", "gemini", "qwen", "kimi", "pi"), "missing"
    )
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


def test_codex_with_only_openai_api_key_is_reported_not_logged_in(tmp_path):
    """codex never reads OPENAI_API_KEY (its own key is CODEX_API_KEY): doctor must not call
    it logged in by that key."""
    fakes = install_fakes(tmp_path / "bin", ["codex"])
    result = doctor(tmp_path, [fakes.bin_dir], "--json", OPENAI_API_KEY="sk-x")
    codex = next(c for c in json.loads(result.stdout)["clis"] if c["name"] == "codex")
    assert codex["auth"]["found"] is False
    assert "no CODEX_API_KEY" in codex["auth"]["source"]
    assert "OPENAI_API_KEY is set, but codex does not read it" in codex["auth"]["source"]


def test_a_version_council_was_not_tested_with_is_flagged(tmp_path):
    fakes = install_fakes(tmp_path / "bin", ["codex"])
    fakes.set("codex", "ok", version="0.200.0")
    result = doctor(tmp_path, [fakes.bin_dir])
    assert "not tested with 0.200.0; tested with 0.171.0" in result.stdout


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
    from council.runner import confine

    report = json.loads(doctor(tmp_path, [empty_bin], "--json").stdout)
    assert report["landlock_abi"] == confine.kernel_abi()
    table = doctor(tmp_path, [empty_bin]).stdout
    if confine.kernel_abi():
        assert f"write confinement: Landlock ABI {confine.kernel_abi()}" in table
    else:
        assert "write confinement: Landlock not available" in table
    off = doctor(tmp_path, [empty_bin], "--json", **{confine.OFF_ENV: "1"})
    assert json.loads(off.stdout)["landlock_abi"] == 0
