"""Code facts from the given files: key structures and interfaces, imports, data conventions.

Python is read with `ast` (classes with their bases and fields or public methods, public
functions with their signatures); JavaScript/TypeScript, Go, Rust, Java-like languages and Ruby
with a few line patterns, which is enough for names and signatures. Everything here reads the
redacted text, and nothing here reports a path.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from dataclasses import dataclass, field

MAX_LINE = 160


@dataclass
class Structure:
    name: str
    line: str  # "- class X(Base): a, b" or "- def f(x: int) -> str"
    is_class: bool


@dataclass
class CodeFacts:
    structures: list[Structure] = field(default_factory=list)
    imports: Counter[str] = field(default_factory=Counter)  # top-level module -> files
    data: Counter[str] = field(default_factory=Counter)  # "frozen dataclasses" -> count
    async_files: int = 0
    functions: int = 0
    annotated_functions: int = 0


def _clip(text: str, limit: int = MAX_LINE) -> str:
    return text if len(text) <= limit else text[: limit - 3].rstrip() + "..."


# -- Python ------------------------------------------------------------------------------------


def _simple_default(node: ast.expr) -> str:
    """Only literal defaults are shown: an expression may hold a path or a long value."""
    if isinstance(node, ast.Constant) and (
        node.value is None or isinstance(node.value, bool | int | float)
    ):
        return repr(node.value)
    return "..."


def _annotation(node: ast.expr | None) -> str:
    if node is None:
        return ""
    text = ast.unparse(node)
    return text if len(text) <= 40 else text[:37] + "..."


def _param(arg: ast.arg, default: ast.expr | None) -> str:
    piece = arg.arg
    if arg.annotation is not None:
        piece += f": {_annotation(arg.annotation)}"
    if default is not None:
        piece += (" = " if arg.annotation is not None else "=") + _simple_default(default)
    return piece


def _signature(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    a = fn.args
    positional = [*a.posonlyargs, *a.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(a.defaults))
    defaults += a.defaults
    parts = [_param(arg, default) for arg, default in zip(positional, defaults, strict=True)]
    if a.posonlyargs:
        parts.insert(len(a.posonlyargs), "/")
    if a.vararg:
        parts.append(f"*{a.vararg.arg}")
    elif a.kwonlyargs:
        parts.append("*")
    parts += [_param(arg, d) for arg, d in zip(a.kwonlyargs, a.kw_defaults, strict=True)]
    if a.kwarg:
        parts.append(f"**{a.kwarg.arg}")
    returns = f" -> {_annotation(fn.returns)}" if fn.returns else ""
    prefix = "async def" if isinstance(fn, ast.AsyncFunctionDef) else "def"
    return f"{prefix} {fn.name}({', '.join(parts)}){returns}"


def _decorator_names(node: ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    names = []
    for dec in node.decorator_list:
        target = dec.func if isinstance(dec, ast.Call) else dec
        names.append(ast.unparse(target).rsplit(".", 1)[-1])
    return names


def _is_frozen(node: ast.ClassDef) -> bool:
    for dec in node.decorator_list:
        if isinstance(dec, ast.Call):
            for kw in dec.keywords:
                if kw.arg == "frozen" and isinstance(kw.value, ast.Constant) and kw.value.value:
                    return True
    return False


_ENUM_BASES = ("Enum", "StrEnum", "IntEnum", "Flag", "IntFlag")


def _python_class(node: ast.ClassDef, facts: CodeFacts) -> Structure:
    bases = [ast.unparse(b) for b in node.bases]
    decorators = _decorator_names(node)
    tags = []
    base_names = {b.rsplit(".", 1)[-1] for b in bases}
    if "dataclass" in decorators or "define" in decorators or "frozen" in decorators:
        frozen = _is_frozen(node) or "frozen" in decorators
        tags.append("frozen dataclass" if frozen else "dataclass")
        facts.data["frozen dataclasses" if frozen else "dataclasses"] += 1
    if base_names & set(_ENUM_BASES):
        facts.data["enums"] += 1
    if "TypedDict" in base_names:
        facts.data["TypedDicts"] += 1
    if "NamedTuple" in base_names:
        facts.data["NamedTuples"] += 1
    if "BaseModel" in base_names:
        facts.data["pydantic models"] += 1
    if "Protocol" in base_names:
        facts.data["Protocols"] += 1
    if base_names & {"Exception", "BaseException"} or any(
        b.endswith(("Error", "Exception")) for b in base_names
    ):
        facts.data["exception classes"] += 1
    head = f"- class {node.name}" + (f"({', '.join(bases)})" if bases else "")
    if tags:
        head += f" [{', '.join(tags)}]"
    fields = [
        stmt.target.id
        for stmt in node.body
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)
    ]
    members = [
        stmt.name + "()"
        for stmt in node.body
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef)
        and not stmt.name.startswith("_")
    ]
    if base_names & set(_ENUM_BASES):
        members = [
            t.id
            for stmt in node.body
            if isinstance(stmt, ast.Assign)
            for t in stmt.targets
            if isinstance(t, ast.Name)
        ]
    shown = [*fields, *members]
    return Structure(node.name, _clip(head + (": " + ", ".join(shown) if shown else "")), True)


def python_facts(text: str, facts: CodeFacts) -> list[Structure]:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return _regex_structures(text, "python")
    found: list[Structure] = []
    has_async = False
    modules = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            modules.add(node.module.split(".")[0])
        if isinstance(node, ast.AsyncFunctionDef | ast.Await | ast.AsyncWith | ast.AsyncFor):
            has_async = True
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            facts.functions += 1
            if node.returns is not None or any(
                a.annotation is not None for a in node.args.args if a.arg not in ("self", "cls")
            ):
                facts.annotated_functions += 1
    for module in sorted(modules):  # a set: sorted, so ties keep one order
        facts.imports[module] += 1
    facts.async_files += has_async
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
            found.append(_python_class(node, facts))
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and not node.name.startswith(
            "_"
        ):
            found.append(Structure(node.name, _clip("- " + _signature(node)), False))
    return found


# -- other languages: line patterns ------------------------------------------------------------

_PATTERNS: dict[str, list[tuple[re.Pattern[str], str, bool]]] = {
    # (pattern, format using the match's groups, is_class)
    "js": [
        (
            re.compile(
                r"^\s*export\s+(?:default\s+)?(?:abstract\s+)?class\s+(\w+)(\s+extends\s+[\w.]+)?"
            ),
            "- class {0}{1}",
            True,
        ),
        (re.compile(r"^\s*export\s+(?:declare\s+)?interface\s+(\w+)"), "- interface {0}", True),
        (re.compile(r"^\s*export\s+type\s+(\w+)\s*(?:<[^=]*>)?\s*="), "- type {0}", True),
        (
            re.compile(
                r"^\s*export\s+(?:default\s+)?(async\s+)?function\s*\*?\s*(\w+)\s*(\([^)]*\))"
                r"(\s*:\s*[^{]+)?"
            ),
            "- {0}function {1}{2}{3}",
            False,
        ),
        (
            re.compile(
                r"^\s*export\s+const\s+(\w+)\s*=\s*(async\s*)?(\([^)]*\))\s*(?::\s*[^=]+)?=>"
            ),
            "- const {0} = {1}{2} =>",
            False,
        ),
    ],
    "go": [
        (re.compile(r"^type\s+([A-Z]\w*)\s+(struct|interface)\b"), "- type {0} {1}", True),
        (
            re.compile(r"^func\s+(\([^)]*\)\s+)?([A-Z]\w*)\s*(\([^)]*\))\s*([^{]*)"),
            "- func {0}{1}{2} {3}",
            False,
        ),
    ],
    "rust": [
        (re.compile(r"^\s*pub\s+(struct|enum|trait)\s+(\w+)"), "- {0} {1}", True),
        (
            re.compile(
                r"^\s*pub\s+(async\s+)?fn\s+(\w+)\s*(<[^>]*>)?\s*(\([^)]*\))(\s*->\s*[^{;]+)?"
            ),
            "- {0}fn {1}{2}{3}{4}",
            False,
        ),
    ],
    "java": [
        (
            re.compile(
                r"^\s*(?:public\s+|export\s+)?(?:abstract\s+|final\s+|sealed\s+|data\s+|open\s+)*"
                r"(class|interface|enum|record|struct|object)\s+(\w+)"
            ),
            "- {0} {1}",
            True,
        ),
    ],
    "ruby": [
        (re.compile(r"^\s*class\s+([\w:]+)(\s*<\s*[\w:]+)?"), "- class {0}{1}", True),
        (re.compile(r"^\s*module\s+([\w:]+)"), "- module {0}", True),
        (re.compile(r"^\s*def\s+((?:self\.)?[a-z]\w*[?!]?)(\([^)]*\))?"), "- def {0}{1}", False),
    ],
    "python": [
        (re.compile(r"^class\s+([A-Za-z]\w*)(\([^)]*\))?"), "- class {0}{1}", True),
        (
            re.compile(r"^(async\s+)?def\s+([a-z]\w*)\s*(\([^)]*\))?(\s*->\s*[^:]+)?"),
            "- {0}def {1}{2}{3}",
            False,
        ),
    ],
}
_FAMILY = {
    ".js": "js",
    ".mjs": "js",
    ".cjs": "js",
    ".jsx": "js",
    ".ts": "js",
    ".tsx": "js",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".kt": "java",
    ".cs": "java",
    ".scala": "java",
    ".swift": "java",
    ".rb": "ruby",
    ".py": "python",
    ".pyi": "python",
}


def family_of(suffix: str) -> str | None:
    return _FAMILY.get(suffix.lower())


def _regex_structures(text: str, family: str) -> list[Structure]:
    found = []
    for line in text.split("\n"):
        for pattern, fmt, is_class in _PATTERNS[family]:
            m = pattern.match(line)
            if m:
                rendered = fmt.format(*(g or "" for g in m.groups()))
                rendered = re.sub(r"\s+", " ", rendered).rstrip()
                name = next((g for g in m.groups() if g and re.fullmatch(r"[\w:]+", g)), "")
                found.append(Structure(name, _clip(rendered), is_class))
                break
    return found


_JS_IMPORT = re.compile(r"""(?:from\s+|require\(\s*|import\s+)["']([^"'.][^"']*)["']""")


def other_facts(text: str, family: str, facts: CodeFacts) -> list[Structure]:
    if family == "js":
        modules = {
            m.split("/")[0] if not m.startswith("@") else "/".join(m.split("/")[:2])
            for m in _JS_IMPORT.findall(text)
        }
        for module in sorted(modules):
            facts.imports[module] += 1
        if re.search(r"\basync\b|\bawait\b", text):
            facts.async_files += 1
        facts.data["TypeScript interfaces"] += len(
            re.findall(r"^\s*(?:export\s+)?interface\s+\w+", text, re.M)
        )
    else:
        concurrency = {"go": r"\bgo\s+\w+\(|\bchan\b", "rust": r"\basync\s+fn\b"}
        if family in concurrency and re.search(concurrency[family], text):
            facts.async_files += 1
    return _regex_structures(text, family)
