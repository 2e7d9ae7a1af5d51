"""The environment allow-list as each vendor's CLI receives it (docs/spec/protocol.md, "Clean
room and environment"; docs/spec/clis.md on each CLI's credentials): one table of (CLI,
variable) -> reaches / does not reach. The variables are every vendor's, generated from the
adapter registry (each adapter's prefixes and names, every IDE host's markers), so a vendor
added tomorrow joins the table; who may receive them is written here from the spec, so a
family given to the wrong CLI (or taken from the right one) fails. Each CLI is the strict fake,
run through the real runner: the environment checked is the one the process got."""

from __future__ import annotations

import pytest
from helpers import warm_calls

from council.adapters import registered
from council.adapters.host import IdeHost
from council.adapters.warm import WarmMode
from vendor_lists import vendor_classes, vendors

pytestmark = pytest.mark.anyio
PROMPT = "ACTION: PROPOSAL\nQuestion: one queue or two?\n"

# Who receives what, as the spec says: a family ends in `_`, a name is exact.
OWN = {
    # ANTHROPIC_*, and under the otherwise removed CLAUDE_CODE_ prefix only the login and
    # provider switches (clis.md: "Bedrock and Vertex: the switches ... reach claude").
    "claude": {
        "ANTHROPIC_",
        "CLAUDE_CODE_OAUTH_TOKEN",
        "CLAUDE_CODE_USE_BEDROCK",
        "CLAUDE_CODE_USE_VERTEX",
        "CLAUDE_CONFIG_DIR",
    },
    # clis.md: "council passes codex CODEX_HOME, CODEX_API_KEY, OPENAI_ORGANIZATION and
    # OPENAI_PROJECT, nothing else of OpenAI's".
    "codex": {"CODEX_HOME", "CODEX_API_KEY", "OPENAI_ORGANIZATION", "OPENAI_PROJECT"},
    "gemini": {"GEMINI_", "GOOGLE_"},
    # OPENAI_API_KEY/BASE_URL/MODEL, QWEN_MODEL/QWEN_OAUTH/QWEN_HOME, DASHSCOPE_API_KEY (clis.md)
    "qwen": {"OPENAI_", "DASHSCOPE_", "QWEN_"},
    "kimi": {"KIMI_", "MOONSHOT_"},
    # pi reads the key variables of many model providers: their families, no cloud account.
    "pi": {
        *("PI_", "OPENAI_", "ANTHROPIC_", "GEMINI_", "OPENROUTER_", "GROQ_", "XAI_"),
        *("MISTRAL_", "CEREBRAS_", "DEEPSEEK_", "AZURE_OPENAI_", "ZAI_", "MINIMAX_"),
        *("MOONSHOT_", "FIREWORKS_", "OPENCODE_"),
        *("HF_TOKEN", "AI_GATEWAY_API_KEY", "KIMI_API_KEY"),
    },
}
# Nobody's vendor family: account-wide credentials reach a CLI only by `pass_env`.
NOBODY = ("AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN", "CLOUDFLARE_API_TOKEN", "MY_TOOL_TOKEN")


def _variable(entry: str) -> str:
    """One variable of a family (`ANTHROPIC_` -> `ANTHROPIC_COUNCIL_PROBE`), or the name."""
    return entry + "COUNCIL_PROBE" if entry.endswith("_") else entry


def _markers() -> set[str]:
    return {
        _variable(m)
        for cls in registered().values()
        if issubclass(cls, IdeHost)
        for m in cls.host_markers
    }


def _every_vendors_variables() -> dict[str, str]:
    """Every variable some adapter lets through, every IDE host's marker and a few of nobody's,
    each with a value of its own."""
    names = {
        _variable(entry)
        for cls in registered().values()
        for entry in (*cls.env_prefixes, *cls.env_names)
    }
    names |= _markers() | set(NOBODY)
    return {name: f"value-of-{name.lower()}" for name in sorted(names)}


def _reaches(cli: str, name: str) -> bool:
    own = OWN[cli]
    if name in own:
        return True  # named exactly: it beats the nesting markers (CLAUDE_CODE_OAUTH_TOKEN)
    if name in _markers():
        return False  # an IDE session's nesting marker reaches no CLI
    return any(entry.endswith("_") and name.startswith(entry) for entry in own)


def test_the_table_covers_every_vendor_the_registry_seats():
    assert set(OWN) == set(vendors())


WARM = [name for name, cls in vendor_classes().items() if issubclass(cls, WarmMode)]
ROWS = [(cli, "spawned") for cli in vendors()] + [(cli, "warm") for cli in WARM]


@pytest.mark.parametrize(("cli", "how"), ROWS)
async def test_each_cli_receives_its_own_vendor_s_variables_and_no_other_s(
    fakes, seat_for, monkeypatch, tmp_path, cli, how
):
    variables = _every_vendors_variables()
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    if cli == "kimi":
        fakes.set("kimi", "ok", variant="kimi-code")  # kimi-cli's warm worker needs a login
    seat = seat_for(cli)
    if how == "spawned":
        await seat.ask(PROMPT)
    else:
        tool = (await seat.resolve()).tool
        launch = seat.adapter.warm_launch(tool, model=None, effort=None)
        (tmp_path / how).mkdir()
        (outcome,) = await warm_calls(seat.adapter, tool, launch, tmp_path / how, [PROMPT])
        assert outcome.attempts[0].warm, outcome
    # every process of the CLI: its `--version` probe, then the call or the warm worker
    calls = fakes.calls(cli)
    assert len(calls) == 2 and (how == "warm") is ("warm" in calls[-1])
    wrong = [
        f"{name}: {'reaches' if name in call['env'] else 'does not reach'} {cli} {call['argv'][:1]}"
        for call in calls
        for name in variables
        if (call["env"].get(name) == variables[name]) != _reaches(cli, name)
    ]
    assert not wrong, "\n".join(wrong)
    # the table is not vacuous: the CLI got some variable of its vendor, and others were kept out
    assert any(_reaches(cli, n) for n in variables)
    assert any(not _reaches(cli, n) for n in variables)
