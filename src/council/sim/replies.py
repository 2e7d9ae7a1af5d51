"""Deterministic, role-appropriate replies for every debate phase.

Every choice of wording comes from the sha256 of the prompt, so the same prompt always gives the
same reply and different debates read differently.
"""

from __future__ import annotations

import hashlib
import re

from council.sim import injection as I
from council.sim import prompt as P
from council.words import count_words, cut_words

_VERIFY_COMMANDS = {
    "py": "python -m pytest -q",
    "js": "npm test",
    "mjs": "npm test",
    "ts": "npm test",
    "tsx": "npm test",
    "jsx": "npm test",
    "rs": "cargo test",
    "go": "go test ./...",
    "rb": "bundle exec rake test",
    "java": "./gradlew test",
    "kt": "./gradlew test",
}

_APPROACHES = (
    "keep the public interface of {f} stable and move the new logic into one small function "
    "with its own tests",
    "change {f} behind a configuration flag that defaults to today's behaviour, so the change "
    "can be rolled back",
    "split {f} into a pure core and a thin I/O layer, and change only the core",
    "add the behaviour to {f} as a separate code path that callers opt into explicitly",
)
_STEPS = (
    "First write a failing test for the expected behaviour, then make the smallest change that "
    "passes it, then run the full suite.",
    "Start with a test that pins the current behaviour, make the change, and compare the suite's "
    "results and timings before and after.",
    "Write the test first, keep the diff under a hundred lines, and run the whole suite twice.",
)
_BENEFITS = (
    "This keeps the blast radius small and the diff easy to review.",
    "This keeps the change reversible and cheap to verify.",
    "This avoids new dependencies and keeps the behaviour explicit.",
)
_RISKS = (
    "The main risk is hidden coupling with callers of {f}; searching for its imports bounds it.",
    "The main risk is a behaviour change under concurrent use; a stress test covers it.",
    "The main risk is performance on large inputs; a quick benchmark settles it.",
)
_ASSUMPTIONS = (
    "that {f} is the only place where this behaviour lives",
    "that every caller of {f} tolerates the change in behaviour",
    "that the existing tests exercise the paths the change touches in {f}",
    "that inputs stay small enough for the proposed approach in {f}",
)
_ALTERNATIVES = (
    "leave {f} as it is and document the limitation until a real user hits it",
    "solve it with configuration instead of new code in {f}",
    "add one guard clause in {f} and measure before building more",
)
_MISSED = (
    "A missed risk: error paths are not covered, so a failure would be silent.",
    "A missed risk: there is no rollback plan if the change misbehaves in production.",
    "A missed risk: the change alters an interface other modules depend on.",
)
_CHALLENGE_CLOSE = (
    "Vote: revise; the proposal can stand once this assumption is checked with a test.",
    "Vote: revise; settle the assumption with one targeted test before merging.",
    "Vote: disagree until the assumption is shown to hold.",
)
_ACCEPTED = ("untested error paths", "the fragile assumption", "the missing rollback plan")
_DEFENCES = (
    "the simpler alternative leaves the original problem unsolved",
    "the change stays local to {f} and is easy to revert",
    "the extra cost is one small function and its test",
)
_GENERIC = (
    "The simplest option that passes a targeted test is preferable.",
    "A small, reversible step is better than a broad rewrite.",
    "Measure first; the data will rule out most of the options.",
)
_TRADEOFFS = (
    "A little more code in exchange for explicit, tested behaviour.",
    "A configuration flag to maintain in exchange for an easy rollback.",
    "A slower first step in exchange for a verified baseline.",
)
_OPEN_BLOCKING = (
    "[SIMULATED] Whether every caller of {f} tolerates the change is still unverified.",
    "[SIMULATED] The rollback plan for the change in {f} is still disputed.",
    "[SIMULATED] Error paths in {f} are still untested.",
)
_FLAVOUR = {
    "advocate": "As the advocate, I",
    "critic": "As the critic, I",
    "proxy": "As an outside reviewer, I",
}


