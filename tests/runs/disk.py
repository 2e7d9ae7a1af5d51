"""A disk that breaks mid-run, for the tests of a record's write failures: the record's own write
functions and the runner's file creation raise the errno a real failure would (a read-only
directory, a full disk), from the moment the disk "breaks" on. In-process: the tests run as
root, whom a read-only directory does not stop."""

from __future__ import annotations

import os
from types import SimpleNamespace

import pytest

from council.runner import sink
from council.runs import record as record_module


class Disk:
    """Breaks on a condition, then fails every record write with `code`."""

    def __init__(self, code: int, breaks_on) -> None:
        self.code = code
        self.breaks_on = breaks_on
        self.broken = False

    def fail(self, path: object) -> None:
        if self.broken:
            raise OSError(self.code, os.strerror(self.code), str(path))

    def patch(self, monkeypatch: pytest.MonkeyPatch) -> None:
        real_json, real_text = record_module.write_json, record_module.write_private
        real_append = record_module.append_private

        def write_json(path, value, **kwargs):
            if not self.broken and self.breaks_on(path, value):
                self.broken = True
            self.fail(path)
            real_json(path, value, **kwargs)

        def write_private(path, text):
            self.fail(path)
            real_text(path, text)

        def append_private(path, line):
            self.fail(path)
            real_append(path, line)

        def open_file(path, flags, mode=0o777):
            if flags & os.O_CREAT:
                self.fail(path)
            return os.open(path, flags, mode)

        monkeypatch.setattr(record_module, "write_json", write_json)
        monkeypatch.setattr(record_module, "write_private", write_private)
        monkeypatch.setattr(record_module, "append_private", append_private)
        fake_os = SimpleNamespace(**{n: getattr(os, n) for n in dir(os) if not n.startswith("_")})
        fake_os.open = open_file
        monkeypatch.setattr(sink, "os", fake_os)
