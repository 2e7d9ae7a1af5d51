"""The wheel as a user gets it: built from this checkout (or the one CI built, named by
COUNCIL_WHEEL), installed not editable into a fresh virtual environment, and run from an empty
directory outside the checkout, so a file the package reads at run time but the wheel lacks,
or a path into the source tree, fails here and not on a user's machine.

No download is needed beyond the build backend: the new environment sees this environment's
third-party packages (a path file), never its council."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import anyio
import pytest
import yaml
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from council import DISTRIBUTION, __version__

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "src" / "council"
# Shipped beside the package in the source tree, inside it in the wheel (pyproject.toml).
FORCE_INCLUDED = {"prompts": "council/prompts", "skill": "council/skill"}
LIMIT_S = 60  # a bound on the MCP session's waits, never an assertion about speed

pytestmark = pytest.mark.timeout(240)  # a cold build fetches the build backend


def shipped_files() -> set[str]:
    """Every file the source tree ships, by its path in the wheel: the package's modules and
    data (schemas, templates) and the force-included prompts and skill files."""
    found = {
        f"council/{p.relative_to(PACKAGE).as_posix()}"
        for p in PACKAGE.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }
    for source, target in FORCE_INCLUDED.items():
        found |= {
            f"{target}/{p.relative_to(ROOT / source).as_posix()}"
            for p in (ROOT / source).rglob("*")
            if p.is_file()
        }
    return found


def build_wheel(out: Path) -> Path:
    given = os.environ.get("COUNCIL_WHEEL")
    if given:
        return Path(given).resolve()
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(ROOT)],
        check=True,
        capture_output=True,
        timeout=200,
    )
    (wheel,) = out.glob("*.whl")
    return wheel


def third_party_packages(farm: Path) -> Path:
    """A directory of links to this environment's installed packages, less council's own (its
    editable install would shadow the wheel)."""
    farm.mkdir()
    sources = {Path(sysconfig.get_paths()[k]) for k in ("purelib", "platlib")}
    for source in sources:
        for entry in source.iterdir():
            name = entry.name.lower()
            if name.startswith(("council", "_editable_impl_council", "__editable__")) or (
                name.endswith(".pth")
            ):
                continue
            if not (farm / entry.name).exists():
                (farm / entry.name).symlink_to(entry)
    return farm


def fresh_environment(where: Path, wheel: Path) -> Path:
    venv = where / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    target = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    farm = third_party_packages(where / "third-party")
    (Path(target) / "third_party.pth").write_text(f"{farm}\n")
    pip = [sys.executable, "-m", "pip", "--python", str(python)]
    subprocess.run([*pip, "install", "-q", "--no-index", str(wheel)], check=True, timeout=120)
    # The wheel's declared dependencies are all there (no download happened).
    subprocess.run([*pip, "check"], check=True, capture_output=True, timeout=120)
    return venv


class User:
    """An empty git repository outside the checkout, with only the new environment on PATH."""

    def __init__(self, root: Path, venv: Path) -> None:
        self.venv = venv
        self.cwd = root / "work"
        self.cwd.mkdir()
        self.home = root / "home"
        self.home.mkdir()
        self.env = {
            "PATH": os.pathsep.join([str(venv / "bin"), os.defpath]),
            "HOME": str(self.home),
            "LANG": "C.UTF-8",
        }

    def run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [str(self.venv / "bin" / "council"), *args],
            cwd=self.cwd,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
        )
        if check:
            assert done.returncode == 0, f"council {' '.join(args)}: {done.stderr}"
        return done

    def git(self, *args: str) -> str:
        return subprocess.run(
            ["git", *args], cwd=self.cwd, capture_output=True, text=True, check=True
        ).stdout


async def mcp_debate(user: User) -> dict:
    params = StdioServerParameters(
        command=str(user.venv / "bin" / "council"), args=["mcp"], env=user.env, cwd=user.cwd
    )
    with (user.cwd.parent / "server.err").open("a") as errlog, anyio.fail_after(LIMIT_S):
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            tools = {tool.name for tool in (await session.list_tools()).tools}
            assert {"debate", "debate_start", "doctor"} <= tools
            result = await session.call_tool("debate", {"question": "Keep it?", "sim": True})
            assert not result.is_error, result.content
            return result.structured_content


def test_the_wheel_holds_every_file_and_works_installed_from_an_empty_directory(tmp_path):
    wheel = build_wheel(tmp_path / "dist")
    assert wheel.name.startswith(f"{DISTRIBUTION.replace('-', '_')}-{__version__}-")
    names = set(zipfile.ZipFile(wheel).namelist())
    missing = shipped_files() - names
    assert not missing, f"files the package reads that the wheel lacks: {sorted(missing)}"
    dist_info = f"{DISTRIBUTION.replace('-', '_')}-{__version__}.dist-info"
    assert {name.split("/")[0] for name in names} == {"council", dist_info}
    assert f"{dist_info}/licenses/LICENSE" in names
    metadata = zipfile.ZipFile(wheel).read(f"{dist_info}/METADATA").decode()
    assert f"Name: {DISTRIBUTION}\n" in metadata and "License-Expression: MIT" in metadata

    user = User(tmp_path, fresh_environment(tmp_path, wheel))
    where = subprocess.run(
        [str(user.venv / "bin" / "python"), "-c", "import council; print(council.__file__)"],
        cwd=user.cwd,
        env=user.env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert Path(where.strip()).is_relative_to(user.venv)  # the wheel, not this checkout
    user.git("init", "-q")

    assert user.run("--version").stdout == f"council ({DISTRIBUTION}) {__version__}\n"
    debate = user.run("debate", "Should we cache sessions?", "--sim")
    assert debate.stdout.startswith("# DECISION (SIMULATED): Should we cache sessions?")
    (user.cwd / "x.py").write_text("def f(x):\n    return eval(x)\n")
    review = user.run("review", "--files", "x.py", "--sim", check=False)
    assert review.returncode in (0, 6), review.stderr
    # The debate's record by its id: `show --html` of a review is issue #30's.
    record = debate.stderr.split("saved: ", 1)[1].split()[0]
    page = Path(user.run("show", record, "--html").stdout.strip())
    assert (user.cwd / page).read_text().lstrip().lower().startswith("<!doctype html")
    for kind in ((), ("review",), ("config",)):
        assert json.loads(user.run("schema", *kind).stdout)["$schema"]
    user.run("init")
    assert str(tmp_path) not in (user.cwd / "council.yaml").read_text()
    yaml.safe_load((user.cwd / "council.yaml").read_text())
    user.run("config", "show")  # the written file validates against the shipped schema

    user.run("skill", "install", "--host", "claude", "--scope", "project")
    assert (user.cwd / ".claude" / "commands" / "debate.md").is_file()
    user.run("skill", "uninstall", "--host", "claude", "--scope", "project")
    assert not (user.cwd / ".claude").exists() and not (user.cwd / ".council").exists()

    served = anyio.run(mcp_debate, user)
    assert served["decision_markdown"].startswith("# DECISION (SIMULATED): Keep it?")

    # Only what the user chose to keep is left for git: council.yaml and the script reviewed.
    status = user.git("status", "--porcelain", "--untracked-files=all").splitlines()
    assert sorted(status) == ["?? council.yaml", "?? x.py"]
