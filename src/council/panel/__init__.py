"""A panel of seats: the machinery every protocol (the debate, the review) runs its seats on.

Each seat is a task that owns one CLI (`seats.SeatWorker`) and calls it only when an `ACTION:`
DM on the in-process bus (`bus`) tells it to; `calls.call_cli` is the one path every model
call takes. The `roster` starts the seats in parallel, waits for READY (restart once, then
drop) and shuts them down; `dispatch` renders a phase's prompt, sends it, and gathers the
replies with the progressive wait (docs/spec/protocol.md, "Timeouts and progressive wait");
the `journal` saves the run's state after every change; `drive` runs a protocol under signal
handling. A protocol decides what to ask whom and when; nothing here knows a phase.
"""
