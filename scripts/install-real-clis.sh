#!/usr/bin/env bash
# Install the real vendor CLIs pinned in scripts/real-clis.lock into a git-ignored cache, for the
# `realcli` contract tests (tests/realcli/).
#
# usage: scripts/install-real-clis.sh [--lock FILE] [--cache DIR] [NAME...]
#
# Each CLI gets its own directory, so one failed install never breaks another:
#   <cache>/<name>/bin/<binary>   what the tests put first on PATH (kimi-cli and kimi-code both
#                                 install a binary named `kimi`)
#   <cache>/<name>/status         "ok <version as --version prints it>" or "failed <why>"
#   <cache>/<name>/install.log    npm's or pip's output
# Idempotent: a CLI whose pin matches what is installed is not touched, so a warm run takes
# about a second. A failed install is reported loudly and recorded in its status file; the
# tests skip that CLI with the reason. The exit code is non-zero only for misuse, so that one
# vendor's broken release cannot hide the results of the others.
#
# Only the package registries are used (npm, PyPI): every CLI here ships its native parts as
# registry packages (optional dependencies). A CLI runs on the Node its package declares
# (`engines.node`): the system's when it is new enough, else the lock's `node22` (the
# `node-linux-<arch>` npm package), put first on PATH by a wrapper in the CLI's bin/.
set -uo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
LOCK="$ROOT/scripts/real-clis.lock"
CACHE="${COUNCIL_REALCLI_CACHE:-$ROOT/.cache/real-clis}"
ONLY=()
while [ $# -gt 0 ]; do
    case "$1" in
    --lock) LOCK="$2"; shift 2 ;;
    --cache) CACHE="$2"; shift 2 ;;
    -h | --help) sed -n '2,20p' "$0"; exit 0 ;;
    -*) echo "install-real-clis: unknown option $1" >&2; exit 2 ;;
    *) ONLY+=("$1"); shift ;;
    esac
done
[ -f "$LOCK" ] || { echo "install-real-clis: no lock file at $LOCK" >&2; exit 2; }
mkdir -p "$CACHE"
CACHE="$(cd "$CACHE" && pwd)"
START=$SECONDS
# Never let a CLI's --version (or an install script) read the developer's own config.
SCRATCH_HOME="$(mktemp -d)"
trap 'rm -rf "$SCRATCH_HOME"' EXIT

case "$(uname -m)" in
x86_64 | amd64) ARCH=x64 ;;
aarch64 | arm64) ARCH=arm64 ;;
*) ARCH="$(uname -m)" ;;
esac

binary_of() {
    case "$1" in
    kimi-cli | kimi-code) echo kimi ;;
    node22) echo node ;;
    *) echo "$1" ;;
    esac
}

