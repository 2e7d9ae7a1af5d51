"""claude's figures as its JSON result prints them: the result object of a spawned call, the
tokens and cost it reports, the models that served, and a warm turn's share of a worker's
running totals."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from council.adapters.base import Usage
from council.adapters.output import cost_figure, output_figure, ranked_models, token_count


def result_object(stdout: str) -> dict | None:
    """The JSON result object claude printed on stdout; None when there is none."""
    text = stdout.strip()
    if not text.startswith("{"):
        return None
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        # stream noise before the object: take the last line that is one
        for line in reversed(text.splitlines()):
            if line.startswith("{"):
                try:
                    value = json.loads(line)
                    break
                except json.JSONDecodeError:
                    continue
        else:
            return None
    return value if isinstance(value, dict) else None


def result_usage(payload: Mapping[str, Any]) -> Usage | None:
    """A result object's usage (`ClaudeAdapter.read_usage` says how it is counted)."""
    cost = cost_figure(payload.get("total_cost_usd"))
    per_model = payload.get("modelUsage")
    if isinstance(per_model, dict) and per_model:
        tokens = model_tokens(per_model)
    elif isinstance(usage := payload.get("usage"), dict):
        tokens = turn_tokens(usage)
    elif cost is None:
        return None
    else:
        return Usage(cost_usd=cost)
    return Usage(*tokens, cost)


# What a `result` event's running figures count from. Up to 2.1.210 claude adds up every
# turn of the process: `/clear`'s result repeats the totals so far. From 2.1.211 (bisected
# against the fake model server) it counts per session: `/clear` starts one, and its result
# says zero (empty `modelUsage`, `total_cost_usd` 0). Either way a turn's figures are its
# result's less those of the `/clear` result just before it: the two are told apart by what
# claude prints, not by a version gate, as the worker's version is only probed beside its
# start (the handshake names none). 2.1.332 also prints the turn's own figures
# (`model_usage_since_last_result`, absent from 2.1.211 to 2.1.265 at least): not read, as
# the rule above gives them on every release.


@dataclass(frozen=True)
class Totals:
    """A result's running figures: `modelUsage` counted as `read_usage` counts it (None
    when empty: no model called yet, or an error result), and `total_cost_usd`."""

    tokens: tuple[int, int] | None = None
    cost: float | None = None


def totals(result: Mapping[str, Any]) -> Totals | None:
    """None when a figure is not a count: nothing can be counted from it."""
    try:
        per_model = result.get("modelUsage")
        tokens = model_tokens(per_model) if isinstance(per_model, Mapping) and per_model else None
        return Totals(tokens, cost_figure(result.get("total_cost_usd")))
    except (KeyError, TypeError, ValueError, AttributeError):
        return None


def turn_usage(result: Mapping[str, Any], baseline: Totals | None) -> Usage | None:
    """One warm turn's figures, counted as `read_usage` counts a spawned call's: the rise of
    its result's running figures over `baseline` (those of the `/clear` result before it); a
    result with no `modelUsage` (an error, from 2.1.211) gives its `usage`, the turn's own. A
    figure below its baseline went back where council did not see: it is not told apart
    from a rise, so the turn's usage is None, never negative."""
    now = totals(result)
    if now is None or baseline is None:
        return None
    cost = None
    if now.cost is not None:
        rise = now.cost - (baseline.cost or 0.0)
        if rise < 0:
            return None
        cost = round(rise, 9)  # float noise of the subtraction, far below a cent
    if now.tokens is not None:
        before = baseline.tokens or (0, 0)
        tokens = (now.tokens[0] - before[0], now.tokens[1] - before[1])
        if min(tokens) < 0:
            return None
        return Usage(*tokens, cost)
    try:
        if isinstance(usage := result.get("usage"), Mapping):
            return Usage(*turn_tokens(usage), cost)
    except (KeyError, TypeError, ValueError, AttributeError):
        return None
    return None if cost is None else Usage(cost_usd=cost)


def ranked_by_output(per_model: Mapping[str, Any]) -> tuple[str, ...]:
    """`modelUsage`'s models, the one with most output tokens first."""
    return ranked_models(
        {
            name: output_figure(m.get("outputTokens") if isinstance(m, Mapping) else None)
            for name, m in per_model.items()
        }
    )


def turn_models(result: Mapping[str, Any], cleared: Any) -> tuple[str, ...]:
    """The models one warm turn called: those of its result's `modelUsage` whose figures
    rose over the `/clear` result's before it (up to 2.1.210 both count every turn of the
    process, so a model an earlier turn called stays listed there with no rise)."""
    per_model = result.get("modelUsage")
    if not isinstance(per_model, Mapping):
        return ()
    before = cleared if isinstance(cleared, Mapping) else {}

    def spent(models: Mapping[str, Any], name: str) -> int:
        m = models.get(name)
        m = m if isinstance(m, Mapping) else {}
        return output_figure(m.get("inputTokens")) + output_figure(m.get("outputTokens"))

    return ranked_by_output(
        {n: m for n, m in per_model.items() if spent(per_model, n) > spent(before, n)}
    )


def model_tokens(per_model: Mapping[str, Any]) -> tuple[int, int]:
    """Input (uncached, cache reads and cache writes) and output, summed over the models."""
    counts = [
        (
            token_count(m["inputTokens"])
            + token_count(m.get("cacheReadInputTokens", 0))
            + token_count(m.get("cacheCreationInputTokens", 0)),
            token_count(m["outputTokens"]),
        )
        for m in per_model.values()
    ]
    return sum(c[0] for c in counts), sum(c[1] for c in counts)


def turn_tokens(usage: Mapping[str, Any]) -> tuple[int, int]:
    """`usage` (the main conversation's turns), counted as `_model_tokens` counts."""
    return (
        token_count(usage["input_tokens"])
        + token_count(usage.get("cache_read_input_tokens", 0))
        + token_count(usage.get("cache_creation_input_tokens", 0)),
        token_count(usage["output_tokens"]),
    )
