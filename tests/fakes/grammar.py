"""Argument grammars of the fake vendor CLIs: flags, arity, choices and positionals.

Each vendor module declares its ``Grammar`` (a list of ``Opt``); ``Grammar.parse`` reads an
argv with the conventions of that vendor's argument parser (its ``family``) and raises
``Done`` with that parser's own message and exit code for anything outside the grammar, so a
typo in an adapter's argv fails a test instead of passing silently. The families are those of
the real CLIs in ``docs/spec/clis.md``: clap (codex), commander (claude, kimi-code), yargs
(gemini, qwen), click (kimi-cli) and pi's hand-written parser.

Like every module of the fakes, it is imported as a top-level module (the executables put this
directory on ``sys.path``) and uses the standard library only.
"""

from __future__ import annotations

from engine import Done

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class Opt:
    """One flag of a vendor grammar.

    ``value`` is the metavar when the flag takes a value (None = boolean). ``variadic`` mimics
    commander's ``<x...>``: it also swallows the following words that do not start with ``-``,
    which is how a real ``claude --tools Read "prompt"`` eats the prompt.
    """

    def __init__(
        self,
        names: tuple[str, ...],
        value: str | None = None,
        choices: tuple[str, ...] = (),
        repeat: bool = False,
        variadic: bool = False,
    ) -> None:
        self.names = names
        self.value = value
        self.choices = choices
        self.repeat = repeat
        self.variadic = variadic

    @property
    def key(self) -> str:
        """Name under which the parsed value is stored: the longest spelling, snake_cased."""
        return max(self.names, key=len).lstrip("-").replace("-", "_")

    @property
    def long(self) -> str:
        """The display name argument parsers use in their messages."""
        return max(self.names, key=len)


class Parsed:
    """Result of parsing an argv against a grammar."""

    def __init__(self) -> None:
        self.values: dict[str, Any] = {}
        self.positionals: list[str] = []
        self.rest: list[str] = []
        self.seen: dict[str, str] = {}

    def get(self, key: str, default: Any = None) -> Any:
        """Return a parsed value by key, ``default`` when the flag was not given."""
        return self.values.get(key, default)


def _camel_to_kebab(name: str) -> str:
    """Map yargs' camelCase aliases (``--outputFormat``) to the kebab spelling."""
    return "".join("-" + c.lower() if c.isupper() else c for c in name)


