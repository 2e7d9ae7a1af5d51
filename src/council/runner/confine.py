"""Write confinement of a CLI call: where it may write, and starting it confined.

On Linux with Landlock, a CLI may write only beneath its temporary directory, `/dev` and its
own vendor's state directories under HOME (each adapter declares them), and to the answer file
the runner reads back. Everything else fails with EACCES inside the CLI: the user's project,
and the room too, which stays what council put there for every call of the seat (no CLI
council runs writes to its working directory; a room was never writable for a non-root user).
Reading and executing stay free.

The confinement is applied in a fresh thread just before that thread starts the child:
landlock_restrict_self(2) confines only the calling thread, the child inherits it across
fork and exec, and the thread then ends, so council itself is never confined. No
`preexec_fn` (Python code between fork and exec, unsafe with threads) and no launcher process
(~35 ms of interpreter start-up per call): docs/adr/005-landlock-write-confinement.md.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from council.adapters.confinement import state_paths
from council.runner import landlock

if TYPE_CHECKING:
    from council.adapters.base import Adapter

T = TypeVar("T")

# Test-only: set to 1 to run CLIs unconfined (to see what the after-call check reports).
OFF_ENV = "COUNCIL_TEST_NO_LANDLOCK"
# Test-only: more directories (os.pathsep-separated) every CLI may write to: where the test
# suite's fake CLIs keep their call logs.
EXTRA_ENV = "COUNCIL_TEST_WRITABLE"
# The two switches above loosen a user's protection, so they count only where this is set
# too: tests/conftest.py sets it for the suite and every council it starts. Anywhere else a
# stray switch (a copied shell profile, `COUNCIL_TEST_WRITABLE=/`) is ignored and said so.
SUITE_ENV = "COUNCIL_TEST_SUITE"
LOOSENING_ENVS = (OFF_ENV, EXTRA_ENV)


def _in_suite() -> bool:
    return os.environ.get(SUITE_ENV) == "1"


def _set(name: str) -> bool:
    value = os.environ.get(name, "")
    if name == OFF_ENV:
        return value.lower() in ("1", "off", "true", "yes")
    return bool(value.strip(os.pathsep))


def ignored_switches() -> list[str]:
    """The test-only switches set here but ignored: council is not under its test suite."""
    return [] if _in_suite() else [name for name in LOOSENING_ENVS if _set(name)]


def extra_dirs() -> list[Path]:
    """The test suite's extra writable directories (none outside the suite)."""
    if not _in_suite():
        return []
    return [Path(p) for p in os.environ.get(EXTRA_ENV, "").split(os.pathsep) if p]


@dataclass(frozen=True)
class Confinement:
    dirs: tuple[Path, ...]
    files: tuple[Path, ...] = ()


@cache
def kernel_abi() -> int:
    """The kernel's Landlock ABI (asked once per process); 0 when there is none."""
    return landlock.abi_version()


def switched_off() -> bool:
    return _in_suite() and _set(OFF_ENV)


def abi() -> int:
    """The Landlock ABI in force for council's CLI calls; 0 when there is none (or the
    test-only switch turned it off)."""
    return 0 if switched_off() else kernel_abi()


def status_line() -> str:
    """What doctor and the setup report say about write confinement, with any loosening."""
    if version := abi():
        line = f"Landlock ABI {version}: each CLI may write only to its room, temp dir and state"
        if extra := extra_dirs():
            line += f", and to {os.pathsep.join(map(str, extra))} ({EXTRA_ENV}, test-only)"
    elif kernel_abi():
        line = f"Landlock ABI {kernel_abi()}, switched off by {OFF_ENV} (a test-only setting)"
    else:
        line = "Landlock not available: a CLI can write outside its room"
    if ignored := ignored_switches():
        line += f"; {_ignored_text(ignored)}"
    return line


def _ignored_text(names: list[str]) -> str:
    return (
        f"{' and '.join(names)} set but ignored (test-only, honoured only under council's "
        "test suite): unset it"
    )


def ignored_note() -> str | None:
    """A warning for the setup report when a test-only switch is set and ignored."""
    if ignored := ignored_switches():
        return f"{_ignored_text(ignored)}; write confinement is unchanged"
    return None


def missing_note() -> str | None:
    """A warning for the setup report where no write confinement is in force."""
    if abi():
        return None
    why = "switched off" if kernel_abi() else "Landlock not available here"
    return (
        f"no write confinement ({why}): a CLI could change files outside its clean room; "
        "council checks the given files and git status after each call and reports any change"
    )


def call_confinement(
    adapter: Adapter,
    env: Mapping[str, str],
    *,
    tmp_dir: Path | None,
    files: Iterable[Path] = (),
) -> Confinement:
    """Where one call of `adapter`'s CLI may write. The vendor's state directories are
    created first (0700, as the CLI itself would), since a rule needs an existing path."""
    home = Path(env.get("HOME") or Path.home())
    state_dirs, state_files = state_paths(adapter, env, home)
    for directory in state_dirs:
        try:
            directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        except OSError:
            continue  # unwritable HOME: the CLI will say so itself
    # A state path taken by a file gets no rule (the kernel refuses a directory's rights on
    # a file, which would stop the call): the CLI finds it in its way and says so itself.
    dirs = [Path("/dev"), *(d for d in state_dirs if d.is_dir())]
    dirs += extra_dirs()
    if tmp_dir is not None:
        dirs.append(tmp_dir)
    return Confinement(tuple(dirs), (*state_files, *files))


def start_confined(start: Callable[[], T], confinement: Confinement | None) -> T:
    """Run `start` (which forks the child) in a fresh thread confined by `confinement`, and
    return what it returned. Without Landlock or a confinement, `start` runs right here."""
    version = abi()
    if confinement is None or not version:
        return start()
    outcome: list[T] = []
    failure: list[BaseException] = []

    def confined() -> None:
        try:
            landlock.restrict_thread(confinement.dirs, confinement.files, abi=version)
            outcome.append(start())
        except BaseException as exc:  # handed to the caller's thread
            failure.append(exc)

    thread = threading.Thread(target=confined, name="council-confined-spawn", daemon=True)
    thread.start()
    thread.join()
    if failure:
        raise failure[0]
    return outcome[0]