wanted() {
    [ ${#ONLY[@]} -eq 0 ] && return 0
    local n
    for n in "${ONLY[@]}"; do [ "$n" = "$1" ] && return 0; done
    return 1
}

# name -> "source package version", in lock-file order
declare -A PIN
NAMES=()
while read -r name source package version _; do
    case "$name" in '' | '#'*) continue ;; esac
    PIN[$name]="$source ${package//\{arch\}/$ARCH} $version"
    NAMES+=("$name")
done <"$LOCK"

set_status() { printf '%s\n' "$2" >"$CACHE/$1/status"; }

is_current() { # name: the pinned version is installed and was verified
    local dir="$CACHE/$1"
    [ -f "$dir/.pin" ] && [ "$(cat "$dir/.pin")" = "${PIN[$1]}" ] &&
        [ -x "$dir/bin/$(binary_of "$1")" ] && grep -q '^ok ' "$dir/status" 2>/dev/null
}

version_ge() { # A B: version A >= version B, compared as versions (1.10 > 1.9)
    [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -1)" = "$2" ]
}

node_version() { # path to a node binary: its version without the `v`, or nothing
    [ -n "$1" ] && [ -x "$1" ] || return 0
    "$1" --version 2>/dev/null | sed -n '1s/^v\([0-9][0-9.]*\).*/\1/p'
}

node_minimum() { # an engines.node range: the lowest Node it allows (">=22.19.0" -> 22.19.0)
    sed -n 's/^[^0-9]*\([0-9][0-9]*\(\.[0-9][0-9]*\)*\).*/\1/p' <<<"$1" | head -1
}

engines_node() { # name: the `engines.node` of its pinned package, from the registry
    local package version
    read -r _ package version <<<"${PIN[$1]}"
    timeout 120 npm view "$package@$version" engines.node 2>/dev/null | tail -1 | tr -d "'\""
}

installed_engines_node() { # name: the `engines.node` of the installed package, if any
    local package file
    read -r _ package _ <<<"${PIN[$1]}"
    file="$CACHE/$1/prefix/lib/node_modules/$package/package.json"
    [ -f "$file" ] || return 0
    python3 -c 'import json, sys
print((json.load(open(sys.argv[1])).get("engines") or {}).get("node") or "")' "$file" 2>/dev/null
}

find_pythons() { # every Python >= 3.12 with venv here, newest first (kimi-cli needs one)
    local c found
    for c in ${COUNCIL_PYTHON312:-} python3.14 python3.13 python3.12 python3 \
        "$HOME"/.pyenv/versions/3.1[2-9]*/bin/python3 /usr/local/bin/python3.1[2-9] \
        /usr/bin/python3.1[2-9] /opt/python*/bin/python3; do
        found="$(command -v "$c" 2>/dev/null)" || continue
        "$found" -c 'import sys, venv, ensurepip
if sys.version_info < (3, 12): sys.exit(1)
print("%d %d %d %s" % (*sys.version_info[:3], sys.executable))' 2>/dev/null
    done | sort -k1,1nr -k2,2nr -k3,3nr -u | awk '!seen[$4]++ {print $4}'
}

verify() { # name: run `<binary> --version` (never a bare `kimi`: see clis.md) and record it
    local name="$1" dir="$CACHE/$1" version out
    read -r _ _ version <<<"${PIN[$name]}"
    out="$(cd "$SCRATCH_HOME" && HOME="$SCRATCH_HOME" timeout 60 \
        "$dir/bin/$(binary_of "$name")" --version </dev/null 2>&1 | head -5)"
    if grep -qF "$version" <<<"$out"; then
        # codex may warn before its version line: record the line that has the version.
        set_status "$name" "ok $(grep -F "$version" <<<"$out" | head -1)"
        printf '%s\n' "${PIN[$name]}" >"$dir/.pin"
        return 0
    fi
    set_status "$name" "failed: \`$(binary_of "$name") --version\` printed: $(head -1 <<<"$out")"
    return 1
}

install_npm() { # name: npm install -g into the CLI's own prefix, link its binary into bin/
    local name="$1" dir="$CACHE/$1" package version binary
    read -r _ package version <<<"${PIN[$name]}"
    binary="$(binary_of "$name")"
    rm -rf "$dir/prefix" "$dir/bin" "$dir/.pin"
    mkdir -p "$dir/bin"
    # Install scripts run with the PATH's node: a CLI that needs the lock's Node gets it there too.
    local path="$PATH"
    if [ -n "${NEEDS_NODE22[$name]:-}" ]; then path="$CACHE/node22/bin:$PATH"; fi
    if ! PATH="$path" HOME="$SCRATCH_HOME/$name" timeout 900 npm install --global \
        --prefix "$dir/prefix" --include=optional --no-audit --no-fund --loglevel=warn \
        --userconfig "$HOME/.npmrc" --cache "${npm_config_cache:-$HOME/.npm}" \
        "$package@$version" >"$dir/install.log" 2>&1; then
        set_status "$name" "failed: npm install $package@$version: $(tail -1 "$dir/install.log")"
        return 1
    fi
    # What the installed package declares is the last word (the registry may not have said).
    local declared minimum
    declared="$(installed_engines_node "$name")"
    minimum="$(node_minimum "$declared")"
    if [ -n "$minimum" ] && ! version_ge "${SYSTEM_NODE:-0}" "$minimum"; then
        if ! version_ge "$(node_version "$CACHE/node22/bin/node")" "$minimum"; then
            set_status "$name" "failed: $package@$version needs Node $declared; the system's is ${SYSTEM_NODE:-missing} and the lock's node22 is $(node_version "$CACHE/node22/bin/node")"
            return 1
        fi
        # The CLI's launcher says `#!/usr/bin/env node`: put the lock's Node first for it and
        # its children, and leave every other CLI on the system Node.
        cat >"$dir/bin/$binary" <<EOF
#!/bin/sh
# $package declares engines.node "$declared": run it on the lock's node22.
here="\$(cd "\$(dirname "\$0")/.." && pwd)"
PATH="\$here/../node22/bin:\$PATH"
export PATH
exec "\$here/prefix/bin/$binary" "\$@"
EOF
        chmod +x "$dir/bin/$binary"
    else
        ln -s "../prefix/bin/$binary" "$dir/bin/$binary"
    fi
    verify "$name"
}

install_pypi() { # name: a Python >= 3.12 virtual environment holding the pinned package
    local name="$1" dir="$CACHE/$1" package version python smoke=""
    read -r _ package version <<<"${PIN[$name]}"
    rm -rf "$dir/venv" "$dir/bin" "$dir/.pin"
    mkdir -p "$dir/bin"
    # kimi-cli 1.51.0 installs on Python 3.12.1 but dies importing its app there (a frozen
    # generic dataclass trips an old CPython bug): import it to prove the interpreter works.
    [ "$name" = kimi-cli ] && smoke="import kimi_cli.app"
    : >"$dir/install.log"
    for python in $(find_pythons); do
        echo "== $python" >>"$dir/install.log"
        rm -rf "$dir/venv"
        if "$python" -m venv "$dir/venv" >>"$dir/install.log" 2>&1 &&
            timeout 900 "$dir/venv/bin/python" -m pip install --quiet \
                --disable-pip-version-check "$package==$version" >>"$dir/install.log" 2>&1 &&
            "$dir/venv/bin/python" -c "${smoke:-pass}" >>"$dir/install.log" 2>&1; then
            ln -s "../venv/bin/$(binary_of "$name")" "$dir/bin/$(binary_of "$name")"
            verify "$name"
            return
        fi
    done
    rm -rf "$dir/venv"
    if grep -q '^== ' "$dir/install.log"; then
        set_status "$name" "failed: $package==$version did not install and run on any Python >= 3.12 here: $(grep -v '^ *WARNING' "$dir/install.log" | tail -1)"
    else
        set_status "$name" "failed: no Python >= 3.12 found (set COUNCIL_PYTHON312 to one)"
    fi
    return 1
}

install_one() {
    local name="$1"
    mkdir -p "$CACHE/$name"
    case "${PIN[$name]%% *}" in
    npm) install_npm "$name" ;;
    pypi) install_pypi "$name" ;;
    *) set_status "$name" "failed: unknown source in $LOCK"; return 1 ;;
    esac
}

