"""The lexical side of skill ranking: BM25F over the indexed fields plus file-pattern matches,
exact and fast (a MaxScore-style cut over precomputed impacts; numpy for large catalogs, with
the same floats and answers as the pure-Python path). See :mod:`skillcore.catalog.ranking` for
the order results come in.
"""

from __future__ import annotations

import bisect
import functools
import heapq
import threading
from collections.abc import Iterable, Sequence
from typing import Any

from skillcore.catalog.postings import index_postings, kth_largest
from skillcore.catalog.terms import (
    K1,
    MAX_PATH_CHARS,
    MAX_QUERY_CHARS,
    PATH_WEIGHT,
    WORD,
    fields,
    inverse_df,
    pattern_matches,
    query_terms,
    word_terms,
)
from skillcore.model import SkillMetadata

#: From this many skills on, queries are scored with numpy when it is installed.
VECTOR_MIN_SKILLS = 20_000
_UNSET = object()


class LexicalIndex:
    """An inverted BM25 index of the model-visible skills of one catalog (immutable)."""

    def __init__(self, skills: Iterable[SkillMetadata]) -> None:
        self.skills: tuple[SkillMetadata, ...] = tuple(
            s for s in skills if not s.disable_model_invocation
        )
        n = len(self.skills)
        # The first skill of a name wins: the reversed pairs let it overwrite the later ones.
        self._by_name: dict[str, int] = dict(
            zip([skill.name.lower() for skill in reversed(self.skills)], range(n - 1, -1, -1))
        )
        # term -> (sorted doc ids, impacts, max impact, the 64 best (impact, doc) best first)
        self._norm, self._postings = index_postings(self.skills)
        patterns: dict[str, list[int]] = {}
        for doc, skill in enumerate(self.skills):
            if skill.file_patterns:
                for pattern in dict.fromkeys(skill.file_patterns):
                    patterns.setdefault(pattern, []).append(doc)
        self._patterns = patterns
        self._lock = threading.Lock()
        self._numpy: Any = _UNSET
        self._priority_array: Any = None

    def __len__(self) -> int:
        return len(self.skills)

    def _path_scores(self, path: str) -> dict[int, float]:
        path = path[:MAX_PATH_CHARS]
        matched: set[int] = set()
        for pattern, docs in self._patterns.items():
            if pattern_matches(pattern, path):
                matched.update(docs)
        if not matched:
            return {}
        n = len(self.skills)
        idf = inverse_df(n, len(matched))
        return {d: idf * PATH_WEIGHT * (K1 + 1) / (PATH_WEIGHT + self._norm[d]) for d in matched}

    def bm25(
        self, query: str | None, path: str | None = None, limit: int = 10
    ) -> list[tuple[int, float]]:
        """The ``limit`` best ``(doc, score)`` pairs, best first (see the module docstring)."""
        if limit <= 0:
            return []
        q = (query or "").strip()
        acc: dict[int, float] = self._path_scores(path) if path else {}
        exact = self._exact(q)
        if q and self._vector() is not None:
            return self._bm25_vector(query_terms(q), acc, exact, limit)
        theta, candidates = self._accumulate(query_terms(q), acc, limit) if q else (0.0, None)
        if exact is not None:
            acc.setdefault(exact, 0.0)
        if not q and not path:
            # No filter: the first skills by priority, then precedence.
            return [(d, 0.0) for d in self._by_priority()[:limit]]
        if not q:
            return self._path_only(acc, limit)
        skills = self.skills
        if len(acc) > limit:
            # Everything tied with the limit-th score stays in: priority may still break it.
            if candidates is not None:
                pool = {d: acc[d] for d in candidates if acc[d] >= theta}
                if exact is not None:
                    pool[exact] = acc[exact]
                acc = pool
            theta = kth_largest(acc.values(), limit)
            acc = {d: s for d, s in acc.items() if s >= theta or d == exact}
        best = sorted(
            acc.items(),
            key=lambda item: (item[0] != exact, -item[1], skills[item[0]].priority, item[0]),
        )[:limit]
        return [(d, s) for d, s in best if s > 0 or d == exact]

    def _path_only(self, acc: dict[int, float], limit: int) -> list[tuple[int, float]]:
        """A path without a query: the skills whose patterns match it (by score, then
        priority), then skills without file patterns (they apply to any path) by priority."""
        skills = self.skills
        # A common pattern (`*.md`) may match most of a large catalog: keep only the best.
        out = heapq.nsmallest(
            limit, acc.items(), key=lambda item: (-item[1], skills[item[0]].priority, item[0])
        )
        if len(out) < limit:
            out.extend((d, 0.0) for d in self._unpatterned[: limit - len(out)])
        return out

    @functools.cached_property
    def _unpatterned(self) -> list[int]:
        return [d for d in self._priority_order if not self.skills[d].file_patterns]

    def _vector(self) -> Any:
        """numpy, when the catalog is large enough to pay for it and numpy is installed."""
        if self._numpy is _UNSET:
            self._numpy = None
            if len(self.skills) >= VECTOR_MIN_SKILLS:
                try:
                    import numpy
                except ImportError:  # the pure-Python path gives the same answers
                    pass
                else:
                    self._numpy = numpy
        return self._numpy

    def _bm25_vector(
        self, terms: Sequence[str], acc: dict[int, float], exact: int | None, limit: int
    ) -> list[tuple[int, float]]:
        """:meth:`bm25` with numpy: every skill scored, the same additions in the same
        order as the pure-Python path, so the same floats and the same answer."""
        np = self._numpy
        scores = np.zeros(len(self.skills))
        for d, v in acc.items():
            scores[d] = v
        found = [self._postings[t] for t in terms if t in self._postings]
        found.sort(key=lambda p: -p[2])
        for docs, impacts, _, _ in found:
            # Views of the arrays, no copy; doc ids are unique within one term.
            scores[np.frombuffer(docs, dtype=np.int32)] += np.frombuffer(impacts)
        hits = np.flatnonzero(scores)
        if len(hits) > limit:
            # The k-th best among the skills that scored: partitioning the whole array,
            # mostly zeros, is numpy's slow case (~13 ms at 100,000 skills vs ~0.3 ms).
            values = scores[hits]
            kth = np.partition(values, len(values) - limit)[len(values) - limit]
            pool = hits[values >= kth]
        else:
            pool = hits
        if exact is not None and exact not in pool:
            pool = np.append(pool, exact)
        if len(pool) > 4 * limit:
            # Many skills tied with the k-th score: order them in C by the same key as below
            # (the exact name, score, priority, catalog order; the last key is the first).
            keys = (pool, self._priorities(np)[pool], -scores[pool], pool != exact)
            pool = pool[np.lexsort(keys)[:limit]]
        skills = self.skills
        ranked = sorted(
            pool.tolist(), key=lambda d: (d != exact, -scores[d], skills[d].priority, d)
        )[:limit]
        return [(d, float(scores[d])) for d in ranked if scores[d] > 0 or d == exact]

    def _priorities(self, np: Any) -> Any:
        """Every skill's ``priority`` rank as a numpy array (built once, for tie-breaking;
        ranks, because a priority may be any integer, beyond what int64 holds)."""
        with self._lock:
            if self._priority_array is None:
                values = [s.priority for s in self.skills]
                rank = {p: i for i, p in enumerate(sorted(set(values)))}
                self._priority_array = np.array([rank[p] for p in values], dtype=np.int64)
            return self._priority_array

    def _exact(self, query: str) -> int | None:
        """The skill whose name is ``query`` (spaces may stand for hyphens), if any."""
        if not query:
            return None
        q = query.lower()
        found = self._by_name.get(q)
        return self._by_name.get(q.replace(" ", "-")) if found is None else found

    def _accumulate(
        self, terms: Sequence[str], acc: dict[int, float], limit: int
    ) -> tuple[float, set[int] | None]:
        """Add the BM25 impacts of ``terms`` to ``acc``.

        Returns a lower bound of the ``limit``-th best score (0.0 when unknown) and, when it
        can tell, the only skills that may score at least that much (else None).

        Exact MaxScore-style pruning: terms go strongest first, and once a term's best impact
        plus all later terms' cannot lift an unseen skill to the bound, that term only
        updates skills already scored. Dict merges run in C; only skills found by more than
        one term cost a Python-level step.
        """
        found = [self._postings[t] for t in terms if t in self._postings]
        found.sort(key=lambda p: -p[2])
        left = sum(p[2] for p in found)
        theta = 0.0
        multi: set[int] = set(acc)  # skills scored before (a path match) or by 2+ terms
        full: list[tuple[list[tuple[float, int]], int]] = []
        for docs, impacts, top, best in found:
            left -= top
            fresh = dict(zip(docs, impacts))
            common = acc.keys() & fresh.keys()
            multi |= common
            if theta > 0.0 and top + left < theta * (1 - 1e-9):
                for d in common:
                    acc[d] += fresh[d]
            else:
                for d in common:
                    fresh[d] += acc[d]
                acc.update(fresh)
                full.append((best, len(docs)))
                if limit <= len(best):
                    theta = max(theta, best[limit - 1][0])  # these skills score at least that
            if len(common) >= limit:
                theta = max(theta, kth_largest((acc[d] for d in common), limit))
        if theta <= 0.0 or any(df > len(b) and b[-1][0] >= theta for b, df in full):
            return theta, None
        # A skill found by one term only scores its impact there: it can reach theta only if
        # that impact is among the term's best ones kept at build time.
        for best, _ in full:
            multi.update(d for w, d in best if w >= theta)
        return theta, multi

    @functools.cached_property
    def _priority_order(self) -> list[int]:
        return sorted(range(len(self.skills)), key=lambda d: (self.skills[d].priority, d))

    def _by_priority(self) -> list[int]:
        return self._priority_order

    def reasons(self, doc: int, query: str | None, path: str | None) -> tuple[str, ...]:
        """Why a skill matched: an exact name, the words per field, a file pattern."""
        skill = self.skills[doc]
        out: list[str] = []
        q = (query or "").strip().lower()
        if q and skill.name.lower() in (q, q.replace(" ", "-")):
            out.append("name")
        if q:
            terms = set(query_terms(q))
            # Shown as the query's own words ("rebasing"), not as index terms ("rebas").
            said: dict[str, str] = {}
            for word in WORD.findall(q[:MAX_QUERY_CHARS]):
                for term in word_terms(word):
                    said.setdefault(term, word)
            for field, words in fields(skill).items():
                common = terms.intersection(words)
                if common and field != "patterns":
                    label = "name words" if field == "name" else field
                    shown = sorted({said.get(t, t) for t in common})
                    out.append(f"{label}: {', '.join(shown)}")
        if path:
            for pattern in skill.file_patterns:
                if pattern_matches(pattern, path[:MAX_PATH_CHARS]):
                    out.append(f"file pattern {pattern!r}")
                    break
            if not skill.file_patterns:
                out.append("no file patterns (applies to any path)")
        return tuple(out)

    def coverage(self, query: str, doc: int) -> float:
        """The share of ``query``'s word weight (BM25 IDF; a word no skill has weighs the
        most) that skill ``doc`` contains, in 0..1."""
        n = len(self.skills)
        total = found = 0.0
        for term in query_terms(query):
            posting = self._postings.get(term)
            weight = inverse_df(n, len(posting[0]) if posting else 0)
            total += weight
            if posting is not None:
                docs = posting[0]
                at = bisect.bisect_left(docs, doc)
                found += weight if at < len(docs) and docs[at] == doc else 0.0
        return found / total if total else 0.0


__all__ = ["VECTOR_MIN_SKILLS", "LexicalIndex"]
