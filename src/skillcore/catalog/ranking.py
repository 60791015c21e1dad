"""Skill ranking: a BM25 index over names, descriptions, triggers and file patterns.

The index is built once per catalog (memoised by identity, held weakly) and answers a query
in well under 10 ms at 100,000 skills: postings are per-term arrays of precomputed BM25
impacts, and a MaxScore-style cut stops scanning long posting lists of common words as soon
as they can no longer change the top results (the answer stays exact).

Ranking, best first: an exact name match; then the score (BM25F over the fields, plus a
file-pattern match treated as one more, rare or common, term); then ``priority`` (lower
first, the order :attr:`Catalog.by_priority` fills the prompt's catalog in); then catalog
(precedence) order. Everything is deterministic.

File patterns match case-insensitively. A path alone lists the skills whose patterns match
it, then (as general skills that apply to any path) the skills without file patterns, in
priority order; a skill whose patterns all miss the path is not listed.

An optional semantic ranker (static word embeddings from the ``wordllama`` package, whose
weights ship inside the wheel, pooled with the catalog's IDF weights) is blended with BM25,
each scaled to 0..1 over its best results; see :func:`semantic_available`.
"""

from __future__ import annotations

import bisect
import fnmatch
import functools
import heapq
import math
import posixpath
import re
import threading
from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence
from itertools import chain, groupby
from typing import Any, Literal

import attrs

from skillcore.catalog.families import Families
from skillcore.catalog.stemming import stem
from skillcore.memo import per_catalog
from skillcore.model import Catalog, SkillMetadata
from skillcore.typos import NameIndex

Ranker = Literal["auto", "bm25", "hybrid"]
#: The rankers by name.
RANKERS: tuple[Ranker, ...] = ("auto", "bm25", "hybrid")

#: BM25 parameters (the usual defaults) and field weights (BM25F: a word in the name or a
#: trigger says more about a skill than the same word in its description).
K1 = 1.2
B = 0.75
FIELD_WEIGHTS = {"name": 3.0, "triggers": 2.5, "description": 1.0, "patterns": 1.0}
#: A matching file pattern counts as this many occurrences of a term in the name field.
PATH_WEIGHT = 2.0
#: Bounds on what one query may cost.
MAX_QUERY_CHARS = 1_000
MAX_QUERY_TERMS = 32
MAX_PATH_CHARS = 1_024
#: From this many skills on, queries are scored with numpy when it is installed.
VECTOR_MIN_SKILLS = 20_000
_UNSET = object()
#: How deep each ranker's list goes into the hybrid fusion, and the lexical share of the
#: blended score (each ranker's scores scaled to 0..1 over its own list; 0.6 measured best of
#: 0.4/0.5/0.6 on the development routing set at 1,000 and 10,000 skills).
FUSION_DEPTH = 100
BLEND_LEXICAL = 0.6
#: Give the lexical side at least the share of the query's word weight its best match holds.
ADAPTIVE_BLEND = True
#: "No close match": a query whose best skill is less similar than this (cosine of the
#: embeddings, semantic ranker) is answered with at most :data:`ABSTAIN_KEEP` weak results and
#: a reply that says nothing fits well. Calibrated on the development routing set: 0.32 makes
#: 95-100% of requests no skill serves abstain, and 7-8% of routed ones (whose right skill is
#: then almost always among the 3 kept).
ABSTAIN_SIMILARITY = 0.32
#: The same for BM25 alone: the share of the query's weight (IDF of its words) that the best
#: skill contains. 0.3: 85-90% of unserved requests abstain on the development set, but so do
#: about 30% of routed ones (words alone cannot tell a paraphrase from an unrelated request);
#: their skill is then still among the 3 kept but for under 1%.
ABSTAIN_COVERAGE = 0.3
#: How many results an abstaining search still shows (the closest, marked as weak).
ABSTAIN_KEEP = 3
#: How deep BM25's list goes for a query in a catalog with near-duplicates, so that folding
#: them (:mod:`skillcore.catalog.families`) can bring other candidates into the first results.
FOLD_DEPTH = 50
#: A skill that shares no word with the query is listed only from this similarity on.
SEMANTIC_ONLY_MIN = ABSTAIN_SIMILARITY

_WORD = re.compile(r"\w+")
# Scripts written without spaces between words: such runs are indexed as character bigrams.
_NO_SPACE = re.compile(
    "([\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff"
    "\uf900-\ufaff]+)"
)
_STOP = re.findall(
    r"\w+",
    """a an and are as at be by can do for from how i in is it me my of on or please so
    that the this to use using want we when with you your""",
)
#: Terms too common to say anything (the words and their index terms, "please" and
#: "pleas"); dropped from a query when it has other words.
STOPWORDS = frozenset(_STOP) | frozenset(map(stem, _STOP))


# -- tokenisation -----------------------------------------------------------------------------


def _stem(word: str) -> str:
    """The index term of an ASCII word (:func:`skillcore.catalog.stemming.stem`)."""
    return stem(word)


def tokens(text: str) -> list[str]:
    """Index terms of ``text``: lower-cased Unicode words, English forms folded ("rebasing"
    and "rebase" give one term); runs of CJK, Thai, Lao, Khmer or Myanmar characters become
    overlapping character bigrams."""
    out: list[str] = []
    cache = _TOKEN_CACHE
    for word in _WORD.findall(text.lower()):
        terms = cache.get(word)
        if terms is None:
            terms = _word_terms(word)
            if len(cache) < 500_000:  # bounded: a hostile catalog cannot grow it forever
                cache[word] = terms
        out.extend(terms)
    return out


