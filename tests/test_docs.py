"""Every reference into the documentation resolves inside the repository: a docstring or
comment that cites `docs/spec/protocol.md section 3` or `docs/spec/outputs.md "Progress on
stderr"` names a file that exists and a heading it has; the architecture guide names files
that exist."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CITE = re.compile(
    r"(?P<path>docs/(?:spec/[\w.-]+|adr/[\w.-]+|architecture)\.md)"
    r"(?:,?\s+section\s+(?P<section>\d+)|,?\s+\"(?P<heading>[^\"\n]+)\")?"
)


def headings(path: Path) -> list[str]:
    return [
        line.lstrip("#").strip().lower()
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.startswith("#")
    ]


def citations() -> list[tuple[str, re.Match[str]]]:
    found = []
    for base in ("src", "tests", "scripts"):
        for path in sorted((ROOT / base).rglob("*.py")):
            text = " ".join(path.read_text(encoding="utf-8").split())  # join wrapped lines
            for match in CITE.finditer(text):
                found.append((str(path.relative_to(ROOT)), match))
    return found


def test_the_code_cites_the_specification_often():
    assert len(citations()) >= 20


def test_every_cited_document_section_and_heading_exists():
    broken = []
    for where, match in citations():
        target = ROOT / match.group("path")
        if not target.is_file():
            broken.append(f"{where}: {match.group('path')} does not exist")
            continue
        titles = headings(target)
        if (section := match.group("section")) and not any(
            t.startswith(f"{section}.") for t in titles
        ):
            broken.append(f"{where}: {match.group('path')} has no section {section}")
        if (heading := match.group("heading")) and not any(
            t.startswith(heading.lower().rstrip(".")) for t in titles
        ):
            broken.append(f"{where}: {match.group('path')} has no heading {heading!r}")
    assert not broken, "\n".join(broken)


def test_the_architecture_guide_names_files_that_exist():
    guide = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    record_files = {"context.md", "state.json", "result.json", "decision.md"}
    missing = []
    for name in re.findall(r"`([\w/.-]+\.(?:py|j2|json|lock|md))`", guide):
        if name in record_files:
            continue
        if "/" in name:
            found = any((base / name).exists() for base in (ROOT, ROOT / "src" / "council"))
        else:  # a module named in the paragraph about its package
            found = any(ROOT.glob(f"src/**/{name}")) or any(ROOT.glob(f"prompts/{name}"))
        if not found:
            missing.append(name)
    assert not missing, f"docs/architecture.md names files that do not exist: {missing}"


def exit_codes(text: str) -> dict[int, str]:
    """`Exit codes: 0 completed, 2 bad input, ...` as {code: its description}."""
    found = re.search(r"Exit codes: (.*?)(?:\.\s|\.$)", " ".join(text.split()))
    assert found, "no 'Exit codes:' sentence"
    return {
        int(m.group(1)): m.group(2).strip(" ,;")
        for m in re.finditer(r"(?:^|[,;] )(\d+) (.*?)(?=[,;] \d+ |$)", found.group(1))
    }


def test_the_readme_lists_every_exit_code_and_debate_help_agrees_with_it():
    from click.testing import CliRunner

    from council.cli import cli
    from council.errors import ExitCode

    readme = exit_codes((ROOT / "README.md").read_text(encoding="utf-8"))
    assert set(readme) == {code.value for code in ExitCode}, readme
    for command in ("debate", "review", "check"):
        shown = CliRunner().invoke(cli, [command, "--help"], prog_name="council").output
        codes = exit_codes(shown)
        assert set(codes) <= set(readme), (command, codes)
        if command == "debate":  # a debate's codes read as the README says them (it may add)
            differ = {c: (d, readme[c]) for c, d in codes.items() if not readme[c].startswith(d)}
            assert not differ, differ


def test_every_flag_of_debate_and_review_is_in_the_commands_spec():
    """`--help` and docs/spec/commands.md agree: each flag is in the command's section (or is
    one of the global ones the spec lists at its top)."""
    from council.cli import app

    spec = (ROOT / "docs" / "spec" / "commands.md").read_text(encoding="utf-8")
    global_line = next(line for line in spec.splitlines() if line.startswith("Every command"))
    global_line += spec.split("Global:", 1)[1].split("\n\n", 1)[0]
    missing = []
    for name in ("debate", "review", "check"):
        section = spec.split(f"## council {name}", 1)[1].split("\n## ", 1)[0]
        for param in app.cli.commands[name].params:
            for flag in (o for o in param.opts if o.startswith("--")):
                if not re.search(rf"`{flag}\b", section) and flag not in global_line:
                    missing.append(f"council {name} {flag}")
    assert not missing, missing