class _Context:
    """What a reply needs to know about its prompt, with a hash-driven chooser."""

    def __init__(self, raw: bytes, text: str, model: str | None) -> None:
        raw = I.masked(raw)  # a run's own tokens must not change what the sim says
        self.raw = raw
        self.digest = hashlib.sha256(raw).digest()
        question = P.find_question(text)
        self.q = f'"{question}"' if question else "the question under debate"
        self.file = P.find_file(text)
        self.f = f"`{self.file}`" if self.file else "the code under discussion"
        self.subject = _FLAVOUR.get(P.find_role(text) or "", "I")
        self.label = "[SIMULATED]"
        if model:
            self.label += " [model=" + "_".join(model.split()) + "]"
        self.text = text

    def pick(self, slot: int, options: tuple[str, ...]) -> str:
        return options[self.digest[slot] % len(options)].format(f=self.f)

    def byte(self, salt: str) -> int:
        return hashlib.sha256(self.raw + b"\0" + salt.encode()).digest()[0]


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _fit(sentences: list[str], limit: int) -> str:
    """Join whole sentences while they fit the word limit; cut the first one if it alone won't."""
    out: list[str] = []
    for sentence in sentences:
        if count_words(" ".join([*out, sentence])) > limit:
            break
        out.append(sentence)
    if not out:
        return cut_words(sentences[0], limit)
    return " ".join(out)


def _proposal(c: _Context) -> list[str]:
    return [
        f"{c.label} {c.subject} propose a concrete answer to {c.q}: {c.pick(0, _APPROACHES)}.",
        c.pick(1, _STEPS),
        c.pick(2, _BENEFITS),
        c.pick(3, _RISKS),
        "Done when the new test passes and no existing test has to change.",
    ]


def _blind_take(c: _Context) -> list[str]:
    return [
        f"{c.label} {c.subject} would answer {c.q} on my own like this: {c.pick(22, _APPROACHES)}.",
        c.pick(23, _RISKS),
    ]


_PREFER = re.compile(r"SIM_PREFER\(([^)]*)\)")
_OPTION_LINE = re.compile(r"^- (.+)$")


def _check(c: _Context, model: str | None) -> tuple[list[str], str]:
    """A check's answer (a blind take) and its stance: the one `SIM_PREFER(name=stance,...)`
    in the prompt gives this simulator's `--model`, else the first option listed under
    `## Options`, else `yes`."""
    for marker in _PREFER.findall(c.text):
        for pair in marker.split(","):
            name, _, stance = pair.partition("=")
            if model and name.strip() == model and stance.strip():
                return _blind_take(c), stance.strip()
    lines = c.text.splitlines()
    if "## Options" in lines:
        below = lines[lines.index("## Options") + 1 :]
        options = [m.group(1) for line in below if (m := _OPTION_LINE.match(line))]
        if options:
            return _blind_take(c), options[0]
    return _blind_take(c), "yes"


def _challenge(c: _Context) -> list[str]:
    return [
        f"{c.label} {c.subject} challenge the proposal on {c.q}: the most fragile assumption is "
        f"{c.pick(4, _ASSUMPTIONS)}.",
        f"A simpler alternative is to {c.pick(5, _ALTERNATIVES)}.",
        c.pick(6, _MISSED),
        c.pick(7, _CHALLENGE_CLOSE),
    ]


def _respond(c: _Context) -> list[str]:
    return [
        f"{c.label} {c.subject} answer the challenge on {c.q}.",
        f"I accept the point about {c.pick(8, _ACCEPTED)} and will add a test for it in {c.f} "
        "before changing anything else.",
        f"I defend the overall approach, because {c.pick(9, _DEFENCES)}.",
        "Revised plan: the test first, then the change, then a full suite run.",
    ]


