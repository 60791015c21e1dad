"""The conformance suite's capability rule: a check runs only with a driver that declares every
capability it requires; otherwise it is skipped, naming what is missing, never run into a
NotImplementedError that would pass for a success."""

from __future__ import annotations

import ast
import importlib
import inspect
import textwrap
from pathlib import Path

import pytest
from tests.test_conformance_core import CoreDriver

from skillcore import testing
from skillcore.testing import (
    ALL_CAPABILITIES,
    CHECKS,
    Capability,
    applicable,
    check_forked_skill_in_subagent,
    check_gated_tools,
    check_redelivery_after_history_loss,
    check_search,
    missing,
    required,
    run_check,
    run_conformance,
    skip_reason,
)

#: What each capability lets a check use: driver methods, or the host tools it calls.
USES = {
    Capability.OFFERED_TOOLS: {"offered"},
    Capability.DROP_HISTORY: {"drop_history"},
    Capability.CONVERSATIONS: {"use_conversation"},
    Capability.BINARY_PARTS: {"binary_resources"},
    Capability.HOST_TOOLS: {"Read", "Write", "SHELL_TOOL", "GATED_TOOL"},
    Capability.GATED_TOOLS: {"gated", "_start_gated"},
}


class Bare(CoreDriver):
    """The core driver declaring no capability: anything needing one must be skipped."""

    capabilities = frozenset()

    def offered(self) -> list[str]:
        raise AssertionError("offered() called without OFFERED_TOOLS")

    def drop_history(self) -> None:
        raise AssertionError("drop_history() called without DROP_HISTORY")


def _names_used(check) -> set[str]:
    """Attribute names, string constants and names a check's source uses."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(check)))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            found.add(node.attr)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.add(node.value)
        elif isinstance(node, ast.Name):
            found.add(node.id)
    return found


@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__)
def test_each_check_declares_what_it_uses(check) -> None:
    used = _names_used(check)
    for capability, marks in USES.items():
        if used & marks:
            assert capability in required(check), (check.__name__, capability, used & marks)


def test_checks_are_unique_and_documented() -> None:
    assert len({c.__name__ for c in CHECKS}) == len(CHECKS)
    assert all(c.__doc__ for c in CHECKS)
    assert all(required(c) <= ALL_CAPABILITIES for c in CHECKS)


def test_missing_and_reason() -> None:
    driver = Bare()
    assert missing(check_gated_tools, driver) == {
        Capability.HOST_TOOLS,
        Capability.GATED_TOOLS,
        Capability.OFFERED_TOOLS,
    }
    reason = skip_reason(check_redelivery_after_history_loss, driver)
    assert reason == (
        "Bare lacks capability DROP_HISTORY, HOST_TOOLS needed by "
        "check_redelivery_after_history_loss"
    )
    assert applicable(check_search, driver) and skip_reason(check_search, driver) is None
    assert applicable(check_gated_tools, CoreDriver())


def test_run_conformance_skips_what_a_driver_lacks(tmp_path: Path) -> None:
    skipped = run_conformance(Bare, tmp_path)
    assert skipped == [c for c in CHECKS if required(c)]
    # The core reference has no subagents: only the check that needs them is skipped.
    assert run_conformance(CoreDriver, tmp_path / "all") == [check_forked_skill_in_subagent]


def test_run_check_skips_naming_the_capability(tmp_path: Path) -> None:
    with pytest.raises(pytest.skip.Exception, match="lacks capability OFFERED_TOOLS"):
        run_check(
            check_gated_tools,
            type(
                "NoOffer",
                (CoreDriver,),
                {"capabilities": ALL_CAPABILITIES - {Capability.OFFERED_TOOLS}},
            )(),
            tmp_path,
        )


def test_testing_module_does_not_import_pytest() -> None:
    modules = sorted(Path(testing.__file__).parent.glob("*.py"))
    assert len(modules) > 1  # the package's modules, not only its __init__
    for module in modules:
        tree = ast.parse(module.read_text())
        top = [n for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)]
        names = {a.name for n in top if isinstance(n, ast.Import) for a in n.names}
        names |= {n.module for n in top if isinstance(n, ast.ImportFrom) and n.module}
        assert "pytest" not in names, module.name


@pytest.mark.parametrize(
    "module",
    [
        "skillcore_langchain.testing",
        "skillcore_adk.testing",
        "skillcore_openai.testing",
        "skillcore.mcp_testing",
    ],
)
def test_every_driver_closes_unstarted(module: str) -> None:
    """run_check closes a driver it skipped before starting it."""
    mod = importlib.import_module(module)
    drivers = [getattr(mod, name) for name in mod.__all__]
    drivers = [d for d in drivers if isinstance(d, type) and issubclass(d, testing.AdapterDriver)]
    assert drivers
    for cls in drivers:
        if not inspect.isabstract(cls):
            cls().close()