_TOKEN_CACHE: dict[str, tuple[str, ...]] = {}


def _word_terms(word: str) -> tuple[str, ...]:
    if word.isascii():
        return (_stem(word),)
    out: list[str] = []
    for part in _NO_SPACE.split(word):
        if not part:
            continue
        if _NO_SPACE.fullmatch(part) and len(part) > 1:
            out.extend(part[i : i + 2] for i in range(len(part) - 1))
        else:
            out.append(part)
    return tuple(out)


def _field_texts(skill: SkillMetadata) -> tuple[str, str, str, str]:
    """The indexed text of each field, in the order of :data:`FIELD_WEIGHTS`."""
    return (
        skill.name.replace("-", " "),
        " ".join(skill.triggers),
        skill.description,
        " ".join(skill.file_patterns).replace("*", " "),
    )


def _fields(skill: SkillMetadata) -> dict[str, list[str]]:
    return dict(zip(FIELD_WEIGHTS, map(tokens, _field_texts(skill))))


def _query_terms(query: str) -> list[str]:
    terms = list(dict.fromkeys(tokens(query[:MAX_QUERY_CHARS])))
    content = [t for t in terms if t not in STOPWORDS]
    return (content or terms)[:MAX_QUERY_TERMS]


def _idf(n: int, df: int) -> float:
    # Lucene's BM25 idf: never negative, so a word in most skills still counts a little.
    return math.log(1.0 + (n - df + 0.5) / (df + 0.5))


@functools.lru_cache(maxsize=4096)
def _pattern_regex(pattern: str) -> re.Pattern[str]:
    # Case-insensitive everywhere: macOS and Windows file systems fold case, and a search
    # that also lists `Makefile` for `makefile` costs the model one line, not a missed skill.
    return re.compile(fnmatch.translate(pattern), re.IGNORECASE)


def pattern_matches(pattern: str, path: str) -> bool:
    """True when ``path`` (or its file name) matches the glob ``pattern``, ignoring case."""
    path = path.replace("\\", "/")
    regex = _pattern_regex(pattern)
    return bool(regex.match(path) or regex.match(posixpath.basename(path)))


# -- building the index ------------------------------------------------------------------------

#: From this many skills on, the index is built with numpy when it is installed (the same
#: index: the pure-Python build stays for installs without numpy).
BUILD_VECTOR_MIN_SKILLS = 5_000
#: A term's best impacts kept for the pruning cut (see :meth:`SearchIndex._accumulate`).
BEST_KEPT = 64

_SEP = "\x00"
# A field's words and the separator after each field, for many fields joined in one text.
_WORD_OR_SEP = re.compile(r"\w+|\x00")
# ASCII text in one C-level pass: word characters (``\w``) lower-cased, the rest spaces
# (NUL, the separator, stays itself).
_ASCII_FOLD = bytes(
    (ord(chr(b).lower()) if chr(b).isalnum() or chr(b) == "_" else 32) if b else 0
    for b in range(256)
)
#: How many field texts are joined into one string (bounds the transient strings).
_JOIN_TEXTS = 1_024

#: A term's posting: sorted doc ids, BM25 impacts, the max impact, the best (impact, doc).
Posting = tuple["array[int]", "array[float]", float, list[tuple[float, int]]]


class _WordIds(dict):  # type: ignore[type-arg]
    """Word -> dense id, a new word getting the next id (looked up in C, missed rarely)."""

    def __missing__(self, word: str) -> int:
        self[word] = wid = len(self)
        return wid


def _word_stream(texts: Iterable[str]) -> tuple[array[int], list[str]]:
    """The word ids of ``texts`` (as :func:`tokens` splits them, before the word -> terms
    step), each text followed by id 0, and the words by id (``words[0]`` is the separator).

    Runs of texts are joined, lower-cased and split in one call each: the separator is
    neither a word character nor cased nor case-ignorable, so the joined text splits and
    lower-cases (Greek final sigma included) exactly as its parts one by one.
    """
    ids = _WordIds({_SEP: 0})
    stream: array[int] = array("i")
    lookup = ids.__getitem__
    for is_ascii, group in groupby(texts, str.isascii):
        run = list(group)
        for start in range(0, len(run), _JOIN_TEXTS):
            chunk = run[start : start + _JOIN_TEXTS]
            joined = (f" {_SEP} " if is_ascii else _SEP).join(chunk)
            if joined.count(_SEP) != len(chunk) - 1:  # a text holds NUL: one by one
                for text in chunk:
                    stream.fromlist(list(map(lookup, _WORD.findall(text.lower()))))
                    stream.append(0)
                continue
            if is_ascii:
                words = joined.encode("ascii").translate(_ASCII_FOLD).decode("ascii").split()
            else:
                words = _WORD_OR_SEP.findall(joined.lower())
            stream.fromlist(list(map(lookup, words)))  # lists in C: faster than extend
            stream.append(0)
    return stream, list(ids)


def _word_terms_ids(
    words: Sequence[str],
) -> tuple[dict[str, int], list[int], dict[int, tuple[int, ...]]]:
    """Terms of the catalog's distinct words: term -> id; by word id, the term id of a word
    of one term (-1 for the separator and words of several); word id -> term ids of those."""
    term_ids: dict[str, int] = {}
    single = [-1]
    multi: dict[int, tuple[int, ...]] = {}
    add = term_ids.setdefault
    for wid in range(1, len(words)):
        word = words[wid]
        if word.isascii():  # one term (what _word_terms gives, without its tuple)
            single.append(add(_stem(word), len(term_ids)))
            continue
        terms = _word_terms(word)
        if len(terms) == 1:
            single.append(add(terms[0], len(term_ids)))
        else:
            single.append(-1)
            multi[wid] = tuple(add(t, len(term_ids)) for t in terms)
    return term_ids, single, multi


