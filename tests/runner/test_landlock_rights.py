"""The Landlock binding itself (`runner/landlock.py`), right by right: what a thread confined by
`restrict_thread` (and every process it starts) may still do beneath the paths it was given and
what it may no longer do anywhere else, at each Landlock ABI council knows; the ABI `council
doctor` reports; and the error a user reads when the confinement cannot be applied.

The kernel's ABI is asked here with a syscall of the test's own, so that a binding that wrongly
answers "no Landlock" fails these tests instead of skipping them."""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import resource
import stat
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import TypeVar

import pytest

from council.runner import landlock
from council.runner.landlock import LandlockError

T = TypeVar("T")


def _kernel_abi() -> int:
    """landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION), asked directly."""
    if platform.system() != "Linux":
        return 0
    libc = ctypes.CDLL(None)
    libc.syscall.restype = ctypes.c_long
    version = libc.syscall(ctypes.c_long(444), ctypes.c_void_p(0), ctypes.c_size_t(0), 1)
    return max(version, 0)


KERNEL_ABI = _kernel_abi()
needs_landlock = pytest.mark.skipif(not KERNEL_ABI, reason="this kernel has no Landlock")
# The ABIs whose rights differ (1: no refer, no truncate; 2: refer; 3: truncate), and this
# kernel's own, which is what council confines its CLIs with.
ABIS = sorted({abi for abi in (1, 2, 3, KERNEL_ABI) if 1 <= abi <= KERNEL_ABI})


def in_thread(work: Callable[[], T]) -> T:
    """Run `work` in a fresh thread (so whatever it confines ends with it) and return what it
    returned, or raise what it raised."""
    outcome: list[T] = []
    failure: list[BaseException] = []

    def run() -> None:
        try:
            outcome.append(work())
        except BaseException as exc:
            failure.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    if failure:
        raise failure[0]
    return outcome[0]


def attempt(action: Callable[[], object]) -> str:
    try:
        action()
    except OSError as exc:
        return errno.errorcode[exc.errno]
    return "ok"


def prepare(place: Path) -> None:
    """What each write below works on: a file, an empty directory and two subdirectories."""
    place.mkdir(exist_ok=True)
    (place / "file.txt").write_text("original\n")
    (place / "empty").mkdir()
    for sub in ("from", "to"):
        (place / sub).mkdir()
    (place / "from" / "moved.txt").write_text("moving\n")


def _write(path: Path) -> None:
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, b"changed\n")
    finally:
        os.close(fd)


def _create(path: Path) -> None:
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))


def every_write(place: Path) -> dict[str, str]:
    """Each kind of write a Landlock right covers, tried in `place`: "ok" or the errno."""
    return {
        "write_file": attempt(lambda: _write(place / "file.txt")),
        "truncate": attempt(lambda: os.truncate(place / "file.txt", 3)),
        "make_reg": attempt(lambda: _create(place / "new.txt")),
        "make_dir": attempt(lambda: os.mkdir(place / "new-dir")),
        "make_sym": attempt(lambda: os.symlink("file.txt", place / "link")),
        "make_fifo": attempt(lambda: os.mkfifo(place / "fifo")),
        "make_sock": attempt(lambda: os.mknod(place / "sock", stat.S_IFSOCK | 0o600)),
        "make_char": attempt(
            lambda: os.mknod(place / "null", stat.S_IFCHR | 0o600, os.makedev(1, 3))
        ),
        "make_block": attempt(
            lambda: os.mknod(place / "loop", stat.S_IFBLK | 0o600, os.makedev(7, 0))
        ),
        "rename_across_dirs": attempt(
            lambda: os.rename(place / "from" / "moved.txt", place / "to" / "moved.txt")
        ),
        "remove_file": attempt(lambda: os.unlink(place / "file.txt")),
        "remove_dir": attempt(lambda: os.rmdir(place / "empty")),
    }


def confined(dirs: list[Path], files: list[Path] = (), *, abi: int = KERNEL_ABI):
    """Confine the calling thread, as council's spawning thread is."""
    landlock.restrict_thread(dirs, files, abi=abi)


def unconfined_device_nodes(tmp_path: Path) -> str:
    """What making a device node gives without Landlock: "ok" with CAP_MKNOD, else EPERM."""
    return attempt(lambda: os.mknod(tmp_path / "probe", stat.S_IFCHR | 0o600, os.makedev(1, 3)))


