"""pytest imports a test file in a folder that is no package by its bare name: two such files
of one name make the second fail to collect (`import file mismatch`), which a run of one folder
alone never shows. The realcli suite met it twice (test_pi, test_served_models)."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

TESTS = Path(__file__).parent


def test_no_two_test_modules_outside_packages_share_a_name():
    places = defaultdict(list)
    for path in TESTS.rglob("test_*.py"):
        if not (path.parent / "__init__.py").exists():
            places[path.name].append(str(path.relative_to(TESTS)))
    assert {name: where for name, where in places.items() if len(where) > 1} == {}
