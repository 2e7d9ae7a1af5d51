"""`gather_context`: which files may be shared (all refusals in one error), binary files, and
the line caps per file and in all."""

from __future__ import annotations

import os
import struct
import zlib
from pathlib import Path

import pytest

from context.tree import numbered, write
from council.context import gather_context
from council.context.files import head_tail_sizes
from council.context.paths import find_root
from council.context.redact import Redactor
from council.errors import UsageError


def test_paths_are_resolved_against_the_current_directory_and_shown_from_the_root(project):
    write(project, "pkg/mod.py", "x = 1\n")
    ctx = gather_context(["mod.py"], cwd=project / "pkg")
    assert ctx.root == project.resolve()
    assert [f.path for f in ctx.files] == ["pkg/mod.py"]
    assert ctx.files[0].text == "x = 1"
    assert (ctx.files[0].lines_total, ctx.files[0].lines_sent) == (1, 1)


def test_without_git_the_root_is_the_current_directory(tmp_path):
    plain = tmp_path / "plain"
    plain.mkdir()
    assert find_root(plain) == plain.resolve()


def test_every_bad_path_is_reported_in_one_usage_error(project, tmp_path):
    write(project, "ok.py", "ok = True\n")
    write(project, ".env", "A=1\n")
    write(project, "keys/server.pem", "x\n")
    (project / "src").mkdir()
    write(tmp_path, "outside.py", "x = 1\n")
    with pytest.raises(UsageError) as caught:
        gather_context(
            ["ok.py", "missing.py", "src", "../outside.py", ".env", "keys/server.pem"],
            cwd=project,
        )
    message = str(caught.value)
    assert caught.value.exit_code == 2
    assert message.startswith("cannot use 5 files: ")
    assert "missing.py: no such file" in message
    assert "src: is a directory (name the files inside it)" in message
    assert "../outside.py: is outside the project root" in message
    assert "(pass --allow-outside)" in message
    assert ".env: may hold secrets (by its name) (pass --allow-secrets" in message
    assert "keys/server.pem: may hold secrets" in message
    assert "ok.py" not in message
    assert "\n" not in message  # the CLI prints it as one line


def test_a_symlink_pointing_outside_the_root_is_refused(project, tmp_path):
    secret = write(tmp_path, "elsewhere/notes.py", "x = 1\n")
    (project / "link.py").symlink_to(secret)
    with pytest.raises(UsageError, match=r"link\.py: points outside the project root"):
        gather_context(["link.py"], cwd=project)


def test_a_symlink_to_a_secret_file_is_refused_by_its_target_name(project):
    write(project, ".env", "DB_PASSWORD=x1y2z3\n")
    (project / "settings.txt").symlink_to(project / ".env")
    with pytest.raises(UsageError, match=r"settings\.txt: may hold secrets"):
        gather_context(["settings.txt"], cwd=project)


def test_allow_outside_admits_outside_files_under_a_neutral_name(project, tmp_path):
    write(tmp_path, "elsewhere/outside.py", "x = 1\n")
    ctx = gather_context(["../elsewhere/outside.py"], cwd=project, allow_outside=True)
    assert [f.path for f in ctx.files] == ["_outside/outside.py"]
    assert str(tmp_path) not in ctx.files[0].path


def test_allow_secrets_and_allow_files_lift_the_name_refusal(project):
    write(project, ".env.example", "DEBUG=1\n")
    write(project, "certs/ca.pem", "not a key\n")
    ctx = gather_context([".env.example"], cwd=project, allow_secrets=True)
    assert [f.path for f in ctx.files] == [".env.example"]
    ctx = gather_context(
        [".env.example", "certs/ca.pem"], cwd=project, allow_files=[".env.example", "certs/*"]
    )
    assert [f.path for f in ctx.files] == [".env.example", "certs/ca.pem"]


def test_a_fifo_is_refused_instead_of_blocking(project):
    os.mkfifo(project / "pipe")
    with pytest.raises(UsageError, match="pipe: is not a regular file"):
        gather_context(["pipe"], cwd=project)


def test_the_same_file_given_twice_is_sent_once(project):
    write(project, "a.py", "a = 1\n")
    ctx = gather_context(["a.py", "./a.py", str(project / "a.py")], cwd=project)
    assert [f.path for f in ctx.files] == ["a.py"]


def _png() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\x00\xff\x00\x00")
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


def test_a_png_given_as_a_file_is_skipped_with_a_warning(project):
    (project / "logo.png").write_bytes(_png())
    write(project, "a.py", "a = 1\n")
    ctx = gather_context(["logo.png", "a.py"], cwd=project)
    assert [f.path for f in ctx.files] == ["a.py"]
    assert ctx.warnings == ("skipped logo.png: binary file",)


