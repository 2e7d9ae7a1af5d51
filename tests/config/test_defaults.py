"""Every key of council.yaml at its built-in default (docs/spec/config.md, the commented
example): what `council config show` prints with no file, and what a run reads. The expected
values are the spec's, written out here, not read from the code."""

from __future__ import annotations

from pathlib import Path

import pytest

from council.adapters import adapter_for
from council.adapters.base import Request
from council.config import load_config, parse_config

# key path -> the spec's default
DEFAULTS = {
    "version": 1,
    "roles.advocate": None,
    "roles.critic": None,
    "roles.lead": None,
    "roles.proxies": [],
    "debate.rounds": 2,
    "debate.quorum": 1,
    "debate.words.proposal": 300,
    "debate.words.blind": 150,
    "debate.words.challenge": 300,
    "debate.words.proxy": 200,
    "debate.words.respond": 300,
    "debate.words.rebuttal": 200,
    "debate.words.final_summary": 200,
    "debate.context_lines": 15,
    "debate.file_lines": 500,
    "debate.total_lines": 2000,
    "debate.ready_timeout_s": 60,
    "debate.hard_timeout_factor": 1.5,
    "debate.blind": True,
    "debate.max_warm_seats": 4,
    "debate.on_injection": "warn",
    "debate.max_cost": None,
    "quorum.distinct": "off",
    "scratchpad": ".scratchpad",
    "redact.extra_patterns": [],
    "redact.allow_files": [],
    "review.gate.critical": "majority",
    "review.gate.high": "majority",
    "review.gate.medium": "majority",
    "review.gate.low": "majority",
    "adr.dir": None,
}


def test_config_show_without_a_file_prints_every_key_at_the_specs_default(place):
    shown = place.shown()
    got = {key: shown[key]["value"] for key in DEFAULTS if key in shown}
    assert got == DEFAULTS
    assert {shown[key]["source"] for key in DEFAULTS} == {"default"}
    assert shown["clis"] == {"value": {}, "source": "default", "from": None}


def test_config_show_lists_what_each_built_in_preset_sets(place):
    shown = place.shown()
    presets = {k: v["value"] for k, v in shown.items() if k.startswith("presets.")}
    quick = {k: v for k, v in presets.items() if k.startswith("presets.quick.")}
    assert quick == {
        "presets.quick.rounds": 2,
        "presets.quick.effort": "low",
        "presets.quick.proxies": [],
        "presets.quick.blind": False,
    }
    balanced = {k: v for k, v in presets.items() if k.startswith("presets.balanced.")}
    assert balanced == {"presets.balanced.rounds": 2, "presets.balanced.effort": "high"}
    assert (presets["presets.deep.rounds"], presets["presets.deep.effort"]) == (3, "xhigh")
    assert presets["presets.deep.efforts.claude"] == "max"


def test_config_show_prints_a_default_as_key_value_and_source(place):
    lines = place.show()
    expected = [
        "debate.rounds = 2  (default)",
        "debate.words.blind = 150  (default)",
        "debate.ready_timeout_s = 60.0  (default)",
        "debate.hard_timeout_factor = 1.5  (default)",
        "debate.blind = true  (default)",
        "debate.on_injection = warn  (default)",
        "debate.max_cost = null  (default)",
        "quorum.distinct = off  (default)",
        "roles.proxies = []  (default)",
        "scratchpad = .scratchpad  (default)",
        "review.gate.critical = majority  (default)",
        "adr.dir = null  (default)",
    ]
    assert [line for line in expected if line not in lines] == []


def run_value(config, key: str):
    value = config
    for part in key.split("."):
        value = value[part] if isinstance(value, dict) else getattr(value, part)
    return value


RUNTIME = {k: v for k, v in DEFAULTS.items() if not k.startswith(("version", "review."))}


def as_read(config) -> dict:
    values = {key: run_value(config, key) for key in RUNTIME}
    return {k: list(v) if isinstance(v, tuple) else v for k, v in values.items()}


def test_a_run_without_a_file_reads_the_specs_defaults(place):
    assert as_read(load_config(cwd=place.root, environ=place.environ())) == RUNTIME


