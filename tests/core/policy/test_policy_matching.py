"""allowed-tools matching: a linear-time full match where ``*`` is the only wildcard."""

from __future__ import annotations

import functools
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import skillcore
from skillcore import (
    Catalog,
    PolicyMode,
    SkillDocument,
    SkillLocation,
    SkillMetadata,
    SkillSession,
    ToolPolicy,
)
from skillcore.policy.patterns import MAX_TOOL_NAME, MAX_TOOL_PATTERN, wildcard_match
from skillcore.runtime import ToolPattern

SRC = Path(skillcore.__file__).resolve().parents[1]  # the skillcore under test (PYTHONPATH)
HOSTILE_PATTERN = "*a*a*a*a*a*a*a*a*a*a*a*a*b"


def reference_match(pattern: str, name: str) -> bool:
    """Naive statement of the rule: ``*`` matches any run, everything else only itself."""

    @functools.cache
    def at(i: int, j: int) -> bool:
        if i == len(pattern):
            return j == len(name)
        if pattern[i] == "*":
            return at(i + 1, j) or (j < len(name) and at(i, j + 1))
        return j < len(name) and pattern[i] == name[j] and at(i + 1, j + 1)

    return at(0, 0)


def restricted_session(*entries: str) -> SkillSession:
    meta = SkillMetadata("s", "d", SkillLocation("src", "s", "/s/s"), allowed_tools=entries)
    session = SkillSession(Catalog((meta,)), policy=ToolPolicy(PolicyMode.RESTRICT))
    session, outcome = session.finish_load(SkillDocument(meta, "body"))
    assert outcome.ok
    return session


# -- the ReDoS regression ----------------------------------------------------------------------


def test_hostile_glob_is_decided_promptly() -> None:
    """A regex-backtracking matcher spins for minutes here; run it in a subprocess so a hang
    fails the test (timeout) instead of hanging the suite (the regex engine holds the GIL, so a
    thread could not be abandoned)."""
    code = (
        "from skillcore import *\n"
        f"m = SkillMetadata('s', 'd', SkillLocation('src', 's', '/s/s'), "
        f"allowed_tools=({HOSTILE_PATTERN!r},))\n"
        "s = SkillSession(Catalog((m,)), policy=ToolPolicy(PolicyMode.RESTRICT))\n"
        "s, _ = s.finish_load(SkillDocument(m, 'body'))\n"
        "for n in range(1, 41):\n"
        "    assert not s.check_tool('a' * n).allowed\n"
        "assert s.check_tool('a' * 12 + 'b').allowed\n"
        "print('ok')\n"
    )
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    try:
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=30, env=env
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"check_tool did not finish within 30 s for {HOSTILE_PATTERN!r}")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_hostile_glob_in_process() -> None:
    for n in (1, 12, 40, MAX_TOOL_NAME):
        assert not wildcard_match(HOSTILE_PATTERN, "a" * n)
    assert wildcard_match(HOSTILE_PATTERN, "a" * 12 + "b")
    assert wildcard_match("*" * MAX_TOOL_PATTERN, "a" * MAX_TOOL_NAME)


# -- agreement with the reference --------------------------------------------------------------

patterns = st.text(alphabet="ab*", max_size=12)
names = st.text(alphabet="ab", max_size=14)


@settings(deadline=None)
@given(patterns, names)
def test_matcher_agrees_with_reference(pattern: str, name: str) -> None:
    assert wildcard_match(pattern, name) is reference_match(pattern, name)
    assert ToolPattern.parse(pattern or "x").matches(name) is reference_match(pattern or "x", name)


@settings(deadline=None)
@given(patterns, names)
def test_star_free_patterns_are_exact(pattern: str, name: str) -> None:
    literal = pattern.replace("*", "")
    assert wildcard_match(literal, name) is (literal == name)


# -- a full match, not a prefix or a search ----------------------------------------------------


@settings(deadline=None)
@given(st.text(alphabet="ab*", max_size=10), st.sampled_from("ab"), names, names)
def test_match_is_anchored_at_the_end(stem: str, last: str, name: str, tail: str) -> None:
    """A pattern ending in a literal never matches a name ending in another character."""
    pattern = stem + last
    other = "b" if last == "a" else "a"
    assert not wildcard_match(pattern, name + tail + other)
    if wildcard_match(pattern, name):  # a match is never extended by a trailing suffix
        assert not wildcard_match(pattern, name + other)


@settings(deadline=None)
@given(st.sampled_from("ab"), st.text(alphabet="ab*", max_size=10), names)
def test_match_is_anchored_at_the_start(first: str, rest: str, name: str) -> None:
    """A pattern starting with a literal never matches a name starting with another one."""
    other = "b" if first == "a" else "a"
    assert not wildcard_match(first + rest, other + name)


