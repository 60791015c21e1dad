"""Skill-gated tools and the tool-list rules of the session: reading the frontmatter keys,
the offer/lock rule (a Hypothesis property over load/unload sequences), RESTRICT with gated
tools, hide_blocked_tools and the TOOL_NOT_AVAILABLE check."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillcore import (
    Catalog,
    Limits,
    OutcomeCode,
    PolicyMode,
    SkillDocument,
    SkillLibrary,
    SkillLocation,
    SkillMetadata,
    SkillSession,
    SkillToolkit,
    ToolPolicy,
)
from skillcore.policy.gating import (
    MAX_GATED_NAME,
    MAX_GATED_TOOLS,
    gated_registry,
    gating_diagnostics,
    parse_tool_list,
    skill_gated_tools,
)
from skillcore.runtime import replies
from skillcore.testing import write_skill

GATED = ("deploy", "rollback", "page_oncall", "unnamed_tool")


def meta(name: str, allowed: tuple[str, ...] | None = None, **metadata: str) -> SkillMetadata:
    return SkillMetadata(
        name=name,
        description=f"{name} work.",
        location=SkillLocation("src", name, f"/s/{name}"),
        allowed_tools=allowed,
        metadata=metadata,
    )


def session(*skills: SkillMetadata, mode: str = "recommend", **kw: object) -> SkillSession:
    policy = ToolPolicy(PolicyMode(mode), gated_tools=frozenset(GATED), **kw)  # type: ignore[arg-type]
    return SkillSession(Catalog(skills), Limits(max_loaded=10), policy)


def load(s: SkillSession, name: str, **kw: object) -> SkillSession:
    doc = SkillDocument(s.catalog.get(name), "body")  # type: ignore[arg-type]
    new, outcome = s.finish_load(doc, **kw)  # type: ignore[arg-type]
    assert outcome.code is OutcomeCode.LOADED, outcome
    return new


# -- reading the frontmatter -------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "names"),
    [
        ("deploy rollback", ("deploy", "rollback")),
        ("deploy, rollback", ("deploy", "rollback")),
        ("[deploy, rollback]", ("deploy", "rollback")),
        ("['deploy', 'rollback']", ("deploy", "rollback")),  # how a YAML list arrives
        ('["mcp__gh__create_issue"]', ("mcp__gh__create_issue",)),
        ("deploy deploy", ("deploy",)),
        ("", ()),
        ("[]", ()),
    ],
)
def test_tool_lists_in_every_spelling(value: str, names: tuple[str, ...]) -> None:
    found = parse_tool_list(value)
    assert found.names == names and found.problems == ()


@pytest.mark.parametrize(
    "value", ["bad*name", "a(b)", "{'k': 1}", "x" * (MAX_GATED_NAME + 1), "ok '; rm"]
)
def test_bad_names_unlock_nothing_and_are_reported(value: str) -> None:
    found = parse_tool_list(f"deploy {value}")
    assert "*" not in "".join(found.names) and found.names[:1] == ("deploy",)
    assert found.problems, found


def test_too_many_names_are_capped() -> None:
    found = parse_tool_list(" ".join(f"t{i}" for i in range(MAX_GATED_TOOLS * 10)))
    assert len(found.names) == MAX_GATED_TOOLS and found.problems


@given(st.text(max_size=2_000))
@settings(max_examples=200)
def test_parsing_never_raises_and_stays_bounded(value: str) -> None:
    found = parse_tool_list(value)
    assert len(found.names) <= MAX_GATED_TOOLS
    assert all(0 < len(n) <= MAX_GATED_NAME and "*" not in n for n in found.names)


def test_both_peer_keys_are_read_and_joined(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write_skill(
        root,
        "both",
        extra=(
            "metadata:\n  include_tools: deploy rollback\n"
            "  adk_additional_tools: [page_oncall, deploy]\n"
        ),
    )
    write_skill(root, "bad", extra="metadata:\n  include_tools: 'deploy *'\n")
    catalog = SkillLibrary([root]).catalog
    assert skill_gated_tools(catalog.get("both")) == ("deploy", "rollback", "page_oncall")
    assert skill_gated_tools(catalog.get("bad")) == ("deploy",)
    found = gating_diagnostics(catalog, GATED)
    texts = [d.message for d in found]
    assert any("'*'" in t for t in texts), texts
    assert any("'unnamed_tool' is named by no skill" in t for t in texts), texts


# -- the rule ----------------------------------------------------------------------------


def catalog_skills() -> tuple[SkillMetadata, ...]:
    return (
        meta("release", include_tools="deploy rollback"),
        meta("ops", ("Read",), adk_additional_tools="['deploy', 'page_oncall']"),
        meta("reader", ("Read",)),
        meta("open"),
    )


@given(
    st.lists(st.tuples(st.booleans(), st.sampled_from(["release", "ops", "reader", "open"]))),
    st.frozensets(st.sampled_from(GATED)),
)
@settings(settings.get_profile("skillcore"))
def test_offered_gated_tools_are_the_loaded_skills_gated_names(
    steps: list, registry: frozenset[str]
) -> None:
    """Across load/unload sequences and registries: offered gated tools == union of the
    loaded skills' gated names ∩ registry; every other registered tool is refused with
    TOOL_LOCKED, and unregistered ones are ordinary tools."""
    for mode in PolicyMode:
        policy = ToolPolicy(mode, gated_tools=registry)
        s = SkillSession(Catalog(catalog_skills()), Limits(max_loaded=10), policy)
        for is_load, name in steps:
            if is_load and not s.is_loaded(name):
                s = load(s, name)
            elif not is_load:
                s = s.unload(name)[0]
            expected = {
                t for n in s.loaded_names for t in skill_gated_tools(s.catalog.get(n))
            } & registry
            offered = set(s.offered_tools([*GATED, "Read", "Write"])) & registry
            assert offered == expected == s.unlocked_tools
            assert set(GATED) - registry <= set(s.offered_tools(GATED))
            for tool in GATED:
                decision = s.check_tool(tool)
                if tool in expected or tool not in registry:
                    assert decision.code.value != "TOOL_LOCKED"
                else:
                    assert not decision.allowed and decision.code.value == "TOOL_LOCKED"
            assert {"Read", "Write"} <= set(s.offered_tools(["Read", "Write"]))


def test_locked_reply_names_the_unlocking_skills() -> None:
    s = session(*catalog_skills())
    decision = s.check_tool("deploy")
    assert replies.blocked_code(decision) is OutcomeCode.TOOL_LOCKED
    assert "release, ops" in decision.reason and "load_skill" in decision.reason
    never = s.check_tool("unnamed_tool")
    assert not never.allowed and "no skill in the catalog unlocks it" in never.reason
    assert s.check_tool("Write").allowed  # not gated: RECOMMEND never blocks


def test_restrict_naming_a_gated_tool_allows_it_for_the_unlocking_skill() -> None:
    s = load(session(*catalog_skills(), mode="restrict"), "ops")
    assert s.check_tool("deploy").allowed and s.check_tool("Read").allowed
    assert not s.check_tool("Write").allowed
    # Another restricting skill loaded does not unlock or allow rollback.
    assert s.check_tool("rollback").code.value == "TOOL_LOCKED"
    # A restricting skill's metadata cannot allow ordinary tools: only registered gated ones.
    s2 = load(session(meta("sneaky", ("Read",), include_tools="Write"), mode="restrict"), "sneaky")
    assert not s2.check_tool("Write").allowed


def test_gated_names_come_from_the_current_catalog_only() -> None:
    s = load(session(*catalog_skills()), "release")
    assert "deploy" in s.unlocked_tools
    refreshed, _ = s.with_catalog(Catalog((meta("release"), *catalog_skills()[1:])))
    assert "deploy" not in refreshed.unlocked_tools
    assert refreshed.check_tool("deploy").code.value == "TOOL_LOCKED"


def test_hide_blocked_tools_hides_by_name_only() -> None:
    s = session(meta("git", ("Read", "Bash(git:*)")), mode="restrict", aliases="deepagents")
    tools = ["read_file", "execute", "write_file", "write_todos", "load_skill", "Write"]
    assert s.offered_tools(tools, hide_blocked=True) == tools  # nothing loaded
    s = load(s, "git")
    shown = s.offered_tools(tools, hide_blocked=True)
    # execute stays: allowed for git commands; the harness and skill tools are never hidden.
    assert shown == ["read_file", "execute", "write_todos", "load_skill"], shown
    assert s.offered_tools(tools) == tools  # the option is off


def test_missing_tools_and_tool_not_available() -> None:
    skill = meta("git", ("Read", "Bash(git:*)", "mcp__gh__*"))
    s = session(skill, mode="recommend", aliases="deepagents")
    assert s.missing_tools("git", {"read_file", "execute", "mcp__gh__issues"}) == ()
    assert s.missing_tools("git", {"read_file"}) == ("Bash(git:*)", "mcp__gh__*")
    assert s.missing_tools("git", set()) == ("Read", "Bash(git:*)", "mcp__gh__*")
    assert load(s, "git", available={"read_file"}).loaded_names == ("git",)
    r = session(skill, mode="restrict", aliases="deepagents")
    refusal = r.begin_load("git", available={"read_file"})
    assert refusal.code is OutcomeCode.TOOL_NOT_AVAILABLE and refusal.terminal
    assert "Bash(git:*)" in refusal.message and "mcp__gh__*" in refusal.message
    assert r.finish_load(SkillDocument(skill, "b"), available={"read_file"})[0] is r


def test_toolkit_warns_only_when_asked(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write_skill(root, "writer", extra="allowed-tools: Read Edit\n")
    lib = SkillLibrary([root])
    off = SkillToolkit(lib)
    on = SkillToolkit(lib, check_tools_available=True)
    base = lib.session()
    args = {"skill_name": "writer"}
    assert "Warning" not in off.call(base, "load_skill", args, available={"Read"}).text
    text = on.call(base, "load_skill", args, available={"Read"}).text
    assert text.endswith(replies.tools_missing_warning(("Edit",)))
    assert "Warning" not in on.call(base, "load_skill", args, available={"Read", "Edit"}).text
    assert "Warning" not in on.call(base, "load_skill", args).text  # tools unknown: skipped


def test_registry_names_are_checked_at_construction(tmp_path: Path) -> None:
    assert gated_registry(["deploy", "mcp__x__y"], ["load_skill"]) == {"deploy", "mcp__x__y"}
    with pytest.raises(ValueError, match="plain tool names"):
        gated_registry(["deploy *"])
    with pytest.raises(ValueError, match="skill tool cannot be gated: load_skill"):
        gated_registry(["load_skill"], ["load_skill", "unload_skill"])
    from skillcore.runtime.config import AdapterParts

    write_skill(tmp_path / "s", "one")
    with pytest.raises(ValueError, match="sc_unload_skill"):
        AdapterParts.build(tmp_path / "s", tool_name_prefix="sc_", gated=["sc_unload_skill"])
