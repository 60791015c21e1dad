"""docs/security.md states the caps; each number it states is the constant the code uses."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillcore import Limits, limits
from skillcore.apps import evaluate, mcp_server
from skillcore.catalog.semantic import MAX_EMBED_TOKENS
from skillcore.catalog.terms import MAX_QUERY_CHARS, MAX_QUERY_TERMS
from skillcore.library import SKILL_GRACE_SECONDS
from skillcore.limits import DEFAULT_MAX_FILE_BYTES, MAX_STORED_ID_CHARS
from skillcore.parse import frontmatter_caps as caps
from skillcore.parse import private_files
from skillcore.parse import reader_common as bounds
from skillcore.parse.frontmatter_caps import (
    MAX_FRONTMATTER_BYTES,
    MAX_LIST_ITEM,
    MAX_LIST_ITEMS,
    MAX_METADATA_ENTRIES,
    MAX_NESTING,
)
from skillcore.policy import gating
from skillcore.policy import skill_options as opts
from skillcore.policy.patterns import MAX_TOOL_NAME, MAX_TOOL_PATTERN
from skillcore.runtime import profiles
from skillcore.sources import archive, mcp
from skillcore.sources.cursor import MAX_SYMLINK_HOPS
from skillcore.sources.local_listing import MAX_LISTED_DIRS, MAX_LISTED_ENTRIES
from skillcore.sources.source import SkillSource
from skillcore.state import refresh
from skillcore.state import token as state_token
from skillcore.state import turn_order as turns
from skillcore.state.announced_turns import DEFAULT_MAX_ANNOUNCED
from skillcore.state.listed_calls import MAX_TURN_CALLS
from skillcore.state.saved import MAX_CONVERSATION_KEY, MAX_SAVED_STATE_BYTES
from skillcore.state.schema import MAX_CALL_ID, MAX_STATE_ENTRIES
from skillcore.tools import binary, reinjection, replies, scripts, specs

DOC = " ".join((Path(__file__).resolve().parents[1] / "docs" / "security.md").read_text().split())
MIB = 1024 * 1024


def _n(value: int) -> str:
    return f"{value:,}"


@pytest.mark.parametrize(
    "text",
    [
        f"more than {opts.MAX_DISALLOWED} entries",
        f"at most {opts.MAX_PATH_GLOBS} globs of {opts.MAX_PATH_GLOB} characters",
        f"at most {opts.MAX_TOUCHED_PATHS} touched paths of {_n(opts.MAX_TOUCHED_PATH)} characters",
        f"at most {opts.MAX_PATH_SEGMENTS} segments",
        f"longer than {opts.MAX_MODEL_NAME} characters",
        f"longer than {MAX_TOOL_NAME} characters is taken as named by every entry",
        f"{_n(MAX_FRONTMATTER_BYTES)} bytes",
        f"| nesting depth | {MAX_NESTING} |",
        f"{_n(bounds.MAX_EXPANDED_CHARS)} characters",
        f"{bounds.MAX_INT_CHARS} characters",
        f"{MAX_LIST_ITEMS} / {MAX_LIST_ITEM} characters",
        f"| metadata entries | {MAX_METADATA_ENTRIES} |",
        f"{caps.MAX_HEADINGS} headings of {caps.MAX_HEADING_CHARS} characters, from at most "
        f"{_n(caps.MAX_HEADINGS_SCANNED)} bytes",
        f"at most {MAX_SYMLINK_HOPS} hops",
        f"{_n(MAX_LISTED_DIRS)} directories",
        f"{_n(MAX_LISTED_ENTRIES)} directory entries examined",
        f"{Limits().max_resources} files",
        f"at most {DEFAULT_MAX_FILE_BYTES // MIB} MiB",
        f"{Limits().max_resource_bytes // 1024} KiB",
        f"capped at {Limits().max_binary_bytes // MIB} MiB each",
        f"reads {binary.SNIFF_BYTES} bytes at most",
        f"for {SKILL_GRACE_SECONDS:g} seconds",
        f"At most {_n(MAX_TURN_CALLS)} calls of a turn are tracked",
        f"at most {_n(DEFAULT_MAX_ANNOUNCED)} call ids of announced turns",
        f"past the first {_n(MAX_TURN_CALLS)} calls of its turn",
        f"one such wait of at most {turns.DEFAULT_CONFIRM_SECONDS:g} second",
        f"{_n(archive.ArchiveLimits().max_members)} members",
        f"longer than {_n(state_token.MAX_STATE_TOKEN_BYTES)} bytes",
        f"{state_token.SECRET_BYTES} random bytes",
        f"{archive.ArchiveLimits().max_uncompressed_bytes // MIB} MiB uncompressed",
        f"{archive.ArchiveLimits().max_archive_bytes // MIB} MiB archive",
        f"longer than {MAX_TOOL_NAME}",
        f"capped at {_n(specs.MAX_ARGUMENT_VALUE_CHARS)} characters",
        f"at most {specs.MAX_SCRIPT_ARGS}, each capped at",
        f"stdin at most {specs.MAX_SCRIPT_STDIN_CHARS // 1024} KiB",
        f"at most {_n(replies.MAX_SCRIPT_OUTPUT_CHARS)} characters of stdout",
        f"at most {scripts.MAX_SCRIPT_TREE_BYTES // MIB} MiB in all",
        f"recursion depth ({SkillSource('.').max_depth})",
        f"directory entries ({_n(SkillSource('.').max_entries)})",
        f"at most {gating.MAX_GATED_TOOLS} per skill and {gating.MAX_GATED_NAME} characters each",
        f"at most {_n(profiles.MAX_PROFILES)} profiles",
        f"ids longer than {MAX_CALL_ID} characters are not kept",
        f"at most {MAX_STORED_ID_CHARS} characters (`MAX_STORED_ID_CHARS`",
        f"at most {_n(reinjection.MAX_CALL_DISTANCE)} items, `MAX_CALL_DISTANCE`",
        f"holds at most {_n(MAX_TURN_CALLS)} call ids",
        f"longer than {_n(MAX_CONVERSATION_KEY)} characters, or holding a NUL",
        f"at most {mcp_server.MAX_CURSOR_DIGITS} of them",
        f"at most {_n(mcp.MAX_PAGES)} pages and {_n(mcp.MAX_LISTED_ITEMS)} listed items",
        f"at most {mcp.DEFAULT_DISCOVERY_TIMEOUT:g} seconds",
        f"a random {private_files.KEY_BYTES}-byte key",
        f"at most {evaluate.MAX_EVAL_FILE_BYTES // MIB} MiB and {_n(evaluate.MAX_CASES)} queries",
        f"cut at {replies.SUGGESTION_DESCRIPTION_CHARS} characters",
        f"at most {caps.MAX_HOOK_GROUPS} matcher groups per event, {caps.MAX_HOOK_HANDLERS} "
        f"handlers per group and {caps.MAX_HOOKS_PER_SKILL} per skill",
        f"at most {_n(caps.MAX_HOOK_TEXT)} characters and a matcher of at most "
        f"{caps.MAX_HOOK_MATCHER}",
        f"clamped to {caps.MIN_HOOK_TIMEOUT}–{caps.MAX_HOOK_TIMEOUT} seconds",
        f"at most {_n(limits.HOOK_EVENT_BYTES)} bytes",
        f"cut at {_n(limits.HOOK_OUTPUT_CHARS)} characters and the hook text added to one "
        f"model call at {_n(limits.HOOK_CONTEXT_CHARS)}",
        f"At most {limits.SHELL_COMMANDS_PER_BODY} `!command` placeholders run per body, each "
        f"command at most {_n(limits.SHELL_COMMAND_CHARS)} characters, each output cut at "
        f"{_n(limits.SHELL_OUTPUT_CHARS)} characters",
        f"covers the last {_n(limits.HOOK_CONVERSATIONS)} conversations",
        f"at most {_n(MAX_QUERY_CHARS)} characters of a query ({MAX_QUERY_TERMS}",
        f"at most {MAX_EMBED_TOKENS} tokens of a text",
        f"about {limits.GUIDANCE_LINES} lines and {_n(limits.GUIDANCE_TOKENS)} tokens",
        f"over {_n(limits.GUIDANCE_BYTES)} bytes ({_n(limits.GUIDANCE_TOKENS)} tokens at "
        f"{limits.CHARS_PER_TOKEN} characters a token",
        f"also when it is over {limits.GUIDANCE_LINES} lines",
        f"at most {_n(limits.DEFAULT_MAX_LOAD_CHARS)} characters of instructions",
        f"at least {_n(limits.MIN_LOAD_CHARS)})",
        f"at most {refresh.MAX_MARKER_BYTES} bytes of it",
        f"at most {_n(MAX_STATE_ENTRIES)} entries are read back",
        f"usable up to {caps.MAX_NAME_USABLE} characters",
        f"a state of more than {_n(MAX_SAVED_STATE_BYTES)} bytes",
        f"the last {mcp_server.MAX_KNOWN_TOKENS} tokens",
    ],
)
def test_security_page_states_the_code_caps(text: str) -> None:
    assert text in DOC


def test_one_stated_cap_covers_tool_names_and_patterns() -> None:
    """The page states one length for both; they must stay the same number."""
    assert MAX_TOOL_NAME == MAX_TOOL_PATTERN


def test_security_page_states_the_settings_caps() -> None:
    """The settings-file bounds and the state secret's minimum are the constants in code."""
    from skillcore.runtime import settings

    for text in (
        f"at most {_n(settings.MAX_SETTINGS_BYTES)} bytes read",
        f"nesting at most {caps.MAX_NESTING} levels",
        f"numbers of more than {bounds.MAX_INT_CHARS} characters",
        f"at least {state_token.MIN_SECRET_BYTES} bytes with at least "
        f"{state_token.MIN_SECRET_DISTINCT} different byte values",
        settings.TRUST_ENV,
    ):
        assert text in DOC, text


