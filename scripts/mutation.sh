#!/usr/bin/env bash
# Mutation testing of the modules users trust (docs/mutation.md, docs/adr/006): mutmut plants
# one small bug at a time in a copy of src/ (mutants/), runs the tests that reach it, and
# counts the bugs no test noticed. Not part of `pytest` or CI: a full run of the ~3,900
# mutants takes hours on two shared cores (0.2 to 0.6 mutants a second were measured, most
# mutants reaching whole in-process debates); run a module at a time with a pattern.
# Results are cached in mutants/: a second run tests only what changed.
#
#   pip install -e '.[test,mutation]'
#   scripts/mutation.sh            # run (or resume), then print the kill rate per module
#   scripts/mutation.sh --fresh    # forget every cached result first
#   scripts/mutation.sh --report   # only print the kill rates of the last run
#   scripts/mutation.sh --survivors  # list the mutants that survived, one a line
#   scripts/mutation.sh --one-by-one 'council.runner.*'
#                                  # each mutant in a PID namespace of its own (runner/)
#   scripts/mutation.sh --one-by-one --rerun --within tests/runner/test_warm 'council.runner.warm.*'
#                                  # again, against the mapped tests in those files only
#   scripts/mutation.sh 'council.words.*' 'council.runner.environment.*'
#                                  # (re)run only the mutants of these modules, then report
#
# Configuration: [tool.mutmut] in pyproject.toml (which modules, which tests).
set -euo pipefail
cd "$(dirname "$0")/.."

python=${PYTHON:-python}
mode=run
case "${1:-}" in
    --fresh) rm -rf mutants; shift ;;
    --report) mode=report; shift ;;
    --survivors) mode=survivors; shift ;;
    --one-by-one) mode=one; shift ;;
    -*) echo "usage: scripts/mutation.sh [--fresh | --report | --survivors | --one-by-one]" \
        "[MUTANT-PATTERN...]" >&2
        exit 2 ;;
    *) ;;
esac

if ! "$python" -c "import mutmut" 2>/dev/null; then
    echo "mutation.sh: mutmut is not installed; run: pip install -e '.[test,mutation]'" >&2
    exit 2
fi

if [ "$mode" = run ]; then
    # The simulator runs as `python -I -S` with the package's parent directory on its path,
    # here mutants/src: a mutated module it imports (council.words) needs mutmut's
    # trampoline from there too, since -S leaves site-packages out.
    mkdir -p mutants/src
    "$python" - <<'EOF'
import importlib.metadata
import os
from pathlib import Path

import mutmut

dist = importlib.metadata.distribution("mutmut")
for source in (Path(mutmut.__file__).parent, Path(dist._path)):
    link = Path("mutants/src") / source.name
    if not link.is_symlink():
        os.symlink(source, link)
EOF
    # The mutant's tests must not be told which mutant runs through a stale variable.
    unset MUTANT_UNDER_TEST
    # A mutant of the process-tree killer (runner/proctree.py, reaper.py, ...) can take any
    # process started since a call began for one of the call's own, and kill it: as root that
    # was the user's shell. In a PID namespace of its own, mutmut sees and can kill only its
    # own processes (ours then at worst, which ends the run). Without unshare, say so.
    isolate=()
    for candidate in "unshare --pid --fork --mount-proc" \
        "unshare --user --map-current-user --pid --fork --mount-proc"; do
        # shellcheck disable=SC2086
        if $candidate sh -c 'mount -t tmpfs -o mode=1777 tmpfs /tmp' 2>/dev/null; then
            read -r -a isolate <<<"$candidate"
            break
        fi
    done
    if [ ${#isolate[@]} -eq 0 ]; then
        echo "mutation.sh: no PID namespace (unshare failed): a mutant of runner/ may kill" \
            "processes of yours that it did not start" >&2
    fi
    # Patterns (fnmatch, e.g. 'council.words.*') rerun only those mutants, cached or not.
    # In the namespace a shell is its pid 1, not mutmut: pid 1 inherits every orphan (a fake
    # CLI's escaped grandchild), and mutmut takes any child it reaps for one of its workers.
    # The `exit` after the command keeps the shell from exec-ing into it.
    if [ ${#isolate[@]} -gt 0 ]; then
        # A private /tmp too: see scripts/mutation_one_by_one.py.
        env -u XDG_RUNTIME_DIR "${isolate[@]}" \
            sh -c 'mount -t tmpfs -o mode=1777 tmpfs /tmp && "$@"; exit $?' sh \
            "$python" -m mutmut run --max-children "${MUTATION_JOBS:-$(nproc)}" "$@" || true
    else
        "$python" -m mutmut run --max-children "${MUTATION_JOBS:-$(nproc)}" "$@" || true
    fi
fi

if [ "$mode" = one ]; then
    # Each mutant in a PID namespace of its own (scripts/mutation_one_by_one.py says why):
    # for runner/, whose mutants can kill `mutmut run` itself.
    if [ ! -f mutants/mutmut-stats.json ]; then
        echo "mutation.sh: run scripts/mutation.sh once first: it prepares mutants/" >&2
        exit 2
    fi
    "$python" scripts/mutation_one_by_one.py --jobs "${MUTATION_JOBS:-$(nproc)}" "$@"
fi

if [ "$mode" = survivors ]; then
    "$python" -m mutmut results | sed -n 's/^ *\(council\.[^:]*\): survived$/\1/p'
    exit 0
fi

# The kill rate per module: killed (a test failed, or the mutant made the tests time out)
# over every mutant; a mutant no selected test reaches counts as not killed.
"$python" - <<'EOF'
import json
from collections import Counter
from pathlib import Path

KILLED = {1, 3, 36, 24, -24, 152, 255}  # mutmut's exit codes for killed and timeout
SURVIVED = {0}
rows = []
for meta in sorted(Path("mutants/src").rglob("*.py.meta")):
    codes = json.loads(meta.read_text())["exit_code_by_key"].values()
    if not codes:
        continue
    count = Counter(
        "killed" if c in KILLED else "survived" if c in SURVIVED else
        "not run" if c is None else "no tests" if c == 33 else "other"
        for c in codes
    )
    module = str(meta.relative_to("mutants/src"))[: -len(".py.meta")].replace("/", ".")
    rows.append((module, len(codes), count))
width = max((len(r[0]) for r in rows), default=6)
print(f"{'module':<{width}}  mutants  killed  survived  no tests  not run  kill rate")
total = Counter()
for module, n, count in rows:
    total.update(count)
    total["all"] += n
    print(
        f"{module:<{width}}  {n:7}  {count['killed']:6}  {count['survived']:8}  "
        f"{count['no tests']:8}  {count['not run']:7}  {100 * count['killed'] / n:8.1f} %"
    )
if rows:
    n = total["all"]
    print(
        f"{'total':<{width}}  {n:7}  {total['killed']:6}  {total['survived']:8}  "
        f"{total['no tests']:8}  {total['not run']:7}  {100 * total['killed'] / n:8.1f} %"
    )
EOF