class Grammar:
    """A vendor's command-line grammar plus the message style of its argument parser.

    ``family`` selects the parser conventions and error texts: ``clap`` (Rust, codex),
    ``commander`` (Node, claude and kimi-code), ``yargs`` (Node, gemini and qwen), ``click``
    (Python/typer, kimi-cli) and ``pi`` (pi's hand-written parser).
    """

    def __init__(
        self,
        family: str,
        prog: str,
        usage: str,
        opts: list[Opt],
        max_positionals: int | None = None,
        description: str = "",
    ) -> None:
        self.family = family
        self.prog = prog
        self.usage = usage
        self.opts = opts
        self.max_positionals = max_positionals
        self.description = description

    def find(self, name: str) -> Opt | None:
        """Return the option spelled ``name`` (``--model`` or ``-m``), if the grammar has it."""
        for opt in self.opts:
            if name in opt.names:
                return opt
        if self.family == "yargs" and name.startswith("--"):
            kebab = "--" + _camel_to_kebab(name[2:])
            if kebab != name:
                return self.find(kebab)
        return None

    def help_text(self) -> str:
        """A ``--help`` page listing exactly the accepted flags."""
        lines = [self.usage, ""]
        if self.description:
            lines += [self.description, ""]
        lines.append("Options:")
        for opt in self.opts:
            spelled = ", ".join(opt.names)
            if opt.value is not None:
                spelled += f" <{opt.value}>"
            if opt.choices:
                spelled += "  (choices: " + ", ".join(opt.choices) + ")"
            lines.append("  " + spelled)
        return "\n".join(lines) + "\n"

    # -- error messages, one style per parser family ---------------------------------------

    def click_error(self, text: str) -> Done:
        """click's usage error: the usage line, the help hint, then ``Error: text``."""
        header = f"Usage: {self.prog} [OPTIONS]\nTry '{self.prog} -h' for help.\n\n"
        return Done(2, stderr=f"{header}Error: {text}\n")

    def _clap_error(self, text: str, *, usage: bool = False) -> Done:
        return Done(
            2,
            stderr=f"error: {text}\n\n"
            + (f"{self.usage}\n\n" if usage else "")
            + "For more information, try '--help'.\n",
        )

    def _yargs_error(self, text: str) -> Done:
        return Done(1, stderr=self.help_text() + "\n" + text + "\n")

    def _clap_flag(self, opt: Opt) -> str:
        return opt.long + (f" <{opt.value}>" if opt.value else "")

    def _commander_flag(self, opt: Opt) -> str:
        return ", ".join(opt.names) + (f" <{opt.value}>" if opt.value else "")

    def unknown(self, token: str) -> Done:
        """The parser's unknown-flag failure (``token`` is the argument as typed)."""
        name = token.split("=", 1)[0]
        if self.family == "clap":
            return self._clap_error(
                f"unexpected argument '{name}' found\n\n"
                f"  tip: to pass '{name}' as a value, use '-- {name}'",
                usage=True,
            )
        if self.family == "commander":
            return Done(1, stderr=f"error: unknown option '{token}'\n")
        if self.family == "click":
            return self.click_error(f"No such option: {name}")
        if self.family == "pi":
            return Done(1, stderr=f"Error: Unknown option: {name}\n")
        raise AssertionError("yargs collects unknown arguments instead")

    def yargs_unknown(self, names: list[str]) -> Done:
        """yargs reports all unknown arguments at once, singular or plural like yargs does."""
        label = "Unknown argument" if len(names) == 1 else "Unknown arguments"
        return self._yargs_error(f"{label}: {', '.join(names)}")

    def missing_value(self, opt: Opt, spelled: str) -> Done:
        """The parser's failure for a value-taking flag given without a value."""
        if self.family == "clap":
            return self._clap_error(
                f"a value is required for '{self._clap_flag(opt)}' but none was supplied"
            )
        if self.family == "commander":
            return Done(1, stderr=f"error: option '{self._commander_flag(opt)}' argument missing\n")
        if self.family == "click":
            return self.click_error(f"Option '{spelled}' requires an argument.")
        if self.family == "yargs":
            return self._yargs_error(f"Not enough arguments following: {spelled.lstrip('-')}")
        return Done(1, stderr=f"Error: {spelled} requires a value\n")

    def bad_choice(self, opt: Opt, spelled: str, value: str) -> Done:
        """The parser's failure for a value outside the flag's choices."""
        if self.family == "clap":
            return self._clap_error(
                f"invalid value '{value}' for '{self._clap_flag(opt)}'\n"
                f"  [possible values: {', '.join(opt.choices)}]"
            )
        if self.family == "commander":
            return Done(
                1,
                stderr=(
                    f"error: option '{self._commander_flag(opt)}' argument '{value}' is invalid."
                    f" Allowed choices are {', '.join(opt.choices)}.\n"
                ),
            )
        if self.family == "click":
            choices = ", ".join(f"'{c}'" for c in opt.choices)
            return self.click_error(
                f"Invalid value for '{spelled}': '{value}' is not one of {choices}."
            )
        if self.family == "yargs":
            choices = ", ".join(f'"{c}"' for c in opt.choices)
            return self._yargs_error(
                f'Invalid values:\n  Argument: {opt.long.lstrip("-")}, Given: "{value}", '
                f"Choices: {choices}"
            )
        return Done(
            1,
            stderr=f'Error: Invalid value "{value}" for {opt.long}. '
            f"Valid values: {', '.join(opt.choices)}\n",
        )

    def repeated(self, opt: Opt) -> Done:
        """clap refuses a non-repeatable flag given twice; the other parsers keep the last."""
        return self._clap_error(
            f"the argument '{self._clap_flag(opt)}' cannot be used multiple times", usage=True
        )

    def too_many(self, token: str, count: int) -> Done:
        """The parser's failure for a positional argument the grammar has no room for."""
        if self.family == "clap":
            return self._clap_error(f"unexpected argument '{token}' found", usage=True)
        if self.family == "commander":
            limit = self.max_positionals or 0
            noun = "argument" if limit == 1 else "arguments"
            return Done(
                1,
                stderr=f"error: too many arguments. Expected {limit} {noun} but got {count}.\n",
            )
        if self.family == "click":
            return self.click_error(f"Got unexpected extra argument ({token})")
        return Done(1, stderr=f"Error: Unexpected argument: {token}\n")

    # -- the parser ------------------------------------------------------------------------

    def parse(self, argv: list[str], *, stop_at_positional: bool = False) -> Parsed:
        """Parse ``argv`` with this family's conventions; raise ``Done`` on any usage error.

        With ``stop_at_positional`` the first positional and everything after it land in
        ``rest`` (clap's subcommand dispatch).
        """
        parsed = Parsed()
        unknown: list[str] = []
        i = 0
        while i < len(argv):
            token = argv[i]
            i += 1
            if token == "--" and self.family != "pi":
                parsed.positionals.extend(argv[i:])
                break
            if token.startswith("--") and len(token) > 2:
                i = self._parse_long(token, argv, i, parsed, unknown)
            elif token.startswith("-") and len(token) > 1 and not _is_number(token):
                i = self._parse_short(token, argv, i, parsed, unknown)
            elif stop_at_positional:
                parsed.rest = argv[i - 1 :]
                break
            else:
                parsed.positionals.append(token)
        if unknown:
            raise self.yargs_unknown(unknown)
        limit = self.max_positionals
        if limit is not None and len(parsed.positionals) > limit:
            raise self.too_many(parsed.positionals[limit], len(parsed.positionals))
        return parsed

    def _parse_long(
        self, token: str, argv: list[str], i: int, parsed: Parsed, unknown: list[str]
    ) -> int:
        name, eq, inline = token.partition("=")
        opt = self.find(name)
        negated = False
        if opt is None and self.family == "yargs" and name.startswith("--no-"):
            candidate = self.find("--" + name[5:])
            if candidate is not None and candidate.value is None:
                opt, negated = candidate, True
        if opt is None:
            if self.family == "yargs":
                unknown.append(name.lstrip("-"))
                return i
            raise self.unknown(token)
        if opt.value is None:
            if eq:
                if self.family == "clap":
                    raise self._clap_error(
                        f"unexpected value '{inline}' for '{name}' found; no more were expected"
                    )
                if self.family == "click":
                    raise self.click_error(f"Option '{name}' does not take a value.")
                if self.family in ("commander", "pi"):
                    raise self.unknown(token)
                negated = inline.lower() in ("false", "0", "no")
            self._store(opt, name, not negated, parsed)
            return i
        if eq:
            value = inline
        else:
            value, i = self._take_value(opt, name, argv, i)
        self._store(opt, name, value, parsed)
        return self._swallow(opt, argv, i, parsed)

    def _parse_short(
        self, token: str, argv: list[str], i: int, parsed: Parsed, unknown: list[str]
    ) -> int:
        if self.family == "pi":
            opt = self.find(token)
            if opt is None:
                raise self.unknown(token)
            if opt.value is None:
                self._store(opt, token, True, parsed)
                return i
            value, i = self._take_value(opt, token, argv, i)
            self._store(opt, token, value, parsed)
            return i
        j = 1
        while j < len(token):
            spelled = "-" + token[j]
            opt = self.find(spelled)
            if opt is None:
                if self.family == "yargs":
                    unknown.append(token[j])
                    j += 1
                    continue
                raise self.unknown(spelled if self.family != "commander" else token)
            if opt.value is None:
                self._store(opt, spelled, True, parsed)
                j += 1
                continue
            attached = token[j + 1 :]
            if attached:
                if self.family in ("clap", "yargs"):
                    attached = attached.removeprefix("=")
                value = attached
            else:
                value, i = self._take_value(opt, spelled, argv, i)
            self._store(opt, spelled, value, parsed)
            return self._swallow(opt, argv, i, parsed)
        return i

    @staticmethod
    def _swallow(opt: Opt, argv: list[str], i: int, parsed: Parsed) -> int:
        """commander's variadic value: the following words up to the next flag join it."""
        if opt.variadic:
            while i < len(argv) and not argv[i].startswith("-"):
                parsed.values[opt.key].append(argv[i])
                i += 1
        return i

    def _take_value(self, opt: Opt, spelled: str, argv: list[str], i: int) -> tuple[str, int]:
        if i >= len(argv):
            raise self.missing_value(opt, spelled)
        value = argv[i]
        looks_like_flag = value.startswith("-") and value != "-" and not _is_number(value)
        if looks_like_flag and self.family in ("clap", "yargs"):
            raise self.missing_value(opt, spelled)
        return value, i + 1

    def _store(self, opt: Opt, spelled: str, value: Any, parsed: Parsed) -> None:
        if isinstance(value, str) and opt.choices and value not in opt.choices:
            raise self.bad_choice(opt, spelled, value)
        if opt.repeat or opt.variadic:
            parsed.values.setdefault(opt.key, []).append(value)
        else:
            if opt.key in parsed.values and self.family == "clap":
                raise self.repeated(opt)
            parsed.values[opt.key] = value
        parsed.seen[opt.key] = spelled


def _is_number(token: str) -> bool:
    try:
        float(token)
    except ValueError:
        return False
    return True
