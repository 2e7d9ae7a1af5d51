"""Fault injection for council-sim, driven by ``COUNCIL_SIM_*`` environment variables.

The variables and their order are documented in the package docstring (``council.sim``).
"""

from __future__ import annotations

import io
import os
import time
from collections.abc import Mapping

from council.sim import prompt as P
from council.words import count_words, cut_words

ENV_VARS: tuple[tuple[str, str], ...] = (
    ("COUNCIL_SIM_PHASES", "comma-separated phases the faults apply to (default: all)"),
    ("COUNCIL_SIM_COUNT_FILE", "append '<phase>\\t<sha256[:12]>' per call (locked)"),
    ("COUNCIL_SIM_IGNORE_SIGTERM", "=1: ignore SIGTERM"),
    ("COUNCIL_SIM_AUTH", "=1: 'Not logged in' on stderr, exit 1"),
    ("COUNCIL_SIM_EXIT", "=<code>: print COUNCIL_SIM_STDERR, exit with <code>"),
    ("COUNCIL_SIM_STDERR", "message for COUNCIL_SIM_EXIT"),
    ("COUNCIL_SIM_RATE_LIMIT", "=<n>: first n calls per prompt fail with a 429"),
    ("COUNCIL_SIM_RETRY_AFTER", "=<s>: add 'retry after <s>s' to the 429 message"),
    ("COUNCIL_SIM_STATE_DIR", "where rate-limit counters live (default: temp dir)"),
    ("COUNCIL_SIM_HANG", "=1: never reply"),
    ("COUNCIL_SIM_DELAY", "=<seconds>: reply that long after the call started"),
    ("COUNCIL_SIM_STARTED_AT", "Unix time the call started (set by council at spawn)"),
    ("COUNCIL_SIM_EMPTY", "=1: exit 0 with no output"),
    ("COUNCIL_SIM_GRANDCHILD", "=1: leave a setsid() grandchild sleeping 3600 s"),
    ("COUNCIL_SIM_GARBAGE", "=1: mix invalid UTF-8 into the reply"),
    ("COUNCIL_SIM_WORDS", "=<n>: reply with exactly n words"),
    ("COUNCIL_SIM_HUGE", "=<bytes>: append that many bytes of filler"),
    ("COUNCIL_SIM_SERVED", "model reported as served: <name>, or <asked>=<served>,..."),
    ("COUNCIL_SIM_OBEY", "roles or models that obey instructions found in fenced material"),
    ("COUNCIL_SIM_REPLY_FILE", "JSON object: phase -> the reply to give in that phase"),
)

DEFAULT_EXIT_STDERR = "council-sim: simulated failure"
AUTH_MESSAGE = "Not logged in · Please run /login (simulated)"
RATE_LIMIT_MESSAGE = "Error: 429 Too Many Requests (simulated rate limit)"
FILLER_SENTENCE = "This sentence is simulated filler added to reach the requested word count."
_FILLER_LINE = b"[SIMULATED filler] the quick brown fox jumps over the lazy dog 0123456789.\n"
_CHUNK = 64 * 1024
# The protocol's sentence ends, including the full-width CJK ones.
_SENTENCE_ENDS = ".!?\u3002\uff01\uff1f"


class FaultConfigError(ValueError):
    """A ``COUNCIL_SIM_*`` variable has a value the sim cannot use."""


def _flag(env: Mapping[str, str], name: str) -> bool:
    return env.get(name, "").strip().lower() not in ("", "0", "false", "no", "off")


def _int(env: Mapping[str, str], name: str, *, negative: bool = False) -> int | None:
    value = env.get(name, "").strip()
    if not value:
        return None
    try:
        number = int(value)
    except ValueError:
        raise FaultConfigError(f"{name} must be an integer, got {value!r}") from None
    if number < 0 and not negative:
        raise FaultConfigError(f"{name} must not be negative, got {value!r}")
    return number


def _float(env: Mapping[str, str], name: str) -> float | None:
    value = env.get(name, "").strip()
    if not value:
        return None
    try:
        number = float(value)
    except ValueError:
        raise FaultConfigError(f"{name} must be a number of seconds, got {value!r}") from None
    if not 0 <= number < float("inf"):  # also rejects nan
        raise FaultConfigError(f"{name} must be finite and not negative, got {value!r}")
    return number


def _script(path: str) -> dict[str, str]:
    """COUNCIL_SIM_REPLY_FILE's replies by phase (none when it is not set)."""
    if not path:
        return {}
    import json

    try:
        with open(path, encoding="utf-8") as source:
            script = json.load(source)
    except (OSError, ValueError) as exc:
        raise FaultConfigError(f"COUNCIL_SIM_REPLY_FILE cannot be read: {exc}") from None
    if not isinstance(script, dict) or not all(isinstance(v, str) for v in script.values()):
        raise FaultConfigError("COUNCIL_SIM_REPLY_FILE must hold a JSON object of strings")
    return {_normal_phase(phase): reply for phase, reply in script.items()}


def _normal_phase(name: str) -> str:
    return "_".join(name.strip().upper().replace("-", " ").split())


