"""Checking one config file against the shipped JSON Schema (`schema/config.schema.json`).

jsonschema's own messages are replaced by council's one line: the file, the key path, what was
expected (read from the schema node that failed), and the value got. jsonschema is imported
only when a file is checked, so commands run without a config file never load it.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from council.errors import ConfigError

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator, ValidationError

SCHEMA_FILE = Path(__file__).parents[1] / "schema" / "config.schema.json"


@cache
def config_schema() -> dict[str, Any]:
    return json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))


@cache
def _validator() -> Draft202012Validator:
    import jsonschema

    return jsonschema.Draft202012Validator(config_schema())


def check_against_schema(raw: Any, where: str) -> None:
    """Raise a `ConfigError` (exit 4) for the most specific problem of `raw`, if any."""
    from jsonschema.exceptions import relevance

    if (bad := _not_a_number(raw)) is not None:
        # NaN passes every minimum and maximum (comparisons with it are false).
        raise ConfigError(f"{where}: {key_path(bad)}: expected a number, got .nan")
    errors = list(_validator().iter_errors(raw))
    if errors:
        # jsonschema's own ranking (its best_match): the shallowest error, where the most
        # is wrong, and of those one that is not merely one branch of an anyOf/oneOf.
        raise ConfigError(f"{where}: {describe_error(max(errors, key=relevance))}")


def _not_a_number(value: Any, path: tuple[Any, ...] = ()) -> tuple[Any, ...] | None:
    """The key path of the first NaN in `value`, or None."""
    if isinstance(value, float) and math.isnan(value):
        return path
    items = (
        value.items()
        if isinstance(value, dict)
        else enumerate(value)
        if isinstance(value, list)
        else ()
    )
    for key, item in items:
        if (found := _not_a_number(item, (*path, key))) is not None:
            return found
    return None


def describe_error(error: ValidationError) -> str:
    path = list(error.absolute_path)
    if error.validator == "additionalProperties" and error.validator_value is False:
        known = list(error.schema.get("properties", {}))
        unknown = next(k for k in error.instance if k not in known)
        return f"{key_path([*path, str(unknown)])}: unknown key; known keys: {', '.join(known)}"
    if "propertyNames" in error.relative_schema_path:
        # The failing instance is a key of the mapping at `path`.
        return f"{key_path([*path, str(error.instance)])}: expected {phrase(error.schema)}"
    return f"{key_path(path)}: expected {phrase(error.schema)}, got {error.instance!r}"


def key_path(parts: Sequence[Any]) -> str:
    """`clis.mine.version_args[0]`: an int is a list index (a mapping key is passed as str)."""
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "top level"


def phrase(node: dict[str, Any]) -> str:
    """What a schema node accepts, in words: `an integer from 2 to 5`."""
    if "$ref" in node:
        return phrase(_resolve(node["$ref"]))
    if "const" in node:
        return json.dumps(node["const"])
    if "enum" in node:
        values = [str(v) for v in node["enum"] if v is not None]
        return f"one of {', '.join(values)}" + (" (or null)" if None in node["enum"] else "")
    if "anyOf" in node:
        given = [a for a in node["anyOf"] if a.get("type") != "null"]
        nullable = len(given) < len(node["anyOf"])
        return " or ".join(phrase(a) for a in given) + (" (or null)" if nullable else "")
    types = node.get("type", [])
    types = [types] if isinstance(types, str) else list(types)
    words = " or ".join(_type_phrase(t, node) for t in types if t != "null")
    return words + (" (or null)" if "null" in types else "")


def _type_phrase(kind: str, node: dict[str, Any]) -> str:
    low, high = node.get("minimum"), node.get("maximum")
    if kind in ("integer", "number"):
        noun = "an integer" if kind == "integer" else "a number"
        if low is not None and high is not None:
            return f"{noun} from {low:g} to {high:g}"
        return f"{noun} of at least {low:g}" if low is not None else noun
    if kind == "string":
        if "pattern" in node:  # its description says it in words
            return node.get("description") or f"a string matching {node['pattern']}"
        return "a non-empty string" if node.get("minLength") else "a string"
    if kind == "array":
        items = node.get("items", {})
        if items.get("type") == "string":
            return "a list of non-empty strings" if items.get("minLength") else "a list of strings"
        return "a list"
    return {"boolean": "true or false", "object": "a mapping", "null": "null"}.get(kind, kind)


def _resolve(ref: str) -> dict[str, Any]:
    node: Any = config_schema()
    for part in re.sub(r"^#/", "", ref).split("/"):
        node = node[part]
    return node
