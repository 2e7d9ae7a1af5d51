"""Install the fake vendor CLIs into a directory that tests put first on PATH.

Tests import this as ``from fakes.install import install_fakes`` (``tests/`` is on pytest's
``pythonpath``). The executables run with the test's own interpreter (their shebang is
``sys.executable``) so they need no virtualenv, no PYTHONPATH and no environment variable:
council runs the CLIs with an allow-listed environment and the fakes must survive that.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .engine import (
    EXIT_FAKE_CONFIG,
    EXIT_FORBIDDEN,
    EXIT_NOT_EMULATED,
    KIMI_VARIANTS,
    LOGIN_PROMPT,
    MODES,
    NEEDS_TTY_MESSAGE,
    TRUST_PROMPT,
    VENDORS,
    expected_answer,
    expected_usage,
)

__all__ = [
    "EXIT_FAKE_CONFIG",
    "EXIT_FORBIDDEN",
    "EXIT_NOT_EMULATED",
    "FAKES_DIR",
    "KIMI_VARIANTS",
    "LOGIN_PROMPT",
    "MODES",
    "NEEDS_TTY_MESSAGE",
    "TRUST_PROMPT",
    "VENDORS",
    "FakeClis",
    "expected_answer",
    "expected_usage",
    "install_fakes",
]

FAKES_DIR = Path(__file__).resolve().parent
"""Directory of the fakes' modules; the executables add it to ``sys.path``."""

# ``-IS``: isolated mode (no PYTHON* variables, no user site, no script dir on sys.path) and no
# ``site`` import. The fakes are stdlib-only, so this keeps whatever environment council hands
# them from changing their behaviour, and it halves their start-up time (``site`` runs every
# ``.pth`` file of the interpreter), which keeps the suites that spawn hundreds of them fast.
# The script imports only ``engine``; ``engine.main`` then imports the one module of its vendor.

_SCRIPT = """#!{python} -IS
import sys
sys.path.insert(0, {fakes_dir!r})
from engine import main
main({name!r})
"""


@dataclass(frozen=True)
class FakeClis:
    """Handle on an installed set of fakes: control them, read what they recorded.

    All state lives in ``bin_dir/.fake/`` so that a fake started with a scrubbed environment,
    in another cwd or in another session still finds it.
    """

    bin_dir: Path
    names: tuple[str, ...] = VENDORS

    @property
    def state_dir(self) -> Path:
        """``bin_dir/.fake``: control files, call records, counters."""
        return self.bin_dir / ".fake"

    def executable(self, name: str) -> Path:
        """Absolute path of the fake ``name``."""
        self._check(name)
        return self.bin_dir / name

    def set(self, name: str, mode: str = "ok", **options: Any) -> None:
        """Select the behaviour of the next invocations of fake ``name``.

        Replaces the whole control file (options are not merged, so repeat ``variant=`` for
        kimi) and resets the ``rate_limit`` counter, so ``times`` counts from this call.
        """
        self._check(name)
        if mode not in MODES:
            raise ValueError(f"unknown fake mode {mode!r}; expected one of {MODES}")
        if name == "kimi" and str(options.get("variant", "kimi-cli")) not in KIMI_VARIANTS:
            raise ValueError(f"unknown kimi variant {options['variant']!r}")
        control = self.state_dir / f"{name}.json"
        tmp = control.with_suffix(".json.tmp")
        tmp.write_text(json.dumps({"mode": mode, "options": options}), encoding="utf-8")
        os.replace(tmp, control)
        (self.state_dir / f"{name}.count").unlink(missing_ok=True)

    def calls(self, name: str) -> list[dict[str, Any]]:
        """The recorded invocations of fake ``name``, oldest first."""
        self._check(name)
        path = self.state_dir / f"{name}.calls.jsonl"
        if not path.exists():
            return []
        lines = path.read_text(encoding="utf-8").splitlines()
        return [json.loads(line) for line in lines if line.strip()]

    def grandchildren(self, name: str) -> list[int]:
        """Pids forked by mode ``grandchild`` of fake ``name`` (alive or not)."""
        return self._pid_file(name, "grandchildren")

    def path_env(self, base_path: str) -> str:
        """``base_path`` with ``bin_dir`` in front, for a child's PATH."""
        return os.pathsep.join([str(self.bin_dir), *filter(None, base_path.split(os.pathsep))])

    def env(self, home: Path, **extra: str) -> dict[str, str]:
        """The minimal environment council gives a CLI: PATH, HOME, LANG, TERM, NO_COLOR."""
        base = {
            "PATH": self.path_env(os.environ.get("PATH", os.defpath)),
            "HOME": str(home),
            "LANG": "C.UTF-8",
            "TERM": "dumb",
            "NO_COLOR": "1",
        }
        return {**base, **extra}

    def pids(self, name: str) -> list[int]:
        """Pid of every invocation of fake ``name`` so far, recorded as the fake starts."""
        return self._pid_file(name, "pids")

    def leftovers(self) -> list[int]:
        """Pids of live processes running one of these fakes (hung fakes, grandchildren).

        Candidates are the pids the fakes wrote down (every invocation and every grandchild,
        even one that escaped into its own session); each is confirmed by its command line
        naming one of this bin_dir's executables, so a recycled pid is never reported.
        Cheaper than scanning every process, which matters when each test calls it.
        """
        import psutil  # council depends on it; imported lazily to keep the fakes stdlib-only

        scripts = {str(self.bin_dir / name) for name in self.names}
        candidates = sorted({p for n in self.names for p in self.pids(n) + self.grandchildren(n)})
        found = []
        for pid in candidates:
            try:
                proc = psutil.Process(pid)
                if proc.status() == psutil.STATUS_ZOMBIE:
                    continue
                cmdline = proc.cmdline()
            except psutil.Error:
                continue
            if any(arg in scripts for arg in cmdline[:3]):
                found.append(pid)
        return found

    def kill_leftovers(self) -> list[int]:
        """SIGKILL every live process of :meth:`leftovers`; return the pids it killed."""
        pids = self.leftovers()
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        return pids

    def _pid_file(self, name: str, kind: str) -> list[int]:
        self._check(name)
        path = self.state_dir / f"{name}.{kind}"
        if not path.exists():
            return []
        return [int(line) for line in path.read_text(encoding="utf-8").split()]

    def _check(self, name: str) -> None:
        if name not in self.names:
            raise ValueError(f"fake {name!r} is not installed (installed: {self.names})")


def install_fakes(bin_dir: Path, names: Iterable[str] | None = None) -> FakeClis:
    """Write the fake executables ``names`` (default: all of ``VENDORS``) into ``bin_dir``."""
    chosen = tuple(VENDORS if names is None else names)
    for name in chosen:
        if name not in VENDORS:
            raise ValueError(f"no fake for {name!r}; available: {VENDORS}")
    python = sys.executable
    if not python or any(c.isspace() for c in python):
        raise RuntimeError(f"cannot use {python!r} in a shebang line")
    bin_dir = Path(bin_dir).resolve()
    (bin_dir / ".fake").mkdir(parents=True, exist_ok=True)
    for name in chosen:
        script = bin_dir / name
        script.write_text(
            _SCRIPT.format(python=python, fakes_dir=str(FAKES_DIR), name=name), encoding="utf-8"
        )
        script.chmod(0o755)
    return FakeClis(bin_dir=bin_dir, names=chosen)
