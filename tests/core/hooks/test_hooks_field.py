"""The ``hooks`` frontmatter field: its normal form, its bounds and its diagnostics, and a
fuzz test (any YAML value under ``hooks`` gives a result, never an exception)."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillcore import Code, Severity, SkillLocation, ValidationMode, parse_skill_file
from skillcore.parse.context import ParseResult
from skillcore.parse.frontmatter_caps import (
    MAX_HOOK_HANDLERS,
    MAX_HOOK_TIMEOUT,
    MAX_HOOKS_PER_SKILL,
)
from skillcore.state.hooks import skill_hooks

LOC = SkillLocation("src", "demo", "/skills/demo")


def parse(frontmatter: str, mode: ValidationMode = ValidationMode.LENIENT) -> ParseResult:
    text = f"---\nname: demo\ndescription: A demo skill.\n{frontmatter}\n---\nBody\n"
    return parse_skill_file(
        text.encode(), directory_name="demo", location=LOC, path="demo/SKILL.md", mode=mode
    )


HOOKS = """hooks:
  PreToolUse:
    - matcher: "Bash|Write"
      hooks:
        - type: command
          command: ./scripts/check.sh
          timeout: 5
  PostToolUse:
    - matcher: "*"
      once: true
      hooks:
        - type: prompt
          prompt: Check the output.
  SessionStart:
    - hooks:
        - {type: command, command: echo hi}"""


def test_hooks_read_into_the_normal_form() -> None:
    result = parse(HOOKS)
    assert result.metadata is not None
    assert not [d for d in result.diagnostics if d.code is Code.INVALID_HOOK]
    hooks = skill_hooks(result.metadata)
    assert [(h.event, h.matcher, h.kind, h.text, h.timeout, h.once) for h in hooks] == [
        ("PreToolUse", "Bash|Write", "command", "./scripts/check.sh", 5, False),
        ("PostToolUse", "*", "prompt", "Check the output.", 30, True),
        ("SessionStart", "", "command", "echo hi", 30, False),
    ]


def test_malformed_entries_are_dropped_with_a_diagnostic() -> None:
    result = parse(
        """hooks:
  PreToolUse:
    - matcher: Bash
      hooks:
        - {type: agent, prompt: x}
        - {type: command}
        - {type: command, command: ok, timeout: 100000}
    - 7
  Stop:
    - hooks: [{type: command, command: x}]"""
    )
    assert result.metadata is not None
    bad = [d for d in result.diagnostics if d.code is Code.INVALID_HOOK]
    assert len(bad) == 4 and all(d.severity is Severity.WARNING for d in bad)
    (hook,) = skill_hooks(result.metadata)
    assert hook.text == "ok" and hook.timeout == MAX_HOOK_TIMEOUT


def test_not_a_mapping_is_ignored() -> None:
    result = parse("hooks: [a, b]")
    assert result.metadata is not None and skill_hooks(result.metadata) == ()
    assert [d.code for d in result.diagnostics] == [Code.INVALID_HOOK]


def test_strict_mode_makes_a_bad_hook_an_error() -> None:
    result = parse("hooks: {PreToolUse: 3}", ValidationMode.STRICT)
    assert result.metadata is None
    assert any(
        d.code is Code.INVALID_HOOK and d.severity is Severity.ERROR for d in result.diagnostics
    )


def test_strict_mode_notes_hooks_as_an_extension() -> None:
    result = parse(HOOKS, ValidationMode.STRICT)
    assert result.metadata is not None
    assert any(d.code is Code.UNKNOWN_FIELD and d.field == "hooks" for d in result.diagnostics)


def test_handlers_are_bounded() -> None:
    handler = "        - {type: prompt, prompt: p}\n"
    groups = "".join(
        "    - matcher: Bash\n      hooks:\n" + handler * (MAX_HOOK_HANDLERS + 2) for _ in range(10)
    )
    result = parse("hooks:\n  PreToolUse:\n" + groups.rstrip("\n"))
    assert result.metadata is not None
    assert len(skill_hooks(result.metadata)) == MAX_HOOKS_PER_SKILL


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                [
                    "PreToolUse",
                    "PostToolUse",
                    "SessionStart",
                    "matcher",
                    "hooks",
                    "type",
                    "command",
                    "prompt",
                    "timeout",
                    "once",
                    "x",
                ]
            ),
            inner | st.sampled_from(["command", "prompt"]),
            max_size=5,
        )
    ),
    max_leaves=30,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(json_values)
def test_any_hooks_value_parses_without_raising(value: object) -> None:
    result = parse("hooks: " + json.dumps(value))
    if result.metadata is not None:
        for hook in skill_hooks(result.metadata):
            assert hook.event in ("PreToolUse", "PostToolUse", "SessionStart")
            assert hook.kind in ("command", "prompt") and hook.text.strip()
