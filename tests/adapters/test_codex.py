"""codex: `codex exec` in the read-only sandbox, the answer read from its `-o` file."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import answer_calls

from council.adapters.base import CliSettings, Status, Tool
from council.adapters.codex import CodexAdapter

from fakes.install import expected_answer

pytestmark = pytest.mark.anyio
PROMPT = "ACTION: PROPOSAL\nQuestion: monolith or services?"


async def test_codex_runs_exec_read_only(fakes, seat_for):
    await seat_for("codex").ask(PROMPT)
    argv = answer_calls(fakes, "codex")[0]["argv"]
    assert argv[0] == "exec" and argv[-1] == "-"
    assert argv[argv.index("-s") + 1] == "read-only"
    assert not any("dangerously" in a or a in ("--full-auto", "--yolo") for a in argv)


def write_codex_config(home: Path, text: str, name: str = "config.toml") -> None:
    (home / ".codex").mkdir(exist_ok=True)
    (home / ".codex" / name).write_text(text)


PROVIDER = '[model_providers.{id}]\nname = "{id}"\nbase_url = "http://127.0.0.1:1/v1"\n'


def caps(argv: list[str]) -> list[str]:
    return [a for a in argv if "max_retries" in a]


async def test_codex_retries_are_capped_on_the_provider_the_user_defined(fakes, seat_for):
    """0.169.0 ignores top-level `request_max_retries` (a warning) and reads it per provider:
    the caps go to the user's own provider, one retry in all (a 500 is 2 requests)."""
    write_codex_config(Path.home(), 'model_provider = "corp"\n' + PROVIDER.format(id="corp"))
    await seat_for("codex").ask(PROMPT)
    argv = answer_calls(fakes, "codex")[0]["argv"]
    assert caps(argv) == [
        "model_providers.corp.request_max_retries=0",
        "model_providers.corp.stream_max_retries=1",
    ]
    assert all(argv[argv.index(c) - 1] == "-c" for c in caps(argv))


def test_a_warm_codex_worker_is_capped_as_a_spawned_call_is():
    """`codex app-server` runs every warm call of a seat: without the caps a 500 on a warm
    worker would be codex's own dozens of requests, council's retries on top."""
    write_codex_config(Path.home(), 'model_provider = "corp"\n' + PROVIDER.format(id="corp"))
    adapter = CodexAdapter(CliSettings(name="codex", adapter="codex"))
    launch = adapter.warm_launch(Tool("codex", ("codex",)), model=None, effort=None)
    assert launch is not None and launch.argv[-1] == "app-server"
    assert caps(list(launch.argv)) == [
        "model_providers.corp.request_max_retries=0",
        "model_providers.corp.stream_max_retries=1",
    ]


async def test_codex_on_a_built_in_provider_gets_no_retry_setting_it_would_refuse(fakes, seat_for):
    """A built-in provider's id under [model_providers] stops 0.169.0 ("Built-in providers
    cannot be overridden"), and a top-level key is ignored: nothing is passed."""
    write_codex_config(Path.home(), 'model = "gpt-5.5"\n')
    await seat_for("codex").ask(PROMPT)
    assert caps(answer_calls(fakes, "codex")[0]["argv"]) == []


async def test_codex_retry_caps_follow_a_provider_or_profile_chosen_in_extra_args(fakes, seat_for):
    write_codex_config(Path.home(), PROVIDER.format(id="corp"))
    write_codex_config(
        Path.home(), 'model_provider = "lab"\n' + PROVIDER.format(id="lab"), "fast.config.toml"
    )
    chosen = seat_for("codex", extra_args=("-c", 'model_provider="corp"'))
    await chosen.ask(PROMPT)
    profiled = seat_for("codex", extra_args=("--profile", "fast"))
    await profiled.ask(PROMPT)
    first, second = answer_calls(fakes, "codex")
    assert caps(first["argv"])[0] == "model_providers.corp.request_max_retries=0"
    assert caps(second["argv"])[0] == "model_providers.lab.request_max_retries=0"


async def test_codex_answer_comes_from_the_output_file_in_the_record_not_the_room(fakes, seat_for):
    seat = seat_for("codex")
    outcome = await seat.ask(PROMPT)
    argv = answer_calls(fakes, "codex")[0]["argv"]
    answer_file = argv[argv.index("-o") + 1]
    assert answer_file.startswith(str(seat.record))
    assert outcome.text == expected_answer("codex", PROMPT)
    assert list(seat.room.iterdir()) == []


async def test_codex_model_and_effort_are_passed_as_codex_expects(fakes, seat_for):
    outcome = await seat_for("codex").ask(PROMPT, model="gpt-5.3-codex", effort="xhigh")
    argv = answer_calls(fakes, "codex")[0]["argv"]
    assert outcome.status is Status.OK
    assert argv[argv.index("-m") + 1] == "gpt-5.3-codex"
    assert 'model_reasoning_effort="xhigh"' in argv


async def test_codex_gets_openai_keys_but_not_anthropic_ones(fakes, seat_for, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant")
    await seat_for("codex").ask(PROMPT)
    env = answer_calls(fakes, "codex")[0]["env"]
    assert env["OPENAI_API_KEY"] == "sk-openai" and "ANTHROPIC_API_KEY" not in env


def test_codex_timeouts_follow_the_effort():
    from council.adapters import adapter_for

    codex = adapter_for("codex")
    assert codex.soft_timeout(None) == 600 and codex.soft_timeout("xhigh") == 1800


async def test_codex_usage_is_none_its_only_figure_being_a_blend_of_input_and_output(
    fakes, seat_for
):
    fakes.set("codex", "ok", cached_tokens=3)
    outcome = await seat_for("codex").ask(PROMPT)
    err = outcome.attempts[0].err_file.read_text()
    assert outcome.status is Status.OK
    assert outcome.text == expected_answer("codex", PROMPT)
    # `tokens used` (uncached input + output) is on stderr; it is no figure council keeps.
    assert "\ntokens used\n" in err
    assert outcome.usage is None
