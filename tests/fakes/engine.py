"""Engine of the fake vendor CLIs used by council's tests: modes, state files, I/O, ``main``.

Each fake is a real executable written by ``install.py``; it puts this directory on
``sys.path``, imports this module and calls ``main(vendor)``, which imports the one module of
that vendor (``claude.py``, ``codex.py``, ``gemini.py``, ``qwen.py``, ``pi.py``, ``kimi.py``)
through ``CLASSES``: a fake never loads the other vendors' modules. The fakes exist so that
council's subprocess handling (argv, stdin, output parsing, failure classification, timeouts,
process-group kills) is exercised against programs that behave like the real CLIs documented
in ``docs/spec/clis.md``, without an account, a network or a Node toolchain.

They are deliberately STRICT: every vendor has a grammar (``grammar.py``: flags, arity,
choices, positionals) and anything outside it fails with that vendor's own argument-parser
message and exit code, so a typo in an adapter's argv fails a test instead of passing silently.
The ``Vendor`` base class every vendor module builds on is in ``vendor.py``.

Control does not go through environment variables, because council passes an allow-listed
environment to the CLIs it runs. Everything lives next to the executable:

- ``<bin_dir>/.fake/<name>.json``: ``{"mode": ..., "options": {...}}`` (missing = mode ``ok``).
- ``<bin_dir>/.fake/<name>.calls.jsonl``: one JSON line per invocation, written before the
  mode's behaviour so a hung or killed fake is still on record.
- ``<bin_dir>/.fake/<name>.count``: invocation counter of mode ``rate_limit`` with ``times``.
- ``<bin_dir>/.fake/<name>.pids``: pid of every invocation, written first thing (even a fake
  stuck reading an open stdin pipe, which has no call record yet, is listed).
- ``<bin_dir>/.fake/<name>.grandchildren``: pids forked by mode ``grandchild``.

Exit codes that no real CLI uses flag a misuse the real CLI would punish differently:
97 = broken control file, 98 = the call would start an interactive UI the fake does not
emulate, 99 = ``kimi`` run with no arguments (kimi-cli 1.52 would download an installer).

Standard library only: the fakes run with the test's interpreter and nothing else. Plain
classes rather than dataclasses, and no typing, pathlib or uuid at run time: every import
costs start-up time, paid on each of the hundreds of fake invocations a test run makes. This
module imports no sibling at import time, so ``install.py`` (which runs inside pytest, where
this directory is the package ``fakes``) can take its constants from it.
"""

from __future__ import annotations

import fcntl
import json
import os
import signal
import sys
import time

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing, collections.abc, pathlib, uuid are too slow to import per call
    from typing import Any

    from vendor import Plan, Vendor

VENDORS = ("claude", "codex", "gemini", "qwen", "pi", "kimi")
"""Executable names of the fakes; each is also the vendor label in the fake answers."""

KIMI_VARIANTS = {
    "kimi-cli": "kimi-cli",
    "1.51.0": "kimi-cli",
    "kimi-code": "kimi-code",
    "2.1.0": "kimi-code",
    "kimi-cli-1.52": "kimi-cli-1.52",
    "1.52.0": "kimi-cli-1.52",
}
"""Accepted values of the ``variant`` option of ``kimi`` and the variant each one selects."""

MODES = (
    "ok",
    "slow",
    "hang",
    "ignore_term",
    "grandchild",
    "crash",
    "garbage",
    "huge",
    "empty",
    "echo",
    "rate_limit",
    "auth",
    "server_error",
    "connection",
    "needs_tty",
    "login_prompt",
    "write_attempt",
)

FAILURE_MODES = ("rate_limit", "auth", "server_error", "connection")

EXIT_FAKE_CONFIG = 97
EXIT_NOT_EMULATED = 98
EXIT_FORBIDDEN = 99

GARBAGE = "\udcff\udcfe"
"""Lone surrogates that ``surrogateescape`` turns into the invalid UTF-8 bytes ``ff fe``."""

