"""The fake ``gemini``: its trusted-folder gate."""

from __future__ import annotations

from pathlib import Path

from fakes.helpers import PROMPT, run
from fakes.install import FakeClis


def test_gemini_refuses_an_untrusted_folder_with_exit_55(
    fake_clis: FakeClis, env: dict[str, str], room: Path
) -> None:
    untrusted = run(["gemini", "-m", "m"], env, room, stdin=PROMPT)
    skipped = run(["gemini", "-m", "m", "--skip-trust"], env, room, stdin=PROMPT)
    assert untrusted.returncode == 55
    assert untrusted.stderr.decode().startswith("Gemini CLI is not running in a trusted directory")
    assert skipped.returncode == 0
