"""Tool-name aliases for RESTRICT: Claude-style allowed-tools names (``Read``,
``Bash(git:*)``) standing for a framework's tools, presets, argument patterns on shell
tools, and the stricter ``unrestricted_skills="ignore"``."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillcore import (
    ALIAS_PRESETS,
    DecisionCode,
    SkillConfig,
    ToolAliases,
    ToolPolicy,
    UnrestrictedSkills,
)
from skillcore.policy.patterns import wildcard_match
from skillcore.policy.rules import decide
from skillcore.runtime import ToolPattern

PROFILE = settings(settings.get_profile("skillcore"))
DEEP = ToolPolicy("restrict", aliases="deepagents")
DEEPAGENTS_TOOLS = (
    "read_file", "ls", "glob", "grep", "write_file", "edit_file", "execute", "delete",
)  # fmt: skip


def allowed(
    tool: str, entries: tuple[str, ...] | None, policy: ToolPolicy = DEEP, arguments=None
) -> bool:
    return decide(tool, policy, [("s", entries)], arguments=arguments).allowed


def test_read_allows_the_deepagents_read_tools_only() -> None:
    for tool in ("read_file", "ls", "glob", "grep"):
        assert allowed(tool, ("Read",))
    for tool in ("write_file", "edit_file", "execute", "delete"):
        assert not allowed(tool, ("Read",))


def test_harness_tools_are_always_allowed_with_the_preset() -> None:
    for tool in ("write_todos", "task"):
        decision = decide(tool, DEEP, [("s", ("Read",))])
        assert decision.allowed and decision.code is DecisionCode.ALWAYS_ALLOWED
    # Without the preset they are ordinary tools.
    assert not allowed("write_todos", ("Read",), ToolPolicy("restrict"))


def test_without_aliases_claude_names_match_only_themselves() -> None:
    plain = ToolPolicy("restrict")
    assert not allowed("read_file", ("Read",), plain)
    assert allowed("Read", ("Read",), plain)


def test_the_framework_name_itself_still_matches() -> None:
    assert allowed("write_file", ("write_file",))
    assert allowed("grep", ("gr*",))


@pytest.mark.parametrize(
    ("command", "ok"),
    [
        ("git status", True),
        ("  git  log --oneline", True),
        ("git", True),
        ("gitk", False),
        ("rm -rf /", False),
        ("git status; rm -rf /", False),
        ("git status && rm -rf /", False),
        ("git $(rm -rf /)", False),
        ("git log > /etc/passwd", False),
        ("git status\nrm -rf /", False),
        ("echo git", False),
    ],
)
def test_bash_argument_pattern_on_execute(command: str, ok: bool) -> None:
    assert allowed("execute", ("Bash(git:*)",), arguments={"command": command}) is ok
    # JSON text (the OpenAI adapters' form) is read the same way.
    import json

    text = json.dumps({"command": command})
    assert allowed("execute", ("Bash(git:*)",), arguments=text) is ok


def test_argument_pattern_fails_closed_without_arguments() -> None:
    decision = decide("execute", DEEP, [("s", ("Bash(git:*)",))], arguments=None)
    assert not decision.allowed
    assert "cannot be checked" in decision.reason
    for bad in ("{not json", '{"command": 3}', "[]", '{"cmd": "git status"}'):
        assert not allowed("execute", ("Bash(git:*)",), arguments=bad)


def test_plain_bash_and_star_pattern_allow_any_command() -> None:
    for entries in (("Bash",), ("Bash(*)",)):
        assert allowed("execute", entries, arguments={"command": "rm -rf /tmp/x && ls"})
        assert allowed("execute", entries, arguments=None)


def test_whole_command_patterns_and_multiword_prefixes() -> None:
    assert allowed("execute", ("Bash(npm run test:*)",), arguments={"command": "npm run test -x"})
    assert not allowed("execute", ("Bash(npm run test:*)",), arguments={"command": "npm run build"})
    assert allowed("execute", ("Bash(git status)",), arguments={"command": "git status"})
    assert not allowed("execute", ("Bash(git status)",), arguments={"command": "git status -s"})
    assert allowed("execute", ("Bash(git *)",), arguments={"command": "git diff HEAD"})


def test_argument_pattern_on_an_alias_that_is_not_a_shell_tool_fails_closed() -> None:
    decision = decide("read_file", DEEP, [("s", ("Read(./src/*)",))], arguments={"path": "x"})
    assert not decision.allowed
    assert "checked only for shell tools" in decision.reason
    # A direct name match keeps its name-only meaning.
    assert allowed("read_file", ("read_file(./src/*)",))


def test_agents_sdk_shell_commands_each_must_match() -> None:
    policy = ToolPolicy("restrict", aliases="agents_sdk")
    entries = ("Bash(git:*)",)
    assert allowed("shell", entries, policy, {"commands": ["git status", "git log"]})
    assert not allowed("shell", entries, policy, {"commands": ["git status", "rm -rf /"]})
    assert allowed("local_shell", entries, policy, {"command": ["git", "status"]})
    assert not allowed("local_shell", entries, policy, {"command": ["rm", "-rf", "/"]})


def test_adk_preset_names() -> None:
    policy = ToolPolicy("restrict", aliases="adk")
    assert allowed("ReadFile", ("Read",), policy)
    assert allowed("execute_bash", ("Bash(git:*)",), policy, {"command": "git status"})
    assert not allowed("execute_bash", ("Bash(git:*)",), policy, {"command": "curl x"})
    assert allowed("transfer_to_agent", ("Read",), policy)
    assert allowed("google_search", ("WebSearch",), policy)


def test_presets_name_real_framework_tools() -> None:
    agents = pytest.importorskip("agents")
    pytest.importorskip("google.adk")
    pytest.importorskip("deepagents")
    from google.adk.tools import google_search, load_artifacts, url_context
    from google.adk.tools.bash_tool import ExecuteBashTool

    sdk = {
        agents.FileSearchTool(vector_store_ids=["v"]).name,
        agents.WebSearchTool().name,
        agents.ShellTool.name,
        agents.ApplyPatchTool.name,
        agents.LocalShellTool(executor=lambda request: "").name,
    }
    assert {t for _, v in ALIAS_PRESETS["agents_sdk"].names for t in v} <= sdk
    adk = {t for _, v in ALIAS_PRESETS["adk"].names for t in v}
    for tool in (google_search, load_artifacts, url_context):
        assert tool.name in adk
    assert ExecuteBashTool().name in adk
    from deepagents.middleware.filesystem import FilesystemMiddleware

    names = {t.name for t in FilesystemMiddleware().tools}
    assert {t for _, v in ALIAS_PRESETS["deepagents"].names for t in v} - {
        "write_todos",
        "task",
    } <= names


def test_config_selects_a_preset_or_mapping() -> None:
    config = SkillConfig(allowed_tools_policy="restrict", tool_aliases="deepagents")
    policy = config.policy()
    assert policy.aliases is ALIAS_PRESETS["deepagents"]
    assert {"write_todos", "task"} <= policy.always
    custom = SkillConfig(allowed_tools_policy="restrict", tool_aliases={"Read": ["cat"]}).policy()
    assert allowed("cat", ("Read",), custom)
    with pytest.raises(ValueError, match="unknown tool alias preset"):
        SkillConfig(tool_aliases="langgraph")
    with pytest.raises(TypeError):
        ToolAliases.of({"Read": "read_file"})  # a bare string is not a list of names
    assert "| `Read` |" in ALIAS_PRESETS["deepagents"].table()


def test_unrestricted_skill_lifts_nothing_by_default_and_everything_with_lift() -> None:
    strict = DEEP
    assert strict.unrestricted_skills is UnrestrictedSkills.IGNORE
    blocked = decide("write_file", strict, [("a", ("Read",)), ("b", None)])
    assert not blocked.allowed and "do not lift" in blocked.reason
    assert decide("read_file", strict, [("a", ("Read",)), ("b", None)]).allowed
    # Only unrestricted skills loaded: none declares allowed-tools, so nothing restricts.
    only = decide("read_file", strict, [("b", None)])
    assert only.allowed and only.code is DecisionCode.NO_RESTRICTING_SKILL
    assert decide("read_file", strict, []).allowed  # nothing loaded: nothing restricts
    lenient = ToolPolicy("restrict", aliases="deepagents", unrestricted_skills="lift")
    lift = decide("write_file", lenient, [("a", ("Read",)), ("b", None)])
    assert lift.allowed and lift.code is DecisionCode.UNRESTRICTED_SKILL_LOADED


# -- properties ---------------------------------------------------------------------------

NAMES = st.sampled_from(["Read", "Write", "Edit", "Bash", "Grep", "Glob", "LS", "Task", "X", "*"])
TOOLS = st.sampled_from([*DEEPAGENTS_TOOLS, "write_todos", "task", "Read", "Bash", "other"])
ALIASES = st.dictionaries(NAMES, st.frozensets(TOOLS, max_size=4), max_size=5).map(ToolAliases.of)


@PROFILE
@given(
    entries=st.lists(NAMES, max_size=4).map(tuple),
    tool=TOOLS,
    aliases=ALIASES,
)
def test_aliasing_never_widens_beyond_the_aliased_names(
    entries: tuple[str, ...], tool: str, aliases: ToolAliases
) -> None:
    with_aliases = ToolPolicy("restrict", aliases=aliases)
    without = ToolPolicy("restrict", always_allowed=aliases.always_allowed)
    if allowed(tool, entries, with_aliases) and not allowed(tool, entries, without):
        union = set().union(*(aliases.targets(ToolPattern.parse(e).tool) for e in entries))
        assert tool in union
    # And aliases never take anything away.
    if allowed(tool, entries, without):
        assert allowed(tool, entries, with_aliases)


WORD = st.text(st.sampled_from("abgilt-"), min_size=1, max_size=6)


@PROFILE
@given(
    word=WORD,
    first=WORD,
    rest=st.text(st.characters(codec="utf-8"), max_size=30),
)
def test_an_argument_pattern_never_allows_a_command_with_another_first_word(
    word: str, first: str, rest: str
) -> None:
    command = f"{first} {rest}" if rest else first
    ok = allowed("execute", (f"Bash({word}:*)",), arguments={"command": command})
    if ok:
        assert command.split()[0] == word
    if first != word:
        assert not ok


@PROFILE
@given(pattern=st.text(st.sampled_from("ab*: "), max_size=12), command=st.text(max_size=40))
def test_argument_patterns_are_total_and_whole_match(pattern: str, command: str) -> None:
    entry = ToolPattern("Bash(x)", "Bash", pattern)
    result = entry.allows_command(command)  # never raises
    p, c = pattern.strip(), command.strip()
    if result and p != "*" and not p.endswith(":*"):
        assert wildcard_match(p, c)


def test_docs_show_every_preset_table() -> None:
    from pathlib import Path

    docs = (Path(__file__).resolve().parents[3] / "docs" / "concepts.md").read_text()
    for preset in ALIAS_PRESETS.values():
        assert preset.table() in docs, preset.name
        for tool in preset.always_allowed:
            assert f"`{tool}`" in docs


@PROFILE
@given(
    lists=st.lists(
        st.one_of(st.none(), st.lists(NAMES, max_size=3).map(tuple)), min_size=1, max_size=4
    ),
    tool=TOOLS,
)
def test_ignore_decides_as_if_unrestricted_skills_were_not_loaded(
    lists: list[tuple[str, ...] | None], tool: str
) -> None:
    strict = ToolPolicy("restrict", aliases="deepagents", unrestricted_skills="ignore")
    assert ToolPolicy("restrict", aliases="deepagents") == strict  # the default
    pairs = [(f"s{i}", t) for i, t in enumerate(lists)]
    declared = [(s, t) for s, t in pairs if t is not None]
    got = decide(tool, strict, pairs).allowed
    assert got == decide(tool, strict, declared).allowed
    # The lenient opt-in (lift) never blocks more than ignore.
    if got:
        assert decide(
            tool, ToolPolicy("restrict", aliases="deepagents", unrestricted_skills="lift"), pairs
        ).allowed


def test_the_security_page_states_the_warning_cap() -> None:
    from pathlib import Path

    from skillcore.tools.toolkit import MAX_UNMATCHED_WARNINGS

    doc = " ".join(
        (Path(__file__).resolve().parents[3] / "docs" / "security.md").read_text().split()
    )
    assert f"at most {MAX_UNMATCHED_WARNINGS} distinct warnings per toolkit" in doc


def test_the_adapter_default_maps_names_only() -> None:
    from skillcore import SkillConfig

    config = SkillConfig(allowed_tools_policy="restrict")
    assert config.tool_aliases == "auto"
    policy = config.policy(framework="deepagents")
    assert policy.aliases is not None
    assert policy.aliases.targets("Read") == ALIAS_PRESETS["deepagents"].targets("Read")
    assert policy.aliases.command_argument("execute") == "command"
    assert "task" not in policy.always  # named presets only
    assert config.policy().aliases is None  # an adapter without fixed tool names
    assert SkillConfig(tool_aliases=None).policy(framework="adk").aliases is None
    named = SkillConfig(tool_aliases="deepagents").policy(framework="adk")
    assert named.aliases is ALIAS_PRESETS["deepagents"]