def _norms(lengths: list[float]) -> list[float]:
    n = len(lengths)
    avg = (sum(lengths) / n) if n else 1.0
    return [K1 * (1 - B + B * (length / avg if avg else 1.0)) for length in lengths]


class _Postings(Mapping[str, Posting]):
    """term -> :data:`Posting`, the impacts and best ones of a term computed on its first
    use (most terms are never queried); thread-safe, every posting computed once.

    Built from each term's doc ids and weighted term frequencies: either one ``array`` pair
    per term (pure Python) or flat numpy arrays sliced by ``offsets``.
    """

    def __init__(
        self,
        terms: dict[str, int],
        norm: list[float],
        docs: Any,
        freqs: Any,
        offsets: Any = None,
        np: Any = None,
    ) -> None:
        self._terms = terms
        self._norm = norm
        self._docs = docs
        self._freqs = freqs
        self._offsets = offsets
        self._np = np
        self._norm_array: Any = None if np is None else np.array(norm)  # numpy is untyped here
        self._done: dict[str, Posting] = {}
        self._lock = threading.Lock()

    def __contains__(self, term: object) -> bool:
        return term in self._terms

    def __iter__(self) -> Iterator[str]:
        return iter(self._terms)

    def __len__(self) -> int:
        return len(self._terms)

    def __getitem__(self, term: str) -> Posting:
        posting = self._done.get(term)
        if posting is None:
            tid = self._terms[term]
            with self._lock:
                posting = self._done.get(term)
                if posting is None:
                    posting = self._done[term] = self._posting(tid)
        return posting

    def _posting(self, tid: int) -> Posting:
        n = len(self._norm)
        k1 = K1 + 1
        np = self._np
        if np is None:
            docs, freqs = self._docs[tid], self._freqs[tid]
            idf = _idf(n, len(docs)) * k1
            norm = self._norm
            impacts = array("d", [idf * f / (f + norm[d]) for d, f in zip(docs, freqs)])
            pairs = zip(impacts, docs)
            # Docs are sorted: the first of equal impacts is the lowest doc, as below.
            best = (
                sorted(pairs, key=_first, reverse=True)
                if len(docs) <= BEST_KEPT
                else heapq.nlargest(BEST_KEPT, pairs, key=_first)
            )
            return docs, impacts, best[0][0], best
        start, end = self._offsets[tid], self._offsets[tid + 1]
        doc_ids, tf = self._docs[start:end], self._freqs[start:end]
        idf = _idf(n, end - start) * k1
        # The same operations in the same order as the pure-Python line: the same floats.
        values = idf * tf / (tf + self._norm_array[doc_ids])
        docs, impacts = array("i", doc_ids.tobytes()), array("d", values.tobytes())
        if end - start <= BEST_KEPT:
            best = sorted(zip(impacts, docs), key=_first, reverse=True)
        else:
            # The BEST_KEPT largest, ties by doc: all at least the k-th largest, then ordered.
            kth = np.partition(values, len(values) - BEST_KEPT)[len(values) - BEST_KEPT]
            pool = np.flatnonzero(values >= kth)
            top = pool[np.lexsort((pool, -values[pool]))[:BEST_KEPT]]
            best = list(zip(values[top].tolist(), doc_ids[top].tolist()))
        return docs, impacts, best[0][0], best


def _build_pure(
    stream: array[int], single: list[int], multi: dict[int, tuple[int, ...]], n_terms: int, n: int
) -> tuple[list[float], list[array[int]], list[array[float]]]:
    """Lengths, and per term id the doc ids and weighted term frequencies, in Python."""
    docs: list[array[int]] = [array("i") for _ in range(n_terms)]
    freqs: list[array[float]] = [array("d") for _ in range(n_terms)]
    lengths: list[float] = []
    weights = tuple(FIELD_WEIGHTS.values())
    find = stream.index
    pos = 0
    for doc in range(n):
        tf: dict[int, float] = {}
        get = tf.get
        length = 0.0
        for weight in weights:
            end = find(0, pos)
            count = end - pos
            for wid in stream[pos:end]:
                tid = single[wid]
                if tid >= 0:
                    tf[tid] = get(tid, 0.0) + weight
                else:
                    terms = multi[wid]
                    count += len(terms) - 1
                    for tid in terms:
                        tf[tid] = get(tid, 0.0) + weight
            length += weight * count
            pos = end + 1
        for tid, freq in tf.items():
            docs[tid].append(doc)
            freqs[tid].append(freq)
        lengths.append(length)
    return lengths, docs, freqs


