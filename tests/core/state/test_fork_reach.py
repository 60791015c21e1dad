"""A plain call that :func:`fork_can_refuse` says no fork could refuse is allowed with every
set of the catalog's skills loaded, whatever its arguments: skipping the ledger check for it
can never allow a call that a fork's state refuses."""

from __future__ import annotations

from itertools import combinations

from hypothesis import event, given, settings
from hypothesis import strategies as st
from tests.core.strategies import TOOLS, catalogs

from skillcore import Limits, PolicyMode, SkillSession, ToolPolicy
from skillcore.policy import ALIAS_PRESETS, UnrestrictedSkills
from skillcore.state.fork_reach import fork_can_refuse
from skillcore.state.merge import apply_effect

ARGUMENTS = [None, {}, {"command": "git status"}, {"command": "rm -rf /"}, "ls -la"]


@settings(max_examples=300, deadline=None)
@given(
    catalog=catalogs(),
    tool=st.sampled_from([*TOOLS, "execute", "read_file"]),
    arguments=st.sampled_from(ARGUMENTS),
    gated=st.frozensets(st.sampled_from(TOOLS), max_size=2),
    always=st.frozensets(st.sampled_from(TOOLS), max_size=1),
    lift=st.booleans(),
    aliases=st.sampled_from([None, "deepagents"]),
)
def test_a_call_no_fork_could_refuse_is_allowed_with_any_skills_loaded(
    catalog, tool, arguments, gated, always, lift, aliases
) -> None:
    policy = ToolPolicy(
        mode=PolicyMode.RESTRICT,
        always_allowed=always,
        gated_tools=gated,
        unrestricted_skills=UnrestrictedSkills.LIFT if lift else UnrestrictedSkills.IGNORE,
        aliases=ALIAS_PRESETS[aliases] if aliases else None,
    )
    session = SkillSession(catalog, Limits(max_loaded=8), policy)
    declaring = any(s.allowed_tools is not None for s in catalog.skills)
    if fork_can_refuse(session, tool):
        return
    event("no fork could refuse, with a skill declaring allowed-tools" if declaring else "open")
    names = [s.name for s in catalog.skills]
    for size in range(len(names) + 1):
        for loaded in combinations(names, size):
            fork = apply_effect(session, {"add": [{"name": n} for n in loaded]})
            decision = fork.check_tool(tool, arguments=arguments)
            assert decision.allowed, (loaded, decision.reason)
