"""A gated-tool name with a look-alike character unlocks nothing (with a warning), even when
Unicode normalisation would fold it onto a registered tool (KELVIN SIGN -> ``K``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillcore import Limits, PolicyMode, SkillLibrary, ToolPolicy
from skillcore.policy.gating import gating_diagnostics, parse_tool_list
from skillcore.testing import write_skill

LOOKALIKES = ["\u212aubectl", "\u212bdmin", "\u2126mega", "K\u0301ubectl", "\uff2bubectl"]


@pytest.mark.parametrize("name", LOOKALIKES, ids=ascii)
def test_lookalike_names_unlock_nothing(name: str) -> None:
    found = parse_tool_list(name)
    assert found.names == ()
    assert found.problems and "look-alike" in found.problems[0]


def test_kelvin_sign_does_not_unlock_kubectl(tmp_path: Path) -> None:
    write_skill(
        tmp_path, "ops", "Ops work.", "Body.", 'metadata:\n  include_tools: "\u212aubectl"\n'
    )
    library = SkillLibrary([tmp_path])
    policy = ToolPolicy(PolicyMode.RESTRICT, gated_tools=frozenset({"Kubectl"}))
    session = library.session(Limits(max_loaded=2), policy=policy)
    session, _ = session.finish_load(library.read_document("ops"))
    decision = session.check_tool("Kubectl")
    assert not decision.allowed and decision.code.value == "TOOL_LOCKED", decision
    warnings = [d.message for d in gating_diagnostics(library.catalog, {"Kubectl"})]
    assert any("look-alike" in w for w in warnings), warnings