class Faults:
    """The fault settings of one invocation, read once from the environment."""

    def __init__(self, env: Mapping[str, str]) -> None:
        phases = env.get("COUNCIL_SIM_PHASES", "")
        self.phases = frozenset(_normal_phase(p) for p in phases.split(",") if p.strip())
        self.count_file = env.get("COUNCIL_SIM_COUNT_FILE") or None
        self.ignore_sigterm = _flag(env, "COUNCIL_SIM_IGNORE_SIGTERM")
        self.auth = _flag(env, "COUNCIL_SIM_AUTH")
        self.exit_code = _int(env, "COUNCIL_SIM_EXIT", negative=True)
        self.exit_stderr = env.get("COUNCIL_SIM_STDERR") or DEFAULT_EXIT_STDERR
        self.rate_limit = _int(env, "COUNCIL_SIM_RATE_LIMIT")
        self.retry_after = env.get("COUNCIL_SIM_RETRY_AFTER", "").strip() or None
        self.state_dir = env.get("COUNCIL_SIM_STATE_DIR") or None
        self.hang = _flag(env, "COUNCIL_SIM_HANG")
        self.delay = _float(env, "COUNCIL_SIM_DELAY")
        self.empty = _flag(env, "COUNCIL_SIM_EMPTY")
        self.grandchild = _flag(env, "COUNCIL_SIM_GRANDCHILD")
        self.garbage = _flag(env, "COUNCIL_SIM_GARBAGE")
        self.words = _int(env, "COUNCIL_SIM_WORDS")
        self.huge = _int(env, "COUNCIL_SIM_HUGE")
        self.scripted = _script(env.get("COUNCIL_SIM_REPLY_FILE", "").strip())
        obey = env.get("COUNCIL_SIM_OBEY", "")
        self.obey = frozenset(n.strip().lower() for n in obey.split(",") if n.strip())
        unknown = self.phases - set(P.PHASES) - {P.UNKNOWN}
        if unknown:
            raise FaultConfigError(
                f"COUNCIL_SIM_PHASES names unknown phase(s): {', '.join(sorted(unknown))}"
            )

    def applies_to(self, phase: str) -> bool:
        return not self.phases or phase in self.phases

    def rate_limit_message(self) -> str:
        if self.retry_after:
            return f"{RATE_LIMIT_MESSAGE} retry after {self.retry_after}s"
        return RATE_LIMIT_MESSAGE


def append_count(path: str, phase: str, digest_hex: str) -> None:
    """Append one ``<phase>\\t<hash12>`` line under an exclusive lock."""
    # fcntl is Unix-only: imported only where a fault needs a lock, so plain replies work anywhere.
    import fcntl

    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.write(fd, f"{phase}\t{digest_hex[:12]}\n".encode())
    finally:
        os.close(fd)  # also releases the lock


def is_rate_limited(state_dir: str | None, digest_hex: str, limit: int) -> bool:
    """Count this call for the prompt; return True while the count is within ``limit``."""
    import fcntl

    if state_dir is None:
        # tempfile is slow to import; only pay for it when the default is needed.
        import tempfile

        state_dir = tempfile.gettempdir()
    os.makedirs(state_dir, exist_ok=True)
    path = os.path.join(state_dir, f"council-sim-ratelimit-{digest_hex}.count")
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        # Read-increment-write must be atomic across parallel calls with the same prompt.
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            calls = int(os.read(fd, 64).decode("ascii", "replace").strip() or "0")
        except ValueError:
            calls = 0
        os.lseek(fd, 0, os.SEEK_SET)
        os.ftruncate(fd, 0)
        os.write(fd, str(calls + 1).encode())
    finally:
        os.close(fd)
    return calls < limit


def hang_forever() -> None:
    """Never return (the caller has to kill the process)."""
    while True:
        time.sleep(3600)


def spawn_grandchild() -> None:
    """Fork a grandchild that leaves the process group and sleeps, holding stdout/stderr open.

    Returns only after the grandchild has called setsid(), so a caller that sees the reply can
    rely on the grandchild already being in its own session.
    """
    ready_r, ready_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(ready_r)
            os.setsid()
            os.write(ready_w, b"1")
            os.close(ready_w)
            time.sleep(3600)
        finally:
            # Never fall back into the sim's own code path (no reply, no atexit, no flush).
            os._exit(0)
    os.close(ready_w)
    os.read(ready_r, 1)
    os.close(ready_r)


def exact_words(text: str, n: int) -> str:
    """Return ``text`` padded with filler sentences or cut so it has exactly ``n`` words."""
    count = count_words(text)
    if count >= n:
        out = cut_words(text, n)
        if out and out[-1] not in _SENTENCE_ENDS and count_words(out + ".") == n:
            out += "."
        return out
    parts = [text] if text else []
    missing = n - count
    filler = FILLER_SENTENCE.split()
    while missing >= len(filler):
        parts.append(FILLER_SENTENCE)
        missing -= len(filler)
    if missing:
        parts.append(" ".join(filler[:missing]).rstrip(".") + ".")
    return " ".join(parts)


def garble(data: bytes) -> bytes:
    """Mix invalid UTF-8 into ``data`` while keeping every readable byte of it."""
    first = data.find(b" ")
    first = len(data) if first < 0 else first
    data = data[:first] + b"\xff\xfe" + data[first:]
    # A lead byte followed by a space is an invalid sequence whatever comes next.
    middle = data.find(b" ", len(data) // 2)
    data = data + b" \xc3 " if middle < 0 else data[:middle] + b" \xc3" + data[middle:]
    return data + b"\x80"


def write_huge(stream: io.BufferedIOBase, size: int) -> None:
    """Write exactly ``size`` bytes of filler text in chunks, flushing after each."""
    chunk = _FILLER_LINE * (_CHUNK // len(_FILLER_LINE) + 1)
    chunk = chunk[:_CHUNK]
    while size > 0:
        piece = chunk if size >= len(chunk) else chunk[:size]
        stream.write(piece)
        stream.flush()
        size -= len(piece)
