"""Ranked search over the catalog: names, descriptions, triggers and file patterns.

The ranking itself lives in :mod:`skillcore.catalog.ranking` (a BM25 index built once per catalog,
plus an optional semantic ranker); this module keeps the stable entry point.
"""

from __future__ import annotations

from collections.abc import Iterable

from skillcore.catalog.embedders import Encoding
from skillcore.catalog.ranking import Ranker, SearchHit, index_for
from skillcore.model import Catalog, SkillMetadata

__all__ = ["SearchHit", "search_skills"]


def search_skills(
    catalog: Catalog | Iterable[SkillMetadata],
    query: str | None = None,
    path: str | None = None,
    limit: int = 10,
    ranker: Ranker = "bm25",
    encoding: Encoding | None = None,
) -> list[SearchHit]:
    """Rank model-visible skills for a keyword ``query`` and/or a file ``path``.

    BM25 over names, descriptions, triggers and file patterns (a matching file pattern
    counts too, matched ignoring case); an exact name match comes first; ties break by
    ``priority`` (lower first), then catalog order. With neither argument, returns the first
    ``limit`` skills by priority. With a ``path`` alone, the skills whose patterns match it
    come first, then the skills without file patterns (they apply to any path).
    ``ranker``: ``"bm25"`` (default here, for a result that never depends on what is
    installed), ``"hybrid"`` (BM25 blended with the semantic ranker of
    ``skillcore-agents[semantic]``; the search tool's default through ``"auto"``), or
    ``"auto"`` (hybrid when that extra is installed, else BM25). ``encoding``: an encoder
    added beside WordLlama or replacing it (see :class:`~skillcore.catalog.embedders.Encoding`).
    """
    return index_for(catalog, encoding).search(query, path, limit, ranker)