def _build_vector(
    np: Any,
    stream: array[int],
    single: list[int],
    multi: dict[int, tuple[int, ...]],
    n_terms: int,
    n: int,
) -> tuple[list[float], Any, Any, Any]:
    """:func:`_build_pure` with numpy: lengths, and flat doc ids and weighted term
    frequencies grouped by term (``offsets[t]:offsets[t + 1]``), docs sorted in each.

    The sums differ in order only: weights and counts are multiples of 0.5 far below 2**52,
    so every partial sum is exact and the floats are the same.
    """
    ids = np.frombuffer(stream, dtype=np.int32)
    sep = ids == 0
    field_no = np.cumsum(sep, dtype=np.int32)[~sep]  # field texts before each word
    wids = ids[~sep]
    del ids, sep
    first = np.array(single, dtype=np.int32)
    if multi:  # words of several terms (CJK bigrams): one entry per term
        counts = np.ones(len(single), dtype=np.int64)
        table = [[t] for t in single]
        for wid, terms in multi.items():
            counts[wid] = len(terms)
            table[wid] = list(terms)
        flat = np.array(list(chain.from_iterable(table)), dtype=np.int32)
        begin = np.cumsum(counts) - counts
        per_word = counts[wids]
        field_no = np.repeat(field_no, per_word)
        within = np.arange(len(field_no)) - np.repeat(np.cumsum(per_word) - per_word, per_word)
        tids = flat[np.repeat(begin[wids], per_word) + within]
    else:
        tids = first[wids]
    del wids
    weights = np.array(list(FIELD_WEIGHTS.values()))
    per_field = np.bincount(field_no, minlength=4 * n).reshape(n, 4)
    lengths = (
        (
            ((per_field[:, 0] * weights[0]) + per_field[:, 1] * weights[1])
            + per_field[:, 2] * weights[2]
        )
        + per_field[:, 3] * weights[3]
    ).tolist()
    # Group by term keeping doc order: a stable radix sort, 16 bits at a time.
    order = np.argsort(tids.astype(np.uint16), kind="stable")
    shift = 16
    while n_terms > 1 << shift:
        digit = (tids >> shift).astype(np.uint16)[order]
        order = order[np.argsort(digit, kind="stable")]
        shift += 16
    per_term = np.bincount(tids, minlength=n_terms)
    del tids
    doc = (field_no >> 2)[order]
    field = (field_no & 3).astype(np.uint8)[order]
    del field_no, order
    # A (term, doc) pair starts where the doc or the term changes.
    term_starts = np.cumsum(per_term) - per_term
    starts = np.ones(len(doc), dtype=bool)
    np.not_equal(doc[1:], doc[:-1], out=starts[1:])
    starts[term_starts[per_term > 0]] = True
    starts = np.flatnonzero(starts)
    freqs = np.add.reduceat(weights[field], starts) if len(starts) else np.zeros(0)
    docs = doc[starts]
    offsets = np.append(np.searchsorted(starts, term_starts), len(starts))
    return lengths, docs, freqs, offsets.tolist()


def _build_numpy(n: int) -> Any:
    """numpy, when the catalog is large enough to pay for it and numpy is installed."""
    if n < BUILD_VECTOR_MIN_SKILLS:
        return None
    try:
        import numpy
    except ImportError:  # the pure-Python build gives the same index
        return None
    return numpy


def _index_postings(skills: Sequence[SkillMetadata]) -> tuple[list[float], _Postings]:
    """The BM25 norms of ``skills`` and their postings (see :class:`_Postings`)."""
    n = len(skills)
    stream, words = _word_stream(chain.from_iterable(map(_field_texts, skills)))
    term_ids, single, multi = _word_terms_ids(words)
    del words
    np = _build_numpy(n)
    if np is None:
        lengths, docs, freqs = _build_pure(stream, single, multi, len(term_ids), n)
        norm = _norms(lengths)
        return norm, _Postings(term_ids, norm, docs, freqs)
    lengths, docs, freqs, offsets = _build_vector(np, stream, single, multi, len(term_ids), n)
    norm = _norms(lengths)
    return norm, _Postings(term_ids, norm, docs, freqs, offsets, np)


# -- results --------------------------------------------------------------------------------


@attrs.frozen
class SearchHit:
    """One search result with its score and why it matched."""

    skill: SkillMetadata
    score: float
    reasons: tuple[str, ...]


@attrs.frozen
class Selection:
    """A ranked search with its verdict: ``abstained`` when no skill is a close match (then
    ``hits`` holds at most :data:`ABSTAIN_KEEP` weak ones). ``confidence`` is what was
    compared with the threshold: the best skill's embedding similarity (semantic ranker) or
    the share of the query's word weight it contains (BM25); 1.0 for an exact name, and for
    a path-only or empty query, which never abstain."""

    hits: tuple[SearchHit, ...]
    abstained: bool
    confidence: float
    ranker: Literal["bm25", "hybrid"]
    #: Each hit's own confidence, measured like ``confidence`` (a hit at or above the
    #: threshold is a close match).
    confidences: tuple[float, ...] = ()

    @property
    def close(self) -> tuple[SearchHit, ...]:
        """The hits that are close matches themselves (none when abstained)."""
        if self.abstained:
            return ()
        threshold = ABSTAIN_SIMILARITY if self.ranker == "hybrid" else ABSTAIN_COVERAGE
        return tuple(h for h, c in zip(self.hits, self.confidences) if c >= threshold)


# -- the index ------------------------------------------------------------------------------


