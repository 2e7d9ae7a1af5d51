"""A run's start holds or turns stop signals into `Stopped` only while it creates or hands over
its record (docs/spec/protocol.md section 6): after each block the process's own handlers and
signal mask are back, so a later Ctrl-C or SIGTERM does what it did before."""

from __future__ import annotations

import signal

import pytest

from council.panel.launch import STOP_SIGNALS, Stopped, stops_held, stops_raise


def handlers() -> dict:
    return {sig: signal.getsignal(sig) for sig in STOP_SIGNALS}


def test_the_handlers_and_the_mask_are_back_after_each_block():
    before, mask = handlers(), signal.pthread_sigmask(signal.SIG_BLOCK, [])
    with stops_raise():
        assert all(signal.getsignal(sig) is not before[sig] for sig in STOP_SIGNALS)
        with stops_held():
            assert set(STOP_SIGNALS) <= signal.pthread_sigmask(signal.SIG_BLOCK, [])
    assert handlers() == before
    assert signal.pthread_sigmask(signal.SIG_BLOCK, []) == mask


def test_a_signal_held_during_a_block_stops_the_start_once_the_block_ends():
    reached_the_end = []
    with pytest.raises(Stopped, match="SIGTERM"), stops_raise(), stops_held():
        signal.raise_signal(signal.SIGTERM)
        reached_the_end.append(True)  # held: the block finishes first
    assert reached_the_end == [True]