WRITES = (
    "write_file",
    "truncate",
    "make_reg",
    "make_dir",
    "make_sym",
    "make_fifo",
    "make_sock",
    "make_char",
    "make_block",
    "rename_across_dirs",
    "remove_file",
    "remove_dir",
)


@needs_landlock
@pytest.mark.parametrize("abi", ABIS)
def test_a_confined_thread_writes_every_way_beneath_its_dirs_and_no_way_elsewhere(tmp_path, abi):
    devices = unconfined_device_nodes(tmp_path)
    allowed, elsewhere = tmp_path / "allowed", tmp_path / "elsewhere"
    prepare(allowed)
    prepare(elsewhere)

    def work() -> tuple[dict[str, str], dict[str, str], str]:
        confined([allowed], abi=abi)
        return every_write(allowed), every_write(elsewhere), (elsewhere / "file.txt").read_text()

    inside, outside, read = in_thread(work)
    expected_inside = dict.fromkeys(WRITES, "ok") | {"make_char": devices, "make_block": devices}
    if abi < 2:
        # ABI 1 cannot grant a move between directories, not even beneath an allowed one
        expected_inside["rename_across_dirs"] = "EXDEV"
    assert inside == expected_inside
    expected_outside = dict.fromkeys(WRITES, "EACCES")
    if abi < 3:
        # before ABI 3 Landlock cannot deny truncate(2): the one write left free
        expected_outside["truncate"] = "ok"
    assert outside == expected_outside
    # reading stays free everywhere (and the user's file is as it was, truncated or not)
    assert read == ("ori" if abi < 3 else "original\n")
    assert (elsewhere / "from" / "moved.txt").read_text() == "moving\n"
    assert sorted(p.name for p in elsewhere.iterdir()) == ["empty", "file.txt", "from", "to"]


@needs_landlock
def test_the_confinement_binds_the_processes_the_thread_starts(tmp_path):
    allowed, elsewhere = tmp_path / "allowed", tmp_path / "elsewhere"
    allowed.mkdir()
    elsewhere.mkdir()
    script = "import sys\nfor path in sys.argv[1:]:\n    open(path, 'w').write('x')\n"

    def work() -> subprocess.CompletedProcess:
        confined([allowed])
        return subprocess.run(
            ["python3", "-c", script, str(allowed / "ok.txt"), str(elsewhere / "no.txt")],
            capture_output=True,
            text=True,
        )

    child = in_thread(work)
    assert child.returncode == 1
    assert "PermissionError" in child.stderr
    assert (allowed / "ok.txt").read_text() == "x"
    assert not (elsewhere / "no.txt").exists()


@needs_landlock
def test_a_confined_process_cannot_gain_privileges_through_a_setuid_program(tmp_path):
    """no_new_privs is set for the thread and what it starts (needed for an unprivileged
    thread to restrict itself, and kept for root too)."""

    def work() -> str:
        confined([tmp_path])
        return subprocess.run(
            ["cat", "/proc/self/status"], capture_output=True, text=True, check=True
        ).stdout

    status = in_thread(work)
    assert "NoNewPrivs:\t1" in status.splitlines()


@needs_landlock
def test_a_file_cannot_be_moved_or_linked_across_the_edge_of_the_allowed_dirs(tmp_path):
    allowed, elsewhere = tmp_path / "allowed", tmp_path / "elsewhere"
    prepare(allowed)
    prepare(elsewhere)

    def work() -> tuple[str, str, str]:
        confined([allowed])
        return (
            attempt(lambda: os.rename(elsewhere / "file.txt", allowed / "stolen.txt")),
            attempt(lambda: os.rename(allowed / "file.txt", elsewhere / "planted.txt")),
            # a hard link beneath the allowed dir would make the user's file writable there
            attempt(lambda: os.link(elsewhere / "file.txt", allowed / "linked.txt")),
        )

    assert in_thread(work) == ("EACCES", "EACCES", "EXDEV")
    assert (elsewhere / "file.txt").read_text() == "original\n"
    assert not (elsewhere / "planted.txt").exists()
    assert not (allowed / "linked.txt").exists()