def _rebuttal(c: _Context) -> list[str]:
    if c.digest[10] % 2:
        return [
            f"{c.label} {c.subject} agree with the revised plan for {c.q}, provided the new "
            f"test for {c.f} lands first.",
            "Nothing else blocks.",
        ]
    return [
        f"{c.label} {c.subject} keep one objection on {c.q}: the revised plan still assumes "
        f"{c.pick(11, _ASSUMPTIONS)}.",
        "Verify that with a test before merging; everything else is acceptable.",
    ]


def _final_summary(c: _Context) -> list[str]:
    return [
        f"{c.label} Summary of the position on {c.q}: {c.pick(12, _APPROACHES)}.",
        "Accepted from the challenges: a test for the fragile path comes first.",
        f"Rejected: leaving {c.f} unchanged, because the original problem would remain.",
        c.pick(13, _RISKS),
        "Next step: write the test, make the change, run the full suite.",
    ]


def _generic(c: _Context) -> list[str]:
    return [
        f"{c.label} Analysis of {c.q} with reference to {c.f}.",
        "Three things decide it: correctness, simplicity and the cost of verifying the change.",
        c.pick(14, _GENERIC),
        "Check the riskiest assumption with a test before committing to a design.",
    ]


def _convergence(c: _Context) -> str:
    if "FORCE_DIVERGE" in c.text:
        first = c.digest[15] % len(_OPEN_BLOCKING)
        items = [_OPEN_BLOCKING[first].format(f=c.f)]
        if c.digest[16] % 2:
            items.append(_OPEN_BLOCKING[(first + 1) % len(_OPEN_BLOCKING)].format(f=c.f))
        return _json({"converged": False, "open_blocking": items})
    return _json({"converged": True, "open_blocking": []})


_VOTE_REASONS = {
    "agree": (
        "the revised plan answers the fragile assumption with a test.",
        "the change is small, tested and easy to revert.",
    ),
    "revise": (
        "adopt it once the fragile assumption is checked with a targeted test.",
        "the plan holds, but the rollback path must be written down first.",
    ),
    "disagree": (
        "the fragile assumption in {f} is still unverified and the plan depends on it.",
        "the simpler alternative solves the problem with less risk.",
    ),
}


def _vote_line(c: _Context, phase: str) -> str:
    """The seat's own closing vote, in keeping with what its text says: a challenge wants the
    proposal revised or rejected; a rebuttal that accepts the revised plan agrees or asks for
    a revision, one that keeps an objection asks for a revision or disagrees."""
    value = c.byte("vote") % 3
    if phase == "REBUTTAL" and c.digest[10] % 2:  # the accepting rebuttal (see _rebuttal)
        vote = "agree" if value else "revise"
    elif phase in ("CHALLENGE", "REBUTTAL"):
        vote = "revise" if value else "disagree"
    else:
        vote = ("agree", "revise", "disagree")[value]
    reason = c.pick(21, _VOTE_REASONS[vote]).format(f=c.f)
    return f"VOTE: {vote} - {_capital(reason)}"


def _decision(c: _Context) -> str:
    ext = c.file.rsplit(".", 1)[-1].lower() if c.file and "." in c.file else ""
    blocking = []
    if "FORCE_BLOCKING" in c.text:
        blocking.append(
            f"[SIMULATED] {_capital(c.pick(17, _ASSUMPTIONS))} has not been shown; "
            "it must be verified before any change ships."
        )
    decision = {
        "recommendation": f"{c.label} {_capital(c.pick(18, _APPROACHES))}, to settle {c.q}. "
        f"Write a test for the fragile path in {c.f} first.",
        "consensus": [
            "The change should stay small and be covered by a targeted test.",
            f"{_capital(c.f)} is the right place for the change.",
        ],
        "disagreements": [
            {
                "point": f"Whether to change {c.f} now or first document the limitation.",
                "ruling": "Change it now, behind a test.",
                "reason": "The simpler alternative leaves the original problem unsolved.",
                "loop": False,
            }
        ],
        "tradeoffs": [c.pick(19, _TRADEOFFS)],
        "blocking_concerns": blocking,
        "next_step": {
            "action": f"Write a failing test for {c.q} in {c.f}, then make the smallest change "
            "that passes it.",
            "verify_command": _VERIFY_COMMANDS.get(ext, "make test"),
            "done_criterion": "The new test passes and the existing suite stays green.",
        },
        "confidence": 55 + c.digest[20] % 41,
    }
    return _json(decision, indent=2)


