"""What the loaded skills change beyond the allowed-tools policy, as rules over the current
catalog and the load order: the model and effort of the next model calls (the last loaded
skill naming one wins), the tools their ``disallowed-tools`` remove, and which ``paths:``
skills the model is offered for the paths the work touches.

The fields are read by :func:`skillcore.policy.skill_options`; these rules are consulted by
:class:`~skillcore.SkillSession` (its ``model_choice``, ``check_tool``, ``offered_tools``
and ``begin_load``), never by adapters directly.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from operator import attrgetter

import attrs

from skillcore._frozen import dicts_of
from skillcore.memo import per_catalog
from skillcore.model import Catalog
from skillcore.policy import ToolAliases
from skillcore.policy.skill_options import (
    DISALLOWED_KEYS,
    PATHS_KEYS,
    disallows,
    paths_match,
    skill_options,
)


@attrs.frozen
class ModelChoice:
    """The model and effort the loaded skills ask for (None: the agent's own), and which
    skill asked. ``model`` is the name as the skill wrote it; the adapter's resolver turns it
    into the framework's model."""

    model: str | None = None
    model_skill: str | None = None
    effort: str | None = None
    effort_skill: str | None = None
    #: Every ``(skill, model)`` of the loaded skills naming one, in load order (the last is
    #: ``model``): when the adapter cannot use the last one, the one before it stays.
    models: tuple[tuple[str, str], ...] = ()


def model_choice(catalog: Catalog, loaded: Iterable[str]) -> ModelChoice:
    """The model and effort of the loaded skills (``loaded``: names in load order): for
    each, the *last loaded* skill that names one wins (``model: inherit`` names none), so
    loading a skill switches to its model and unloading it returns to the one before. A
    model the adapter cannot use (unknown to its resolver) is passed over: the one in use
    before that skill was loaded stays (see :attr:`ModelChoice.models`)."""
    model = model_skill = effort = effort_skill = None
    models: list[tuple[str, str]] = []
    for name in loaded:
        meta = catalog.get(name)
        if meta is None or not meta.extra:  # most skills have no extra keys
            continue
        options = skill_options(meta)
        if options.model is not None:
            model, model_skill = options.model, name
            models.append((name, options.model))
        if options.effort is not None:
            effort, effort_skill = options.effort, name
    return ModelChoice(model, model_skill, effort, effort_skill, tuple(models))


def disallowed_by(
    catalog: Catalog, loaded: Iterable[str], tool: str, aliases: ToolAliases | None
) -> tuple[str, str] | None:
    """``(skill, entry)``: the first loaded skill whose ``disallowed-tools`` removes ``tool``
    (normalised), and the entry naming it; None when none does."""
    for name in loaded:
        meta = catalog.get(name)
        if meta is None or not meta.extra:
            continue
        entry = disallows(skill_options(meta).disallowed_tools, tool, aliases)
        if entry is not None:
            return name, entry
    return None


def removes_tools(catalog: Catalog) -> bool:
    """Whether a model-loadable skill of ``catalog`` declares ``disallowed-tools``: then
    every plain tool call is decided in call order, in every policy mode (memoised)."""
    # Memoised by identity: hashing a catalog walks every skill's fields (35 ms at 10,000
    # skills, many times a render).
    found: bool = per_catalog(catalog, "removes_tools", functools.partial(_removes_tools, catalog))
    return found


def _removes_tools(catalog: Catalog) -> bool:
    return any(
        meta.extra and any(k in meta.extra for k in DISALLOWED_KEYS)
        for meta in catalog.model_visible
    )


def _path_skills(catalog: Catalog) -> tuple[tuple[str, tuple[str, ...]], ...]:
    # Memoised per catalog (by identity, as removes_tools): the skills declaring ``paths``.
    found: tuple[tuple[str, tuple[str, ...]], ...]
    found = per_catalog(catalog, "path_skills", functools.partial(_find_path_skills, catalog))
    return found


_EXTRA = attrgetter("extra")
_PATHS = frozenset(PATHS_KEYS)


def _find_path_skills(catalog: Catalog) -> tuple[tuple[str, tuple[str, ...]], ...]:
    out = []
    visible = catalog.model_visible
    # The dicts behind the skills' ``extra`` mappings, read in C: asking the mappings
    # themselves (their length, then each key) is a Python call per skill of the catalog.
    for meta, extra in zip(visible, dicts_of(map(_EXTRA, visible)), strict=True):
        if extra and not _PATHS.isdisjoint(extra):
            globs = skill_options(meta).paths
            out.append((meta.name, globs or ()))
    return tuple(out)


def paths_hidden(catalog: Catalog, touched: frozenset[str]) -> frozenset[str]:
    """The model-visible skills with ``paths:`` none of whose globs matches a ``touched``
    path: left out of the catalog the model sees and refused to its load tool. A skill
    whose ``paths`` cannot be read matches nothing."""
    skills = _path_skills(catalog)
    return _paths_hidden(skills, touched) if skills else frozenset()


@functools.lru_cache(maxsize=256)
def _paths_hidden(
    skills: tuple[tuple[str, tuple[str, ...]], ...], touched: frozenset[str]
) -> frozenset[str]:
    # Keyed by the (few) path skills, not the catalog: the same answer, without its hash.
    return frozenset(name for name, globs in skills if not paths_match(globs, touched))


__all__ = ["ModelChoice", "disallowed_by", "model_choice", "paths_hidden", "removes_tools"]