@settings(deadline=None)
@given(st.text(alphabet="ab", min_size=1, max_size=8), names.filter(bool))
def test_literal_entry_is_not_a_prefix(literal: str, suffix: str) -> None:
    assert wildcard_match(literal, literal)
    assert not wildcard_match(literal, literal + suffix)
    assert not wildcard_match(literal, suffix + literal)


@pytest.mark.parametrize(
    ("entry", "tool", "ok"),
    [
        ("mcp__*__read", "mcp__x__read", True),
        ("mcp__*__read", "mcp__x__read_all", False),
        ("mcp__*__read", "mcp__x__y__read", True),
        ("mcp__*__read", "xmcp__x__read", False),
        ("mcp__*__read", "mcp____read", True),
        ("mcp__*__read", "mcp__read", False),  # the two literal parts must not overlap
        ("a*a", "a", False),
        ("a*a", "aa", True),
        ("*", "", True),
        ("**", "anything", True),
        ("Read", "ReadAll", False),
        ("Read", "Rea", False),
        ("Read*", "ReadAll", True),
        ("*Read", "MyRead", True),
        ("*Read", "MyReader", False),
        ("Bash(git:*)", "Bash", True),
        ("Bash(git:*)", "BashOutput", False),
        ("Bash(git:*)", "bash", False),
        ("Bash(git:*)", "Bash(git:status)", False),
        ("Bash(git:*)", "Bash ", False),
        ("mcp__gh__[ab]", "mcp__gh__a", False),  # only * is a wildcard
        ("mcp__gh__[ab]", "mcp__gh__[ab]", True),
        ("x?", "x?", True),
        ("x?", "xy", False),
        ("a.*", "a.b", True),
        ("a.*", "ab", False),
    ],
)
def test_examples(entry: str, tool: str, ok: bool) -> None:
    assert ToolPattern.parse(entry).matches(tool) is ok
    session = restricted_session(entry)
    assert session.check_tool(tool).allowed is ok


def test_argument_pattern_is_kept_verbatim() -> None:
    pattern = ToolPattern.parse("Bash(git:*)")
    assert (pattern.tool, pattern.argument, pattern.entry) == ("Bash", "git:*", "Bash(git:*)")
    blocked = restricted_session("Bash(git:*)").check_tool("Write")
    assert not blocked.allowed
    assert "Bash(git:*)" in blocked.reason  # shown to the model


# -- exact names: NFC only ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("entry", "tool", "ok"),
    [
        ("caf\u00e9*", "cafe\u0301_open", True),  # NFC makes composed and decomposed equal
        ("cafe\u0301", "caf\u00e9", True),
        ("Read*", "read_file", False),  # case
        ("Read*", "\u0280ead", False),  # look-alike
        ("Re\u0430d", "Read", False),  # Cyrillic a in the entry
        ("Read", "Read\u200b", False),  # an invisible character is a different name
        ("Read", "\uff32ead", False),  # fullwidth R: NFKC would fold it, NFC does not
    ],
)
def test_normalisation_is_nfc_only(entry: str, tool: str, ok: bool) -> None:
    assert restricted_session(entry).check_tool(tool).allowed is ok


# -- caps ----------------------------------------------------------------------------------------


def test_over_long_tool_name_matches_nothing_and_is_blocked() -> None:
    session = restricted_session("*", "a*")
    assert session.check_tool("a" * MAX_TOOL_NAME).allowed
    long_name = "a" * (MAX_TOOL_NAME + 1)
    decision = session.check_tool(long_name)
    assert not decision.allowed
    assert f"{MAX_TOOL_NAME + 1} characters" in decision.reason
    assert long_name not in decision.reason  # the reply stays short


def test_over_long_pattern_matches_nothing() -> None:
    exact = "a" * MAX_TOOL_PATTERN
    assert wildcard_match(exact, exact)
    too_long = "a" * (MAX_TOOL_PATTERN + 1)
    assert not wildcard_match(too_long, too_long)
    assert not wildcard_match("*" * (MAX_TOOL_PATTERN + 1), "a")
    assert not restricted_session(too_long).check_tool(too_long).allowed


def test_always_allowed_and_recommend_unaffected_by_caps() -> None:
    long_name = "t" * (MAX_TOOL_NAME + 10)
    meta = SkillMetadata("s", "d", SkillLocation("src", "s", "/s/s"), allowed_tools=("Read",))
    policy = ToolPolicy(PolicyMode.RESTRICT, always_allowed={long_name})
    session, _ = SkillSession(Catalog((meta,)), policy=policy).finish_load(
        SkillDocument(meta, "body")
    )
    assert session.check_tool(long_name).allowed
    recommend = SkillSession(Catalog((meta,)))
    assert recommend.check_tool(long_name).allowed


def test_block_reason_escapes_hostile_entries() -> None:
    decision = restricted_session("Read\x1b[2J", "Gr\u202eep").check_tool("Write")
    assert not decision.allowed
    assert "\x1b" not in decision.reason and "\u202e" not in decision.reason
    assert "Read\\x1b[2J" in decision.reason and "Gr\\u202eep" in decision.reason