def test_a_file_that_names_a_section_keeps_the_defaults_of_the_keys_it_leaves(place):
    # One key set in each section (a different one): every other key keeps its default.
    place.project(
        "roles: {advocate: claude}\ndebate: {rounds: 3, words: {proxy: 90}}\n"
        "quorum: {}\nredact: {allow_files: ['*.pem']}\nscratchpad: null\n"
    )
    given = {
        "roles.advocate": "claude",
        "debate.rounds": 3,
        "debate.words.proxy": 90,
        "redact.allow_files": ["*.pem"],
    }
    assert as_read(load_config(cwd=place.root, environ=place.environ())) == {**RUNTIME, **given}


def test_a_review_gate_rule_not_named_stays_majority(place):
    place.project("review: {gate: {critical: any}}\n")
    shown = place.shown()
    gate = {sev: shown[f"review.gate.{sev}"]["value"] for sev in ("critical", "high", "low")}
    assert gate == {"critical": "any", "high": "majority", "low": "majority"}
    assert shown["review.gate.critical"]["source"] == "project"
    assert shown["review.gate.high"]["source"] == "default"


# A CLI entry's keys and their defaults (the spec's example; null: the adapter decides).
CLI_DEFAULTS = {
    "model": None,
    "effort": None,
    "timeout_s": None,
    "extra_args": [],
    "pass_env": [],
    "env": {},
    "lean": True,
    "warm": True,
}
CUSTOM_DEFAULTS = {
    "input": "stdin",
    "output": "stdout",
    "model_flag": None,
    "tty": False,
    "version_args": ["--version"],
    "state_dirs": [],
}


def test_config_show_fills_a_listed_built_in_cli_with_its_keys_defaults(place):
    place.project("clis:\n  codex: {pass_env: [HTTPS_PROXY]}\n")
    shown = place.shown()
    entry = {
        k.removeprefix("clis.codex."): v for k, v in shown.items() if k.startswith("clis.codex.")
    }
    assert {k: v["value"] for k, v in entry.items()} == {
        **CLI_DEFAULTS,
        "command": ["codex"],
        "pass_env": ["HTTPS_PROXY"],
    }
    assert entry["pass_env"]["source"] == "project"
    assert {v["source"] for k, v in entry.items() if k != "pass_env"} == {"default"}


def test_config_show_fills_a_user_defined_cli_with_its_keys_defaults(place):
    place.project("clis:\n  mytool: {command: [mytool, --quiet]}\n")
    shown = place.shown()
    entry = {
        k.removeprefix("clis.mytool."): v["value"]
        for k, v in shown.items()
        if k.startswith("clis.mytool.")
    }
    assert entry == {**CLI_DEFAULTS, **CUSTOM_DEFAULTS, "command": ["mytool", "--quiet"]}


@pytest.mark.parametrize("name", ["codex", "claude", "gemini", "mytool"])
def test_a_cli_listed_without_lean_or_warm_runs_lean_and_warm(name):
    entry = {"model": "m1"} if name != "mytool" else {"command": ["mytool"]}
    config = parse_config({"clis": {name: entry}})
    settings = config.clis[name]
    assert (settings.lean, settings.warm) == (True, True)
    # What lean changes for a call: council's own system prompt reaches the CLI.
    request = Request("q", room=Path("."), answer_path=Path("answer.md"), lean_prompt="L")
    assert adapter_for(name, config.clis).lean_for(request) == "L"


@pytest.mark.parametrize("name", ["codex", "mytool"])
def test_lean_false_keeps_a_cli_out_of_lean_mode_and_warm_false_off_warm_workers(name):
    entry = {"lean": False, "warm": False}
    if name == "mytool":
        entry["command"] = ["mytool"]
    config = parse_config({"clis": {name: entry}})
    assert (config.clis[name].lean, config.clis[name].warm) == (False, False)
    request = Request("q", room=Path("."), answer_path=Path("answer.md"), lean_prompt="L")
    assert adapter_for(name, config.clis).lean_for(request) is None


def test_a_listed_cli_keeps_the_other_settings_at_their_defaults():
    config = parse_config({"clis": {"codex": {"model": "o3"}, "mine": {"command": "mine"}}})
    codex, mine = config.clis["codex"], config.clis["mine"]
    assert (codex.adapter, codex.command, codex.model) == ("codex", None, "o3")
    assert (codex.effort, codex.timeout_s, codex.extra_args, codex.pass_env) == (None, None, (), ())
    assert dict(codex.env) == {} and codex.version_args is None and codex.state_dirs == ()
    assert (mine.adapter, mine.command, mine.input, mine.output) == (
        "custom",
        ("mine",),
        "stdin",
        "stdout",
    )
    assert (mine.model_flag, mine.tty, mine.version_args) == (None, False, None)
