#!/usr/bin/env bash
# Run the realcli contract tests against the NEWEST releases of the vendor CLIs, to catch a
# vendor release that breaks council's argv or parsing before users do. Not run on every CI
# build (the pins in scripts/real-clis.lock are); run it by hand or weekly
# (docs/cli-drift.yml), then move a pin when its CLI passes.
#
# usage: scripts/check-cli-drift.sh [--lock FILE] [--cache DIR] [--markdown FILE]
#                                   [--plan | --from-report FILE] [NAME...]
#   NAME...           only these CLIs (default: every CLI in the lock file)
#   --cache DIR       where the newest releases go (default .cache/real-clis-latest; the
#                     pinned cache is left alone)
#   --markdown FILE   also write the verdict table as Markdown (for an issue or a job summary)
#   --plan            only look the newest releases up and print them: no install, no tests
#   --from-report F   no install and no tests: give the verdicts of the CLIs already in the
#                     cache from a report the tests wrote before (COUNCIL_REALCLI_REPORT)
#
# Follows a package that moved: the lock's `formerly=<old package>` is reported as
# `moved: old -> new`, and a package whose newest release is deprecated in favour of another
# npm package is followed to that one (and reported the same way). Each CLI runs on the Node
# its package declares (scripts/install-real-clis.sh). The tests run with one pytest worker:
# several of them measure timeouts and process trees, which a loaded machine makes flaky.
#
# One verdict per CLI: `pass`; `FAIL (why)`; `archived` when council's own adapter says the
# newest release is an archived stub (kimi-cli 1.52: it cannot answer, and council already
# refuses it with an install hint), which is no failure of the run. Exits 1 only when a live
# CLI's newest release fails (does not install, fails a contract, or cannot be looked up).
set -uo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
LOCK="$ROOT/scripts/real-clis.lock"
CACHE="$ROOT/.cache/real-clis-latest"
MARKDOWN=""
PLAN_ONLY=0
FROM_REPORT=""
ONLY=()
while [ $# -gt 0 ]; do
    case "$1" in
    --lock) LOCK="$2"; shift 2 ;;
    --cache) CACHE="$2"; shift 2 ;;
    --markdown) MARKDOWN="$2"; shift 2 ;;
    --plan) PLAN_ONLY=1; shift ;;
    --from-report) FROM_REPORT="$2"; shift 2 ;;
    -h | --help) sed -n '2,26p' "$0"; exit 0 ;;
    -*) echo "check-cli-drift: unknown option $1" >&2; exit 2 ;;
    *) ONLY+=("$1"); shift ;;
    esac
done
[ -f "$LOCK" ] || { echo "check-cli-drift: no lock file at $LOCK" >&2; exit 2; }
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
PYTHON="${PYTHON:-python}"
cd "$ROOT"

wanted() {
    [ ${#ONLY[@]} -eq 0 ] && return 0
    local n
    for n in "${ONLY[@]}"; do [ "$n" = "$1" ] && return 0; done
    return 1
}

newest_pypi() { # package: the newest version on PyPI, asked with a Python that can install it
    local py
    for py in python3.14 python3.13 python3.12 "$HOME"/.pyenv/versions/3.1[2-9]*/bin/python3; do
        command -v "$py" >/dev/null 2>&1 || continue
        "$py" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null || continue
        "$py" -m pip index versions "$1" 2>/dev/null | sed -n 's/^[^ ]* (\(.*\))$/\1/p' | head -1
        return
    done
}

npm_field() { # package[@version] field: one field of the registry's record, or nothing
    timeout 120 npm view "$1" "$2" 2>/dev/null | tail -1 | sed "s/^'\(.*\)'$/\1/"
}

successor() { # package, its deprecation message: the other npm package it sends users to
    grep -oE '@[a-z0-9][a-z0-9._-]*/[a-z0-9][a-z0-9._-]*[a-z0-9]' <<<"$2" | grep -vxF "$1" | head -1
}

# The lock file with every CLI at its newest release, under the name it is published as now
# (node22 stays pinned: it is a tool of the tests, not under test).
: >"$WORK/latest.lock"
declare -A PINNED NEWEST NOTE
NAMES=()
while read -r name source package version extra; do
    case "$name" in '' | '#'*) continue ;; esac
    if [ "$name" = node22 ]; then
        echo "$name $source $package $version" >>"$WORK/latest.lock"
        continue
    fi
    wanted "$name" || continue
    newest=""
    note=""
    case "$extra" in formerly=*) note="moved: ${extra#formerly=} -> $package" ;; esac
    case "$source" in
    npm)
        newest="$(npm_field "$package" version)"
        deprecated="$([ -n "$newest" ] && npm_field "$package@$newest" deprecated)"
        moved_to="$(successor "$package" "$deprecated")"
        if [ -n "$moved_to" ] && [ "$moved_to" != "$package" ]; then
            note="moved: $package -> $moved_to (npm: $deprecated)"
            package="$moved_to"
            newest="$(npm_field "$package" version)"
        fi
        ;;
    pypi) newest="$(newest_pypi "$package")" ;;
    esac
    PINNED[$name]="$version"
    NEWEST[$name]="${newest:-unknown}"
    NOTE[$name]="$note"
    NAMES+=("$name")
    echo "$name $source $package ${newest:-$version}" >>"$WORK/latest.lock"
