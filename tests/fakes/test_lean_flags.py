"""The fakes know lean mode's flags (docs/lean.md) as strictly as the real CLIs: each takes
what its pinned version takes, refuses what it refuses, and fails on a file it cannot read
where the real one fails."""

from __future__ import annotations

from pathlib import Path

from fakes.helpers import CODEX, GEMINI, KIMI_CLI, KIMI_CODE, PROMPT, answer_of, run
from fakes.install import FakeClis, expected_answer

SYSTEM = "You are a seat; answer from the message.\n"


def test_gemini_takes_a_policy_and_a_system_prompt_file_and_fails_on_a_missing_one(
    fake_clis: FakeClis, env: dict[str, str], room: Path
) -> None:
    (room / "system.md").write_text(SYSTEM)
    (room / "policy.toml").write_text('[[rule]]\ntoolName = "*"\ndecision = "deny"\n')
    trusted = {**env, "GEMINI_CLI_TRUST_WORKSPACE": "true"}
    argv = ["gemini", "-o", "json", "-m", "m", "--approval-mode", "plan", "--policy"]
    ok = run([*argv, "policy.toml"], {**trusted, "GEMINI_SYSTEM_MD": "system.md"}, room, PROMPT)
    missing = run([*argv, "policy.toml"], {**trusted, "GEMINI_SYSTEM_MD": "none.md"}, room, PROMPT)
    assert ok.returncode == 0, ok.stderr
    assert answer_of(GEMINI, ok.stdout) == expected_answer("gemini", PROMPT)
    assert missing.returncode == 1
    assert f"missing system prompt file '{room / 'none.md'}'" in missing.stderr.decode()


def test_qwen_takes_a_system_prompt_and_excluded_tools_but_has_no_policy_flag(
    fake_clis: FakeClis, env: dict[str, str], room: Path
) -> None:
    argv = ["qwen", "-o", "json", "--approval-mode", "plan", "--system-prompt", SYSTEM]
    ok = run([*argv, "--exclude-tools", "read_file,glob"], env, room, PROMPT)
    policy = run([*argv, "--policy", "p.toml"], env, room, PROMPT)
    assert ok.returncode == 0, ok.stderr
    assert policy.returncode == 1 and "Unknown argument: policy" in policy.stderr.decode()


def test_pi_takes_no_tools_and_no_skills(
    fake_clis: FakeClis, env: dict[str, str], room: Path
) -> None:
    argv = ["pi", "-p", "--no-session", "--no-tools", "--no-skills", "--system-prompt", SYSTEM]
    ok = run(argv, env, room, PROMPT)
    unknown = run([*argv, "--no-approvals"], env, room, PROMPT)
    assert ok.returncode == 0, ok.stderr
    assert unknown.returncode == 1
    assert unknown.stderr.decode() == "Error: Unknown option: --no-approvals\n"


def test_codex_fails_on_an_instructions_file_it_cannot_read(
    fake_clis: FakeClis, env: dict[str, str], room: Path
) -> None:
    (room / "instructions.md").write_text(SYSTEM)
    argv = ["codex", "exec", "--skip-git-repo-check", "-s", "read-only", "-c"]
    ok = run(
        [*argv, f'model_instructions_file="{room / "instructions.md"}"', "-"], env, room, PROMPT
    )
    missing = run([*argv, f'model_instructions_file="{room / "none.md"}"', "-"], env, room, PROMPT)
    assert ok.returncode == 0, ok.stderr
    assert answer_of(CODEX, ok.stdout) == expected_answer("codex", PROMPT)
    assert missing.returncode == 1
    assert "failed to read model instructions file" in missing.stderr.decode()


def test_kimi_cli_refuses_an_agent_file_that_does_not_exist_as_click_does(
    fake_clis: FakeClis, env: dict[str, str], room: Path
) -> None:
    KIMI_CLI.set(fake_clis)
    (room / "agent.yaml").write_text("version: 1\n")
    ok = run(["kimi", "--quiet", "--plan", "--agent-file", "agent.yaml"], env, room, PROMPT)
    missing = run(["kimi", "--quiet", "--agent-file", "none.yaml"], env, room, PROMPT)
    assert ok.returncode == 0, ok.stdout
    assert missing.returncode == 2
    assert "Invalid value for '--agent-file': File 'none.yaml' does not exist." in (
        missing.stderr.decode()
    )


def test_kimi_code_reads_its_agent_file_and_refuses_one_without_a_description_or_body(
    fake_clis: FakeClis, env: dict[str, str], room: Path
) -> None:
    KIMI_CODE.set(fake_clis)
    head = "---\nname: council-seat\ndescription: A seat.\ntools: []\n---\n"
    (room / "good.md").write_text(head + SYSTEM)
    (room / "no-body.md").write_text(head)
    (room / "no-description.md").write_text("---\nname: seat\n---\n" + SYSTEM)
    argv = ["kimi", "-p", PROMPT, "--output-format", "stream-json", "--agent-file"]
    outcomes = {name: run([*argv, name], env, room) for name in ("good.md", "no-body.md")}
    outcomes["no-description.md"] = run([*argv, "no-description.md"], env, room)
    outcomes["none.md"] = run([*argv, "none.md"], env, room)
    assert outcomes["good.md"].returncode == 0, outcomes["good.md"].stderr
    assert "Missing prompt body" in outcomes["no-body.md"].stderr.decode()
    assert 'field "description"' in outcomes["no-description.md"].stderr.decode()
    assert 'Failed to read agent file "none.md"' in outcomes["none.md"].stderr.decode()
    assert all(outcomes[n].returncode == 1 for n in ("no-body.md", "no-description.md", "none.md"))
