"""Decisions kept as ADRs (docs/spec/commands.md, "council adr"): a finished debate's DECISION
written as a numbered Markdown architecture decision record in the project's decisions
directory, in the form its existing records use (`layout.py`: where, which number, MADR or
Nygard; `render.py`: the text), and a recorded decision put to a new panel, its verdict
appended as a dated section (`recheck.py`).

A protocol-layer package: it reads records through `runs/store.py` and runs the recheck as a
debate (`debate.protocol.DEBATE`), so the command line only parses and prints.
"""
