"""The lexical search skillcore shipped before its BM25 index, kept as a benchmark baseline.

A verbatim copy of the former ``skillcore.catalog.search.search_skills`` (a per-query scan of every
skill with fixed weights), so ``bench_selection.py`` can compare rankings and timings.
"""

from __future__ import annotations

import fnmatch
import posixpath
import re
from collections.abc import Iterable

import attrs

from skillcore.model import Catalog, SkillMetadata

#: Words in any script (``\\w`` is Unicode-aware), so non-English skills are searchable.
_WORD = re.compile(r"\w+")


@attrs.frozen
class SearchHit:
    """One search result with its score and why it matched."""

    skill: SkillMetadata
    score: float
    reasons: tuple[str, ...]


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def _pattern_matches(pattern: str, path: str) -> bool:
    path = path.replace("\\", "/")
    base = posixpath.basename(path)
    return fnmatch.fnmatchcase(path, pattern) or fnmatch.fnmatchcase(base, pattern)


def search_skills(
    catalog: Catalog | Iterable[SkillMetadata],
    query: str | None = None,
    path: str | None = None,
    limit: int = 10,
) -> list[SearchHit]:
    """Rank model-visible skills for a keyword ``query`` and/or a file ``path``.

    Scores: exact name 10, name word 4, trigger 5, file pattern 6, description word 1 each.
    Ties break by ``priority`` (higher first), then catalog order. With neither argument,
    returns the first ``limit`` skills by priority.
    """
    skills = [s for s in catalog if not s.disable_model_invocation]
    q = (query or "").strip().lower()
    q_words = _words(q)
    hits: list[tuple[float, int, int, SearchHit]] = []
    for index, skill in enumerate(skills):
        score = 0.0
        reasons: list[str] = []
        if q:
            if q == skill.name or q.replace(" ", "-") == skill.name:
                score += 10
                reasons.append("name")
            name_words = _words(skill.name.replace("-", " "))
            common = q_words & name_words
            if common:
                score += 4 * len(common)
                reasons.append("name words: " + ", ".join(sorted(common)))
            for trig in skill.triggers:
                t = trig.lower()
                if t and (t in q or (_words(t) <= q_words and _words(t))):
                    score += 5
                    reasons.append(f"trigger {trig!r}")
            desc_words = _words(skill.description)
            # Scripts written without spaces (Chinese, Japanese, Thai) form one long "word":
            # match non-ASCII query words as substrings of the description instead.
            desc_lower = skill.description.lower()
            desc_common = {
                w for w in q_words if w in desc_words or (not w.isascii() and w in desc_lower)
            }
            if desc_common:
                score += len(desc_common)
                reasons.append("description: " + ", ".join(sorted(desc_common)))
        if path:
            for pattern in skill.file_patterns:
                if _pattern_matches(pattern, path):
                    score += 6
                    reasons.append(f"file pattern {pattern!r}")
                    break
        if (q or path) and score <= 0:
            continue
        hits.append((-score, -skill.priority, index, SearchHit(skill, score, tuple(reasons))))
    hits.sort(key=lambda h: h[:3])
    return [h[3] for h in hits[: max(0, limit)]]
