"""`sim`: the built-in offline simulator, a real executable installed with council."""

from __future__ import annotations

import sys
import time
from collections.abc import Mapping
from pathlib import Path

import council
from council.adapters.base import AuthState, Billing, Invocation, RawResult, Request, Tool
from council.adapters.confinement import KeepsState
from council.sim import SERVED_PREFIX


class SimAdapter(KeepsState):
    name = "sim"
    vendor = "sim"
    binary = "council-sim"
    install_hint = "reinstall council (the simulator ships with it)"
    sandbox = "offline simulator: reads stdin, writes stdout, touches nothing"
    # Fault injection for tests and benchmarks is driven by these.
    env_prefixes = ("COUNCIL_SIM_",)
    default_seat = False  # only with --sim or when named
    soft_timeout_s = 60.0
    soft_timeout_high_s = 60.0
    efforts = frozenset({"minimal", "low", "medium", "high", "xhigh", "max"})
    # The simulator has no models; the preset's effort reaches it as given.
    strongest_model = None
    strongest_effort = None

    def locate(self) -> tuple[str, ...] | None:
        if self.settings.command:
            return super().locate()
        # The simulator of this very install, started isolated and without site-packages:
        # it needs only the standard library and its own package, and skipping `site` (and
        # whatever .pth files it runs) cuts its start-up from ~70 ms to ~10 ms, so that
        # benchmarks measure council rather than the interpreter.
        package_root = str(Path(council.__file__).resolve().parents[1])
        boot = (
            f"import sys; sys.path.insert(0, {package_root!r}); "
            "from council.sim.__main__ import main; sys.exit(main())"
        )
        return (sys.executable, "-I", "-S", "-c", boot)

    def whole_output(self, tool: Tool) -> bool:
        return False  # plain text

    def build(self, tool: Tool, request: Request) -> Invocation:
        argv = [*tool.command]
        if model := self.model_for(request):
            argv += ["--model", model]
        if effort := self.effort_for(request):
            argv += ["--effort", effort]
        argv += self.settings.extra_args
        # The sim's delays count from here, start-up included, as a model's answer time
        # would: the ideal duration of a benchmark's call is then exactly its delay.
        stamp = {"COUNCIL_SIM_STARTED_AT": repr(time.time())}
        return Invocation(argv=tuple(argv), stdin=request.prompt.encode(), env=stamp)

    def read_model(self, result: RawResult) -> tuple[str, ...]:
        """The model the simulator names on stderr (`council-sim: served by NAME`): its
        `--model`, or what COUNCIL_SIM_SERVED maps it to; () when it names none."""
        for line in reversed(result.stderr.splitlines()):
            if line.startswith(SERVED_PREFIX) and (name := line[len(SERVED_PREFIX) :].strip()):
                return (name,)
        return ()

    def state_paths(
        self, env: Mapping[str, str], home: Path
    ) -> tuple[tuple[Path, ...], tuple[Path, ...]]:
        # Test and benchmark hooks: the call log and the rate-limit counters' directory.
        dirs = (Path(env["COUNCIL_SIM_STATE_DIR"]),) if env.get("COUNCIL_SIM_STATE_DIR") else ()
        files = (Path(env["COUNCIL_SIM_COUNT_FILE"]),) if env.get("COUNCIL_SIM_COUNT_FILE") else ()
        return dirs, files

    def auth_state(self, env: Mapping[str, str], home: Path) -> AuthState:
        return AuthState(True, "needs no login")

    def billing(self, env: Mapping[str, str], home: Path) -> Billing:
        return Billing("none", "the offline simulator")
