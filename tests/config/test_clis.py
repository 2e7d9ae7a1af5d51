"""A `clis.<name>` entry (docs/spec/config.md): every key a built-in CLI takes, the keys only
a user-defined CLI takes, variants of a built-in (`adapter:`), and what is refused (exit 4,
one line naming the file and the key path)."""

from __future__ import annotations

import pytest

from council.adapters import adapter_for
from council.adapters.custom import CustomAdapter
from council.adapters.sim import SimAdapter
from council.config import parse_config
from council.errors import ConfigError


def cli_of(entry: dict, name: str = "codex"):
    return parse_config({"clis": {name: entry}}).clis[name]


# (key, value written, value the run reads)
BUILT_IN_KEYS = [
    ("command", "/opt/codex/bin/codex", ("/opt/codex/bin/codex",)),
    ("command", ["npx", "codex"], ("npx", "codex")),
    ("model", "o3", "o3"),
    ("effort", "xhigh", "xhigh"),
    ("timeout_s", 900, 900.0),
    ("timeout_s", 1.5, 1.5),
    ("extra_args", ["--quiet", "-c", "x=1"], ("--quiet", "-c", "x=1")),
    ("extra_args", "--quiet", ("--quiet",)),
    ("pass_env", ["HTTPS_PROXY", "NO_PROXY"], ("HTTPS_PROXY", "NO_PROXY")),
    ("pass_env", "HTTPS_PROXY", ("HTTPS_PROXY",)),
    (
        "env",
        {"DEBUG": 1, "MODE": "fast", "RATE": 1.5},
        {"DEBUG": "1", "MODE": "fast", "RATE": "1.5"},
    ),
    # a zero or an empty value is a value all the same (NO_COLOR=, RETRIES=0)
    ("env", {"RETRIES": 0, "NO_COLOR": ""}, {"RETRIES": "0", "NO_COLOR": ""}),
    ("lean", False, False),
    ("lean", True, True),
    ("warm", False, False),
    ("warm", True, True),
]


@pytest.mark.parametrize(("key", "written", "read"), BUILT_IN_KEYS)
def test_each_key_of_a_built_in_cli_reaches_the_run(key, written, read):
    settings = cli_of({key: written})
    got = getattr(settings, key)
    assert (dict(got) if key == "env" else got) == read
    assert settings.adapter == "codex" and settings.name == "codex"


def test_a_cli_timeout_reaches_the_adapters_soft_limit():
    adapter = adapter_for("codex", parse_config({"clis": {"codex": {"timeout_s": 42}}}).clis)
    assert adapter.soft_timeout(None) == 42 and adapter.soft_timeout("xhigh") == 42


# (key, value written, value the run reads) for a user-defined CLI
CUSTOM_KEYS = [
    ("input", "file", "file"),
    ("input", "arg", "arg"),
    ("output", "json:result.text", "json:result.text"),
    ("model_flag", "--model", "--model"),
    ("tty", True, True),
    ("version_args", ["-V"], ("-V",)),
    ("version_args", [], ()),
    ("state_dirs", ["~/.mytool", "~/.cache/mytool"], ("~/.mytool", "~/.cache/mytool")),
    ("state_dirs", "~/.mytool", ("~/.mytool",)),
]


@pytest.mark.parametrize(("key", "written", "read"), CUSTOM_KEYS)
def test_each_key_of_a_user_defined_cli_reaches_the_run(key, written, read):
    settings = cli_of({"command": ["mytool", "--quiet"], key: written}, "mytool")
    assert getattr(settings, key) == read
    assert (settings.adapter, settings.command) == ("custom", ("mytool", "--quiet"))


def test_a_user_defined_cli_writing_its_answer_to_a_file_names_the_file_in_its_command():
    settings = cli_of({"command": ["t", "--out", "{answer_file}"], "output": "file"}, "t")
    assert settings.output == "file"
    adapter = adapter_for("t", {"t": settings})
    assert isinstance(adapter, CustomAdapter) and adapter.binary == "t"


def test_a_variant_of_a_built_in_takes_its_adapter_and_its_own_settings():
    config = parse_config(
        {"clis": {"sim-slow": {"adapter": "sim", "env": {"COUNCIL_SIM_DELAY": 3}, "warm": False}}}
    )
    variant = config.clis["sim-slow"]
    assert (variant.name, variant.adapter, dict(variant.env), variant.warm) == (
        "sim-slow",
        "sim",
        {"COUNCIL_SIM_DELAY": "3"},
        False,
    )
    assert isinstance(adapter_for("sim-slow", config.clis), SimAdapter)


def test_a_built_in_named_with_its_own_adapter_is_that_adapter():
    assert cli_of({"adapter": "codex", "model": "o3"}).adapter == "codex"


CUSTOM_ONLY = [
    ("input", "file"),
    ("output", "stdout"),
    ("model_flag", "--model"),
    ("tty", True),
    ("version_args", ["-V"]),
    ("state_dirs", ["~/.x"]),
]


