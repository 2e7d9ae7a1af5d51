"""A minimal Landlock binding (Linux >= 5.13): confine the calling thread's writes to a few
paths. ctypes over libc's `syscall(2)`; see docs/adr/005-landlock-write-confinement.md for why
this is council's own and not a PyPI package.

Only write-like rights are handled, so reading and executing stay free everywhere; a handled
right is denied unless a rule grants it beneath a path. `restrict_thread` confines the
*calling thread* only (landlock_restrict_self(2) without the TSYNC flag), and every process
that thread then starts inherits the confinement for good.
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
from collections.abc import Iterable
from pathlib import Path

# The syscall numbers are the same on every architecture Linux added them for (5.13).
_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38

WRITE_FILE = 1 << 1
REMOVE_DIR = 1 << 4
REMOVE_FILE = 1 << 5
MAKE_CHAR = 1 << 6
MAKE_DIR = 1 << 7
MAKE_REG = 1 << 8
MAKE_SOCK = 1 << 9
MAKE_FIFO = 1 << 10
MAKE_BLOCK = 1 << 11
MAKE_SYM = 1 << 12
REFER = 1 << 13  # ABI 2: link or rename across directories
TRUNCATE = 1 << 14  # ABI 3

_ABI1_WRITES = (
    WRITE_FILE
    | REMOVE_DIR
    | REMOVE_FILE
    | MAKE_CHAR
    | MAKE_DIR
    | MAKE_REG
    | MAKE_SOCK
    | MAKE_FIFO
    | MAKE_BLOCK
    | MAKE_SYM
)
# The only rights a rule on a regular file (not a directory) may grant.
_FILE_RIGHTS = WRITE_FILE | TRUNCATE


class LandlockError(OSError):
    pass


class _RulesetAttr(ctypes.Structure):
    # Only `handled_access_fs`: the size passed tells the kernel that network and scope
    # rights are not handled (ABI 4 and 6), so those stay free.
    _fields_ = [("handled_access_fs", ctypes.c_uint64)]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1  # __attribute__((packed)) in linux/landlock.h
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


_libc: ctypes.CDLL | None = None


def _syscall() -> ctypes._CFuncPtr:  # type: ignore[name-defined]
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
    return _libc.syscall


def abi_version() -> int:
    """The kernel's Landlock ABI version; 0 when there is none (not Linux, a kernel before
    5.13, or Landlock not enabled at boot)."""
    if platform.system() != "Linux":
        return 0
    try:
        version = _syscall()(
            ctypes.c_long(_CREATE_RULESET), None, ctypes.c_size_t(0), _CREATE_RULESET_VERSION
        )
    except (OSError, AttributeError):
        return 0
    return max(int(version), 0)


def handled_rights(abi: int) -> int:
    rights = _ABI1_WRITES
    if abi >= 2:
        rights |= REFER
    if abi >= 3:
        rights |= TRUNCATE
    return rights


def restrict_thread(dirs: Iterable[Path], files: Iterable[Path] = (), *, abi: int) -> None:
    """Allow the calling thread (and what it starts) to write only beneath `dirs` and to the
    existing `files`. Paths that do not exist are skipped. Raises LandlockError."""
    if abi < 1:
        raise LandlockError(errno.ENOSYS, "Landlock is not available")
    call = _syscall()
    handled = handled_rights(abi)
    attr = _RulesetAttr(handled)
    ruleset = call(
        ctypes.c_long(_CREATE_RULESET), ctypes.byref(attr), ctypes.c_size_t(ctypes.sizeof(attr)), 0
    )
    if ruleset < 0:
        _raise("landlock_create_ruleset")
    try:
        for path, rights in [
            *((d, handled) for d in dirs),
            *((f, handled & _FILE_RIGHTS) for f in files),
        ]:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue  # nothing there to write into, nothing to allow
            try:
                if rights != handled and os.path.isdir(path):
                    rights = handled  # a "file" that is a directory: the whole directory
                rule = _PathBeneathAttr(rights, fd)
                if call(
                    ctypes.c_long(_ADD_RULE), ruleset, _RULE_PATH_BENEATH, ctypes.byref(rule), 0
                ):
                    _raise(f"landlock_add_rule({path})")
            finally:
                os.close(fd)
        # Without it an unprivileged thread may not restrict itself; it also keeps a setuid
        # program the CLI runs from gaining privileges, which no CLI call needs.
        if _prctl():
            _raise("prctl(PR_SET_NO_NEW_PRIVS)")
        if call(ctypes.c_long(_RESTRICT_SELF), ruleset, 0):
            _raise("landlock_restrict_self")
    finally:
        os.close(ruleset)


def _prctl() -> int:
    assert _libc is not None
    return int(_libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))


def _raise(what: str) -> None:
    code = ctypes.get_errno()
    raise LandlockError(code, f"{what}: {os.strerror(code)}")
