"""The realcli contract tests run the real vendor CLIs (installed by
scripts/install-real-clis.sh) against the fake model server. This file brings in the shared
fixtures; the versions tested and how they did are printed at the end of the run by
tests/fakemodel/report.py."""

from __future__ import annotations

from fakemodel.fixtures import fake_model, real_cli

__all__ = ["fake_model", "real_cli"]
