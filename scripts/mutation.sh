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
    -*) echo "usage: scripts/mutation.sh [--fresh | --report | --survivors] [MUTANT-PATTERN...]" >&2
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
    # Patterns (fnmatch, e.g. 'council.words.*') rerun only those mutants, cached or not.
    "$python" -m mutmut run --max-children "${MUTATION_JOBS:-$(nproc)}" "$@" || true
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
