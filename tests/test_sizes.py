"""Size limits of the source: no module over 600 lines, no function over 60, no class over 300.

Long files and functions hide their jobs; the limits keep each module to one job a reader can
name. The modules not yet within them are listed in ``NOT_YET`` (by name, not by size: they
may change, but no new offender may appear); the list only shrinks.

Run as a script (``python tests/test_sizes.py [paths]``) to print every offender with its size.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

import attrs

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"

MAX_MODULE_LINES = 600
MAX_FUNCTION_LINES = 60
MAX_CLASS_LINES = 300

#: Offenders that predate the limits, by ``kind path[:qualified name]``; to be split.
NOT_YET: frozenset[str] = frozenset()


@attrs.frozen
class Offender:
    """A module, function or class over its limit."""

    kind: str
    where: str
    lines: int
    limit: int

    @property
    def key(self) -> str:
        return f"{self.kind} {self.where}"

    def __str__(self) -> str:
        return f"{self.key}: {self.lines} lines (limit {self.limit})"


def offenders(source: str, name: str) -> Iterator[Offender]:
    """The parts of one module's ``source`` over their limits (``name``: its path)."""
    lines = len(source.splitlines())
    if lines > MAX_MODULE_LINES:
        yield Offender("module", name, lines, MAX_MODULE_LINES)
    yield from _walk(ast.parse(source), name, "")


def _walk(node: ast.AST, name: str, prefix: str) -> Iterator[Offender]:
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            qualname = f"{prefix}{child.name}"
            length = (child.end_lineno or child.lineno) - child.lineno + 1
            is_class = isinstance(child, ast.ClassDef)
            limit = MAX_CLASS_LINES if is_class else MAX_FUNCTION_LINES
            if length > limit:
                kind = "class" if is_class else "function"
                yield Offender(kind, f"{name}:{qualname}", length, limit)
            yield from _walk(child, name, f"{qualname}.")
        else:
            yield from _walk(child, name, prefix)


def measure(paths: Iterable[Path]) -> list[Offender]:
    """Every offender in the Python files under ``paths``, named relative to ``src/``."""
    found: list[Offender] = []
    for path in paths:
        for file in sorted(path.rglob("*.py")) if path.is_dir() else [path]:
            name = file.resolve().relative_to(SRC).as_posix()
            found.extend(offenders(file.read_text(encoding="utf-8"), name))
    return found


def test_no_new_oversized_module_function_or_class() -> None:
    new = [str(o) for o in measure([SRC]) if o.key not in NOT_YET]
    assert not new, "over the size limits (split by job):\n" + "\n".join(new)


def test_the_checker_finds_each_kind() -> None:
    body = "\n".join(f"        x{i} = {i}" for i in range(MAX_FUNCTION_LINES))
    source = f"class C:\n    def long(self) -> None:\n{body}\n"
    source += "\n" * (MAX_CLASS_LINES - len(source.splitlines()))
    source += "    y = 1\n" + "z = 0\n" * (MAX_MODULE_LINES - MAX_CLASS_LINES)
    found = {o.key for o in offenders(source, "m.py")}
    assert found == {"module m.py", "class m.py:C", "function m.py:C.long"}
    short = "def f() -> None:\n" + "\n".join(f"    x{i} = {i}" for i in range(59))
    assert list(offenders(short, "m.py")) == []


if __name__ == "__main__":
    targets = [Path(p) for p in sys.argv[1:]] or [SRC]
    for offender in measure(targets):
        print(offender)
