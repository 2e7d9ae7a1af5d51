"""Entry point of ``council-sim`` (also ``python -m council.sim``); see ``council.sim``."""

from __future__ import annotations

import os
import sys
import time

from council import __version__

# COUNCIL_SIM_DELAY counts from the call's start (see _started), so the sim's own start-up is
# part of its latency rather than added to it: a benchmark then knows each call's ideal
# duration exactly, however busy the machine.
_STARTED = time.time()

PROG = "council-sim"


def usage() -> str:
    """Return the ``--help`` text."""
    from council.sim import faults as F

    width = max(len(name) for name, _ in F.ENV_VARS)
    env = "\n".join(f"  {name:<{width}}  {text}" for name, text in F.ENV_VARS)
    return (
        f"usage: {PROG} [--model NAME] [--effort LEVEL] < prompt\n"
        f"       {PROG} --version | --help\n"
        "\n"
        "Offline stand-in for an AI coding CLI: reads a debate prompt on stdin and writes a\n"
        "deterministic [SIMULATED] reply for its phase (ACTION: <PHASE> line) on stdout.\n"
        "\n"
        "options:\n"
        "  --model NAME    model name echoed in the reply's label\n"
        "  --effort LEVEL  accepted for compatibility, ignored\n"
        "  --version       print the version and exit\n"
        "  -h, --help      print this help and exit\n"
        "\n"
        "fault injection (environment):\n"
        f"{env}\n"
    )


class _UsageError(Exception):
    pass


def _parse_args(args: list[str]) -> dict[str, str | None]:
    options: dict[str, str | None] = {"model": None, "effort": None, "action": None}
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in ("--version", "--help", "-h"):
            # The first of --version/--help wins, as in most CLIs.
            options["action"] = options["action"] or ("version" if arg == "--version" else "help")
        elif arg in ("--model", "--effort"):
            if i + 1 >= len(args):
                raise _UsageError(f"option '{arg}' needs a value")
            options[arg[2:]] = args[i + 1]
            i += 1
        elif arg.startswith(("--model=", "--effort=")):
            name, _, value = arg[2:].partition("=")
            options[name] = value
        else:
            raise _UsageError(f"unknown option '{arg}'")
        i += 1
    return options


def _error(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _read_stdin() -> bytes:
    if sys.stdin is None:  # started with fd 0 closed
        return b""
    return sys.stdin.buffer.read()


def _write(data: bytes, huge: int | None) -> int:
    out = sys.stdout.buffer
    try:
        out.write(data)
        out.flush()
        if huge:
            from council.sim.faults import write_huge

            write_huge(out, huge)
    except BrokenPipeError:
        # The caller stopped reading; keep interpreter shutdown from failing on the flush.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return 1
    return 0


def run(args: list[str]) -> int:
    """Run one simulated CLI call and return the exit code."""
    try:
        options = _parse_args(args)
    except _UsageError as exc:
        _error(f"{PROG}: error: {exc}")
        return 2
    if options["action"] == "version":
        print(f"{PROG} {__version__}")
        return 0
    if options["action"] == "help":
        sys.stdout.write(usage())
        return 0
    # Imported only for a real call: `--version` (every READY probe) stays fast.
    import hashlib

    from council.sim import faults as F
    from council.sim import prompt as P
    from council.sim.replies import build_reply

    try:
        faults = F.Faults(os.environ)
    except F.FaultConfigError as exc:
        _error(f"{PROG}: error: {exc}")
        return 2

    # Installed before stdin is read, so a SIGTERM that arrives at any point after the caller
    # has written the prompt is already ignored.
    previous_sigterm = None
    if faults.ignore_sigterm:
        import signal

        previous_sigterm = signal.signal(signal.SIGTERM, signal.SIG_IGN)

    raw = _read_stdin()
    text = raw.decode("utf-8", errors="replace")
    phase = P.detect_phase(text)
    digest_hex = hashlib.sha256(raw).hexdigest()

    if faults.count_file:
        try:
            F.append_count(faults.count_file, phase, digest_hex)
        except OSError as exc:
            _error(f"{PROG}: warning: cannot write COUNCIL_SIM_COUNT_FILE: {exc}")

    active = faults.applies_to(phase)
    if faults.ignore_sigterm and not active:
        import signal

        signal.signal(signal.SIGTERM, previous_sigterm or signal.SIG_DFL)

    if active:
        if faults.auth:
            _error(F.AUTH_MESSAGE)
            return 1
        if faults.exit_code is not None:
            _error(faults.exit_stderr)
            return faults.exit_code
        if faults.rate_limit is not None:
            try:
                limited = F.is_rate_limited(faults.state_dir, digest_hex, faults.rate_limit)
            except OSError as exc:
                _error(f"{PROG}: error: cannot keep the rate-limit count: {exc}")
                return 2
            if limited:
                _error(faults.rate_limit_message())
                return 1
        if faults.hang:
            F.hang_forever()

    # Made before the delay, so that a delayed reply leaves at its time with no work left.
    words = faults.words if active else None
    obey = faults.obey if active else frozenset()
    if active and phase in faults.scripted:
        reply = faults.scripted[phase]
    else:
        reply = build_reply(raw, text, phase, options["model"], limited=words is None, obey=obey)
    if words is not None:
        reply = F.exact_words(reply, words)
    data = (reply + "\n").encode("utf-8") if reply else b""
    if active and faults.garbage:
        data = F.garble(data.rstrip(b"\n")) + b"\n"

    if active:
        if faults.delay:
            time.sleep(max(0.0, _started() + faults.delay - time.time()))
        if faults.empty:
            return 0
        if faults.grandchild:
            F.spawn_grandchild()
    if served := _served(options["model"], os.environ.get("COUNCIL_SIM_SERVED", "")):
        # As a real CLI names the model that answered: its adapter reads this line.
        from council.sim import SERVED_PREFIX

        print(f"{SERVED_PREFIX}{served}", file=sys.stderr, flush=True)
    return _write(data, faults.huge if active else None)


def _served(requested: str | None, aliases: str) -> str | None:
    """The model the simulator says it served: COUNCIL_SIM_SERVED's name for `requested`
    (`asked=served,...`), or its bare name for any request, else `requested` itself; None
    when none was asked for and no bare name is given."""
    bare = None
    for entry in filter(None, (part.strip() for part in aliases.split(","))):
        asked, sep, served = entry.partition("=")
        if not sep:
            bare = asked
        elif asked.strip() == requested:
            return served.strip() or None
    return bare or requested


def _started() -> float:
    """When the call started: the time council's sim adapter stamps at spawn (so the Python
    start-up counts too), else when this module loaded."""
    try:
        stamped = float(os.environ.get("COUNCIL_SIM_STARTED_AT", ""))
    except ValueError:
        return _STARTED
    return min(stamped, _STARTED)  # never a time still to come


def main(argv: list[str] | None = None) -> int:
    """Console-script entry point: ``council-sim [options] < prompt``."""
    return run(sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    sys.exit(main())
