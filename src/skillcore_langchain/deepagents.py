"""``create_deep_agent`` with skillcore's ``SkillsMiddleware`` in deepagents' skills slot.

deepagents builds its own skills middleware for the main agent and the general-purpose
subagent only when ``skills=`` is given, and lets a middleware passed in ``middleware=``
replace it by name. This wrapper passes a ``skills=`` value for a ``SkillsMiddleware`` given in
``middleware=``, so the slot exists and skillcore's middleware takes it in both agents (the
subagent then has skills, and ``share_with_subagents=True`` seeds it).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

from skillcore import MissingDependencyError
from skillcore.runtime import install_hint
from skillcore_langchain.middleware import SkillsMiddleware

__all__ = ["create_deep_agent"]


def create_deep_agent(
    *args: Any,
    middleware: Sequence[Any] = (),
    skills: list[str] | None = None,
    **kwargs: Any,
) -> Any:
    """``deepagents.create_deep_agent`` (same arguments) where a :class:`SkillsMiddleware` in
    ``middleware`` serves the main agent and the general-purpose subagent.

    ``skills=`` has no effect next to a ``SkillsMiddleware`` (it reads its own sources): it
    is ignored with a warning. ``interrupt_on`` is passed through
    :meth:`SkillsMiddleware.gate_interrupts`, so the human is never asked to approve a call
    the allowed-tools policy will block.
    """
    try:
        from deepagents import create_deep_agent as _create
    except ImportError as exc:
        raise MissingDependencyError(
            f"create_deep_agent needs the optional dependency 'deepagents': "
            f"{install_hint('deepagents')}"
        ) from exc

    ours = [m for m in middleware if isinstance(m, SkillsMiddleware)]
    if len(ours) > 1:
        raise ValueError("pass one SkillsMiddleware; deepagents has one skills slot per agent")
    if ours:
        if skills is not None:
            warnings.warn(
                "skills= has no effect: the SkillsMiddleware in middleware= reads its own "
                "sources; pass them to SkillsMiddleware(skills=...)",
                UserWarning,
                stacklevel=2,
            )
        # Any value makes deepagents create the slot; its middleware is replaced by ours.
        skills = [s.url for s in ours[0].library.sources] or ["/"]
        if kwargs.get("interrupt_on"):
            # Batched approvals ask before any call runs: skip calls RESTRICT will block.
            kwargs["interrupt_on"] = ours[0].gate_interrupts(kwargs["interrupt_on"])
    return _create(*args, middleware=list(middleware), skills=skills, **kwargs)
