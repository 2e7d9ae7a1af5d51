"""What a debate will do, decided once from flags, preset, config files and defaults.

Precedence is `council.config.pick`'s, applied in `plan_settings` only: a flag beats a preset,
a preset beats the project file, the project file the user file, the user file the built-in
default. A seat spec (`cli[:model][#effort]`) beats `--model`/`--effort` for that seat, and a
preset's effort for one CLI (`efforts`) beats its effort for every seat. Per-CLI settings of
the config files (`clis.<name>.model`, `effort`, `timeout_s`) apply inside the adapter when
nothing above set them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from council.adapters import adapter_for, default_order
from council.config import (
    DEFAULT_SOURCE,
    FLAG_SOURCE,
    Config,
    Level,
    Preset,
    Source,
    Sourced,
    pick,
)
from council.debate.flags import CALLER, ROUNDS, DebateFlags
from council.errors import NoUsableCliError, UsageError
from council.panel.seat import (
    SeatPlan,
    SeatSpec,
    check_cli_name,
    cli_pairs,
    parse_seat_spec,
    timeouts_by_cli,
    unique_seat_name,
)
from council.panel.seating import pick_advocate, pick_other_vendor
from council.panel.setup import RunSetup, shared_setup


@dataclass(frozen=True, kw_only=True)
class DebatePlan(RunSetup):
    question: str
    advocate: SeatPlan
    critic: SeatPlan
    proxies: tuple[SeatPlan, ...]
    lead: SeatPlan | None  # None: the calling IDE agent writes the DECISION (--lead caller)
    quorum: int = 1
    words: Mapping[str, int] = field(default_factory=dict)
    blind: bool = True  # the BLIND TAKE phase beside the PROPOSAL
    max_cost: float | None = None  # USD the reported cost may reach; None: no cap
    # `quorum.distinct`: off | vendor | family, what counts as one voice in the quorum of
    # challenges and the tally of votes (debate/votes.py).
    distinct: str = "off"

    @property
    def seats(self) -> tuple[SeatPlan, ...]:
        return (self.advocate, self.critic, *self.proxies)

    @property
    def challengers(self) -> tuple[SeatPlan, ...]:
        return (self.critic, *self.proxies)

    def labels(self) -> dict[str, str]:
        """Each seat as prompts name it (docs/spec/protocol.md, "Anonymity"): the advocate,
        then `Seat A`, `Seat B`, ... in seat order, with the role; the lead is the lead."""
        labels = {self.advocate.name: "the advocate", "lead": "the lead"}
        for i, seat in enumerate(self.challengers):
            labels[seat.name] = f"Seat {chr(ord('A') + i)} ({seat.role})"
        return labels

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> DebatePlan:
        values = cls.known_fields(data)
        for key in ("advocate", "critic"):
            values[key] = SeatPlan(**values[key])
        values["proxies"] = tuple(SeatPlan(**p) for p in values["proxies"])
        values["lead"] = SeatPlan(**values["lead"]) if values["lead"] else None
        return cls(**values)


def find_preset(name: str | None, config: Config) -> Preset | None:
    if name is None:
        return None
    preset = config.presets.get(name)
    if preset is None:
        raise UsageError(f"unknown preset '{name}': use one of {', '.join(config.presets)}")
    return preset


def plan_settings(flags: DebateFlags, config: Config) -> dict[str, Sourced]:
    """The settings a flag, a preset and the config files may all give, each with its value
    and source: the roles, `rounds`, `quorum`, `proxies`, `blind`, and `effort` (every
    seat's; a seat's own is `seat_effort`). The one place where flag > preset > project file >
    user file > default meets."""
    preset = find_preset(flags.preset, config)

    def setting(flag: Any, preset_key: str | None, config_key: str | None) -> Sourced:
        candidates = [Sourced(flag, FLAG_SOURCE)]
        if preset is not None and preset_key is not None:
            candidates.append(Sourced(getattr(preset, preset_key), _preset_source(preset)))
        candidates.append(
            config.sourced(config_key) if config_key else Sourced(None, DEFAULT_SOURCE)
        )
        return pick(*candidates)

    return {
        "advocate": setting(flags.advocate, None, "roles.advocate"),
        "critic": setting(flags.critic, None, "roles.critic"),
        "lead": setting(flags.lead, None, "roles.lead"),
        "rounds": setting(flags.rounds, "rounds", "debate.rounds"),
        "quorum": setting(flags.quorum, "quorum", "debate.quorum"),
        "proxies": setting(flags.proxies, "proxies", "roles.proxies"),
        "blind": setting(False if flags.no_blind else None, "blind", "debate.blind"),
        "effort": setting(flags.effort, "effort", None),
    }


def seat_effort(spec: SeatSpec, every_seat: Sourced, preset: Preset | None) -> str | None:
    """A seat's effort: its seat spec, else --effort, else the preset's effort for its CLI,
    else the preset's effort for every seat (else None: the CLI's config, then its own)."""
    if spec.effort:
        return spec.effort
    own = Sourced(preset.efforts.get(spec.cli), _preset_source(preset)) if preset else None
    return pick(*filter(None, (own, every_seat))).value


def _preset_source(preset: Preset) -> Source:
    return Source(Level.PRESET, preset.name)


def resolve_plan(
    flags: DebateFlags, config: Config, installed: Callable[[str], bool] | None = None
) -> DebatePlan:
    """Everything a debate will do, from flags, preset, config files and defaults."""
    is_installed = installed or (lambda name: adapter_for(name, config.clis).locate() is not None)
    settings = plan_settings(flags, config)
    preset = find_preset(flags.preset, config)
    debate = config.debate

    rounds = settings["rounds"].value
    ROUNDS.check(rounds)
    quorum = settings["quorum"].value
    flag_models = cli_pairs(flags.models, ":", "--model")
    models = {**(preset.models if preset else {}), **flag_models}
    timeouts = timeouts_by_cli(flags.timeouts)
    if flags.sim:
        for flag, text in (
            ("--advocate", flags.advocate),
            ("--critic", flags.critic),
            ("--lead", flags.lead),
            *(("--with", p) for p in flags.proxies or ()),
        ):
            named = None if text in (None, CALLER, "auto") else parse_seat_spec(text).cli
            if named is not None:
                check_cli_name(named, config)
            if named is not None and _adapter_name(named, config) != "sim":
                raise UsageError(
                    f"--sim seats every role on the simulator, but {flag} {text} names a "
                    "real CLI: drop --sim, or that flag"
                )

    def seat(name: str, role: str, spec: SeatSpec) -> SeatPlan:
        cli = spec.cli
        if flags.sim and adapter_for(cli, config.clis).settings.adapter != "sim":
            cli = "sim"
        return SeatPlan(
            name=name,
            role=role,
            cli=cli,
            model=spec.model or models.get(spec.cli),
            effort=seat_effort(spec, settings["effort"], preset),
            soft_timeout_s=timeouts.get(cli, timeouts.get(spec.cli)),
        )

    def checked(text: str) -> SeatSpec:
        spec = parse_seat_spec(text)
        check_cli_name(spec.cli, config)
        return spec

    def spec_of(text: str | None) -> SeatSpec | None:
        return None if text is None else checked(text)

    def vendor_of(cli: str) -> str:
        return adapter_for(cli, config.clis).vendor

    advocate_spec = spec_of(settings["advocate"].value)
    if advocate_spec is None:
        first = "sim" if flags.sim else pick_advocate(is_installed)
        if first is None:
            raise NoUsableCliError(
                "no AI CLI found for the advocate seat: install one "
                "(see `council doctor`) or try council offline with --sim"
            )
        advocate_spec = SeatSpec(first)
    critic_spec = spec_of(settings["critic"].value) or SeatSpec(
        pick_other_vendor(advocate_spec.cli, is_installed, vendor_of) or advocate_spec.cli
    )

    lead_text = settings["lead"].value
    lead: SeatPlan | None
    if lead_text == CALLER:
        lead = None
    else:
        lead_spec = spec_of(lead_text) or SeatSpec(
            advocate_spec.cli
            if flags.sim
            else pick_other_vendor(advocate_spec.cli, is_installed, vendor_of) or advocate_spec.cli
        )
        lead = seat("lead", "lead", lead_spec)

    proxy_texts = settings["proxies"].value
    seated = {advocate_spec.cli, critic_spec.cli}
    proxy_specs: list[SeatSpec] = []
    for text in proxy_texts or ():
        if text.strip().lower() == "auto":
            proxy_specs += [
                SeatSpec(n)
                for n in default_order()
                if is_installed(n) and n not in seated and n not in {s.cli for s in proxy_specs}
            ]
        else:
            proxy_specs.append(checked(text))
    proxies: list[SeatPlan] = []
    for spec in proxy_specs:
        planned = seat("proxy", "proxy", spec)
        base = f"proxy-{planned.cli}"
        name = unique_seat_name(base, [p.name for p in proxies])
        proxies.append(replace(planned, name=name))

    advocate = seat("advocate", "advocate", advocate_spec)
    critic = seat("critic", "critic", critic_spec)
    everyone = [advocate, critic, *proxies, *([lead] if lead else [])]
    named = {advocate_spec.cli, critic_spec.cli, *(s.cli for s in proxy_specs)}
    named |= {s.cli for s in everyone} | ({lead_spec.cli} if lead is not None else set())
    for flag, given in (("--timeout", timeouts), ("--model", flag_models)):
        if unseated := sorted(set(given) - named):
            raise UsageError(
                f"{flag} names {', '.join(unseated)}, which has no seat in this debate; "
                f"the seated CLIs are {', '.join(sorted(named))}"
            )
    return DebatePlan(
        question=flags.question,
        advocate=advocate,
        critic=critic,
        proxies=tuple(proxies),
        lead=lead,
        rounds=rounds,
        quorum=quorum,
        words=dict(debate.words),
        blind=settings["blind"].value,
        max_cost=flags.max_cost if flags.max_cost is not None else debate.max_cost,
        distinct=config.quorum.distinct,
        # A run on the simulator alone is SIMULATED, whether or not --sim said so.
        simulated=flags.sim or all(_adapter_name(s.cli, config) == "sim" for s in everyone),
        **shared_setup(flags, config),
    )


def _adapter_name(cli: str, config: Config) -> str:
    return adapter_for(cli, config.clis).settings.adapter