# The Node each npm CLI declares, asked before installing (its install scripts run on it).
SYSTEM_NODE="$(node_version "$(command -v node 2>/dev/null)")"
declare -A NEEDS_NODE22
todo=()
for name in "${NAMES[@]}"; do
    [ "$name" = node22 ] && continue
    wanted "$name" || continue
    is_current "$name" && continue
    todo+=("$name")
    [ "${PIN[$name]%% *}" = npm ] || continue
    minimum="$(node_minimum "$(engines_node "$name")")"
    if [ -n "$minimum" ] && ! version_ge "${SYSTEM_NODE:-0}" "$minimum"; then
        NEEDS_NODE22[$name]="$minimum"
    fi
done

# The lock's Node first, when a CLI to install needs a newer one than the system's (or when
# it is asked for by name).
if [ ${#NEEDS_NODE22[@]} -gt 0 ] || { [ ${#ONLY[@]} -gt 0 ] && wanted node22; }; then
    if [ -z "${PIN[node22]:-}" ]; then
        echo "install-real-clis: WARNING: ${!NEEDS_NODE22[*]} need a newer Node than ${SYSTEM_NODE:-none} and $LOCK has no node22 line" >&2
    elif ! is_current node22 && ! install_one node22; then
        echo "install-real-clis: WARNING: the lock's node22 did not install: $(cat "$CACHE/node22/status")" >&2
    fi
fi
NODE22_VERSION="$(node_version "$CACHE/node22/bin/node")"

pids=()
for name in "${todo[@]}"; do
    if [ -n "${NEEDS_NODE22[$name]:-}" ] && ! version_ge "${NODE22_VERSION:-0}" "${NEEDS_NODE22[$name]}"; then
        mkdir -p "$CACHE/$name"
        rm -f "$CACHE/$name/.pin"
        set_status "$name" "failed: $name needs Node >= ${NEEDS_NODE22[$name]}; the system's is ${SYSTEM_NODE:-missing} and the lock's node22 is ${NODE22_VERSION:-not installed}"
        continue
    fi
    echo "install-real-clis: installing $name (${PIN[$name]})${NEEDS_NODE22[$name]:+ on Node $NODE22_VERSION}" >&2
    # npm and pip spend their time waiting on the registry: install side by side.
    install_one "$name" &
    pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid"; done

printf '\n%-10s %-34s %-9s %s\n' CLI PACKAGE PINNED STATUS
failed=0
for name in "${NAMES[@]}"; do
    wanted "$name" || [ "$name" = node22 ] || continue
    [ -f "$CACHE/$name/status" ] || continue
    read -r _ package version <<<"${PIN[$name]}"
    status="$(cat "$CACHE/$name/status")"
    printf '%-10s %-34s %-9s %s\n' "$name" "$package" "$version" "$status"
    if [[ $status != ok* ]]; then
        failed=1
        [ -f "$CACHE/$name/install.log" ] && sed 's/^/    | /' "$CACHE/$name/install.log" | tail -15
    fi
done
if [ $failed -ne 0 ]; then
    echo "install-real-clis: WARNING: some CLIs did not install; their realcli tests will be SKIPPED" >&2
fi
echo "install-real-clis: done in $((SECONDS - START))s (cache: $CACHE)" >&2
