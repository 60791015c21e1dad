"""Properties of forked skills and subagent scoping (:mod:`skillcore.state.subagents`):

- under RESTRICT a forked child never gets a tool its skill does not allow, whatever it
  loads, and (inheriting) never one the parent's session blocks;
- a subagent never sees or loads a skill its deny list or the host hid (unless its allow
  list names a hidden one), and its catalog is rendered from its own skills only;
- the parent's session is unchanged by a fork and anything the child loads.
"""

from __future__ import annotations

from typing import Any

import attrs
from hypothesis import given, settings
from hypothesis import strategies as st

from skillcore import (
    Catalog,
    Limits,
    PolicyMode,
    SkillDocument,
    SkillLocation,
    SkillMetadata,
    SkillSession,
    SubagentRules,
    SubagentScope,
    ToolPolicy,
)
from skillcore.runtime import ForkGuard
from skillcore.state.schema import LoadedSkill

NAMES = [f"s{i}" for i in range(6)]
TOOLS = ["Read", "Write", "Bash", "Grep", "Edit"]
FORK = "fork"
PROFILE = settings(settings.get_profile("skillcore"), deadline=None)


def meta(name: str, allowed: tuple[str, ...] | None, **kw: Any) -> SkillMetadata:
    return SkillMetadata(
        name, f"{name} skill", SkillLocation("s", name, f"/s/{name}"), allowed_tools=allowed, **kw
    )


allowed_lists = st.one_of(st.none(), st.lists(st.sampled_from(TOOLS), unique=True).map(tuple))


@st.composite
def catalogs(draw: Any) -> Catalog:
    skills = [meta(n, draw(allowed_lists)) for n in NAMES]
    fork = meta(FORK, draw(allowed_lists), extra={"context": "fork", "agent": "Explore"})
    return Catalog((fork, *skills))


def session(catalog: Catalog, loaded: list[str]) -> SkillSession:
    policy = ToolPolicy(PolicyMode.RESTRICT)
    entries = tuple(LoadedSkill(n) for n in dict.fromkeys(loaded))
    return SkillSession(catalog, Limits(max_loaded=len(NAMES) + 1), policy, entries)


names = st.lists(st.sampled_from(NAMES), unique=True)
scopes = st.builds(
    SubagentScope,
    inherit=st.sampled_from(["isolated", "inherit"]),
    allow=st.one_of(st.none(), names),
    deny=names,
)


@PROFILE
@given(catalogs(), names, names, st.sampled_from(TOOLS), scopes)
def test_a_forked_child_never_gets_a_tool_its_skill_does_not_allow(
    catalog: Catalog, parent_loads: list[str], child_loads: list[str], tool: str, scope: Any
) -> None:
    rules = SubagentRules({"Explore": scope})
    parent = session(catalog, parent_loads)
    fork = catalog.get(FORK)
    assert fork is not None
    guard = ForkGuard.of(fork, "Explore", parent, rules)
    child_catalog = Catalog(tuple(s for s in catalog if rules.scope("Explore").sees(s.name, ())))
    start = rules.child_session("Explore", parent, child_catalog)
    loads = [n for n in child_loads if n in child_catalog and not start.is_loaded(n)]
    child = attrs.evolve(start, loaded=(*start.loaded, *(LoadedSkill(n) for n in loads)))
    allowed = guard.check_tool(tool).allowed and child.check_tool(tool).allowed
    if allowed and fork.allowed_tools is not None:
        assert tool in fork.allowed_tools
    if allowed and scope.inherit == "inherit":
        assert parent.check_tool(tool).allowed


@PROFILE
@given(catalogs(), scopes, names, names)
def test_a_subagent_never_sees_or_loads_what_it_may_not(
    catalog: Catalog, scope: Any, hidden: list[str], parent_loads: list[str]
) -> None:
    rules = SubagentRules({"Explore": scope}, hidden)
    keep = rules.agent_keep("Explore", catalog)
    for name in keep:
        assert name not in scope.deny
        assert name not in hidden or (scope.allow is not None and name in scope.allow)
    child_catalog = Catalog(tuple(s for s in catalog if s.name in keep))
    child = rules.child_session("Explore", session(catalog, parent_loads), child_catalog)
    assert set(child.loaded_names) <= keep
    for name in [*scope.deny, *hidden]:
        if name not in keep:
            refused = child.begin_load(name)
            assert (
                getattr(refused, "code", None) is not None
                and refused.code.value == "SKILL_NOT_FOUND"
            )
    orchestrator = rules.orchestrator_keep(catalog)
    assert orchestrator is None or not (set(hidden) & orchestrator)


@PROFILE
@given(catalogs(), names, names, scopes)
def test_the_parents_session_is_unchanged_by_the_fork(
    catalog: Catalog, parent_loads: list[str], child_loads: list[str], scope: Any
) -> None:
    rules = SubagentRules({"Explore": scope})
    parent = session(catalog, parent_loads)
    before = (parent, parent.to_state())
    child = rules.child_session("Explore", parent, catalog)
    for name in child_loads:
        entry = catalog.get(name)
        assert entry is not None
        child, _ = child.finish_load(SkillDocument(entry, "body"))
        child, _ = child.unload(name) if name.endswith("0") else (child, None)
    assert (parent, parent.to_state()) == before