@pytest.mark.parametrize(("key", "value"), CUSTOM_ONLY)
@pytest.mark.parametrize("name", ["codex", "sim-slow"])
def test_a_key_only_a_user_defined_cli_takes_is_refused_on_a_built_in_or_variant(name, key, value):
    entry = {key: value, **({"adapter": "sim"} if name == "sim-slow" else {})}
    with pytest.raises(ConfigError) as caught:
        cli_of(entry, name)
    assert str(caught.value) == (
        f"config: clis.{name}.{key}: only a user-defined CLI (with `command:` and no "
        "`adapter:`) takes this key"
    )
    assert caught.value.exit_code == 4


GOOD_STATE_DIRS = ["~/.mytool", "~/.config/mytool", "~/a/b/c", "~/.my..tool"]
BAD_STATE_DIRS = [
    "~",
    "~/",
    "/etc",
    ".mytool",
    "~/..",
    "~/../etc",
    "~/a/../../b",
    "~user/x",
    "$HOME/.x",
]


@pytest.mark.parametrize("state_dir", GOOD_STATE_DIRS)
def test_a_state_dir_below_home_is_taken(state_dir):
    assert cli_of({"command": ["t"], "state_dirs": [state_dir]}, "t").state_dirs == (state_dir,)


@pytest.mark.parametrize("state_dir", BAD_STATE_DIRS)
def test_a_state_dir_that_is_home_or_leaves_it_is_refused(state_dir):
    with pytest.raises(ConfigError) as caught:
        cli_of({"command": ["t"], "state_dirs": ["~/.ok", state_dir]}, "t")
    assert str(caught.value) == (
        "config: clis.t.state_dirs[1]: expected a directory below HOME written `~/...` "
        f"(e.g. ~/.mytool), without `..`, got {state_dir!r}"
    )


# A user-defined CLI's command is checked like extra_args; its executable is not a flag.
@pytest.mark.parametrize(
    ("command", "refused"),
    [
        (["agy", "--dangerously-skip-permissions"], "--dangerously-skip-permissions"),
        (["mycodex", "exec", "--full-auto"], "--full-auto"),
        (["g", "--approval-mode", "yolo"], "--approval-mode yolo"),
        (["g", "--approval-mode=yolo"], "--approval-mode=yolo"),
    ],
)
def test_a_bypass_flag_in_a_user_defined_clis_command_is_refused(command, refused):
    with pytest.raises(ConfigError) as caught:
        cli_of({"command": command}, "t")
    assert str(caught.value) == (
        "config: clis.t.command: flags that bypass approvals or sandboxes are never passed; "
        f"remove it, got {refused!r}"
    )


def test_extra_args_are_checked_on_a_user_defined_cli_too():
    with pytest.raises(ConfigError, match=r"clis\.t\.extra_args: flags that bypass"):
        cli_of({"command": ["t"], "extra_args": ["--yolo"]}, "t")


def test_ordinary_flags_in_a_command_and_extra_args_are_taken():
    settings = cli_of({"command": ["t", "--quiet", "--mode", "safe"], "extra_args": ["-v"]}, "t")
    assert settings.command == ("t", "--quiet", "--mode", "safe")
    assert settings.extra_args == ("-v",)


@pytest.mark.parametrize(
    ("output", "problem"),
    [
        ("file", "output: file needs {answer_file} in the command, where the CLI writes"),
        ("json:", "expected stdout, file or json:<dotted.path>"),
        ("json:.", "expected stdout, file or json:<dotted.path>"),
    ],
)
def test_an_output_mode_that_cannot_work_is_refused(output, problem):
    with pytest.raises(ConfigError) as caught:
        cli_of({"command": ["t"], "output": output}, "t")
    assert f"config: clis.t.output: {problem}" in str(caught.value)


def test_a_built_in_cli_cannot_take_another_adapter():
    with pytest.raises(ConfigError) as caught:
        cli_of({"adapter": "sim"})
    assert str(caught.value) == (
        "config: clis.codex.adapter: a built-in CLI keeps its own adapter (codex), got 'sim'"
    )


@pytest.mark.parametrize("adapter", ["gpt", "custom"])
def test_a_variant_of_an_unknown_adapter_is_refused_listing_the_built_in_ones(adapter):
    # `custom` is no adapter a user names: a user-defined CLI has `command:` and no `adapter:`
    with pytest.raises(ConfigError) as caught:
        cli_of({"adapter": adapter, "command": ["t"]}, "t")
    assert str(caught.value) == (
        "config: clis.t.adapter: expected one of claude, codex, gemini, qwen, kimi, pi, sim, "
        f"got {adapter!r}"
    )


def test_a_user_defined_cli_without_a_command_is_refused(place):
    place.project("clis:\n  mytool: {model: x, timeout_s: 30}\n")
    assert place.refused() == (
        f"{place.project_file}: clis.mytool: a user-defined CLI needs `command:` (or "
        "`adapter:` one of claude, codex, gemini, qwen, kimi, pi, sim)"
    )
