"""The signals that stop a run (docs/spec/protocol.md section 6): Ctrl-C and every other
signal that ends a terminal session (SIGTERM, SIGHUP when the terminal closes, SIGQUIT) end
the run as interrupted, never kill council outright; after SIGHUP the terminal is gone and no
more progress is written to it. While a record is being made or handed over, a stop signal
waits until that is done, then stops the command."""

from __future__ import annotations

import io
import os
import signal
import threading
import time
from collections.abc import Iterator

import anyio
import pytest

from council.panel.drive import drive
from council.panel.launch import Stopped, stops_held, stops_raise
from council.progress import Progress

SIGNALS = [signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT]


@pytest.fixture
def survivable(request: pytest.FixtureRequest) -> Iterator[list[int]]:
    """While the test runs, a stop signal nobody else handles is only noted (never the end
    of the test process); the signals noted so."""
    noted: list[int] = []
    before = {sig: signal.signal(sig, lambda n, _f: noted.append(n)) for sig in SIGNALS}
    try:
        yield noted
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)


@pytest.mark.parametrize("sig", SIGNALS, ids=[s.name for s in SIGNALS])
def test_each_stop_signal_interrupts_the_run(sig, survivable):
    ours = signal.getsignal(sig)
    stream = io.StringIO()
    progress = Progress(stream, live=False)

    async def protocol() -> None:
        for _ in range(1000):  # until the run listens for it (a bound on a hang: 10 s)
            if signal.getsignal(sig) is not ours:
                break
            await anyio.sleep(0.01)
        assert signal.getsignal(sig) is not ours, f"the run does not listen for {sig.name}"
        os.kill(os.getpid(), sig)
        await anyio.sleep(60)  # a call still running: the signal must end it
        progress.info("never reached")

    driven = drive(protocol, progress)
    assert driven.interrupted and driven.error is None
    assert survivable == []  # the run took it, not the fallback
    progress.info("after the run")
    shown = stream.getvalue()
    assert "never reached" not in shown
    # After SIGHUP the terminal is gone: nothing more is written to it.
    assert ("after the run" in shown) is (sig != signal.SIGHUP)


@pytest.mark.parametrize("sig", SIGNALS, ids=[s.name for s in SIGNALS])
def test_a_stop_signal_while_a_record_is_made_waits_for_it_then_stops(sig, survivable):
    done: list[str] = []
    with pytest.raises(Stopped) as stopped, stops_raise():
        with stops_held():
            # To this thread, as a terminal's signal reaches a council with one thread (here
            # the test runner's other threads would take a signal sent to the process).
            signal.pthread_kill(threading.main_thread().ident, sig)
            done.append("the record is whole")  # the signal waited
        done.append("after")
    assert done == ["the record is whole"]
    assert str(stopped.value) == sig.name
    assert survivable == []


@pytest.mark.parametrize("sig", SIGNALS, ids=[s.name for s in SIGNALS])
def test_a_stop_signal_another_thread_takes_still_waits_for_the_record(sig, survivable):
    # A council with a second thread (a detached run's reaper): a signal sent to the process
    # may be taken by that thread, which does not hold it back; Python then runs the
    # handler in the main thread at once, in the middle of making the record.
    release = threading.Event()
    other = threading.Thread(target=release.wait, daemon=True)
    other.start()  # before the hold: its mask lets the signal in
    done: list[str] = []
    try:
        with pytest.raises(Stopped) as stopped, stops_raise():
            with stops_held():
                signal.pthread_kill(other.ident, sig)
                for _ in range(30):  # time for the handler to run here, if it would
                    time.sleep(0.01)
                done.append("the record is whole")
            done.append("after")
    finally:
        release.set()
        other.join()
    assert done == ["the record is whole"]
    assert str(stopped.value) == sig.name
    assert survivable == []
