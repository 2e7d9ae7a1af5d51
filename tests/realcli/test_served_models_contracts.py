"""The model that answered, against the real CLIs (docs/spec/clis.md, "Served model"): what
each CLI names, read as council records it, when the model server answers as the model it was
asked for, and when it answers as another (`[[fake:served=...]]`, as a gateway that falls
back does). Each CLI names what it knows: the API's own answer (gemini and qwen spawned,
claude warm), the model it asked for (claude spawned, pi, codex's thread, gemini warm), or
nothing (codex exec, qwen warm, both kimis): then the record says "not reported"."""

from __future__ import annotations

import pytest

from council.adapters.base import Status

pytestmark = [pytest.mark.anyio, pytest.mark.realcli]

ASKED, ROUTED = "fake-model", "routed-model"
PI_ASKED = f"fakemodel/{ASKED}"
SOFT_S = 30.0

# What a spawned call names: (when the API answers as asked, when it answers as ROUTED).
SPAWNED = {
    "claude": ((ASKED,), (ASKED,)),  # modelUsage: the model claude called
    "gemini": ((ASKED,), (ROUTED,)),  # stats.models: the API's modelVersion
    "qwen": ((ASKED,), (ROUTED,)),
    "pi": ((PI_ASKED,), (PI_ASKED,)),  # its own provider/model
    "codex": ((), ()),  # exec --json names no model
    "kimi-cli": ((), ()),
    "kimi-code": ((), ()),
}
# What a warm call names when the API answers as ROUTED.
WARM = {
    "claude": (ROUTED,),  # stream-json's assistant messages: the API's own
    "codex": (ASKED,),  # the thread's metadata
    "gemini": (ASKED,),  # ACP's quota
    "pi": (PI_ASKED,),
    "qwen": (),  # ACP names no model
    "kimi-code": (),
}


@pytest.mark.parametrize("cli", list(SPAWNED))
async def test_a_spawned_call_records_the_model_the_real_cli_names(real_cli, cli):
    seat = real_cli(cli)
    as_asked, as_routed = SPAWNED[cli]
    outcome = await seat.ask(f"Question: {cli} served by?", soft=SOFT_S)
    assert outcome.status is Status.OK, (outcome.detail, outcome.stderr_tail)
    assert outcome.served == as_asked
    seat.server.add_rule(client=cli, served_model=ROUTED)
    outcome = await seat.ask(f"Question: {cli} served by another?", soft=SOFT_S)
    assert outcome.status is Status.OK, (outcome.detail, outcome.stderr_tail)
    assert outcome.served == as_routed
    assert {r.model for r in seat.server.requests(cli, answered=True)} == {ASKED}


@pytest.mark.parametrize("cli", list(WARM))
async def test_a_warm_call_records_the_model_the_real_cli_names(real_cli, cli):
    seat = real_cli(cli)
    seat.server.add_rule(client=cli, served_model=ROUTED)
    async with seat.warm_worker() as worker:
        outcome = await seat.ask(f"Question: {cli} served warm by?", soft=SOFT_S, warm=worker)
    assert outcome.status is Status.OK, (outcome.detail, outcome.stderr_tail)
    assert outcome.attempts[-1].warm
    assert outcome.served == WARM[cli]
