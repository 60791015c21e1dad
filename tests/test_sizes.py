"""Size guidance for the source: modules up to 600 lines, functions up to 60.

A class is one concept whatever its length, so classes have no limit. Long modules and
functions usually hide more than one job; one over its guidance fails unless ``REASONS`` says
why it is one job (by ``kind path[:qualified name]``, with the reason as the value).

Run as a script (``python tests/test_sizes.py [paths]``) to print every module and function
over its guidance with its size, listed or not.
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

#: Modules and functions over their guidance on purpose: key -> why it is one job.
REASONS: dict[str, str] = {
    "module skillcore/apps/mcp_server.py": (
        "SkillMCPServer, one class: a handler per MCP method (tools, resources, skills/list, "
        "skills/get) over one served catalog and its client states"
    ),
    "module skillcore/runtime/settings.py": (
        "the settings table, its parsers, the settings file's reading and its trust rules "
        "(sources, lock, lock keys) and the lock policy built from them: one home for settings"
    ),
    "module skillcore/tools/toolkit.py": (
        "SkillToolkit, one class: the skill tools bound to a library (planning and finishing "
        "calls, what the model sees of them, the checks of plain calls share its names, "
        "library and configuration)"
    ),
    "function skillcore/tools/toolkit.py:SkillToolkit.__init__": (
        "one documented assignment per toolkit option (about 25 keyword options)"
    ),
    "function skillcore_langchain/middleware.py:SkillsMiddleware.__init__": (
        "one documented argument per adapter option"
    ),
    "function skillcore_adk/_toolset.py:SkillToolset.__init__": (
        "one documented argument per adapter option"
    ),
    "function skillcore_openai/agents/adapter.py:AgentSkills.__init__": (
        "one documented argument per adapter option"
    ),
    "module skillcore/state/turn_order.py": (
        "TurnStore and TurnCall, one concept: a turn's calls decided in the model's order "
        "(entering, the ledger check at the start, working out earlier calls, finishing)"
    ),
    "module skillcore/state/transitions.py": (
        "SkillSession, one class: the immutable session, its pure transitions and the queries "
        "of the policy and of delivery over the same fields"
    ),
    "module skillcore_openai/chat/dispatcher.py": (
        "`OpenAISkills`, one class: the custom-loop adapter (what the model sees, applying "
        "the calls of a turn in order, each conversation's saved state) over one toolkit, "
        "policy and state store"
    ),
    "module skillcore_openai/agents/adapter.py": (
        "`AgentSkills`, one class: the Agents SDK adapter (its tools, a turn's calls in the "
        "model's order, the instructions, the guardrail on tools, MCP servers and handoffs) "
        "over one toolkit, policy and set of conversations"
    ),
}


@attrs.frozen
class Offender:
    """A module or function over its guidance."""

    kind: str
    where: str
    lines: int
    limit: int

    @property
    def key(self) -> str:
        return f"{self.kind} {self.where}"

    def __str__(self) -> str:
        return f"{self.key}: {self.lines} lines (guidance {self.limit})"


def offenders(source: str, name: str) -> Iterator[Offender]:
    """The parts of one module's ``source`` over their guidance (``name``: its path)."""
    lines = len(source.splitlines())
    if lines > MAX_MODULE_LINES:
        yield Offender("module", name, lines, MAX_MODULE_LINES)
    yield from _walk(ast.parse(source), name, "")


def _walk(node: ast.AST, name: str, prefix: str) -> Iterator[Offender]:
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
            qualname = f"{prefix}{child.name}"
            length = (child.end_lineno or child.lineno) - child.lineno + 1
            if length > MAX_FUNCTION_LINES:
                yield Offender("function", f"{name}:{qualname}", length, MAX_FUNCTION_LINES)
            yield from _walk(child, name, f"{qualname}.")
        elif isinstance(child, ast.ClassDef):
            yield from _walk(child, name, f"{prefix}{child.name}.")
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


def test_modules_and_functions_within_guidance_or_listed_with_a_reason() -> None:
    found = measure([SRC])
    unlisted = [str(o) for o in found if o.key not in REASONS]
    assert not unlisted, "over the size guidance, with no reason listed:\n" + "\n".join(unlisted)
    stale = sorted(set(REASONS) - {o.key for o in found})
    assert not stale, f"listed in REASONS but within the guidance now: {stale}"
    assert all(reason.strip() for reason in REASONS.values())


def test_the_checker_finds_each_kind_and_ignores_class_length() -> None:
    body = "\n".join(f"        x{i} = {i}" for i in range(MAX_FUNCTION_LINES))
    source = f"class C:\n    def long(self) -> None:\n{body}\n"
    source += "".join(f"    def m{i}(self) -> None: ...\n" for i in range(400))
    source += "z = 0\n" * MAX_MODULE_LINES
    found = {o.key for o in offenders(source, "m.py")}
    assert found == {"module m.py", "function m.py:C.long"}
    short = "def f() -> None:\n" + "\n".join(f"    x{i} = {i}" for i in range(59))
    assert list(offenders(short, "m.py")) == []


if __name__ == "__main__":
    targets = [Path(p) for p in sys.argv[1:]] or [SRC]
    for offender in measure(targets):
        print(offender, "" if offender.key not in REASONS else f"[{REASONS[offender.key]}]")
