"""The model that served a call, as the runner keeps it: read by the adapter from what the
CLI printed, per attempt, the call's being its last attempt's; a name in a shape the adapter
does not expect is no name, never a failed call."""

from __future__ import annotations

import os

import pytest

from council.adapters.base import RawResult, Status
from council.adapters.sim import SimAdapter
from council.runner import CallFiles, Timeouts, run_call
from runner.sim import sim_tool

pytestmark = pytest.mark.anyio

PROMPT = "ACTION: PROPOSAL\nQuestion: Should we cache sessions in Redis?\n"


def sim_env(**extra: str) -> dict[str, str]:
    own = {k: v for k, v in os.environ.items() if not k.startswith("COUNCIL_SIM_")}
    return {**own, **extra}


async def ask(adapter, record_dir, room, **kw):
    return await run_call(
        adapter,
        await sim_tool(),
        PROMPT,
        room=room,
        files=CallFiles(record_dir, "critic-r1"),
        timeouts=Timeouts(soft_s=20, hard_s=30, grace_s=1),
        **kw,
    )


async def test_the_call_keeps_the_model_the_cli_said_served_it_not_the_one_asked(record_dir, room):
    environ = sim_env(COUNCIL_SIM_SERVED="o3=gpt-5.2")
    outcome = await ask(SimAdapter(), record_dir, room, model="o3", environ=environ)
    assert outcome.status is Status.OK
    assert outcome.served == ("gpt-5.2",)
    assert [a.served for a in outcome.attempts] == [("gpt-5.2",)]


async def test_a_cli_that_names_no_model_leaves_the_call_unreported(record_dir, room):
    outcome = await ask(SimAdapter(), record_dir, room, environ=sim_env())
    assert outcome.status is Status.OK and outcome.served == ()


class GarbledNames(SimAdapter):
    """An adapter meeting a shape of output it did not expect while reading the model."""

    def read_model(self, result: RawResult) -> tuple[str, ...]:
        raise TypeError("'int' object is not subscriptable")


async def test_an_unreadable_model_name_is_no_name_and_the_answer_still_counts(record_dir, room):
    outcome = await ask(GarbledNames(), record_dir, room, model="o3", environ=sim_env())
    assert outcome.status is Status.OK and outcome.text
    assert outcome.served == ()