def test_a_nul_byte_past_the_first_8_kib_still_makes_a_file_binary(project):
    (project / "data.txt").write_bytes(b"x = 1\n" * 2000 + b"\0")
    ctx = gather_context(["data.txt"], cwd=project)
    assert (ctx.files, ctx.warnings) == ((), ("skipped data.txt: binary file",))


def test_a_file_over_10_mb_is_skipped_with_its_size(project):
    with (project / "big.log").open("wb") as handle:
        handle.truncate(15_781_266)  # just over 15.05 MiB, sparse: nothing written
    ctx = gather_context(["big.log"], cwd=project)
    assert ctx.warnings == ("skipped big.log: 15.1 MB is over the 10 MB limit",)


def test_a_file_that_is_not_utf8_is_skipped_as_binary(project):
    (project / "latin1.txt").write_bytes("café\n".encode("latin-1"))
    ctx = gather_context(["latin1.txt"], cwd=project)
    assert ctx.files == ()
    assert ctx.warnings == ("skipped latin1.txt: binary file (not valid UTF-8)",)


def test_a_3000_line_file_is_cut_to_200_lines_with_a_marker(project):
    write(project, "big.py", numbered(3000))
    (big,) = gather_context(["big.py"], cwd=project).files
    lines = big.text.split("\n")
    assert (big.lines_total, big.lines_sent, big.truncated) == (3000, 200, True)
    assert len(lines) == 201
    assert lines[:100] == [f"line {i}" for i in range(1, 101)]
    assert lines[100] == "[... 2800 lines left out (lines 101-2900 of 3000) ...]"
    assert lines[101:] == [f"line {i}" for i in range(2901, 3001)]
    assert big.room_text == numbered(3000)  # the room keeps the whole (redacted) file


def test_a_file_of_exactly_the_cap_is_sent_whole(project):
    write(project, "edge.py", numbered(500))
    (edge,) = gather_context(["edge.py"], cwd=project).files
    assert (edge.lines_sent, edge.truncated) == (500, False)


def test_five_600_line_files_stop_at_2000_lines_in_the_order_given(project):
    names = [f"f{i}.py" for i in range(1, 6)]
    for name in names:
        write(project, name, numbered(600, prefix=name))
    ctx = gather_context(names, cwd=project, file_lines=600)
    assert ctx.total_lines_sent == 2000
    assert [f.lines_sent for f in ctx.files] == [600, 600, 600, 200, 0]
    assert [f.truncated for f in ctx.files] == [False, False, False, True, True]
    fourth = ctx.files[3].text.split("\n")
    assert fourth[-1] == "[... 400 more lines not sent: the 2000-line total was reached ...]"
    assert fourth[-2] == "f4.py 200"
    assert ctx.files[4].text == (
        "[... 600 more lines not sent: the 2000-line total was reached ...]"
    )
    assert ctx.warnings == (
        "f4.py: cut to 200 lines, the 2000-line total was reached",
        "f5.py: not sent, the 2000-line total was reached",
    )


def test_with_the_default_caps_capped_files_count_their_sent_lines_toward_the_total(project):
    names = [f"f{i}.py" for i in range(1, 6)]
    for name in names:
        write(project, name, numbered(600, prefix=name))
    ctx = gather_context(names, cwd=project)
    assert [f.lines_sent for f in ctx.files] == [200] * 5
    names = [f"g{i}.py" for i in range(1, 6)]
    for name in names:
        write(project, name, numbered(450, prefix=name))
    ctx = gather_context(names, cwd=project)
    assert [f.lines_sent for f in ctx.files] == [450, 450, 450, 450, 200]
    assert ctx.total_lines_sent == 2000


def test_a_smaller_cap_keeps_a_proportional_head_and_tail():
    assert head_tail_sizes(500) == (100, 100)
    assert head_tail_sizes(50) == (10, 10)
    assert head_tail_sizes(1) == (1, 0)


def test_line_endings_and_a_bom_are_normalised(project):
    (project / "win.py").write_bytes(b"\xef\xbb\xbfa = 1\r\nb = 2\r\n")
    (project / "mac.py").write_bytes(b"a = 1\rb = 2\r")  # classic Mac OS line ends
    win, mac = gather_context(["win.py", "mac.py"], cwd=project).files
    assert win.text == mac.text == "a = 1\nb = 2"
    assert win.lines_total == mac.lines_total == 2


