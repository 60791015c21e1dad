"""The conformance checks of the frontmatter fields that change how an agent runs while a
skill is loaded: ``disallowed-tools`` (in every policy mode) and ``paths:`` (part of
:data:`skillcore.testing.CHECKS`)."""

from __future__ import annotations

from pathlib import Path

from skillcore.library import SkillLibrary
from skillcore.limits import Limits
from skillcore.policy import PolicyMode, ToolPolicy
from skillcore.testing.capabilities import requires
from skillcore.testing.driver import AdapterDriver, Call, Capability
from skillcore.testing.scenario import make_scenario_library, write_skill


def _start_with(driver: AdapterDriver, root: Path, mode: PolicyMode, name: str, extra: str) -> None:
    skills = make_scenario_library(root)
    write_skill(skills, name, f"{name} does {name} tasks.", f"{name} instructions.", extra)
    driver.start(SkillLibrary([skills]), Limits(max_loaded=2), ToolPolicy(mode))


@requires(Capability.HOST_TOOLS, Capability.OFFERED_TOOLS)
def check_disallowed_tools(driver: AdapterDriver, root: Path) -> None:
    """Under RECOMMEND (which otherwise never blocks), a loaded skill's ``disallowed-tools``
    removes the tool: a call after the load in the same turn is refused naming the skill,
    the tool is no longer offered, and it is back once the skill is unloaded."""
    _start_with(driver, root, PolicyMode.RECOMMEND, "no-writes", "disallowed-tools: Write\n")
    search = Call(driver.names.search, {"query": "no-writes", "path": None})
    driver.turn([search])
    before = set(driver.offered())
    load = Call(driver.names.load, {"skill_name": "no-writes"})
    loaded, write = driver.turn([load, Call("Write", {})])
    assert not loaded.is_error, loaded
    assert write.is_error and "no-writes" in write.text, write
    driver.turn([search])
    assert set(driver.offered()) == before - {"Write"}, (before, driver.offered())
    unloaded = driver.turn([Call(driver.names.unload, {"skill_name": "no-writes"})])[0]
    assert not unloaded.is_error, unloaded
    driver.turn([search])
    assert set(driver.offered()) == before, (before, driver.offered())


def check_paths_skill_untouched(driver: AdapterDriver, root: Path) -> None:
    """A skill with ``paths:`` is not in the catalog the model sees while the work touches
    none of its files, and a load by the model is refused, changing nothing."""
    _start_with(driver, root, PolicyMode.RESTRICT, "ts-only", "paths: ['src/**/*.ts']\n")
    r = driver.turn([Call(driver.names.load, {"skill_name": "ts-only"})])[0]
    assert r.is_error and "ts-only" in r.text and "touch" in r.text, r
    assert "ts-only" not in driver.instructions(), driver.instructions()
    assert driver.loaded() == [], driver.loaded()


__all__ = ["check_disallowed_tools", "check_paths_skill_untouched"]
