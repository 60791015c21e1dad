"""The ``hooks`` field (Claude Code's shape): events, each a list of matcher groups
``{matcher, hooks: [{type: command, command, timeout} | {type: prompt, prompt}], once}``.

Read into one JSON-native form (``{event: [{"matcher": str, "hooks": [handler, ...]}]}``, a
handler ``{"type", "command" | "prompt", "timeout", "once"}``, a group's ``once`` carried by
each of its handlers), bounded by the caps of :mod:`skillcore.parse.frontmatter_caps`. An entry that
cannot be read is dropped with an ``INVALID_HOOK`` diagnostic; the others are kept.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from skillcore.diagnostics import Code
from skillcore.parse.context import ParseContext
from skillcore.parse.frontmatter_caps import (
    MAX_HOOK_GROUPS,
    MAX_HOOK_HANDLERS,
    MAX_HOOK_MATCHER,
    MAX_HOOK_TEXT,
    MAX_HOOK_TIMEOUT,
    MAX_HOOKS_PER_SKILL,
    MIN_HOOK_TIMEOUT,
)
from skillcore.parse.values import type_name

#: The events a skill's hooks may name (Claude Code's spelling).
HOOK_EVENTS = ("PreToolUse", "PostToolUse", "SessionStart")
#: A handler's timeout when it gives none (seconds).
DEFAULT_HOOK_TIMEOUT = 30


def read_hooks(fm: dict[str, Any], ctx: ParseContext, kwargs: dict[str, Any]) -> None:
    """``hooks``: the readable entries in the normal form (see the module docstring)."""
    value = fm.get("hooks")
    if value is None:
        return
    if not isinstance(value, Mapping):
        _bad(ctx, f"'hooks' must be a mapping of events, got {type_name(value)}; ignored")
        return
    out: dict[str, list[dict[str, Any]]] = {}
    budget = [MAX_HOOKS_PER_SKILL]
    for event, groups in value.items():
        if event not in HOOK_EVENTS:
            shown = str(event)[:40]
            _bad(ctx, f"hook event {shown!r} is not one of {', '.join(HOOK_EVENTS)}; ignored")
            continue
        if not isinstance(groups, list):
            _bad(ctx, f"hooks.{event} must be a list, got {type_name(groups)}; ignored")
            continue
        if len(groups) > MAX_HOOK_GROUPS:
            _bad(ctx, f"hooks.{event} has {len(groups)} entries; the first {MAX_HOOK_GROUPS} kept")
        kept = [
            g
            for g in (
                _group(event, i, g, ctx, budget) for i, g in enumerate(groups[:MAX_HOOK_GROUPS])
            )
            if g is not None
        ]
        if kept:
            out[event] = kept
    if out:
        kwargs["hooks"] = out


def _group(
    event: str, i: int, group: Any, ctx: ParseContext, budget: list[int]
) -> dict[str, Any] | None:
    where = f"hooks.{event}[{i}]"
    if not isinstance(group, Mapping):
        _bad(ctx, f"{where} must be a mapping, got {type_name(group)}; ignored")
        return None
    matcher = group.get("matcher", "")
    if matcher is None:
        matcher = ""
    if not isinstance(matcher, str) or len(matcher) > MAX_HOOK_MATCHER:
        _bad(ctx, f"{where}.matcher must be text of at most {MAX_HOOK_MATCHER} characters; ignored")
        return None
    once = group.get("once", False)
    if not isinstance(once, bool):
        _bad(ctx, f"{where}.once must be true or false; ignored")
        return None
    handlers = group.get("hooks")
    if not isinstance(handlers, list) or not handlers:
        _bad(ctx, f"{where}.hooks must be a non-empty list; ignored")
        return None
    if len(handlers) > MAX_HOOK_HANDLERS:
        _bad(ctx, f"{where}.hooks has {len(handlers)} entries; the first {MAX_HOOK_HANDLERS} kept")
    kept: list[dict[str, Any]] = []
    for j, raw in enumerate(handlers[:MAX_HOOK_HANDLERS]):
        handler = _handler(f"{where}.hooks[{j}]", raw, once, ctx)
        if handler is None:
            continue
        if budget[0] <= 0:
            _bad(ctx, f"more than {MAX_HOOKS_PER_SKILL} hook handlers; {where} and later dropped")
            break
        budget[0] -= 1
        kept.append(handler)
    if not kept:
        return None
    return {"matcher": ctx.clean(matcher, "hooks").strip(), "hooks": kept}


def _handler(where: str, raw: Any, once: bool, ctx: ParseContext) -> dict[str, Any] | None:
    if not isinstance(raw, Mapping):
        _bad(ctx, f"{where} must be a mapping, got {type_name(raw)}; ignored")
        return None
    kind = raw.get("type")
    own_once = raw.get("once", False)
    if not isinstance(own_once, bool):
        _bad(ctx, f"{where}.once must be true or false; ignored")
        return None
    if kind not in ("command", "prompt"):
        _bad(ctx, f"{where}.type must be 'command' or 'prompt'; ignored")
        return None
    text = raw.get(kind)
    if not isinstance(text, str) or not text.strip() or len(text) > MAX_HOOK_TEXT:
        _bad(ctx, f"{where}.{kind} must be non-empty text of at most {MAX_HOOK_TEXT} characters")
        return None
    handler: dict[str, Any] = {
        "type": kind,
        kind: ctx.clean(text, "hooks"),
        "once": once or own_once,
    }
    if kind == "command":
        timeout = raw.get("timeout", DEFAULT_HOOK_TIMEOUT)
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout != timeout:
            _bad(ctx, f"{where}.timeout must be a number of seconds; {DEFAULT_HOOK_TIMEOUT} used")
            timeout = DEFAULT_HOOK_TIMEOUT
        handler["timeout"] = int(min(max(timeout, MIN_HOOK_TIMEOUT), MAX_HOOK_TIMEOUT))
    return handler


def _bad(ctx: ParseContext, message: str) -> None:
    ctx.diags.append(ctx.problem(Code.INVALID_HOOK, message, "hooks"))
