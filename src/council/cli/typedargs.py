"""`--args-stdin`: the rest of a command line read from stdin, as a person typed it.

An IDE host puts what the user typed after `/debate` into the command its model runs. Were it
on the command line, the shell would expand `$(...)`, backticks, `$VAR` and globs in the
user's question. The host's command files pass it instead through a quoted heredoc
(`<<'COUNCIL_ARGS'`), which the shell leaves alone, to `--args-stdin`; council splits it into
words here, where nothing is ever expanded (docs/spec/commands.md, "--args-stdin").
"""

from __future__ import annotations

import codecs
import sys
from collections.abc import Callable
from typing import TypeVar

import click

from council.errors import UsageError
from council.question import READ_LIMIT

ARGS_STDIN = "--args-stdin"
F = TypeVar("F", bound=Callable[..., object])
# Inside double quotes a backslash escapes only these (POSIX); before any other it stays.
_DOUBLE_ESCAPES = '$`"\\\n'


def split_typed(text: str) -> list[str]:
    """`text` split into words as a POSIX shell splits them (quotes, backslashes), expanding
    nothing: `$(...)`, backticks, `$VAR`, `~` and globs are kept as text. An apostrophe
    between two letters (`what's`) is a letter, not a quote. When a quote is left open (or a
    backslash ends the text), it is split at whitespace only, every character kept."""
    words: list[str] = []
    word: list[str] = []
    begun = False  # a word has started, though it may be empty (`""`)
    quote = ""
    i = 0
    while i < len(text):
        c = text[i]
        if quote == "'":
            if c == "'":
                quote = ""
            else:
                word.append(c)
        elif quote == '"':
            if c == '"':
                quote = ""
            elif c == "\\" and i + 1 < len(text) and text[i + 1] in _DOUBLE_ESCAPES:
                i += 1
                if text[i] != "\n":
                    word.append(text[i])
            else:
                word.append(c)
        elif c.isspace():
            if begun:
                words.append("".join(word))
                word, begun = [], False
        elif c == "\\":
            if i + 1 == len(text):
                return text.split()
            i += 1
            if text[i] != "\n":  # a backslash-newline joins the lines
                word.append(text[i])
                begun = True
        elif c == "'" and 0 < i < len(text) - 1 and text[i - 1].isalnum() and text[i + 1].isalnum():
            word.append(c)
        elif c in "'\"":
            quote, begun = c, True
        else:
            word.append(c)
            begun = True
        i += 1
    if quote:
        return text.split()
    if begun:
        words.append("".join(word))
    return words


def takes_args_stdin(command: click.Command) -> bool:
    return any(ARGS_STDIN in getattr(param, "opts", ()) for param in command.params)


def splice_stdin_args(args: list[str]) -> list[str]:
    """`args` with `--args-stdin` replaced by the words read from stdin (before a `--`)."""
    end = args.index("--") if "--" in args else len(args)
    if ARGS_STDIN not in args[:end]:
        return args
    at = args.index(ARGS_STDIN)
    if sys.stdin is None or sys.stdin.closed:
        raise UsageError(f"{ARGS_STDIN} reads the arguments from stdin, but stdin is closed")
    try:
        # The bytes, decoded strictly: the text layer of a C-locale stdin lets bad bytes
        # through as surrogates.
        cap = READ_LIMIT * 4  # UTF-8 takes at most 4 bytes a character
        raw = sys.stdin.buffer.read(cap)
        # At the cap, a character cut in two is left out rather than refused.
        decoder = codecs.getincrementaldecoder("utf-8")()
        text = decoder.decode(raw, final=len(raw) < cap)[:READ_LIMIT]
    except UnicodeDecodeError:
        raise UsageError(f"the arguments on stdin ({ARGS_STDIN}) are not UTF-8 text") from None
    rest = args[at + 1 :]
    if ARGS_STDIN in rest:
        raise UsageError(f"{ARGS_STDIN} given twice: stdin holds one set of arguments")
    return [*args[:at], *split_typed(text), *rest]


def args_stdin_option(command: F) -> F:
    """Declares `--args-stdin` for --help; `CouncilGroup` splices the words in before click
    parses the command line, so that they are parsed as if typed there."""
    return click.option(
        ARGS_STDIN,
        is_flag=True,
        expose_value=False,
        help="Read the arguments (the question, flags) from stdin, split as a shell splits "
        "words but expanding nothing: for IDE hosts, through <<'COUNCIL_ARGS'.",
    )(command)
