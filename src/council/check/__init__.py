"""`council check`: every seat answers the question once, blind and in parallel, and a rule
groups the answers into positions and says how far they agree (docs/spec/protocol.md section
10). `council debate --from <check-id>` continues one as a full debate (`handoff.py`)."""
