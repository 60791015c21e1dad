"""The conformance checks of forked skills (``context: fork``): part of :data:`CHECKS`."""

from __future__ import annotations

from pathlib import Path

from skillcore.library import SkillLibrary
from skillcore.limits import Limits
from skillcore.policy import PolicyMode, ToolPolicy
from skillcore.testing.capabilities import requires
from skillcore.testing.driver import (
    SUBAGENT_ANSWER,
    SUBAGENT_NAME,
    AdapterDriver,
    Call,
    Capability,
    Reply,
)
from skillcore.testing.scenario import write_skill

__all__ = ["check_forked_skill_in_subagent", "check_forked_skill_never_loads"]


def _one(driver: AdapterDriver, call: Call) -> Reply:
    (reply,) = driver.turn([call])
    return reply


def _fork_library(root: Path) -> SkillLibrary:
    """A forked skill run in the scenario's subagent, allowing Read, beside a skill allowing
    Read and Write."""
    lib = root / "fork-skills"
    fork = f"context: fork\nagent: {SUBAGENT_NAME}\nallowed-tools: Read\n"
    write_skill(lib, "explore-code", "Explore the code.", "Find where X is defined.", fork)
    write_skill(
        lib, "read-write", "Read and write.", "Anything goes.", "allowed-tools: Read Write\n"
    )
    return SkillLibrary([lib])


def check_forked_skill_never_loads(driver: AdapterDriver, root: Path) -> None:
    """A forked skill never loads into the agent that asks for it: with subagents its
    subagent answers; without, the reply says it cannot run here. Nothing changes."""
    driver.start(_fork_library(root), Limits(), ToolPolicy(PolicyMode.RESTRICT))
    r = _one(driver, Call(driver.names.load, {"skill_name": "explore-code"}))
    if Capability.SUBAGENTS in driver.capabilities:
        assert not r.is_error and SUBAGENT_ANSWER in r.text, r
    else:
        assert r.is_error and "cannot start" in r.text, r
    assert driver.loaded() == []


@requires(Capability.HOST_TOOLS, Capability.SUBAGENTS)
def check_forked_skill_in_subagent(driver: AdapterDriver, root: Path) -> None:
    """A forked skill runs in its subagent under its allowed-tools (whatever the subagent
    loads), the agent gets the subagent's answer, and the agent's own state is unchanged."""
    driver.subagent_turns = (
        (Call("Write", {}),),
        (Call(driver.names.load, {"skill_name": "read-write"}),),
        (Call("Write", {}), Call("Read", {})),
    )
    driver.start(_fork_library(root), Limits(), ToolPolicy(PolicyMode.RESTRICT))
    r = _one(driver, Call(driver.names.load, {"skill_name": "explore-code"}))
    assert not r.is_error and SUBAGENT_ANSWER in r.text, r
    seen = [(x.tool, x.is_error) for x in driver.subagent_replies()]
    load = driver.names.load
    assert seen == [("Write", True), (load, False), ("Write", True), ("Read", False)], seen
    assert driver.loaded() == []
    assert not _one(driver, Call("Write", {})).is_error