class SearchIndex:
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
        self._norm, self._postings = _index_postings(self.skills)
        patterns: dict[str, list[int]] = {}
        for doc, skill in enumerate(self.skills):
            if skill.file_patterns:
                for pattern in dict.fromkeys(skill.file_patterns):
                    patterns.setdefault(pattern, []).append(doc)
        self._patterns = patterns
        self._lock = threading.Lock()
        self._semantic: Any = None
        self._numpy: Any = _UNSET
        self._priority_array: Any = None
        self._names: NameIndex | None = None

    def __len__(self) -> int:
        return len(self.skills)

    # -- lexical ----------------------------------------------------------------------------

    def _path_scores(self, path: str) -> dict[int, float]:
        path = path[:MAX_PATH_CHARS]
        matched: set[int] = set()
        for pattern, docs in self._patterns.items():
            if pattern_matches(pattern, path):
                matched.update(docs)
        if not matched:
            return {}
        n = len(self.skills)
        idf = _idf(n, len(matched))
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
            return self._bm25_vector(_query_terms(q), acc, exact, limit)
        theta, candidates = self._accumulate(_query_terms(q), acc, limit) if q else (0.0, None)
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
            theta = _kth_largest(acc.values(), limit)
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
                theta = max(theta, _kth_largest((acc[d] for d in common), limit))
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
            terms = set(_query_terms(q))
            # Shown as the query's own words ("rebasing"), not as index terms ("rebas").
            said: dict[str, str] = {}
            for word in _WORD.findall(q[:MAX_QUERY_CHARS]):
                for term in _word_terms(word):
                    said.setdefault(term, word)
            for field, words in _fields(skill).items():
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

    # -- search -----------------------------------------------------------------------------

    def search(
        self,
        query: str | None = None,
        path: str | None = None,
        limit: int = 10,
        ranker: Ranker = "bm25",
    ) -> list[SearchHit]:
        """Rank skills for a keyword ``query`` and/or a file ``path``.

        ``ranker``: ``"bm25"``; ``"hybrid"`` (BM25 fused with the semantic ranker; raises
        ImportError naming the extra to install when it is missing); ``"auto"`` (hybrid when
        the semantic extra is installed, else BM25).
        """
        if ranker not in ("auto", "bm25", "hybrid"):
            raise ValueError(f"unknown ranker {ranker!r}; use 'auto', 'bm25' or 'hybrid'")
        use_semantic = ranker == "hybrid" or (ranker == "auto" and semantic_available())
        q = (query or "").strip()
        if use_semantic and q and limit > 0:
            ranked = self._hybrid(q, path, limit)
        else:
            ranked = self._lexical(query, path, limit)
        return [SearchHit(self.skills[d], s, self.reasons(d, query, path)) for d, s in ranked]

    def select(
        self,
        query: str | None = None,
        path: str | None = None,
        limit: int = 10,
        ranker: Ranker = "bm25",
    ) -> Selection:
        """:meth:`search` with abstention: when the best skill is not a close match (see
        :data:`ABSTAIN_SIMILARITY` and :data:`ABSTAIN_COVERAGE`), at most
        :data:`ABSTAIN_KEEP` results and ``abstained=True``."""
        if ranker not in ("auto", "bm25", "hybrid"):
            raise ValueError(f"unknown ranker {ranker!r}; use 'auto', 'bm25' or 'hybrid'")
        use_semantic = ranker == "hybrid" or (ranker == "auto" and semantic_available())
        q = (query or "").strip()
        used: Literal["bm25", "hybrid"] = "hybrid" if use_semantic else "bm25"
        if not q or limit <= 0:
            return Selection(tuple(self.search(query, path, limit, ranker)), False, 1.0, used)
        exact = self._exact(q)
        if use_semantic:
            ranked, sims, confidence = self._hybrid_scored(q, path, limit)
            each = [1.0 if d == exact else sims.get(d, 0.0) for d, _ in ranked]
            threshold = ABSTAIN_SIMILARITY
        else:
            ranked = self._lexical(query, path, limit)
            each = [1.0 if d == exact else self.coverage(q, d) for d, _ in ranked]
            confidence = each[0] if each else 0.0
            threshold = ABSTAIN_COVERAGE
        if ranked and ranked[0][0] == exact:
            confidence = 1.0
        abstained = confidence < threshold
        if abstained:
            ranked, each = ranked[:ABSTAIN_KEEP], each[:ABSTAIN_KEEP]
        hits = tuple(SearchHit(self.skills[d], s, self.reasons(d, query, path)) for d, s in ranked)
        return Selection(hits, abstained, confidence, used, tuple(each))

    def coverage(self, query: str, doc: int) -> float:
        """The share of ``query``'s word weight (BM25 IDF; a word no skill has weighs the
        most) that skill ``doc`` contains, in 0..1."""
        n = len(self.skills)
        total = found = 0.0
        for term in _query_terms(query):
            posting = self._postings.get(term)
            weight = _idf(n, len(posting[0]) if posting else 0)
            total += weight
            if posting is not None:
                docs = posting[0]
                at = bisect.bisect_left(docs, doc)
                found += weight if at < len(docs) and docs[at] == doc else 0.0
        return found / total if total else 0.0

    def _hybrid(self, query: str, path: str | None, limit: int) -> list[tuple[int, float]]:
        """BM25 and embedding similarity, each scaled to 0..1 over its own best
        :data:`FUSION_DEPTH` skills, blended :data:`BLEND_LEXICAL` : the rest."""
        return self._hybrid_scored(query, path, limit)[0]

    def _hybrid_scored(
        self, query: str, path: str | None, limit: int
    ) -> tuple[list[tuple[int, float]], dict[int, float], float]:
        """:meth:`_hybrid`, the similarity of each skill it scored, and the best one."""
        lexical = self.bm25(query, path, FUSION_DEPTH)
        dense, sims = self.semantic().scored(query, FUSION_DEPTH, (d for d, _ in lexical))
        best = dense[0][1] if dense else 0.0
        return self._fold(self._blend(lexical, dense, sims, query), query)[:limit], sims, best

    def _lexical(self, query: str | None, path: str | None, limit: int) -> list[tuple[int, float]]:
        """:meth:`bm25` with near-duplicates folded (for a query; deeper when there are)."""
        q = (query or "").strip()
        if not q or limit <= 0 or not len(self._families):
            return self.bm25(query, path, limit)
        return self._fold(self.bm25(q, path, max(limit, FOLD_DEPTH)), q)[:limit]

    def _fold(self, ranked: list[tuple[int, float]], query: str) -> list[tuple[int, float]]:
        """``ranked`` with near-duplicate families folded (see :class:`Families`)."""
        return self._families.fold(ranked, _query_terms(query), self._exact(query))

    @functools.cached_property
    def _families(self) -> Families:
        # On the first query (a path-only search never needs it); the same answer if two
        # threads build it at once.
        return Families(self.skills, tokens)

    def _blend(
        self,
        lexical: list[tuple[int, float]],
        dense: list[tuple[int, float]],
        sims: dict[int, float],
        query: str,
    ) -> list[tuple[int, float]]:
        fused: dict[int, float] = {}
        top_lexical = lexical[0][1] if lexical else 0.0
        share = BLEND_LEXICAL
        if ADAPTIVE_BLEND and lexical:
            # Words that all match say more than any embedding: the more of the query's
            # weight the best lexical match holds, the more the lexical side counts.
            share = max(share, self.coverage(query, lexical[0][0]))
        if top_lexical > 0:
            for doc, score in lexical:
                fused[doc] = share * score / top_lexical
        if dense:
            high, low = dense[0][1], dense[-1][1]
            spread = high - low
            # A skill only the embeddings found joins when it is a close match itself: a
            # list padded with distant skills would look like ten good answers.
            near = {d for d, sim in dense if sim >= SEMANTIC_ONLY_MIN}
            for doc in near | fused.keys():
                scaled = (sims.get(doc, low) - low) / spread if spread > 0 else 1.0
                fused[doc] = fused.get(doc, 0.0) + (1 - share) * scaled
        exact = self._exact(query)
        if exact is not None:
            fused.setdefault(exact, 0.0)
        skills = self.skills
        return sorted(
            fused.items(),
            key=lambda item: (item[0] != exact, -item[1], skills[item[0]].priority, item[0]),
        )

    def semantic(self) -> SemanticIndex:
        """The embedding index of these skills, built on first use (needs the extra)."""
        with self._lock:
            if self._semantic is None:
                self._semantic = SemanticIndex(self.skills)
            return self._semantic  # type: ignore[no-any-return]

    # -- names ----------------------------------------------------------------------------

    def close_names(self, name: str, n: int = 3, cutoff: float = 0.6) -> list[str]:
        """Up to ``n`` skill names close to ``name`` (see :meth:`NameIndex.close_names`)."""
        with self._lock:
            if self._names is None:
                self._names = NameIndex(self.skills)
        return self._names.close_names(name, n=n, cutoff=cutoff)


