"""Text from outside (a CLI's reply, its stderr, its `--version`, the question) is untrusted:
before it reaches a terminal, a record file meant for reading, or a later prompt, the control
sequences that could retitle the terminal, clear the screen or hide text are taken out. The
raw bytes stay in the call's response file.
"""

from __future__ import annotations

import re

_SEQUENCES = re.compile(
    r"""
    \x1b\[[0-?]*[ -/]*[@-~]                 # CSI: colours, cursor moves, clear screen
  | \x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?      # OSC: window title, hyperlinks (BEL or ST ends it)
  | \x1b[PX^_][^\x1b]*(?:\x1b\\)?           # DCS, SOS, PM, APC strings
  | \x9b[0-?]*[ -/]*[@-~]                   # 8-bit CSI
  | \x1b[@-Z\\-_]                           # other two-byte escapes
  | \x1b                                    # a lone ESC
  | \r(?!\n)                                # a bare CR (overwrites the line)
  | [\x00-\x08\x0b\x0c\x0e-\x1f\x7f\x80-\x9f] # NUL, BEL and other C0/C1 controls but \t \n
    """,
    re.VERBOSE,
)


def clean(text: str) -> str:
    """`text` without terminal control sequences and control characters (tab and newline
    stay; a CRLF line end becomes LF)."""
    if not text:
        return text
    return _SEQUENCES.sub("", text.replace("\r\n", "\n"))
