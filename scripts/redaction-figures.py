#!/usr/bin/env python3
"""The redactor's figures, as docs/redaction.md reports them:

- leaks: how many secrets of the two test corpora (tests/context/secrets_corpus.py, the
  planted project; tests/context/secrets_corpus_world.py, secrets as the world leaves them)
  survive redaction: for the world corpus, any 8-character piece of a secret left is a leak;
- false positives: redactions per MB on real source that holds no secrets: the vendor CLIs'
  installed npm packages (.js/.mjs/.cjs/.json, from `.cache/real-clis` as
  scripts/install-real-clis.sh leaves it, or $COUNCIL_REAL_CLIS) and the running Python's
  standard library (.py, or $COUNCIL_STDLIB);
- speed: MB/s over those same trees.

    python scripts/redaction-figures.py                 # council's redactor
    python scripts/redaction-figures.py --show 20       # and 20 sample hits per tree
    /path/to/venv/bin/python scripts/redaction-figures.py --engine detect-secrets

`--engine detect-secrets` measures `bc-detect-secrets`, `--engine secret-masker` Microsoft's
`microsoft-security-utilities-secret-masker` (install either in the interpreter that runs the
script) the same way: detect-secrets' reported values are cut out of their file, the masker
masks its own spans; then the same leak and per-MB checks apply. Each tree is sampled to
`--cap-mb` MB (files in a fixed pseudo-random order, so runs compare); the sample and the
machine are printed with the figures.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import sysconfig
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from context.secrets_corpus import find_leaks, plant_secret_corpus  # noqa: E402
from context.secrets_corpus_world import lookalikes, world_secrets  # noqa: E402

# Where scripts/install-real-clis.sh puts the CLIs (another checkout's: COUNCIL_REAL_CLIS).
CLI_CACHE = Path(os.environ.get("COUNCIL_REAL_CLIS", REPO / ".cache" / "real-clis"))
STDLIB = Path(os.environ.get("COUNCIL_STDLIB", sysconfig.get_paths()["stdlib"]))
CLIS = ("claude", "codex", "gemini", "kimi-code", "pi", "qwen")
NODE_SUFFIXES = (".js", ".mjs", ".cjs", ".json")

# An engine: (text, filename) -> (redacted text, number of redactions).
Engine = Callable[[str, str], tuple[str, int]]


def council_engine() -> Engine:
    from council.context.redact import redact

    def run(text: str, filename: str) -> tuple[str, int]:
        out, kinds = redact(text, filename=filename)
        return out, sum(kinds.values())

    return run


def detect_secrets_engine() -> Engine:
    from detect_secrets.core.scan import scan_file
    from detect_secrets.settings import default_settings

    def run(text: str, filename: str) -> tuple[str, int]:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / Path(filename).name
            path.write_text(text, encoding="utf-8")
            with default_settings():
                found = list(scan_file(str(path)))
        out = text
        for secret in found:
            if secret.secret_value:
                out = out.replace(secret.secret_value, "[REDACTED]")
        return out, len(found)

    return run


def secret_masker_engine() -> Engine:
    """Microsoft's `microsoft-security-utilities-secret-masker` with every rule file it ships
    (the precisely classified keys, the unclassified potential keys and the three
    confidence-rated sets)."""
    import microsoft_security_utilities_secret_masker as sm

    rules_dir = Path(sm.__file__).parent / "GeneratedRegexPatterns"
    patterns: set = set()
    for rules in sorted(rules_dir.glob("*.json")):
        patterns |= sm.load_regex_patterns_from_json_file(rules.name)
    masker = sm.SecretMasker(patterns)

    def run(text: str, filename: str) -> tuple[str, int]:
        found = masker.detect_secrets(text)
        return masker.mask_secrets(text), len(found)

    return run


def trees() -> dict[str, list[Path]]:
    found: dict[str, list[Path]] = {}
    for cli in CLIS:
        root = CLI_CACHE / cli / "prefix" / "lib" / "node_modules"
        if root.is_dir():
            found[f"{cli} (npm)"] = [
                p for p in root.rglob("*") if p.suffix in NODE_SUFFIXES and p.is_file()
            ]
    if STDLIB.is_dir():
        found["python3.11 stdlib"] = [
            p for p in STDLIB.rglob("*.py") if "site-packages" not in p.parts and p.is_file()
        ]
    return found


def sample(files: list[Path], cap: int) -> list[tuple[Path, str]]:
    """Files in a fixed pseudo-random order up to `cap` bytes, skipping binaries."""
    picked: list[tuple[Path, str]] = []
    size = 0
    for path in sorted(files, key=lambda p: hashlib.sha1(str(p).encode()).hexdigest()):
        if size >= cap:
            break
        try:
            text = path.read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if "\0" in text or len(text) > 4_000_000:
            continue
        picked.append((path, text))
        size += len(text.encode())
    return picked


def corpus_figures(engine: Engine) -> None:
    world = world_secrets()
    leaked = [w for w in world if w.survivors(engine(w.text, w.filename)[0])]
    kinds = len({w.kind for w in world})
    print(f"world corpus: {len(leaked)}/{len(world)} secrets leak ({kinds} kinds)")
    for w in leaked:
        print(f"  leak: {w.kind} ({w.filename})")
    changed = [f for f, t in lookalikes() if engine(t, f)[0] != t]
    print(f"look-alikes: {len(changed)}/{len(lookalikes())} changed")
    for f in changed:
        print(f"  changed: {f}")
    with tempfile.TemporaryDirectory() as tmp:
        corpus = plant_secret_corpus(Path(tmp))
        texts = {
            rel: engine((Path(tmp) / rel).read_text(encoding="utf-8"), rel)[0]
            for rel in corpus.files
        }
        leaks = find_leaks(corpus, texts)
    print(f"planted corpus: {len(leaks)}/{len(corpus.planted)} secrets leak")
    for leak in leaks:
        print(f"  leak: {leak}")


def tree_figures(engine: Engine, cap_mb: float, show: int) -> None:
    print(f"false positives (sample: up to {cap_mb:g} MB per tree)")
    print(f"  {'tree':<20} {'MB':>6} {'files':>6} {'hits':>5} {'per MB':>7} {'MB/s':>6}")
    total_mb = total_hits = total_s = 0.0
    for name, files in trees().items():
        texts = sample(files, int(cap_mb * 1_000_000))
        mb = sum(len(t.encode()) for _, t in texts) / 1_000_000
        hits = 0
        shown: list[str] = []
        kinds: Counter[str] = Counter()
        started = time.perf_counter()
        for path, text in texts:
            out, n = engine(text, path.name)
            hits += n
            if n and len(shown) < show:
                shown += _changed_lines(text, out, path)[: show - len(shown)]
            if n:
                kinds.update(_kinds(out))
        seconds = time.perf_counter() - started
        total_mb += mb
        total_hits += hits
        total_s += seconds
        print(
            f"  {name:<20} {mb:6.1f} {len(texts):6d} {hits:5d} {hits / mb:7.2f} {mb / seconds:6.2f}"
        )
        if show and kinds:
            print("    kinds: " + ", ".join(f"{k} {n}" for k, n in kinds.most_common()))
        for line in shown:
            print(f"    {line}")
    if total_mb:
        print(
            f"  {'all':<20} {total_mb:6.1f} {'':6} {int(total_hits):5d}"
            f" {total_hits / total_mb:7.2f} {total_mb / total_s:6.2f}"
        )


def _kinds(out: str) -> list[str]:
    import re

    return re.findall(r"\[REDACTED(?::([a-z0-9-]+))?\]", out)


def _changed_lines(text: str, out: str, path: Path) -> list[str]:
    before, after = text.split("\n"), out.split("\n")
    if len(before) != len(after):
        return [f"{path}: line count changed"]
    return [
        f"{path.name}:{n + 1}: {a.strip()[:160]}"
        for n, (b, a) in enumerate(zip(before, after, strict=True))
        if a != b
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--engine", choices=("council", "detect-secrets", "secret-masker"), default="council"
    )
    parser.add_argument("--cap-mb", type=float, default=8.0, help="MB sampled per tree")
    parser.add_argument("--show", type=int, default=0, help="sample hits to print per tree")
    parser.add_argument("--no-trees", action="store_true", help="the corpora only")
    args = parser.parse_args()
    engine = {
        "council": council_engine,
        "detect-secrets": detect_secrets_engine,
        "secret-masker": secret_masker_engine,
    }[args.engine]()
    print(f"engine: {args.engine}; python {sys.version.split()[0]}; {os.cpu_count()} cpus")
    corpus_figures(engine)
    if not args.no_trees:
        tree_figures(engine, args.cap_mb, args.show)


if __name__ == "__main__":
    main()