def test_security_page_states_the_run_limits() -> None:
    """The limits of a skill's code stated under "Running skill code" are the code's."""
    for text in (
        f"SIGKILL {limits.RUN_KILL_GRACE_SECONDS:g} seconds later",
        f"(`pids.max` {limits.DEFAULT_RUN_PROCESSES}, threads included)",
        f"{limits.DEFAULT_RUN_OUTPUT_BYTES // 1024} KiB of stdout and of stderr kept",
        f"killed once {limits.MAX_RUN_DISCARDED_BYTES // MIB} MiB are dropped",
        f"`RLIMIT_DATA` {limits.DEFAULT_RUN_MEMORY_BYTES // MIB} MiB per process",
        f"bounded per file ({limits.DEFAULT_RUN_FILE_BYTES // MIB} MiB)",
    ):
        assert text in DOC, text


def test_security_page_states_the_wellknown_and_signing_caps() -> None:
    """The bounds of well-known sources and of signature files are the constants in code."""
    from skillcore.apps.cli_sign import MAX_SIGNED_BYTES
    from skillcore.sources.wellknown import WellKnownLimits
    from skillcore.sources.wellknown_http import MAX_REDIRECTS
    from skillcore.trust.signing import MAX_KEY_FILE_BYTES

    wk = WellKnownLimits()
    for text in (
        f"at most {MAX_REDIRECTS} are followed",
        f"the index at most {wk.max_index_bytes // MIB} MiB and {_n(wk.max_skills)} entries",
        f"{wk.timeout:g} seconds per request",
        f"{wk.max_scan_seconds:g} seconds per scan",
        f"an archive at most {wk.max_archive_bytes // MIB} MiB, {_n(wk.max_members)} members "
        f"and {wk.max_uncompressed_bytes // MIB} MiB unpacked",
        f"{wk.max_total_bytes // MIB} MiB downloaded per scan",
        f"read up to {MAX_KEY_FILE_BYTES // 1024} KiB",
        f"files up to {MAX_SIGNED_BYTES // MIB} MiB",
    ):
        assert text in DOC, text


def test_security_page_states_the_lock_bounds() -> None:
    """The bounds stated under "Lock verification" are the code's."""
    from skillcore.trust import MAX_LOCK_BYTES, MAX_LOCKED_SKILL_BYTES
    from skillcore.trust.discovery import MAX_DIFFERENCES_SHOWN

    for text in (
        f"is larger than {MAX_LOCK_BYTES // MIB} MiB",
        f"`max_file_bytes` per file and {MAX_LOCKED_SKILL_BYTES // MIB} MiB in all",
        f"at most {MAX_DIFFERENCES_SHOWN} shown per skill",
    ):
        assert text in DOC, text


def test_security_page_states_the_fork_caps() -> None:
    """The bounds of a forked skill's task and answer are the constants in code."""
    from skillcore.tools import forks

    for text in (
        f"cut at {_n(forks.MAX_FORK_ARGUMENTS)} characters",
        f"cut at {_n(forks.MAX_FORK_ANSWER)} characters",
    ):
        assert text in DOC, text
