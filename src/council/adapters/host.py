"""A CLI that council can run inside, as an IDE host: the variables it sets for the
processes it runs (kept from every seat's environment) and where `council install` puts
council's files for it (hosts.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from council.adapters.base import Adapter


class IdeHost(Adapter):
    """A vendor CLI that may be the session council itself runs in."""

    # Variables this CLI sets for the processes it runs (a name, or a prefix ending in `_`):
    # removed from every seat's environment, so a CLI council runs never acts as a child of
    # the IDE session council itself may run in.
    host_markers: ClassVar[tuple[str, ...]] = ()
    # Where its config lives in a project and for the user (None: not read there), the
    # variable that moves the user one, and council's files it reads: (file under skill/,
    # path under the host's directory). No files: council installs nothing for it.
    host_dirs: ClassVar[Mapping[str, str | None]] = {}
    host_dir_env: ClassVar[str | None] = None
    host_files: ClassVar[tuple[tuple[str, str], ...]] = ()
    # The setting the user gives this host so that its model may run `council` with nobody
    # there to approve the command (`claude -p`, `codex exec`, ...): each host asks before it
    # runs a shell command, and a headless one refuses instead. `council skill install`
    # prints it; the README's table says the same.
    host_headless: ClassVar[str] = ""
