"""`council review`: cross-vendor code review, a protocol beside the debate.

Every reviewer reviews the same code blind and in parallel (REVIEW), then confirms or disputes
the others' findings, anonymised and shuffled (CROSS_CHECK); council merges the findings by a
rule and counts each one's support (MERGE), and the gate decides exit 6
(docs/spec/protocol.md section 9). `run` starts, detaches and resumes a review; `lead` is the
protocol; `findings` reads the answers; `merge` is the rule; `result`, `markdown` and `sarif`
are the outputs. Everything it shares with the debate lives in the services (`council.panel`).
"""
