#!/usr/bin/env bash
# Run the realcli contract tests against the NEWEST releases of the vendor CLIs, to catch a
# vendor release that breaks council's argv or parsing before users do. Not run in CI (the
# pins in scripts/real-clis.lock are); run it by hand, then move a pin when its CLI passes.
#
# usage: scripts/check-cli-drift.sh [NAME...]     (default: every CLI in the lock file)
#
# Installs into .cache/real-clis-latest (git-ignored; the pinned cache is left alone) and
# prints a table: CLI, pinned version, newest version, contract tests passed/failed/skipped.
# Exits 1 when a CLI's newest release fails a contract or does not install.
set -uo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
LOCK="$ROOT/scripts/real-clis.lock"
CACHE="$ROOT/.cache/real-clis-latest"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
cd "$ROOT"

newest_pypi() { # package: the newest version on PyPI, asked with a Python that can install it
    local py
    for py in python3.14 python3.13 python3.12 "$HOME"/.pyenv/versions/3.1[2-9]*/bin/python3; do
        command -v "$py" >/dev/null 2>&1 || continue
        "$py" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null || continue
        "$py" -m pip index versions "$1" 2>/dev/null | sed -n 's/^[^ ]* (\(.*\))$/\1/p' | head -1
        return
    done
}

# The lock file with every CLI at its newest release (Node 22 stays pinned: it is not tested).
: >"$WORK/latest.lock"
declare -A PINNED NEWEST
NAMES=()
while read -r name source package version _; do
    case "$name" in '' | '#'*) continue ;; esac
    if [ "$name" = node22 ]; then
        echo "$name $source $package $version" >>"$WORK/latest.lock"
        continue
    fi
    if [ $# -gt 0 ] && [[ " $* " != *" $name "* ]]; then continue; fi
    case "$source" in
    npm) newest="$(npm view "$package" version 2>/dev/null)" ;;
    pypi) newest="$(newest_pypi "$package")" ;;
    *) newest="" ;;
    esac
    PINNED[$name]="$version"
    NEWEST[$name]="${newest:-unknown}"
    NAMES+=("$name")
    echo "$name $source $package ${newest:-$version}" >>"$WORK/latest.lock"
done <"$LOCK"

bash "$ROOT/scripts/install-real-clis.sh" --lock "$WORK/latest.lock" --cache "$CACHE" "${NAMES[@]}"

# CLIs left out of this check have no status in this cache: their tests skip.
COUNCIL_REALCLI_CACHE="$CACHE" COUNCIL_REALCLI_REPORT="$WORK/report.json" \
    python -m pytest tests/realcli -q -p no:cacheprovider
report="$WORK/report.json"
[ -f "$report" ] || echo '{}' >"$report"

echo
printf '%-10s %-10s %-10s %s\n' CLI PINNED NEWEST RESULT
status=0
for name in "${NAMES[@]}"; do
    result="$(python3 - "$report" "$name" "$CACHE/$name/status" <<'EOF'
import json, pathlib, sys
report, name, status_file = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3])
status = status_file.read_text().strip() if status_file.exists() else "not installed"
if not status.startswith("ok "):
    print(f"FAIL (install: {status})")
    sys.exit()
entry = json.loads(pathlib.Path(report).read_text()).get(name, {})
counts = {k: len(entry.get(k, [])) for k in ("passed", "failed", "skipped")}
verdict = "FAIL" if counts["failed"] or not counts["passed"] else "pass"
failed = ", ".join(entry.get("failed", []))
print(f"{verdict} ({counts['passed']} passed, {counts['failed']} failed, "
      f"{counts['skipped']} skipped){': ' + failed if failed else ''}")
EOF
)"
    [[ $result == pass* ]] || status=1
    printf '%-10s %-10s %-10s %s\n' "$name" "${PINNED[$name]}" "${NEWEST[$name]}" "$result"
done
exit $status
