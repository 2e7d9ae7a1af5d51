"""Prompt templates: Jinja2 files in `prompts/`, shipped inside the package as
`council/prompts`. No prompt prose lives in Python."""

from __future__ import annotations

import threading
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import jinja2


def templates_dir() -> Path:
    shipped = Path(__file__).parent / "prompts"  # a wheel install
    if shipped.is_dir():
        return shipped
    return Path(__file__).resolve().parents[2] / "prompts"  # an editable install


_making = threading.Lock()  # the warm-up thread and the first render may both come first


def _environment() -> jinja2.Environment:
    with _making:
        return _make_environment()


@cache
def _make_environment() -> jinja2.Environment:
    import jinja2  # only when a prompt is rendered: keeps `council --version` fast

    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(templates_dir()),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        autoescape=False,  # plain-text prompts, never HTML
    )


def render(name: str, **values: Any) -> str:
    return _environment().get_template(f"{name}.md.j2").render(**values)


def warm_up(*names: str) -> None:
    """Import Jinja2 and compile the named templates now, or every template when none is
    named. Worker threads call this: during SETUP for the first phase's template only (it
    competes with the READY probes for the interpreter lock), then for the rest once the
    first CLI runs and the lead is idle. A render that comes first just waits for what it
    needs."""
    environment = _environment()
    files = [f"{n}.md.j2" for n in names] or sorted(
        path.name for path in templates_dir().glob("*.md.j2")
    )
    for file in files:
        environment.get_template(file)
