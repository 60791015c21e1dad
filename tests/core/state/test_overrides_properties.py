"""Properties of what loaded skills change beyond allowed-tools: ``disallowed-tools`` never
lets a removed tool run or be offered, in any policy mode; the model the loaded skills ask
for follows load order and is restored after any unload, in any order; ``paths`` globs are
bounded and match as documented."""

from __future__ import annotations

import fnmatch
import re
import warnings

from hypothesis import given, settings
from hypothesis import strategies as st

from skillcore import (
    Catalog,
    PolicyMode,
    SkillDocument,
    SkillLocation,
    SkillMetadata,
    SkillSession,
    ToolPolicy,
)
from skillcore.limits import Limits
from skillcore.policy.skill_options import (
    MAX_DISALLOWED,
    MAX_PATH_SEGMENTS,
    path_matches,
    skill_options,
)
from skillcore.runtime import ModelSwitch

TOOLS = ["Read", "Write", "Edit", "execute", "mcp__gh__list", "mcp__gh__push", "load_skill"]
ENTRIES = st.sampled_from(["Read", "Write", "Edit", "mcp__gh__*", "*", "Wr*", "Bash(rm:*)"])
MODELS = ["haiku", "opus", "sonnet", "inherit", "unknown-x"]
SKILLS = [f"s{i}" for i in range(5)]


def meta(name: str, **kw: object) -> SkillMetadata:
    return SkillMetadata(name, f"{name} skill", SkillLocation("s", name, f"/s/{name}"), **kw)


def names_by(entry: str, tool: str) -> bool:
    """The reference: an entry's tool part (before any parenthesis) as a ``*`` glob."""
    part = entry.split("(", 1)[0]
    aliases = {"Bash": {"execute"}}
    return fnmatch.fnmatchcase(tool, part) or tool in aliases.get(part, set())


skill_defs = st.lists(
    st.tuples(
        st.lists(ENTRIES, max_size=3) | st.none(),  # disallowed-tools
        st.lists(ENTRIES, max_size=2) | st.none(),  # allowed-tools
    ),
    min_size=len(SKILLS),
    max_size=len(SKILLS),
)
ops = st.lists(st.tuples(st.booleans(), st.sampled_from(SKILLS)), max_size=12)


def build(defs: list[tuple[list[str] | None, list[str] | None]]) -> Catalog:
    skills = []
    for name, (disallowed, allowed) in zip(SKILLS, defs):
        extra = {} if disallowed is None else {"disallowed-tools": tuple(disallowed)}
        tools = None if allowed is None else tuple(allowed)
        skills.append(meta(name, extra=extra, allowed_tools=tools))
    return Catalog(tuple(skills))


def apply(session: SkillSession, steps: list[tuple[bool, str]]) -> SkillSession:
    for load, name in steps:
        if load:
            found = session.catalog.get(name)
            assert found is not None
            session = session.finish_load(SkillDocument(found, "body"))[0]
        else:
            session = session.unload(name)[0]
    return session


def disallowed_of(session: SkillSession, name: str) -> tuple[str, ...]:
    found = session.catalog.get(name)
    assert found is not None
    return skill_options(found).disallowed_tools


@settings(max_examples=200, deadline=None)
@given(defs=skill_defs, steps=ops, mode=st.sampled_from(list(PolicyMode)))
def test_disallowed_tools_never_run_nor_are_offered(
    defs: list[tuple[list[str] | None, list[str] | None]],
    steps: list[tuple[bool, str]],
    mode: PolicyMode,
) -> None:
    policy = ToolPolicy(mode, always_allowed={"Read"}, aliases={"Bash": ["execute"]})
    session = apply(SkillSession(build(defs), Limits(max_loaded=5), policy), steps)
    offered = session.offered_tools(TOOLS)
    for tool in TOOLS:
        removed = tool != "load_skill" and any(
            names_by(e, tool) for s in session.loaded_names for e in disallowed_of(session, s)
        )
        decision = session.check_tool(tool)
        if removed:
            assert not decision.allowed and decision.code.value == "TOOL_DISALLOWED", decision
            assert tool not in offered
        elif mode is not PolicyMode.RESTRICT:
            assert decision.allowed, decision  # nothing else blocks outside RESTRICT


@settings(max_examples=200, deadline=None)
@given(
    models=st.lists(st.sampled_from(MODELS) | st.none(), min_size=5, max_size=5),
    steps=ops,
)
def test_the_model_follows_load_order_and_is_restored_after_any_unload(
    models: list[str | None], steps: list[tuple[bool, str]]
) -> None:
    catalog = Catalog(
        tuple(meta(n, extra={} if m is None else {"model": m}) for n, m in zip(SKILLS, models))
    )
    known = {"haiku": "H", "opus": "O", "sonnet": "S"}
    switch = ModelSwitch(known)
    session = SkillSession(catalog, Limits(max_loaded=5))
    for i in range(len(steps) + 1):
        current = apply(session, steps[:i])
        # The reference: the last loaded skill (in load order) whose model the resolver knows.
        expected = None
        for name in current.loaded_names:
            m = models[SKILLS.index(name)]
            if m in known:
                expected = known[m]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # unknown names warn (once each; tested elsewhere)
            chosen = switch.choose(current)
        assert chosen.model == expected
        # Unloading any loaded skill gives exactly what a session that never loaded it gives.
        for name in current.loaded_names:
            without = current.unload(name)[0]
            fresh = apply(session, [(True, n) for n in current.loaded_names if n != name])
            assert without.model_choice == fresh.model_choice


@given(
    glob=st.text(alphabet="ab*/", max_size=12).filter(lambda g: g.split("/")[-1] != "**"),
    path=st.text(alphabet="ab/", max_size=12),
)
@settings(max_examples=300, deadline=None)
def test_path_globs_match_like_the_reference(glob: str, path: str) -> None:
    """``*`` stays inside one segment, ``**`` as a whole segment spans any number."""
    parts = []
    for seg in glob.split("/"):
        if seg == "**":
            parts.append(None)
        else:
            parts.append(re.escape(seg).replace(r"\*", "[^/]*"))
    pattern = ""
    for i, p in enumerate(parts):
        if p is None:  # never last (filtered): zero or more whole segments
            pattern += "(?:[^/]*/)*"
        else:
            pattern += p + ("/" if i < len(parts) - 1 else "")
    assert path_matches(glob, path) == bool(re.fullmatch(pattern, path)), (glob, path, pattern)


def test_path_matching_is_bounded() -> None:
    long = "/".join(["a"] * (MAX_PATH_SEGMENTS + 1))
    assert not path_matches("**", long)
    assert path_matches("*a*a*a*a*a*a*b", "a" * 200 + "b")
    assert not path_matches("*a*a*a*a*a*a*b", "a" * 250)


def test_an_unreadable_or_oversized_disallowed_list_removes_every_tool() -> None:
    bad = meta("bad", extra={"disallowed-tools": {"not": "a list"}})
    names = " ".join(f"t{i}" for i in range(MAX_DISALLOWED + 1))
    many = meta("many", extra={"disallowed-tools": names})
    for m in (bad, many):
        assert skill_options(m).disallowed_tools == ("*",) and skill_options(m).problems
        session = SkillSession(Catalog((m,))).finish_load(SkillDocument(m, "b"))[0]
        assert not session.check_tool("Read").allowed
        assert session.check_tool("unload_skill").allowed