NEEDS_TTY_MESSAGE = "Error: this command needs an interactive terminal"
TRUST_PROMPT = "Do you trust the files in this folder? (y/n) "
LOGIN_PROMPT = "Please log in: press Enter to open the browser"


def expected_answer(vendor: str, prompt: str) -> str:
    """Return the deterministic answer of mode ``ok``, so tests can prove the prompt arrived.

    The digest covers the exact prompt (every byte, including trailing newlines); the preview is
    the first 60 characters after collapsing whitespace, so a human can read it in a log.
    """
    import hashlib  # here, not at the top: ``--version`` and failures need no answer (~2 ms)

    digest = hashlib.sha256(prompt.encode("utf-8", "surrogateescape")).hexdigest()[:12]
    preview = " ".join(prompt.split())[:60]
    return f"FAKE-{vendor} answer {digest}: {preview}"


def expected_usage(prompt: str, answer: str) -> tuple[int, int]:
    """Return the input and output token counts a fake reports for a call: about four
    characters a token. Options ``cached_tokens`` and ``reasoning_tokens`` say how many of them
    were read from a prompt cache and spent thinking; each vendor reports those its own way
    (``vendor.Tokens``), and the counts council reads stay these."""
    return max(1, len(prompt) // 4), max(1, len(answer) // 4)


class Done(Exception):
    """The fake's final result: what to print on each stream and the exit code.

    Raised from anywhere (argument parsing, prechecks, failure modes) so the one place that
    writes the call record and the output is ``main``.
    """

    def __init__(self, code: int, stdout: str | bytes = "", stderr: str | bytes = "") -> None:
        super().__init__(code)
        self.code = code
        self.stdout = stdout
        self.stderr = stderr


# --------------------------------------------------------------------------------------------
# The registry: which module and class emulate each vendor
# --------------------------------------------------------------------------------------------

CLASSES = {
    "claude": ("claude", "Claude"),
    "codex": ("codex", "Codex"),
    "gemini": ("gemini", "Gemini"),
    "qwen": ("qwen", "Qwen"),
    "pi": ("pi", "Pi"),
    "kimi-cli": ("kimi", "KimiCli"),
    "kimi-code": ("kimi", "KimiCode"),
    "kimi-cli-1.52": ("kimi", "KimiCliArchived"),
}
"""Module and class of each fake by vendor name (by variant for kimi), imported on first use."""


def make_vendor(vendor: str, options: dict[str, Any]) -> Vendor:
    """Build the vendor object for an executable name (kimi honours option ``variant``)."""
    if vendor == "kimi":
        key = KIMI_VARIANTS.get(str(options.get("variant", "kimi-cli")))
        if key is None:
            raise Done(
                EXIT_FAKE_CONFIG,
                stderr=f"FAKE: unknown kimi variant {options.get('variant')!r}; "
                f"use one of {sorted(KIMI_VARIANTS)}\n",
            )
    elif vendor in VENDORS:
        key = vendor
    else:
        raise Done(EXIT_FAKE_CONFIG, stderr=f"FAKE: no such vendor {vendor!r}\n")
    module, name = CLASSES[key]
    return getattr(__import__(module), name)(options)


# --------------------------------------------------------------------------------------------
# State files, I/O and the modes
# --------------------------------------------------------------------------------------------


def stdin_isatty() -> bool:
    """Whether stdin is a terminal (False when it is closed)."""
    try:
        return os.isatty(0)
    except OSError:
        return False


def _append_line(path: str, obj: Any) -> None:
    """Append one JSON line under an exclusive fcntl lock: concurrent fakes share the file."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "a", encoding="utf-8") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        handle.write(json.dumps(obj) + "\n")
        handle.flush()


def _bump_counter(path: str) -> int:
    """Increment and return the per-fake counter (used by ``rate_limit`` with ``times``)."""
    with open(path, "a+", encoding="utf-8") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        handle.seek(0)
        text = handle.read().strip()
        count = (int(text) if text else 0) + 1
        handle.seek(0)
        handle.truncate()
        handle.write(str(count))
        handle.flush()
    return count


def _write_fd(fd: int, data: str | bytes) -> None:
    """Write everything to a raw fd (no Python buffering: nothing lost on fork or kill)."""
    raw = data.encode("utf-8", "surrogateescape") if isinstance(data, str) else data
    view = memoryview(raw)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _read_stdin() -> str | None:
    """Read stdin to EOF unless it is a TTY or closed; ``None`` when nothing arrived."""
    if stdin_isatty():
        return None
    chunks = []
    while True:
        try:
            chunk = os.read(0, 1 << 16)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    text = b"".join(chunks).decode("utf-8", "surrogateescape")
    return text or None


def _sleep_forever() -> None:
    while True:
        time.sleep(3600)


def _load_control(state: str, name: str) -> tuple[str, dict[str, Any]]:
    path = os.path.join(state, f"{name}.json")
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except FileNotFoundError:
        return "ok", {}
    try:
        control = json.loads(text)
        mode = control.get("mode", "ok")
        options = control.get("options", {}) or {}
    except (ValueError, AttributeError) as exc:
        raise Done(EXIT_FAKE_CONFIG, stderr=f"FAKE: broken control file {path}: {exc}\n") from exc
    if mode not in MODES:
        raise Done(EXIT_FAKE_CONFIG, stderr=f"FAKE: unknown mode {mode!r} in {path}\n")
    return mode, options


def _bin_dir() -> str:
    """The directory of the executable that was run (symlinks resolved): state lives there."""
    main_module = sys.modules.get("__main__")
    script = getattr(main_module, "__file__", None) or sys.argv[0]
    return os.path.dirname(os.path.realpath(script))


class _Recorder:
    """Writes the invocation's call line once, at the latest possible safe moment."""

    def __init__(self, path: str, record: dict[str, Any]) -> None:
        self.path = path
        self.record = record
        self.written = False

    def write(self) -> None:
        if not self.written:
            self.written = True
            _append_line(self.path, self.record)


def _crash(vendor: str) -> Done:
    return Done(
        1,
        stderr=(
            "Traceback (most recent call last):\n"
            f'  File "/opt/{vendor}/cli.py", line 88, in main\n'
            "    run(args)\n"
            f'  File "/opt/{vendor}/cli.py", line 42, in run\n'
            "    raise RuntimeError(message)\n"
            f"RuntimeError: FAKE-{vendor} crashed on purpose\n"
        ),
    )


def _write_attempts(target: Any) -> list[dict[str, Any]]:
    """Try to create ``fake-wrote.txt`` in the cwd and in ``target``; report each outcome."""
    places = [os.getcwd()] + ([str(target)] if target else [])
    results = []
    for place in places:
        path = os.path.join(place, "fake-wrote.txt")
        try:
            with open(path, "w", encoding="utf-8") as handle:
                handle.write("written by a fake CLI\n")
        except OSError as exc:
            results.append({"path": path, "ok": False, "error": str(exc)})
        else:
            results.append({"path": path, "ok": True, "error": None})
    return results


def _interactive_modes(mode: str, recorder: _Recorder) -> None:
    """Modes that emulate a CLI stuck on an interactive question instead of answering."""
    if mode == "needs_tty":
        recorder.write()
        if not stdin_isatty():
            raise Done(1, stderr=NEEDS_TTY_MESSAGE + "\n")
        _write_fd(1, TRUST_PROMPT)
    else:
        recorder.write()
        _write_fd(1, LOGIN_PROMPT + "\n")
    while True:
        try:
            if not os.read(0, 1024):
                break
        except OSError:
            break
    _sleep_forever()


def _run(vendor: str, state: str, recorder: _Recorder) -> Done:
    mode, options = _load_control(state, vendor)
    recorder.record["mode"] = mode
    cli = make_vendor(vendor, options)
    recorder.record["variant"] = cli.variant
    if not sys.argv[1:] and vendor == "kimi":
        raise Done(EXIT_FORBIDDEN, stderr="FAKE: kimi run with no arguments\n")
    plan = cli.plan(sys.argv[1:])
    if plan.warm is not None:
        # One process, many prompts: every turn is recorded by the persistent mode itself.
        recorder.written = True
        __import__("persistent").serve(vendor, cli, plan, state, recorder.record)
    if plan.chdir:
        try:
            os.chdir(plan.chdir)
        except OSError as exc:
            raise Done(
                1, stderr=f"Error: cannot change directory to {plan.chdir}: {exc}\n"
            ) from exc
    cli.precheck(plan, dict(os.environ))
    if mode in ("needs_tty", "login_prompt"):
        _interactive_modes(mode, recorder)
    stdin_text = _read_stdin() if plan.read_stdin else None
    recorder.record["stdin"] = stdin_text
    prompt = "\n\n".join(p for p in (plan.arg_prompt, stdin_text) if p)
    if not prompt.strip():
        raise cli.no_prompt(plan)
    plan.prompt = prompt
    if mode == "write_attempt":
        recorder.record["writes"] = _write_attempts(options.get("target"))
    recorder.write()
    return _behave(vendor, mode, options, cli, plan, prompt, state)


def _behave(
    vendor: str,
    mode: str,
    options: dict[str, Any],
    cli: Vendor,
    plan: Plan,
    prompt: str,
    state: str,
) -> Done:
    """Everything after the record is written: the mode's behaviour."""
    answer = str(options["answer"]) if "answer" in options else expected_answer(vendor, prompt)
    if mode == "rate_limit":
        times = options.get("times")
        if times is None or _bump_counter(os.path.join(state, f"{vendor}.count")) <= int(times):
            raise cli.failure(plan, "rate_limit", options.get("retry_after"))
    elif mode in FAILURE_MODES:
        raise cli.failure(plan, mode, None)
    elif mode == "slow":
        time.sleep(float(options.get("delay", 1.0)))
    elif mode in ("hang", "ignore_term"):
        _sleep_forever()
    elif mode == "crash":
        raise _crash(vendor)
    elif mode == "garbage":
        cut = len(answer) // 2
        answer = f"{answer[:cut]}{GARBAGE}{answer[cut:]} \udcc3("
    elif mode == "empty":
        answer = ""
    elif mode == "echo":
        answer = prompt
    elif mode == "huge":
        remaining = int(options.get("bytes", 1 << 20))
        line = b"x" * 79 + b"\n"
        chunk = line * ((1 << 16) // len(line) + 1)
        while remaining > 0:
            piece = chunk[:remaining]
            _write_fd(1, piece)
            remaining -= len(piece)
    elif mode == "grandchild":
        pid = os.fork()
        if pid == 0:
            os.setsid()
            time.sleep(3600)
            os._exit(0)
        _append_line(os.path.join(state, f"{vendor}.grandchildren"), pid)
    return cli.deliver(plan, answer, prompt)


def main(vendor: str) -> None:
    """Run the fake ``vendor`` CLI with ``sys.argv`` and exit like the real one would."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    state = os.path.join(_bin_dir(), ".fake")
    try:
        if _load_control(state, vendor)[0] == "ignore_term":
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
    except (Done, OSError):
        pass  # reported by _run, which loads the control file again
    record: dict[str, Any] = {
        "argv": sys.argv[1:],
        "cwd": os.getcwd(),
        "env": dict(os.environ),
        "stdin": None,
        "stdin_isatty": stdin_isatty(),
        "pid": os.getpid(),
        "pgid": os.getpgid(0),
        "sid": os.getsid(0),
        "ppid": os.getppid(),
        "time": time.time(),
    }
    _append_line(os.path.join(state, f"{vendor}.pids"), os.getpid())
    recorder = _Recorder(os.path.join(state, f"{vendor}.calls.jsonl"), record)
    try:
        done = _run(vendor, state, recorder)
    except Done as failure:
        done = failure
    recorder.write()
    try:
        if done.stdout:
            _write_fd(1, done.stdout)
        if done.stderr:
            _write_fd(2, done.stderr)
    except BrokenPipeError:
        os._exit(1)
    sys.exit(done.code)