def test_an_empty_file_is_sent_as_empty(project):
    write(project, "empty.py", "")
    (empty,) = gather_context(["empty.py"], cwd=project).files
    assert (empty.text, empty.lines_total, empty.lines_sent) == ("", 0, 0)


def test_the_cut_marker_does_not_count_as_a_sent_line(project):
    write(project, "a.py", numbered(3000))
    write(project, "b.py", numbered(10))
    ctx = gather_context(["a.py", "b.py"], cwd=project, total_lines=150)
    assert [f.lines_sent for f in ctx.files] == [150, 0]
    a_lines = ctx.files[0].text.split("\n")
    assert a_lines[100].startswith("[... 2800 lines left out")
    assert a_lines[-1] == "[... 50 more lines not sent: the 150-line total was reached ...]"
    assert len(a_lines) == 150 + 2  # the lines sent, the cut marker and the note
    assert ctx.files[0].lines_total == 3000  # the file's own size, for "150 of 3000 sent"


def test_code_lines_that_end_like_a_marker_count_as_lines_sent(project):
    # `[1, 2, ...]` ends as the cut markers do, but starts otherwise: it is content.
    write(project, "a.py", "".join(f"v{i} = [{i}, ...]\n" for i in range(200)))
    (a,) = gather_context(["a.py"], cwd=project, total_lines=150).files
    lines = a.text.split("\n")
    assert (a.lines_sent, len(lines)) == (150, 151)
    assert lines[-2] == "v149 = [149, ...]"


def test_files_are_redacted_and_counted_per_file(project):
    write(project, "config/db.yaml", "db:\n  password: hunter2-Secret9\n  user: app\n")
    write(project, "a.py", "x = 1\n")
    ctx = gather_context(["config/db.yaml", "a.py"], cwd=project)
    db, plain = ctx.files
    assert "hunter2-Secret9" not in db.text and "hunter2-Secret9" not in (db.room_text or "")
    assert (db.redactions, dict(db.redaction_kinds)) == (1, {"password": 1})
    assert plain.redactions == 0
    assert ctx.total_redactions == 1


def test_the_config_extra_patterns_apply_to_every_file(project):
    write(project, "a.py", 'HOST = "build-42.corp.example"\n')
    ctx = gather_context(["a.py"], cwd=project, redactor=Redactor([r"build-\d+\.corp\.example"]))
    assert ctx.files[0].text == 'HOST = "[REDACTED:custom]"'


def test_the_language_of_each_file_is_known_for_its_fence(project):
    for name in ("a.py", "b.ts", "c.yaml", "Dockerfile", "d.unknown"):
        write(project, name, "x\n")
    ctx = gather_context(["a.py", "b.ts", "c.yaml", "Dockerfile", "d.unknown"], cwd=project)
    assert [f.language for f in ctx.files] == ["python", "typescript", "yaml", "dockerfile", ""]


def test_env_files_are_fenced_as_dotenv_when_allowed(project):
    for name in (".env.production", "deploy/app.env", ".ENV"):
        write(project, name, "LOG_LEVEL=info\n")
    ctx = gather_context(
        [".env.production", "deploy/app.env", ".ENV"], cwd=project, allow_secrets=True
    )
    assert [f.language for f in ctx.files] == ["dotenv", "dotenv", "dotenv"]


def test_no_files_give_an_empty_context(project):
    ctx = gather_context([], cwd=project)
    assert (ctx.files, ctx.diff, ctx.total_lines_sent) == ((), None, 0)


def test_a_file_over_the_read_limit_is_skipped_with_a_warning(project, monkeypatch):
    monkeypatch.setattr("council.context.files.MAX_READ_BYTES", 10)
    write(project, "log.txt", "x" * 100 + "\n")
    ctx = gather_context(["log.txt"], cwd=project)
    assert ctx.files == ()
    assert ctx.warnings[0].startswith("skipped log.txt: ")


def test_paths_shown_are_posix_and_relative(project):
    write(project, "a/b/c.py", "x\n")
    (c,) = gather_context([str(Path("a") / "b" / "c.py")], cwd=project).files
    assert c.path == "a/b/c.py"


def test_a_megabyte_line_is_cut_in_prompts_and_kept_whole_in_the_room(tmp_path):
    from council.context.files import LINE_CHARS, cap_file

    line = "x" * 5_000_000
    capped = cap_file(["short", line, "end"], 500)
    kept = capped.text.split("\n")
    assert kept[0] == "short" and kept[2] == "end" and capped.truncated
    assert (
        kept[1]
        == "x" * LINE_CHARS
        + f" [... {5_000_000 - LINE_CHARS:,} more characters of this line left out ...]"
    )
    assert capped.lines_sent == 3  # the cut line still counts as the line it is
