"""The catalog made of the sources' parse results: precedence, names given twice, overrides,
and dependencies no source provides."""

from __future__ import annotations

from collections.abc import Mapping
from itertools import chain

from skillcore.diagnostics import Code, Diagnostic, Severity
from skillcore.library.state import SourceState
from skillcore.model import Catalog, SkillMetadata, indexed_catalog
from skillcore.parse import ParseResult
from skillcore.sources import SkillSource


def merge(
    sources: tuple[SkillSource, ...],
    states: Mapping[str, SourceState],
    scans: list[tuple[SkillSource, list[Diagnostic]]],
) -> Catalog:
    """The catalog of the sources' parse results: later sources override earlier ones
    (each override and each name given twice in one source is a warning), skills in
    precedence order, and the dependencies no source provides named."""
    diagnostics: list[Diagnostic] = []
    chosen: dict[str, SkillMetadata] = {}
    for src, scan_diags in scans:  # lowest precedence first
        diagnostics.extend(scan_diags)
        parsed = states[src.label].parsed  # in no particular order
        # One pass over the results (each touched once: at 100,000 skills the passes
        # over memory cost more than the steps), then the usual case, no name twice and
        # none overridden, needs only the diagnostics in directory order.
        in_source: dict[str, SkillMetadata] = {}
        noisy: list[str] = []
        count = 0
        for directory, result in parsed.items():
            if result.diagnostics:
                noisy.append(directory)
            meta = result.metadata
            if meta is not None:
                in_source[meta.name] = meta
                count += 1
        if len(in_source) == count and chosen.keys().isdisjoint(in_source.keys()):
            noisy.sort()
            diagnostics.extend(chain.from_iterable(parsed[d].diagnostics for d in noisy))
            if chosen:
                chosen.update(in_source)
            else:
                chosen = in_source
        else:
            order = sorted(parsed)
            merge_source(src, list(map(parsed.__getitem__, order)), diagnostics, chosen)
    # Precedence order: skills of the last (highest precedence) source first.
    if len(sources) == 1:
        names = sorted(chosen)  # one rank: the name decides
        # Skills named like their directories are in that order already.
        in_order = names == list(chosen)  # by identity: no string is compared
        skills = list(chosen.values()) if in_order else list(map(chosen.__getitem__, names))
    else:
        rank = {s.label: i for i, s in enumerate(sources)}
        skills = sorted(chosen.values(), key=lambda m: (-rank[m.location.source], m.name))
    diagnostics.extend(missing_dependencies(chosen))
    return indexed_catalog(tuple(skills), tuple(diagnostics), chosen)


def merge_source(
    src: SkillSource,
    results: list[ParseResult],
    diagnostics: list[Diagnostic],
    chosen: dict[str, SkillMetadata],
) -> None:
    """Fold one source's results (in directory order) into ``chosen``, naming each skill
    defined twice in the source and each skill overriding a lower source's."""
    in_source: dict[str, SkillMetadata] = {}
    for result in results:
        diagnostics.extend(result.diagnostics)
        meta = result.metadata
        if meta is None:
            continue
        if meta.name in in_source:
            diagnostics.append(
                Diagnostic(
                    Severity.WARNING,
                    Code.DUPLICATE_NAME,
                    f"skill {meta.name!r} is defined twice in this source; keeping "
                    f"{in_source[meta.name].location.directory!r}",
                    src.label,
                    meta.location.directory,
                    "name",
                )
            )
            continue
        in_source[meta.name] = meta
        previous = chosen.get(meta.name)
        if previous is not None:
            diagnostics.append(
                Diagnostic(
                    Severity.WARNING,
                    Code.SHADOWED,
                    f"skill {meta.name!r} from {src.label!r} overrides the one in "
                    f"{previous.location.source!r} ({previous.location.url})",
                    src.label,
                    meta.location.directory,
                    "name",
                )
            )
        chosen[meta.name] = meta


def missing_dependencies(skills: Mapping[str, SkillMetadata]) -> list[Diagnostic]:
    """A warning for each ``dependencies`` entry that names no skill in ``skills`` (the
    merged catalog by name): the model would be told to load a skill it cannot."""
    found: list[Diagnostic] = []
    for meta in skills.values():
        if not meta.dependencies:
            continue
        absent = [d for d in meta.dependencies if d not in skills]
        if absent:
            found.append(
                Diagnostic(
                    Severity.WARNING,
                    Code.MISSING_DEPENDENCY,
                    f"skill {meta.name!r} depends on {', '.join(map(repr, absent))}, which "
                    "no source provides",
                    meta.location.source,
                    f"{meta.location.directory}/SKILL.md",
                    "dependencies",
                )
            )
    return found
