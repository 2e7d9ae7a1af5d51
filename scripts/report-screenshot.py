#!/usr/bin/env python3
"""Make docs/report-timeline.png: the top of `council show --html` for a simulated 3-round
debate, rendered by headless Chromium.

    python scripts/report-screenshot.py                 # writes docs/report-timeline.png
    python scripts/report-screenshot.py --out x.png --height 700

The debate runs on simulator seats in a temporary project, with three proxies that show every
kind of bar: `slow` hangs in CHALLENGE until its hard limit kills it (timeout), `tardy`
answers REBUTTAL after the lead moved on without it (late), `flaky` is rate limited once per
prompt and retried. Needs `council` installed (pip install -e .) and `chromium` on PATH.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
QUESTION = "Should this service cache sessions in Redis or Postgres?"
CONFIG = """\
clis:
  slow:
    adapter: sim
    env:
      COUNCIL_SIM_HANG: "1"
      COUNCIL_SIM_PHASES: "CHALLENGE"
  tardy:
    adapter: sim
    env:
      COUNCIL_SIM_DELAY: "1.3"
      COUNCIL_SIM_PHASES: "REBUTTAL"
  flaky:
    adapter: sim
    env:
      COUNCIL_SIM_RATE_LIMIT: "1"
      COUNCIL_SIM_RETRY_AFTER: "0.3"
      COUNCIL_SIM_STATE_DIR: "{state}"
"""
# Chromium flags that keep it off the network and away from any profile.
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
)


def council(project: Path, *args: str) -> str:
    argv = [sys.executable, "-m", "council", *args]
    done = subprocess.run(argv, cwd=project, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"council {' '.join(args)} failed ({done.returncode}):\n{done.stderr}")
    return done.stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "report-timeline.png")
    parser.add_argument("--height", type=int, default=660, help="window height in pixels")
    args = parser.parse_args()
    chromium = shutil.which("chromium")
    if chromium is None:
        sys.exit("chromium is not installed (apt-get install chromium)")
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "project"
        project.mkdir()
        (Path(tmp) / "sim-state").mkdir()
        (project / "app.py").write_text("class SessionStore:\n    def get(self, key): ...\n")
        (project / "council.yaml").write_text(CONFIG.format(state=Path(tmp) / "sim-state"))
        council(project, "debate", QUESTION, "--sim", "--rounds", "3", "--files", "app.py",
                "--with", "slow,tardy,flaky", "--timeout", "slow=1,tardy=1")  # fmt: skip
        report = project / council(project, "show", "last", "--html").strip()
        argv = [
            chromium,
            *CHROMIUM_FLAGS,
            f"--user-data-dir={Path(tmp) / 'profile'}",
            f"--window-size=1280,{args.height}",
            f"--screenshot={args.out.resolve()}",
            report.as_uri(),
        ]
        env = {"PATH": os.environ.get("PATH", os.defpath), "HOME": tmp, "LANG": "C.UTF-8"}
        subprocess.run(argv, env=env, capture_output=True, check=True, stdin=subprocess.DEVNULL)
    print(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