def _first(item: tuple[float, int]) -> float:
    return item[0]


def _kth_largest(scores: Iterable[float], k: int) -> float:
    """The ``k``-th largest of ``scores``, or 0.0 when there are fewer than ``k``."""
    values = list(scores)
    if len(values) < k or k <= 0:
        return 0.0
    values.sort()  # in C: cheaper than a Python-level heap at these sizes
    return values[-k]


# -- semantic ranker ------------------------------------------------------------------------

_SEMANTIC_HINT = 'the semantic ranker needs wordllama: pip install "skillcore-agents[semantic]"'
#: Each token's weight in a pooled embedding is its inverse document frequency in the catalog
#: plus this (so a token every skill has still counts a little; measured best of 0.5/1/2).
IDF_OFFSET = 0.5
#: Tokens of a text that are embedded (a static model: more adds cost, not meaning).
MAX_EMBED_TOKENS = 256
#: Dimensions kept of the model's 256 (it is trained so that a prefix of them still works):
#: fewer make the scan of every skill per query cheaper (see docs/selection.md).
SEMANTIC_DIMS = 256
#: Rows per matrix-vector product: small enough that BLAS stays on one thread (its threads
#: cost far more than they save on a busy machine for a product this small).
_SCAN_ROWS = 1_024
_ENCODE_CHUNK = 256
#: Token rows converted at a time when the model is loaded: small temporaries, so the heap
#: does not keep megabytes of them once loading is done.
_LOAD_ROWS = 256
#: Up to this many skills every similarity is computed exactly; above it, the first
#: COARSE_DIMS dimensions pick COARSE_DEPTH candidates for the exact one (the query time at
#: 100,000 skills: one pass over 32 floats a skill instead of 256).
EXACT_SCAN_MAX = 2_000
#: Texts the tokenizer remembers (a repeated query is encoded once).
TOKENIZER_CACHE = 256
COARSE_DIMS = 32
COARSE_DEPTH = 300


@functools.lru_cache(maxsize=1)
def semantic_available() -> bool:
    """True when the optional semantic ranker can be used (``wordllama`` is installed)."""
    import importlib.util

    return importlib.util.find_spec("wordllama") is not None


