"""The "did you mean" hint for a mistyped skill name: character trigrams of the names, so the
hint stays a few milliseconds at 100,000 skills without building the search index."""

from __future__ import annotations

import difflib
import heapq
from collections import Counter
from collections.abc import Iterable, Sequence
from itertools import chain

from skillcore.memo import per_catalog
from skillcore.model import Catalog, SkillMetadata

#: Catalogs up to this size compare a mistyped name with every name.
CLOSE_NAMES_SCAN_ALL = 2_000
#: Larger ones compare it with this many names: those sharing the most character trigrams.
CLOSE_NAMES_CANDIDATES = 64
#: How many trigram postings one hint may count (rarest trigrams first).
CLOSE_NAMES_POSTINGS = 10_000


class NameIndex:
    """Character trigrams of skill names, for the "did you mean" hint of a mistyped name.

    Separate from the BM25 index: a typo must not pay for building the search index (about
    1 s at 100,000 skills with numpy, 2 s without), only for this one (names only, about
    0.3 s there).
    """

    def __init__(self, skills: Iterable[SkillMetadata]) -> None:
        self.names: tuple[str, ...] = tuple(
            s.name for s in skills if not s.disable_model_invocation
        )
        self._grams: dict[str, list[int]] | None = None
        if len(self.names) > CLOSE_NAMES_SCAN_ALL:
            grams: dict[str, list[int]] = {}
            for doc, skill_name in enumerate(self.names):
                for g in _grams(skill_name):
                    grams.setdefault(g, []).append(doc)
            self._grams = grams

    def close_names(self, name: str, n: int = 3, cutoff: float = 0.6) -> list[str]:
        """Up to ``n`` skill names close to ``name`` (difflib ratio >= ``cutoff``), best first.

        Small catalogs compare with every name; large ones only with the names that share
        the most character trigrams with ``name``. The count stops before a trigram whose
        postings would exceed :data:`CLOSE_NAMES_POSTINGS` (rarest first): a trigram that
        most names share (``"ski"`` of ``skill-00001`` ... ``skill-99999``) says little and
        would cost more than the rest, so the hint stays a few milliseconds at 100,000.
        """
        if self._grams is None:
            return difflib.get_close_matches(name, self.names, n=n, cutoff=cutoff)
        grams = self._grams
        lists = sorted((grams.get(g, ()) for g in _grams(name[:200])), key=len)
        taken: list[Sequence[int]] = []
        budget = CLOSE_NAMES_POSTINGS
        for docs in lists:
            if len(docs) > budget:
                break
            budget -= len(docs)
            taken.append(docs)
        if not taken and lists:
            taken.append(lists[0][:CLOSE_NAMES_POSTINGS])  # only common trigrams: some of one
        counts = Counter(chain.from_iterable(taken))  # counted in C
        best = heapq.nlargest(CLOSE_NAMES_CANDIDATES, counts.items(), key=_count_then_first)
        candidates = [self.names[d] for d, _ in sorted(best)]
        return difflib.get_close_matches(name, candidates, n=n, cutoff=cutoff)


def _count_then_first(item: tuple[int, int]) -> tuple[int, int]:
    return item[1], -item[0]


def _grams(text: str) -> set[str]:
    padded = f"  {text.lower()} "
    return {padded[i : i + 3] for i in range(len(padded) - 2)}


def close_names(catalog: Catalog, name: str, n: int = 3, cutoff: float = 0.6) -> list[str]:
    """Names of model-visible skills close to a mistyped ``name`` (for "did you mean")."""
    names: NameIndex = per_catalog(catalog, "names", lambda: NameIndex(catalog.skills))
    return names.close_names(name, n=n, cutoff=cutoff)
