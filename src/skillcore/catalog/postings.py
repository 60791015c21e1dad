"""Building the BM25 postings of a catalog in one pass over its words (with numpy for large
catalogs, else in pure Python: the same index either way), each term's impacts computed on its
first use.
"""

from __future__ import annotations

import heapq
import re
import threading
from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence
from itertools import chain, groupby
from typing import Any

from skillcore.catalog.terms import (
    FIELD_WEIGHTS,
    K1,
    WORD,
    B,
    field_texts,
    inverse_df,
    stem,
    word_terms,
)
from skillcore.model import SkillMetadata

#: From this many skills on, the index is built with numpy when it is installed (the same
#: index: the pure-Python build stays for installs without numpy).
BUILD_VECTOR_MIN_SKILLS = 5_000
#: A term's best impacts kept for the pruning cut (see :meth:`SearchIndex._accumulate`).
BEST_KEPT = 64

_SEP = "\x00"
#: Indexed fields per skill (each skill's texts come in this many, in order).
_FIELDS = len(FIELD_WEIGHTS)
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
                    stream.fromlist(list(map(lookup, WORD.findall(text.lower()))))
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
            single.append(add(stem(word), len(term_ids)))
            continue
        terms = word_terms(word)
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


class Postings(Mapping[str, Posting]):
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
            idf = inverse_df(n, len(docs)) * k1
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
        idf = inverse_df(n, end - start) * k1
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

    The sums differ in order only: weights and counts are multiples of 0.25 far below 2**52,
    so every partial sum is exact and the floats are the same.
    """
    field_no, tids = _term_occurrences(np, stream, single, multi)
    weights = np.array(list(FIELD_WEIGHTS.values()))
    per_field = np.bincount(field_no, minlength=_FIELDS * n).reshape(n, _FIELDS)
    # Summed field by field, in the order the pure build adds them.
    total = per_field[:, 0] * weights[0]
    for f in range(1, _FIELDS):
        total = total + per_field[:, f] * weights[f]
    lengths = total.tolist()
    docs, freqs, offsets = _group_by_term(np, field_no, tids, weights, n_terms)
    return lengths, docs, freqs, offsets


def _term_occurrences(
    np: Any, stream: array[int], single: list[int], multi: dict[int, tuple[int, ...]]
) -> tuple[Any, Any]:
    """Each term occurrence of the word stream: its field text's number (doc * fields + field)
    and its term id, in stream order."""
    ids = np.frombuffer(stream, dtype=np.int32)
    sep = ids == 0
    field_no = np.cumsum(sep, dtype=np.int32)[~sep]  # field texts before each word
    wids = ids[~sep]
    del ids, sep
    if not multi:
        return field_no, np.array(single, dtype=np.int32)[wids]
    # Words of several terms (CJK bigrams): one entry per term.
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
    return field_no, flat[np.repeat(begin[wids], per_word) + within]


def _group_by_term(
    np: Any, field_no: Any, tids: Any, weights: Any, n_terms: int
) -> tuple[Any, Any, list[int]]:
    """The occurrences summed per (term, doc) and grouped by term, keeping doc order: flat
    doc ids, weighted term frequencies, and each term's offsets into them."""
    # A stable radix sort by term, 16 bits at a time.
    order = np.argsort(tids.astype(np.uint16), kind="stable")
    shift = 16
    while n_terms > 1 << shift:
        digit = (tids >> shift).astype(np.uint16)[order]
        order = order[np.argsort(digit, kind="stable")]
        shift += 16
    per_term = np.bincount(tids, minlength=n_terms)
    doc = (field_no // _FIELDS)[order]
    field = (field_no % _FIELDS).astype(np.uint8)[order]
    del order
    # A (term, doc) pair starts where the doc or the term changes.
    term_starts = np.cumsum(per_term) - per_term
    starts = np.ones(len(doc), dtype=bool)
    np.not_equal(doc[1:], doc[:-1], out=starts[1:])
    starts[term_starts[per_term > 0]] = True
    starts = np.flatnonzero(starts)
    freqs = np.add.reduceat(weights[field], starts) if len(starts) else np.zeros(0)
    offsets = np.append(np.searchsorted(starts, term_starts), len(starts))
    return doc[starts], freqs, offsets.tolist()


def _build_numpy(n: int) -> Any:
    """numpy, when the catalog is large enough to pay for it and numpy is installed."""
    if n < BUILD_VECTOR_MIN_SKILLS:
        return None
    try:
        import numpy
    except ImportError:  # the pure-Python build gives the same index
        return None
    return numpy


def index_postings(skills: Sequence[SkillMetadata]) -> tuple[list[float], Postings]:
    """The BM25 norms of ``skills`` and their postings (see :class:`Postings`)."""
    n = len(skills)
    stream, words = _word_stream(chain.from_iterable(map(field_texts, skills)))
    term_ids, single, multi = _word_terms_ids(words)
    del words
    np = _build_numpy(n)
    if np is None:
        lengths, docs, freqs = _build_pure(stream, single, multi, len(term_ids), n)
        norm = _norms(lengths)
        return norm, Postings(term_ids, norm, docs, freqs)
    lengths, docs, freqs, offsets = _build_vector(np, stream, single, multi, len(term_ids), n)
    norm = _norms(lengths)
    return norm, Postings(term_ids, norm, docs, freqs, offsets, np)


def _first(item: tuple[float, int]) -> float:
    return item[0]


def kth_largest(scores: Iterable[float], k: int) -> float:
    """The ``k``-th largest of ``scores``, or 0.0 when there are fewer than ``k``."""
    values = list(scores)
    if len(values) < k or k <= 0:
        return 0.0
    values.sort()  # in C: cheaper than a Python-level heap at these sizes
    return values[-k]


__all__ = [
    "BEST_KEPT",
    "BUILD_VECTOR_MIN_SKILLS",
    "Posting",
    "Postings",
    "index_postings",
    "kth_largest",
]
