"""The tools of LangChain's ``ModelRequest`` as the model may see them now (translation of
the core's :meth:`~skillcore.SkillSession.offered_tools`)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from langchain_core.tools import BaseTool

from skillcore import SkillConfig, SkillSession
from skillcore.runtime import CatalogMemo, Recent

#: What :meth:`SkillSession.offered_tools` gave: the session, the names asked about,
#: ``hide_blocked``, the answer.
_Answer = tuple[SkillSession, tuple[str, ...], bool, frozenset[str]]


class OfferedTools:
    """:meth:`SkillSession.offered_tools` remembered per session object (sessions are
    immutable, so the same object and names give the same answer): the model calls of a turn
    ask again for the same session. At most ``size`` sessions, of the current catalog only
    (dropped with it)."""

    def __init__(self, size: int) -> None:
        self._memo: CatalogMemo[Recent[int, _Answer]] = CatalogMemo(lambda _: Recent(size))
        self._lock = threading.Lock()

    def __call__(
        self, session: SkillSession, names: tuple[str, ...], hide_blocked: bool
    ) -> frozenset[str]:
        """The names among ``names`` to show the model now (see ``offered_tools``)."""
        with self._lock:
            memo = self._memo(session.catalog)
            hit = memo.get(id(session))
        # The entry holds its session, so its id is not reused while it is remembered.
        if hit is not None and hit[0] is session and hit[2] == hide_blocked and hit[1] == names:
            return hit[3]
        offered = frozenset(session.offered_tools(names, hide_blocked=hide_blocked))
        with self._lock:
            memo.set(id(session), (session, names, hide_blocked, offered))
        return offered


def offer(
    tools: Iterable[Any],
    session: SkillSession,
    shown: Mapping[str, BaseTool],
    ours: Iterable[str],
    config: SkillConfig,
    offered_tools: Callable[[SkillSession, tuple[str, ...], bool], frozenset[str]] | None = None,
) -> tuple[list[BaseTool | dict[str, Any]], frozenset[str]]:
    """``tools`` to bind for this model call, and the names of all of them.

    The skill tools (``ours``) become ``shown``'s copies, whose schema lists this catalog's
    skill names (none when ``shown`` is empty: no skills); locked gated tools (and, with
    ``hide_blocked_tools``, blocked ones) are left out. ``offered_tools``: how to ask the
    session (an :class:`OfferedTools`; None: ask it every time)."""
    tools = list(tools)
    names = [tool_name(t) for t in tools]
    known = tuple(n for n in names if n is not None)
    hide = config.hide_blocked_tools
    offered = (
        set(session.offered_tools(known, hide_blocked=hide))
        if offered_tools is None
        else offered_tools(session, known, hide)
    )
    skill_tools = frozenset(ours)
    out: list[BaseTool | dict[str, Any]] = []
    for t, name in zip(tools, names):
        if isinstance(t, BaseTool) and t.name in skill_tools:
            if shown:
                out.append(shown.get(t.name, t))
        elif name is None or name in offered:
            out.append(t)
    return out, frozenset(known)


def tool_name(tool: Any) -> str | None:
    """A bound tool's name: a ``BaseTool``, or a provider dict (OpenAI function shape or a
    plain ``name``); None when it has none."""
    if isinstance(tool, BaseTool):
        return tool.name
    if isinstance(tool, Mapping):
        function = tool.get("function")
        name = function.get("name") if isinstance(function, Mapping) else tool.get("name")
        return name if isinstance(name, str) else None
    return None
