"""scripts/install-real-clis.sh and scripts/check-cli-drift.sh with a fake `npm` (and a fake
`node`, and a Python that answers `pip index versions`) first on PATH: no registry is asked.

The fake npm serves a registry from a JSON file: `npm view PKG[@VER] FIELD` prints one field,
`npm install --global --prefix DIR ... PKG@VER` writes the package's package.json and its bin
scripts under DIR, and logs the Node that was first on PATH while it installed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
INSTALL = ROOT / "scripts" / "install-real-clis.sh"
DRIFT = ROOT / "scripts" / "check-cli-drift.sh"

FAKE_NPM = r"""#!/usr/bin/env python3
import json, os, subprocess, sys
registry = json.load(open(os.environ["FAKE_NPM_REGISTRY"]))
args = [a for a in sys.argv[1:] if not a.startswith("-")]
def split(spec):
    at = spec.rfind("@")
    return (spec[:at], spec[at + 1:]) if at > 0 else (spec, None)
def record(name, version):
    package = registry.get(name)
    if package is None:
        sys.exit(f"npm error 404 Not Found - GET {name}")
    return package["versions"][version or package["latest"]], version or package["latest"]
if args[0] == "view":
    meta, version = record(*split(args[1]))
    field = args[2]
    value = version if field == "version" else meta.get(field.split(".")[0])
    if field == "engines.node":
        value = (value or {}).get("node")
    if value:
        print(value)
elif args[0] == "install":
    prefix = sys.argv[sys.argv.index("--prefix") + 1]
    name, version = split(args[-1])
    meta, version = record(name, version)
    node = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()
    with open(os.environ["FAKE_NPM_LOG"], "a") as log:
        log.write(json.dumps({"package": name, "node": node}) + "\n")
    home = os.path.join(prefix, "lib", "node_modules", name)
    os.makedirs(home, exist_ok=True)
    with open(os.path.join(home, "package.json"), "w") as out:
        json.dump({"name": name, "version": version, "engines": meta.get("engines", {})}, out)
    os.makedirs(os.path.join(prefix, "bin"), exist_ok=True)
    for binary, script in meta.get("bin", {}).items():
        path = os.path.join(prefix, "bin", binary)
        with open(path, "w") as out:
            out.write(script)
        os.chmod(path, 0o755)
else:
    sys.exit(f"fake npm: {sys.argv[1:]} not emulated")