@needs_landlock
@pytest.mark.parametrize("abi", ABIS)
def test_an_allowed_file_may_be_written_and_truncated_but_nothing_beside_it(tmp_path, abi):
    answer = tmp_path / "answer.md"
    answer.write_text("old answer\n")
    (tmp_path / "other.md").write_text("other\n")

    def work() -> dict[str, str]:
        confined([], [answer], abi=abi)
        return {
            "write": attempt(lambda: answer.write_text("new answer\n")),
            "truncate": attempt(lambda: os.truncate(answer, 3)),
            "write_beside": attempt(lambda: _write(tmp_path / "other.md")),
            "create_beside": attempt(lambda: _create(tmp_path / "new.md")),
            "remove": attempt(lambda: os.unlink(answer)),
        }

    assert in_thread(work) == {
        "write": "ok",
        "truncate": "ok",
        "write_beside": "EACCES",
        "create_beside": "EACCES",
        "remove": "EACCES",
    }
    assert answer.read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["answer.md", "other.md"]


@needs_landlock
def test_an_allowed_file_that_is_a_directory_allows_the_whole_directory(tmp_path):
    given = tmp_path / "given"
    prepare(given)
    devices = unconfined_device_nodes(tmp_path)

    def work() -> dict[str, str]:
        confined([], [given])
        return every_write(given)

    assert in_thread(work) == dict.fromkeys(WRITES, "ok") | {
        "make_char": devices,
        "make_block": devices,
    }


@needs_landlock
def test_paths_that_do_not_exist_are_skipped_and_the_rest_still_allowed(tmp_path):
    dirs = [tmp_path / "gone", tmp_path / "a", tmp_path / "missing" / "deeper", tmp_path / "b"]
    files = [tmp_path / "no-answer.md", tmp_path / "answer.md"]
    for directory in (dirs[1], dirs[3]):
        directory.mkdir()
    files[1].write_text("")

    def work() -> list[str]:
        confined(dirs, files)
        return [
            attempt(lambda: _create(dirs[1] / "x")),
            attempt(lambda: _create(dirs[3] / "x")),
            attempt(lambda: _write(files[1])),
            attempt(lambda: os.mkdir(dirs[0])),
            attempt(lambda: _create(files[0])),
        ]

    assert in_thread(work) == ["ok", "ok", "ok", "EACCES", "EACCES"]


@needs_landlock
def test_a_process_started_without_stdin_is_confined_as_any_other(tmp_path):
    """With descriptor 0 closed the ruleset gets descriptor 0, a valid one."""
    allowed = tmp_path / "allowed"
    allowed.mkdir()

    def work() -> tuple[str, str]:
        confined([allowed])
        return attempt(lambda: _create(allowed / "x")), attempt(lambda: _create(tmp_path / "y"))

    saved = os.dup(0)
    os.close(0)
    try:
        result = in_thread(work)
    finally:
        os.dup2(saved, 0)
        os.close(saved)
    assert result == ("ok", "EACCES")


@pytest.fixture
def fresh_libc(monkeypatch):
    """The binding as in a process that has not loaded libc yet (council's first call)."""
    monkeypatch.setattr(landlock, "_libc", None)


@needs_landlock
def test_the_abi_is_the_kernels_when_first_asked_and_after(fresh_libc):
    assert landlock.abi_version() == KERNEL_ABI
    assert landlock.abi_version() == KERNEL_ABI  # libc loaded once, asked again


def test_on_another_system_there_is_no_landlock(monkeypatch):
    monkeypatch.setattr(platform, "system", lambda: "Darwin")
    assert landlock.abi_version() == 0


@pytest.mark.parametrize(
    "libc",
    [
        pytest.param(SimpleNamespace(), id="a libc without syscall(2)"),
        pytest.param(SimpleNamespace(syscall=lambda *args: -1), id="a kernel without Landlock"),
    ],
)
def test_without_landlock_the_abi_is_zero(monkeypatch, libc):
    monkeypatch.setattr(platform, "system", lambda: "Linux")
    monkeypatch.setattr(landlock, "_libc", libc)
    assert landlock.abi_version() == 0


def test_confining_without_landlock_fails_with_enosys(tmp_path):
    with pytest.raises(LandlockError) as raised:
        landlock.restrict_thread([tmp_path], abi=0)
    assert raised.value.errno == errno.ENOSYS
    assert str(raised.value) == f"[Errno {errno.ENOSYS}] Landlock is not available"