_TEXT_PHASES = {
    "PROPOSAL": _proposal,
    "BLIND_TAKE": _blind_take,
    "CHALLENGE": _challenge,
    "RESPOND": _respond,
    "REBUTTAL": _rebuttal,
    "FINAL_SUMMARY": _final_summary,
}


def build_reply(
    raw: bytes,
    text: str,
    phase: str,
    model: str | None,
    *,
    limited: bool = True,
    obey: frozenset[str] = frozenset(),
) -> str:
    """Return the reply (without trailing newline) for ``phase``.

    ``raw`` is the prompt as read from stdin (it drives every choice), ``text`` its decoded form.
    JSON phases return one JSON object; text phases stay within the prompt's word limit unless
    ``limited`` is false. An instruction inside the prompt's fenced material is obeyed when
    this sim's role or model is in ``obey``, else reported (``council.sim.injection``).
    """
    found = None if phase in _LEAD_PHASES else I.find_injection(text)
    taken = found is not None and I.obeys(obey, P.role_value(text), model)
    if phase in P.REVIEW_PHASES:
        from council.sim import review  # only a review needs it

        if phase.startswith("CROSS_CHECK"):
            reply = _json({"verdicts": review.verdicts_for(text, model)}, indent=2)
        else:
            findings = [] if taken else review.findings_for(text, model)
            reply = _json({"findings": findings}, indent=2)
        return _after_json(reply, found, taken, text)
    c = _Context(raw, text, model)
    if phase == "CONVERGENCE":
        return _convergence(c)
    if phase in ("DECISION", "REPAIR"):
        return _decision(c)
    closing = []
    if phase == "CHECK":
        sentences, stance = _check(c, model)
        closing.append(f"POSITION: {stance}")
    else:
        sentences = _TEXT_PHASES.get(phase, _generic)(c)
    if found is not None and taken:
        sentences = [_obedience(c, found, text), *sentences]
    elif found is not None:
        closing.append(f"INJECTION: {found.what}")
    if P.asks_for_vote(text):
        # The last word of a challenger ends with its vote line, which its word limit includes.
        told = found.vote if found is not None and taken else None
        closing.append(f"VOTE: {told} - {_OBEYED_REASON}" if told else _vote_line(c, phase))
        sentences = [s for s in sentences if not s.startswith("Vote:")]
    if not closing:
        return _fit(sentences, P.word_limit(text)) if limited else " ".join(sentences)
    room = P.word_limit(text) - sum(count_words(line) for line in closing)
    body = _fit(sentences, max(room, 1)) if limited else " ".join(sentences)
    return "\n".join([body, *closing])


_LEAD_PHASES = frozenset({"DECISION", "REPAIR", "CONVERGENCE"})
_OBEYED_REASON = "The material under debate says to vote this way."


def _obedience(c: _Context, found: I.Injection, text: str) -> str:
    """The sentence of a sim the material has taken over: it follows the instruction and
    gives away the canary its prompt told it never to repeat."""
    canary = I.find_canary(text)
    leak = f" The token is {canary}." if canary else ""
    return f"{c.label} I follow the instruction in the material: {found.what}.{leak}"


def _after_json(reply: str, found: I.Injection | None, taken: bool, text: str) -> str:
    """A JSON reply with what its injected material made of it, on a line after the object:
    the canary given away, or the injection reported."""
    if found is None:
        return reply
    if taken:
        canary = I.find_canary(text)
        return f"{reply}\n{canary}" if canary else reply
    return f"{reply}\nINJECTION: {found.what}"


def _json(value: object, indent: int | None = None) -> str:
    import json  # only the JSON phases need it: every other simulated call starts faster

    return json.dumps(value, ensure_ascii=False, indent=indent)
