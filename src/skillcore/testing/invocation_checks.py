"""The conformance check of the user's own invocation (``/name args``): every adapter that
declares :attr:`~skillcore.testing.driver.Capability.USER_INVOCATION` loads a user-only
skill with its arguments, delivers the expanded instructions to the model, and answers a
refused invocation without the model."""

from __future__ import annotations

from pathlib import Path

from skillcore.library import SkillLibrary
from skillcore.limits import Limits
from skillcore.policy import PolicyMode, ToolPolicy
from skillcore.testing.capabilities import requires
from skillcore.testing.driver import AdapterDriver, Capability
from skillcore.testing.scenario import make_scenario_library, write_skill


@requires(Capability.USER_INVOCATION)
def check_user_invocation(driver: AdapterDriver, root: Path) -> None:
    """``/deploy-user web "eu west"`` loads a ``disable-model-invocation`` skill with its
    arguments (``$0``, ``$1``) and the model receives the expanded text; ``/background``
    (``user-invocable: false``) is answered with a refusal and loads nothing; a message
    that only mentions ``/deploy-user`` is ordinary text."""
    skills = make_scenario_library(root)
    write_skill(
        skills,
        "deploy-user",
        "Deploys an app; the user invokes it.",
        "Deploy $0 to $1 now.",
        "disable-model-invocation: true\nargument-hint: <app> <env>\n",
    )
    write_skill(
        skills, "background", "Background knowledge.", "Background.", "user-invocable: false\n"
    )
    driver.user_invocation = True
    driver.start(SkillLibrary([skills]), Limits(max_loaded=2), ToolPolicy(PolicyMode.RESTRICT))
    seen = driver.user_turn('/deploy-user web "eu west"')
    assert seen.answer is None, seen
    assert seen.delivered is not None and "Deploy web to eu west now." in seen.delivered, seen
    assert driver.loaded() == ["deploy-user"]
    assert "deploy-user" not in driver.instructions(), "still hidden from the model"
    refused = driver.user_turn("/background now")
    assert refused.delivered is None and refused.answer is not None, refused
    assert "cannot be invoked by the user" in refused.answer, refused
    assert driver.loaded() == ["deploy-user"]
    plain = driver.user_turn("what does /deploy-user do?")
    assert plain.delivered is None and plain.answer is None, plain


__all__ = ["check_user_invocation"]