class StaticEmbedder:
    """Static token embeddings (WordLlama's bundled 256-dimension model) and its tokenizer.

    A text's vector is the weighted mean of its tokens' vectors: with inverse-document-frequency
    weights from the catalog, words that tell skills apart count more than words every skill
    has, which measured far better than WordLlama's plain mean on the routing evals.
    """

    def __init__(self, matrix: Any, tokenizer: Any) -> None:
        import numpy as np

        self._np = np
        # token id -> vector, int8 with a scale per row: a quarter of float32's memory; the
        # rounding (under 0.4% of a row's largest value) does not change rankings.
        rows = len(matrix)
        self.matrix = np.zeros(matrix.shape, dtype=np.int8)
        self.scale = np.ones(rows, dtype=np.float32)
        for start in range(0, rows, _LOAD_ROWS):  # in chunks: no float32 copy of the whole matrix
            values = np.asarray(matrix[start : start + _LOAD_ROWS], dtype=np.float32)
            scale = np.abs(values).max(axis=1) / 127.0
            scale[scale == 0] = 1.0
            self.matrix[start : start + _LOAD_ROWS] = np.rint(values / scale[:, None])
            self.scale[start : start + _LOAD_ROWS] = scale
        self.dims = int(self.matrix.shape[1])
        self.tokenizer = tokenizer

    @property
    def vocabulary(self) -> int:
        """Number of token ids."""
        return int(self.matrix.shape[0])

    def token_ids(self, texts: Sequence[str]) -> list[Any]:
        """Token ids of each text (at most :data:`MAX_EMBED_TOKENS`), as int arrays."""
        np = self._np
        top = self.vocabulary - 1
        encode = self.tokenizer.encode
        # One text at a time: the batch call runs a thread pool whose per-thread memory
        # (about 8 MB here) outlives it, and an encoding holds far more than its ids.
        return [
            np.clip(
                np.asarray(
                    encode(t[: MAX_EMBED_TOKENS * 8], add_special_tokens=False).ids[
                        :MAX_EMBED_TOKENS
                    ],
                    dtype=np.int32,
                ),
                0,
                top,
            )
            for t in texts
        ]

    def pool(self, ids: Sequence[Any], weights: Any) -> Any:
        """Unit-length weighted means of the token vectors of each id array (float32 rows)."""
        np = self._np
        out = np.zeros((len(ids), self.dims), dtype=np.float32)
        matrix, scale = self.matrix, self.scale
        for row, tokens_ in enumerate(ids):
            if len(tokens_):
                w = weights[tokens_] * scale[tokens_]
                out[row] = w @ matrix[tokens_].astype(np.float32)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        np.divide(out, norms, out=out, where=norms > 0)
        return out


def _read_safetensors(path: Any, name: str) -> Any:
    """One tensor of a safetensors file as a read-only numpy array mapped from the file (the
    format is an 8-byte header length, a JSON header, then raw little-endian data). Mapped,
    not read: the caller converts it in chunks, and its pages leave memory with the map."""
    import json

    import numpy as np

    with open(path, "rb") as f:
        size = int.from_bytes(f.read(8), "little")
        if not 0 < size <= 1 << 20:
            raise ImportError(f"{_SEMANTIC_HINT} (its bundled model file is damaged)")
        header = json.loads(f.read(size))
        info = header.get(name) if isinstance(header, dict) else None
        dtypes = {"F16": np.float16, "F32": np.float32}
        if not isinstance(info, dict) or info.get("dtype") not in dtypes:
            raise ImportError(f"{_SEMANTIC_HINT} (its bundled model file has no {name})")
        begin, end = info["data_offsets"]
        dtype = np.dtype(dtypes[info["dtype"]]).newbyteorder("<")
        shape = tuple(info["shape"])
        if len(shape) != 2 or shape[0] * shape[1] * dtype.itemsize != end - begin:
            raise ImportError(f"{_SEMANTIC_HINT} (its bundled model file is damaged)")
        return np.memmap(f, dtype=dtype, mode="r", offset=8 + size + begin, shape=shape)


@functools.lru_cache(maxsize=1)
def _embedder() -> StaticEmbedder:
    """WordLlama's default model, loaded from the files inside the installed package.

    ``WordLlama.load()`` looks for the shipped tokenizer in the wrong folder and then tries
    to download it; reading both files directly never touches the network.
    """
    import importlib.util
    from pathlib import Path

    # Only the package's files are needed: importing wordllama itself costs memory for
    # nothing skillcore uses.
    spec = importlib.util.find_spec("wordllama")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError(_SEMANTIC_HINT)
    try:
        from tokenizers import Tokenizer
    except ImportError as exc:
        raise ImportError(_SEMANTIC_HINT) from exc
    root = Path(next(iter(spec.submodule_search_locations)))
    weights = root / "weights" / "l2_supercat_256.safetensors"
    tokenizer = root / "tokenizers" / "l2_supercat_tokenizer_config.json"
    if not weights.is_file() or not tokenizer.is_file():
        raise ImportError(f"{_SEMANTIC_HINT} (its bundled model files are missing)")
    tok = Tokenizer.from_file(str(tokenizer))
    tok.no_padding()
    tok.no_truncation()
    # The model has no pre-tokenizer, so its cache keys whole texts: by default it would keep
    # the last 10,000 skill texts embedded (about 6 MB at 10,000 skills) for nothing.
    resize = getattr(tok.model, "_resize_cache", None)
    if callable(resize):
        resize(TOKENIZER_CACHE)
    return StaticEmbedder(_read_safetensors(weights, "embedding.weight")[:, :SEMANTIC_DIMS], tok)


def _flat_token_ids(model: StaticEmbedder, skills: Sequence[SkillMetadata]) -> tuple[Any, Any]:
    """The token ids of every skill's text in one int32 array, and where each one starts
    (``offsets[i]:offsets[i + 1]``; ``len(skills) + 1`` offsets)."""
    np = model._np
    parts: list[Any] = []
    lengths = np.zeros(len(skills) + 1, dtype=np.int64)
    for start in range(0, len(skills), _ENCODE_CHUNK):
        chunk = model.token_ids([skill_text(s) for s in skills[start : start + _ENCODE_CHUNK]])
        lengths[start + 1 : start + 1 + len(chunk)] = [len(c) for c in chunk]
        parts.append(np.concatenate(chunk) if chunk else np.zeros(0, dtype=np.int32))
    flat = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int32)
    return flat.astype(np.int32, copy=False), np.cumsum(lengths)


def skill_text(skill: SkillMetadata) -> str:
    """The text a skill is embedded (or compared) by: name words, description, triggers."""
    parts = [skill.name.replace("-", " "), skill.description, *skill.triggers]
    return ". ".join(p for p in parts if p)


