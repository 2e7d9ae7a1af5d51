"""council run as a user without root's power over permission bits, for the tests of
records and files that user cannot read or write: as root, the project is handed to `nobody`
and council runs as `nobody` (through `setpriv`, which can start this interpreter where it
lives under root's home); as any other user, council runs as that user."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest

from project import Project

NOBODY = 65534


def as_ordinary_user(
    project: Project, *args: str, home: Path, foreign: Iterable[Path] = ()
) -> subprocess.CompletedProcess:
    """`council *args` in `project` as an ordinary user; what is under `foreign` stays
    root's (another user's files, as `sudo council` leaves them)."""
    prefix: list[str] = []
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root without setpriv: cannot drop to an ordinary user")
        prefix = [setpriv, f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
        kept = [Path(p) for p in foreign]
        for path in [project.root, *project.root.rglob("*")]:
            if not any(path == k or path.is_relative_to(k) for k in kept):
                os.chown(path, NOBODY, NOBODY, follow_symlinks=False)
    elif foreign:
        pytest.skip("not root: cannot leave files owned by another user")
    return subprocess.run(
        [*prefix, *project.argv(*args)],
        cwd=project.root,
        env=project.env(HOME=str(home)),
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def open_dir() -> Path:
    """A directory any user may enter (pytest's tmp_path is private to root)."""
    base = Path(tempfile.mkdtemp(prefix="council-user-"))
    os.chmod(base, 0o755)
    return base


@pytest.fixture
def open_project() -> Iterator[Project]:
    """A project in a directory any user may enter."""
    base = open_dir()
    try:
        yield Project(base)
    finally:
        shutil.rmtree(base)
