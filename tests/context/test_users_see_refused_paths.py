"""What a user sees when `--files` names a credentials file or a path that leaves the project:
one line naming the file and the fix, exit 2, nothing sent to any seat (docs/spec/protocol.md
section 4: `.env*`, `*.pem`, `*.key`, `id_rsa*`, `credentials*` refused unless
`--allow-secrets`; a path resolving outside the project root refused unless `--allow-outside`;
docs/mutation.md: `.netrc`, `_netrc`, `.pgpass`, `.git-credentials` too). A file name is a
file name whatever its case: `.ENV` on a case-insensitive disk is the same file as `.env`."""

from __future__ import annotations

from pathlib import Path

import pytest

from council.context import gather_context
from council.errors import UsageError
from project import QUESTION, Project

SECRETS_FIX = "(pass --allow-secrets, or list it under redact.allow_files)"

# Each documented pattern in the case forms people type or that come from other systems.
SECRET_NAMES = [
    ".env",
    ".ENV",
    ".Env.local",
    ".env.production",
    "id_rsa",
    "ID_RSA",
    "id_rsa.pub",
    "Id_Rsa.bak",
    "server.pem",
    "Server.PEM",
    "ca.Pem",
    "tls.key",
    "PRIVATE.KEY",
    "credentials",
    "credentials.json",
    "Credentials.JSON",
    "CREDENTIALS",
    ".netrc",
    ".NETRC",
    "_netrc",
    ".pgpass",
    ".git-credentials",
]

# Names that merely look near one of the patterns: shared as usual.
ORDINARY_NAMES = ["app.py", "environment.md", "keys.py", "pem_notes.txt", "my.env.md.txt"]


def refusal(file_args: list[str], cwd: Path, **flags: bool) -> str:
    with pytest.raises(UsageError) as caught:
        gather_context(file_args, cwd=cwd, **flags)
    return str(caught.value)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    path = tmp_path / "proj"
    (path / ".git").mkdir(parents=True)
    (path / "app.py").write_text("A = 1\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("name", SECRET_NAMES)
def test_a_credentials_file_in_any_case_is_refused_by_name_with_the_fix(root, name):
    (root / name).write_text("TOKEN=abc\n", encoding="utf-8")
    assert refusal([name, "app.py"], root) == (
        f"cannot use 1 file: {name}: may hold secrets (by its name) {SECRETS_FIX}"
    )


@pytest.mark.parametrize("name", SECRET_NAMES)
def test_allow_secrets_lets_each_credentials_file_through(root, name):
    (root / name).write_text("LOG_LEVEL=debug\n", encoding="utf-8")
    context = gather_context([name], cwd=root, allow_secrets=True)
    assert [f.path for f in context.files] == [name]


@pytest.mark.parametrize("name", ORDINARY_NAMES)
def test_a_name_only_near_a_pattern_is_shared(root, name):
    (root / name).write_text("A = 1\n", encoding="utf-8")
    context = gather_context([name], cwd=root)
    assert [f.path for f in context.files] == [name]


@pytest.mark.parametrize("target", [".env", "Server.PEM", "ID_RSA"])
def test_an_innocent_name_linked_to_a_credentials_file_is_refused(root, target):
    (root / target).write_text("TOKEN=abc\n", encoding="utf-8")
    (root / "notes.txt").symlink_to(target)
    assert refusal(["notes.txt"], root) == (
        f"cannot use 1 file: notes.txt: may hold secrets (by its name) {SECRETS_FIX}"
    )


def test_a_link_inside_the_project_to_a_file_outside_is_refused_then_allowed(root, tmp_path):
    (tmp_path / "elsewhere.py").write_text("B = 2\n", encoding="utf-8")
    (root / "shared.py").symlink_to(tmp_path / "elsewhere.py")
    assert refusal(["shared.py"], root) == (
        f"cannot use 1 file: shared.py: points outside the project root {root} "
        "(pass --allow-outside)"
    )
    context = gather_context(["shared.py"], cwd=root, allow_outside=True)
    assert [f.path for f in context.files] == ["shared.py"]


def test_a_path_outside_the_project_is_refused(root, tmp_path):
    (tmp_path / "elsewhere.py").write_text("B = 2\n", encoding="utf-8")
    assert refusal(["../elsewhere.py"], root) == (
        f"cannot use 1 file: ../elsewhere.py: is outside the project root {root} "
        "(pass --allow-outside)"
    )


def test_allow_outside_does_not_lift_the_secrets_refusal(root, tmp_path):
    (tmp_path / ".ENV").write_text("TOKEN=abc\n", encoding="utf-8")
    assert refusal(["../.ENV"], root, allow_outside=True) == (
        f"cannot use 1 file: ../.ENV: may hold secrets (by its name) {SECRETS_FIX}"
    )


# What users run: the whole command, its stderr line and exit code, and no record or seat call.


@pytest.fixture
def user(tmp_path: Path) -> Project:
    return Project(tmp_path)


@pytest.mark.parametrize("name", [".ENV", "Server.PEM", "ID_RSA", "Credentials.json"])
def test_council_debate_refuses_a_credentials_file_before_any_seat_is_asked(user, name):
    (user.root / name).write_text("TOKEN=abc\n", encoding="utf-8")
    run = user.run("debate", QUESTION, "--sim", "--files", name, "app.py")
    assert (run.returncode, run.stderr.strip().splitlines()) == (
        2,
        [f"council: cannot use 1 file: {name}: may hold secrets (by its name) {SECRETS_FIX}"],
    )
    assert run.stdout == ""
    assert sum(user.sim_calls().values()) == 0


def test_council_debate_refuses_a_link_to_dotenv_and_a_link_leaving_the_project(user, tmp_path):
    (user.root / ".env").write_text("TOKEN=abc\n", encoding="utf-8")
    (user.root / "settings.txt").symlink_to(".env")
    (tmp_path / "elsewhere.py").write_text("B = 2\n", encoding="utf-8")
    (user.root / "shared.py").symlink_to(tmp_path / "elsewhere.py")
    run = user.run("debate", QUESTION, "--sim", "--files", "settings.txt", "shared.py")
    assert (run.returncode, run.stderr.strip()) == (
        2,
        "council: cannot use 2 files: "
        f"settings.txt: may hold secrets (by its name) {SECRETS_FIX}; "
        f"shared.py: points outside the project root {user.root} (pass --allow-outside)",
    )
    assert sum(user.sim_calls().values()) == 0


def test_council_debate_shares_an_ordinary_file(user):
    run = user.run("debate", QUESTION, "--sim", "--files", "app.py")
    assert run.returncode == 0, run.stderr
    assert "### app.py\n" in (user.record() / "context.md").read_text()