done <"$LOCK"

if [ $PLAN_ONLY -eq 1 ]; then
    printf '%-10s %-10s %-10s %s\n' CLI PINNED NEWEST NOTE
    for name in "${NAMES[@]}"; do
        printf '%-10s %-10s %-10s %s\n' "$name" "${PINNED[$name]}" "${NEWEST[$name]}" "${NOTE[$name]}"
    done
    echo
    sed 's/^/    /' "$WORK/latest.lock"
    exit 0
fi

if [ -z "$FROM_REPORT" ]; then
    bash "$ROOT/scripts/install-real-clis.sh" --lock "$WORK/latest.lock" --cache "$CACHE" "${NAMES[@]}"
fi

# Ask council's own adapter what it makes of each installed release: an archived stub is
# told apart there (vendor knowledge stays in the adapters), and its tests are skipped.
for name in "${NAMES[@]}"; do
    status_file="$CACHE/$name/status"
    grep -q '^ok ' "$status_file" 2>/dev/null || continue
    case "$name" in kimi-cli | kimi-code) adapter=kimi binary=kimi ;; *) adapter="$name" binary="$name" ;; esac
    archived="$(cd "$WORK" && HOME="$WORK" timeout 60 "$PYTHON" - "$adapter" "$CACHE/$name/bin/$binary" <<'EOF'
import subprocess, sys
from council.adapters import adapter_for
adapter, binary = adapter_for(sys.argv[1]), sys.argv[2]
probe = subprocess.run([binary, *adapter.version_argv()], capture_output=True, text=True,
                       stdin=subprocess.DEVNULL, timeout=50)
why = adapter.read_version(probe.returncode, probe.stdout, probe.stderr).unusable or ""
print(why if "archived" in why.lower() else "")
EOF
)"
    if [ -n "$archived" ]; then
        printf 'archived: %s\n' "$archived" >"$status_file"
    fi
done

report="${FROM_REPORT:-$WORK/report.json}"
if [ -z "$FROM_REPORT" ]; then
    # CLIs left out of this check have no status in this cache: their tests skip (without CI,
    # which would fail them as a broken pipeline: the verdicts below read the statuses).
    env -u CI COUNCIL_REALCLI_CACHE="$CACHE" COUNCIL_REALCLI_REPORT="$report" \
        "$PYTHON" -m pytest tests/realcli -q -p no:cacheprovider -n 1
fi
[ -f "$report" ] || echo '{}' >"$report"

for name in "${NAMES[@]}"; do
    printf '%s\t%s\t%s\t%s\n' "$name" "${PINNED[$name]}" "${NEWEST[$name]}" "${NOTE[$name]}"
done >"$WORK/rows.tsv"
"$PYTHON" - "$report" "$CACHE" "$WORK/rows.tsv" "$MARKDOWN" <<'EOF'
import json, pathlib, sys

report = json.loads(pathlib.Path(sys.argv[1]).read_text() or "{}")
cache, rows, markdown = pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3]), sys.argv[4]
table, failed = [], False
for line in rows.read_text().splitlines():
    name, pinned, newest, note = line.split("\t")
    status_file = cache / name / "status"
    status = status_file.read_text().strip() if status_file.exists() else "not installed"
    entry = report.get(name, {})
    counts = {k: len(entry.get(k, [])) for k in ("passed", "failed", "xfailed", "skipped")}
    if newest == "unknown":
        verdict = "FAIL (the newest release could not be looked up)"
    elif status.startswith("archived: "):
        verdict = f"archived ({status.removeprefix('archived: ')})"
    elif not status.startswith("ok "):
        verdict = f"FAIL (install: {status})"
    elif counts["failed"] or not counts["passed"]:
        names = ", ".join(entry.get("failed", []))
        verdict = f"FAIL ({counts['passed']} passed, {counts['failed']} failed)"
        verdict += f": {names}" if names else ""
    else:
        verdict = f"pass ({counts['passed']} passed, {counts['xfailed']} xfailed, "
        verdict += f"{counts['skipped']} skipped)"
    failed |= verdict.startswith("FAIL")
    table.append((name, pinned, newest, verdict, note))

print()
print(f"{'CLI':<10} {'PINNED':<10} {'NEWEST':<10} VERDICT")
for name, pinned, newest, verdict, note in table:
    print(f"{name:<10} {pinned:<10} {newest:<10} {verdict}" + (f"; {note}" if note else ""))
if markdown:
    lines = ["| CLI | pinned | newest | verdict | note |", "|---|---|---|---|---|"]
    for row in table:
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |")
    pathlib.Path(markdown).write_text("\n".join(lines) + "\n")
sys.exit(1 if failed else 0)
EOF