@needs_landlock
def test_a_directory_rule_on_a_regular_file_fails_naming_the_call_the_path_and_the_errno(
    tmp_path, fresh_libc
):
    not_a_dir = tmp_path / "state"
    not_a_dir.write_text("a file where a directory was expected\n")

    def work() -> str:
        confined([not_a_dir])
        return attempt(lambda: _create(tmp_path / "after"))

    with pytest.raises(LandlockError) as raised:
        in_thread(work)
    assert raised.value.errno == errno.EINVAL
    assert str(raised.value) == (
        f"[Errno {errno.EINVAL}] landlock_add_rule({not_a_dir}): {os.strerror(errno.EINVAL)}"
    )
    assert in_thread(lambda: attempt(lambda: _create(tmp_path / "free"))) == "ok"


@needs_landlock
def test_out_of_file_descriptors_the_ruleset_fails_naming_the_call_and_the_errno(
    tmp_path, fresh_libc
):
    lowest_free = os.open(os.devnull, os.O_RDONLY)
    os.close(lowest_free)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (lowest_free, hard))
    try:
        with pytest.raises(LandlockError) as raised:
            in_thread(lambda: confined([tmp_path]))
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    assert raised.value.errno == errno.EMFILE
    assert str(raised.value) == (
        f"[Errno {errno.EMFILE}] landlock_create_ruleset: {os.strerror(errno.EMFILE)}"
    )


@needs_landlock
def test_when_no_new_privs_cannot_be_set_the_error_names_it_and_the_errno(tmp_path, monkeypatch):
    def refused() -> int:  # as under a seccomp profile that forbids the prctl
        ctypes.set_errno(errno.EPERM)
        return -1

    monkeypatch.setattr(landlock, "_prctl", refused)
    with pytest.raises(LandlockError) as raised:
        in_thread(lambda: confined([tmp_path]))
    assert raised.value.errno == errno.EPERM
    assert str(raised.value) == (
        f"[Errno {errno.EPERM}] prctl(PR_SET_NO_NEW_PRIVS): {os.strerror(errno.EPERM)}"
    )


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [
        ("effective", ctypes.c_uint32),
        ("permitted", ctypes.c_uint32),
        ("inheritable", ctypes.c_uint32),
    ]


def without_file_capabilities() -> None:
    """Make file permissions bind the calling thread, root or not: drop CAP_DAC_OVERRIDE and
    CAP_DAC_READ_SEARCH from its effective set (capabilities are per thread)."""
    libc = ctypes.CDLL(None, use_errno=True)
    header = _CapHeader(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this thread
    data = (_CapData * 2)()
    if libc.capget(ctypes.byref(header), data):
        raise OSError(ctypes.get_errno(), "capget")
    data[0].effective &= ~((1 << 1) | (1 << 2))
    if libc.capset(ctypes.byref(header), data):
        raise OSError(ctypes.get_errno(), "capset")


@needs_landlock
def test_a_path_that_may_be_written_but_not_read_is_still_allowed(tmp_path):
    """A rule needs only a path descriptor (O_PATH), not the right to read the path."""
    drop_box, answer = tmp_path / "drop-box", tmp_path / "answer.md"
    drop_box.mkdir(mode=0o300)
    answer.write_text("")
    answer.chmod(0o200)

    def work() -> list[str]:
        without_file_capabilities()
        unreadable = attempt(lambda: os.listdir(drop_box)), attempt(answer.read_text)
        assert unreadable == ("EACCES", "EACCES")
        confined([drop_box], [answer])
        return [attempt(lambda: _create(drop_box / "x")), attempt(lambda: _write(answer))]

    assert in_thread(work) == ["ok", "ok"]


@needs_landlock
def test_past_sixteen_nested_confinements_the_error_names_the_call_and_the_errno(tmp_path):
    """Landlock stacks at most 16 layers (a council run inside confined CLIs, 16 deep): the
    17th fails, and the thread keeps the 16 it has."""

    def work() -> str:
        for _ in range(16):
            confined([tmp_path])
        try:
            confined([tmp_path])
        finally:
            assert attempt(lambda: _create(tmp_path.parent / "escaped")) == "EACCES"
        return "confined a 17th time"

    with pytest.raises(LandlockError) as raised:
        in_thread(work)
    assert raised.value.errno == errno.E2BIG
    assert str(raised.value) == (
        f"[Errno {errno.E2BIG}] landlock_restrict_self: {os.strerror(errno.E2BIG)}"
    )