"""

# pi >= 0.75 as it behaves: dies at import on a Node older than 22.19.
PI_1X = """#!/bin/sh
v="$(node --version)"
case "$v" in
v22.19.* | v22.2* | v2[3-9].*) echo 1.6.0 ;;
*) printf 'SyntaxError: no export named enableCompileCache\\n\\nNode.js %s\\n' "$v" >&2; exit 1 ;;
esac
"""
REGISTRY = {
    "@earendil-works/pi-coding-agent": {
        "latest": "1.6.0",
        "versions": {"1.6.0": {"engines": {"node": ">=22.19.0"}, "bin": {"pi": PI_1X}}},
    },
    "@mariozechner/pi-coding-agent": {
        "latest": "0.73.1",
        "versions": {
            "0.73.1": {
                "engines": {"node": ">=20.0.0"},
                "deprecated": "pi moved: install @earendil-works/pi-coding-agent",
                "bin": {"pi": "#!/bin/sh\necho 0.73.1\n"},
            }
        },
    },
    "@openai/codex": {
        "latest": "0.171.0",
        "versions": {
            "0.171.0": {
                "engines": {"node": ">=16"},
                "bin": {"codex": "#!/bin/sh\necho codex-cli 0.171.0\n"},
            }
        },
    },
    **{
        f"node-linux-{arch}": {
            "latest": "22.23.3",
            "versions": {"22.23.3": {"bin": {"node": "#!/bin/sh\necho v22.23.3\n"}}},
        }
        for arch in ("x64", "arm64")
    },
}
LOCK = """# name source package version
codex   npm  @openai/codex                    0.171.0
pi      npm  @earendil-works/pi-coding-agent  1.6.0   formerly=@mariozechner/pi-coding-agent
node22  npm  node-linux-{arch}                22.23.3
"""


class Machine:
    """A PATH of fakes: npm, a system `node` of a given version, pip for PyPI look-ups."""

    def __init__(self, tmp_path: Path, system_node: str = "v20.20.2") -> None:
        self.tmp = tmp_path
        self.bin = tmp_path / "fakebin"
        self.bin.mkdir()
        self.log = tmp_path / "npm.log"
        self.cache = tmp_path / "cache"
        self.lock = tmp_path / "real-clis.lock"
        self.lock.write_text(LOCK)
        (tmp_path / "registry.json").write_text(json.dumps(REGISTRY))
        self._script("npm", FAKE_NPM)
        self._script("node", f"#!/bin/sh\necho {system_node}\n")
        # The newest kimi-cli on PyPI, as `pip index versions` prints it.
        self._script(
            "python3.12",
            '#!/bin/sh\ncase "$*" in *"index versions"*) echo "kimi-cli (1.52.0)";; esac\n',
        )
        (tmp_path / "home").mkdir()

    def _script(self, name: str, text: str) -> None:
        path = self.bin / name
        path.write_text(text)
        path.chmod(0o755)

    def run(
        self, script: Path, *args: str, python: str = sys.executable
    ) -> subprocess.CompletedProcess[str]:
        env = {
            "PATH": f"{self.bin}:{Path(sys.executable).parent}:/usr/bin:/bin",
            "HOME": str(self.tmp / "home"),
            "FAKE_NPM_REGISTRY": str(self.tmp / "registry.json"),
            "FAKE_NPM_LOG": str(self.log),
            "PYTHON": python,
            "LANG": "C.UTF-8",
        }
        return subprocess.run(
            ["bash", str(script), "--lock", str(self.lock), "--cache", str(self.cache), *args],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )

    def status(self, name: str) -> str:
        return (self.cache / name / "status").read_text().strip()

    def installs(self) -> dict[str, str]:
        """Each package installed, and the Node that was first on PATH while it installed."""
        lines = self.log.read_text().splitlines() if self.log.exists() else []
        return {e["package"]: e["node"] for e in map(json.loads, lines)}


def test_a_cli_that_declares_a_newer_node_than_the_systems_installs_and_runs_on_node22(
    tmp_path,
):
    machine = Machine(tmp_path)
    done = machine.run(INSTALL, "pi", "codex")
    assert done.returncode == 0, done.stderr
    assert machine.status("pi") == "ok 1.6.0"
    assert machine.status("node22") == "ok v22.23.3"
    assert machine.status("codex") == "ok codex-cli 0.171.0"
    # pi's install scripts ran on Node 22 too; codex stayed on the system's.
    assert machine.installs()["@earendil-works/pi-coding-agent"] == "v22.23.3"
    assert machine.installs()["@openai/codex"] == "v20.20.2"
    pi = machine.cache / "pi" / "bin" / "pi"
    assert not pi.is_symlink() and ">=22.19.0" in pi.read_text()
    assert (machine.cache / "codex" / "bin" / "codex").is_symlink()
    ran = subprocess.run([pi, "--version"], capture_output=True, text=True, check=False)
    assert ran.stdout == "1.6.0\n"


def test_a_system_node_new_enough_is_used_and_node22_is_not_installed(tmp_path):
    machine = Machine(tmp_path, system_node="v22.20.0")
    done = machine.run(INSTALL, "pi")
    assert done.returncode == 0, done.stderr
    assert machine.status("pi") == "ok 1.6.0"
    assert (machine.cache / "pi" / "bin" / "pi").is_symlink()
    assert not (machine.cache / "node22").exists()


def test_without_a_node22_line_a_cli_needing_one_fails_its_install_saying_why(tmp_path):
    machine = Machine(tmp_path)
    machine.lock.write_text("\n".join(LOCK.splitlines()[:3]) + "\n")  # no node22 line
    done = machine.run(INSTALL, "pi")
    # One CLI's failure is reported, not a misuse of the script.
    assert done.returncode == 0, done.stderr
    assert machine.status("pi").startswith("failed: pi needs Node >= 22.19.0")
    assert "20.20.2" in machine.status("pi")
    assert "@earendil-works/pi-coding-agent" not in machine.installs()


def test_the_drift_plan_reports_a_package_recorded_as_moved_in_the_lock(tmp_path):
    machine = Machine(tmp_path)
    done = machine.run(DRIFT, "--plan", "pi")
    assert done.returncode == 0, done.stderr
    row = next(line for line in done.stdout.splitlines() if line.startswith("pi "))
    assert row.split()[1:3] == ["1.6.0", "1.6.0"]
    assert row.endswith("moved: @mariozechner/pi-coding-agent -> @earendil-works/pi-coding-agent")


def test_the_drift_check_follows_a_package_deprecated_in_favour_of_a_new_name(tmp_path):
    machine = Machine(tmp_path)
    machine.lock.write_text("pi npm @mariozechner/pi-coding-agent 0.73.1\n")
    done = machine.run(DRIFT, "--plan")
    assert done.returncode == 0, done.stderr
    assert "pi npm @earendil-works/pi-coding-agent 1.6.0" in done.stdout
    row = next(line for line in done.stdout.splitlines() if line.startswith("pi "))
    assert row.split()[1:3] == ["0.73.1", "1.6.0"]
    assert "moved: @mariozechner/pi-coding-agent -> @earendil-works/pi-coding-agent" in row


def _tested(machine: Machine, report: dict, *, pi_failed: list[str]) -> Path:
    """A cache as the installer leaves it (kimi-cli's newest being the archived stub) and
    the report the contract tests wrote."""
    for name, status in (("codex", "ok codex-cli 0.171.0"), ("pi", "ok 1.6.0")):
        (machine.cache / name).mkdir(parents=True)
        (machine.cache / name / "status").write_text(status + "\n")
    kimi = machine.cache / "kimi-cli"
    (kimi / "bin").mkdir(parents=True)
    (kimi / "status").write_text("ok kimi, version 1.52.0\n")
    stub = kimi / "bin" / "kimi"
    stub.write_text("#!/bin/sh\necho 'kimi, version 1.52.0'\n")
    stub.chmod(0o755)
    report = {
        "codex": {"passed": ["test_a", "test_b"]},
        "pi": {"passed": ["test_a"], "failed": pi_failed},
        **report,
    }
    path = machine.tmp / "report.json"
    path.write_text(json.dumps(report))
    machine.lock.write_text(LOCK + "kimi-cli pypi kimi-cli 1.51.0\n")
    return path


@pytest.mark.parametrize("pi_failed", [[], ["test_one_call_is_one_model_request"]])
def test_an_archived_cli_is_its_own_verdict_and_only_a_live_clis_failure_fails_the_run(
    tmp_path, pi_failed
):
    machine = Machine(tmp_path)
    report = _tested(machine, {}, pi_failed=pi_failed)
    table = tmp_path / "table.md"
    done = machine.run(DRIFT, "--from-report", str(report), "--markdown", str(table))
    assert done.returncode == (1 if pi_failed else 0), done.stdout + done.stderr
    rows = {line.split()[0]: line for line in done.stdout.splitlines() if line[:1].islower()}
    assert rows["kimi-cli"].split()[1:4] == ["1.51.0", "1.52.0", "archived"]
    assert "kimi-code" in rows["kimi-cli"]  # council's own hint for the archived release
    assert rows["codex"].split()[3] == "pass"
    assert rows["pi"].split()[3] == ("FAIL" if pi_failed else "pass")
    assert machine.status("kimi-cli").startswith("archived: ")  # so its tests skip
    markdown = table.read_text().splitlines()
    assert markdown[0] == "| CLI | pinned | newest | verdict | note |"
    assert any(line.startswith("| kimi-cli | 1.51.0 | 1.52.0 | archived (") for line in markdown)


def test_a_newest_release_that_did_not_install_fails_the_run(tmp_path):
    machine = Machine(tmp_path)
    report = _tested(machine, {}, pi_failed=[])
    (machine.cache / "codex" / "status").write_text("failed: npm install: E404\n")
    done = machine.run(DRIFT, "--from-report", str(report), "codex", "pi")
    assert done.returncode == 1
    codex = next(line for line in done.stdout.splitlines() if line.startswith("codex "))
    assert "FAIL (install: failed: npm install: E404)" in codex


def test_a_whole_drift_run_installs_the_newest_and_runs_the_contract_tests_with_one_worker(
    tmp_path,
):
    """Timeouts and process trees are measured in those tests: four workers on a loaded
    machine made them flaky. pytest here is a stand-in that records how it was run."""
    machine = Machine(tmp_path)
    args = tmp_path / "pytest-args"
    machine._script(
        "python-for-drift",
        "#!/bin/sh\n"
        'if [ "$1 $2" = "-m pytest" ]; then\n'
        f'  echo "$COUNCIL_REALCLI_CACHE $*" > {args}\n'
        '  echo \'{"pi": {"passed": ["test_a"]}}\' > "$COUNCIL_REALCLI_REPORT"; exit 0\n'
        "fi\n"
        f'exec {sys.executable} "$@"\n',
    )
    done = machine.run(DRIFT, "pi", python=str(machine.bin / "python-for-drift"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert args.read_text().split() == [
        str(machine.cache),
        "-m",
        "pytest",
        "tests/realcli",
        "-q",
        "-p",
        "no:cacheprovider",
        "-n",
        "1",
    ]
    assert machine.installs()["@earendil-works/pi-coding-agent"] == "v22.23.3"
    # The verdict table comes last, after the installer's own.
    pi = [line for line in done.stdout.splitlines() if line.startswith("pi ")][-1]
    assert pi.split()[1:4] == ["1.6.0", "1.6.0", "pass"]