class SemanticIndex:
    """Unit-length embeddings of skills (IDF-weighted static token vectors), for cosine
    similarity. The catalog's token frequencies weight queries the same way.

    Vectors are kept as int8 with a scale per row (a quarter of float32's memory; the
    rounding moves a cosine by under 0.01). Catalogs above
    :data:`EXACT_SCAN_MAX` skills are searched in two steps: the first
    :data:`COARSE_DIMS` dimensions of every skill (float32, a small contiguous array) pick
    :data:`COARSE_DEPTH` candidates, whose exact similarity is then computed; below it,
    every similarity is exact.
    """

    def __init__(self, skills: Sequence[SkillMetadata]) -> None:
        model = _embedder()
        import numpy as np

        self._np = np
        self._model = model
        n = len(skills)
        # Every skill's token ids in one flat array (offsets[i]:offsets[i + 1]): thousands of
        # small arrays would leave the heap fragmented after the build.
        flat, offsets = _flat_token_ids(model, skills)
        df = np.zeros(model.vocabulary, dtype=np.float32)
        for i in range(n):
            df[np.unique(flat[offsets[i] : offsets[i + 1]])] += 1
        self._weights = (np.log((n + 1) / (df + 1)) + IDF_OFFSET).astype(np.float32)
        self._full = np.zeros((n, model.dims), dtype=np.int8)
        self._scale = np.ones(n, dtype=np.float32)
        self._coarse = np.zeros((n, COARSE_DIMS), dtype=np.float32) if n > EXACT_SCAN_MAX else None
        for start in range(0, n, _ENCODE_CHUNK):  # pooled in chunks: bounded transient memory
            end = min(start + _ENCODE_CHUNK, n)
            rows = model.pool(
                [flat[offsets[i] : offsets[i + 1]] for i in range(start, end)], self._weights
            )
            scale = np.abs(rows).max(axis=1) / 127.0
            scale[scale == 0] = 1.0
            self._full[start:end] = np.rint(rows / scale[:, None])
            self._scale[start:end] = scale
            if self._coarse is not None:
                self._coarse[start:end] = rows[:, :COARSE_DIMS]
        del flat, offsets

    def __len__(self) -> int:
        return len(self._full)

    @property
    def vectors(self) -> Any:
        """Every skill's unit-length embedding (float32 rows)."""
        return self._full.astype(self._np.float32) * self._scale[:, None]

    def embed(self, texts: Sequence[str]) -> Any:
        """Unit-length embeddings of ``texts`` (a numpy array), weighted as the skills are."""
        return self._model.pool(
            self._model.token_ids([t[:MAX_QUERY_CHARS] for t in texts]), self._weights
        )

    def _exact(self, q: Any, docs: Any) -> Any:
        np = self._np
        out = np.zeros(len(docs), dtype=np.float32)
        for start in range(0, len(docs), _SCAN_ROWS):
            chunk = docs[start : start + _SCAN_ROWS]
            rows = self._full[chunk].astype(np.float32)
            np.dot(rows, q, out=out[start : start + _SCAN_ROWS])
            out[start : start + _SCAN_ROWS] *= self._scale[chunk]
        return out

    def scored(
        self, query: str, depth: int, also: Iterable[int] = ()
    ) -> tuple[list[tuple[int, float]], dict[int, float]]:
        """The ``depth`` skills most similar to ``query`` as ``(doc, cosine)``, best first,
        and the cosine of those and of the skills ``also`` names."""
        np = self._np
        n = len(self._full)
        if not n or depth <= 0:
            return [], {}
        q = self.embed([query])[0]
        if self._coarse is None:
            pool = np.arange(n)
        else:
            coarse = np.zeros(n, dtype=np.float32)
            head = q[:COARSE_DIMS]
            step = _SCAN_ROWS * self._model.dims // COARSE_DIMS  # the same floats per product
            for start in range(0, n, step):
                end = start + step
                np.dot(self._coarse[start:end], head, out=coarse[start:end])
            k = min(max(depth, COARSE_DEPTH), n)
            pool = np.argpartition(-coarse, k - 1)[:k]
        extra = np.fromiter((d for d in also if 0 <= d < n), dtype=np.int64)
        docs = np.union1d(pool, extra) if len(extra) else np.sort(pool)
        sims = self._exact(q, docs)
        values = dict(zip(docs.tolist(), sims.tolist()))
        k = min(depth, len(docs))
        top = np.argpartition(-sims, k - 1)[:k]
        best = sorted(((int(docs[i]), float(sims[i])) for i in top), key=lambda p: (-p[1], p[0]))
        return best, values

    def similarities(self, query: str) -> Any:
        """The cosine similarity of ``query`` with every skill (a numpy array; exact)."""
        np = self._np
        if not len(self._full):
            return np.zeros(0, dtype=np.float32)
        return self._exact(self.embed([query])[0], np.arange(len(self._full)))

    def nearest(self, query: str, limit: int) -> list[tuple[int, float]]:
        """The ``limit`` skills most similar to ``query`` (cosine), best first."""
        return self.scored(query, limit)[0]


# -- memoisation ----------------------------------------------------------------------------


def index_for(catalog: Catalog | Iterable[SkillMetadata]) -> SearchIndex:
    """The search index of ``catalog``: built on first use, then reused while it lives (a
    plain iterable of skills gets a fresh index)."""
    if not isinstance(catalog, Catalog):
        return SearchIndex(catalog)
    index: SearchIndex = per_catalog(catalog, "bm25", lambda: SearchIndex(catalog.skills))
    return index
