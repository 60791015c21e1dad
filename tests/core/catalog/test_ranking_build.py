"""Building the BM25 index: the bulk build (one pass over the catalog's words, postings
grouped at once, with or without numpy, impacts computed on a term's first use) gives the
index a plain per-skill construction gives: the same postings, norms, floats and answers."""

from __future__ import annotations

import heapq
import threading
from array import array
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillcore import SkillLocation, SkillMetadata
from skillcore.catalog import postings as ranking_build
from skillcore.catalog.ranking import SearchIndex
from skillcore.catalog.terms import FIELD_WEIGHTS, K1, B, inverse_df, tokens

try:
    import numpy
except ImportError:  # the pure-Python build is still compared with the reference
    numpy = None  # type: ignore[assignment]

#: A few dozen examples in the normal run; the long profile (HYPOTHESIS_PROFILE=long) runs its own.
_PROFILE = settings.get_profile("skillcore")
_EXAMPLES = 25 if _PROFILE.max_examples <= 100 else _PROFILE.max_examples

BUILDS = ["pure", "numpy"] if numpy is not None else ["pure"]


def meta(name: str, desc: str, **kw: Any) -> SkillMetadata:
    return SkillMetadata(name, desc, SkillLocation("s", name, f"/s/{name}"), **kw)


def reference(skills: Sequence[SkillMetadata]) -> dict[str, Any]:
    """The index built skill by skill, field by field, word by word (the plain way)."""
    visible = tuple(s for s in skills if not s.disable_model_invocation)
    n = len(visible)
    by_name: dict[str, int] = {}
    for doc, skill in enumerate(visible):
        by_name.setdefault(skill.name.lower(), doc)
    raw: dict[str, tuple[array[int], array[float]]] = {}
    lengths = []
    patterns: dict[str, list[int]] = {}
    for doc, skill in enumerate(visible):
        fields = {
            "name": tokens(skill.name.replace("-", " ")),
            "triggers": tokens(" ".join(skill.triggers)),
            "description": tokens(skill.description),
            "patterns": tokens(" ".join(skill.file_patterns).replace("*", " ")),
            "headings": tokens(" ".join(skill.headings)),
        }
        length = 0.0
        tf: dict[str, float] = {}
        for field, weight in FIELD_WEIGHTS.items():
            words = fields[field]
            length += weight * len(words)
            for word in words:
                tf[word] = tf.get(word, 0.0) + weight
        for word, freq in tf.items():
            docs, freqs = raw.setdefault(word, (array("i"), array("d")))
            docs.append(doc)
            freqs.append(freq)
        lengths.append(length)
        for pattern in dict.fromkeys(skill.file_patterns):
            patterns.setdefault(pattern, []).append(doc)
    avg = (sum(lengths) / n) if n else 1.0
    norm = [K1 * (1 - B + B * (length / avg if avg else 1.0)) for length in lengths]
    postings = {}
    for word, (docs, freqs) in raw.items():
        idf = inverse_df(n, len(docs)) * (K1 + 1)
        impacts = array("d", [idf * f / (f + norm[d]) for d, f in zip(docs, freqs)])
        pairs = list(zip(impacts, docs))
        best = heapq.nlargest(64, pairs, key=lambda p: p[0])
        postings[word] = (docs, impacts, best[0][0], best)
    return {"norm": norm, "postings": postings, "by_name": by_name, "patterns": patterns}


@contextmanager
def build(kind: str, join_texts: int | None = None) -> Iterator[None]:
    """Indexes built meanwhile use numpy (``"numpy"``) or not (``"pure"``)."""
    saved = ranking_build.BUILD_VECTOR_MIN_SKILLS, ranking_build._JOIN_TEXTS
    ranking_build.BUILD_VECTOR_MIN_SKILLS = 0 if kind == "numpy" else 10**12
    if join_texts is not None:
        ranking_build._JOIN_TEXTS = join_texts
    try:
        yield
    finally:
        ranking_build.BUILD_VECTOR_MIN_SKILLS, ranking_build._JOIN_TEXTS = saved


def bit_equal(a: Sequence[float], b: Sequence[float]) -> bool:
    return array("d", a).tobytes() == array("d", b).tobytes()


def assert_same_index(index: SearchIndex, ref: dict[str, Any]) -> None:
    assert bit_equal(index._norm, ref["norm"])
    assert index._by_name == ref["by_name"]
    assert index._patterns == ref["patterns"]
    assert set(index._postings) == set(ref["postings"])
    assert len(index._postings) == len(ref["postings"])
    for term, (docs, impacts, top, best) in ref["postings"].items():
        got = index._postings[term]
        assert type(got[0]) is array and got[0].typecode == "i"
        assert type(got[1]) is array and got[1].typecode == "d"
        assert got[0] == docs, term
        assert bit_equal(got[1], impacts), term
        assert bit_equal([got[2]], [top]), term
        assert [d for _, d in got[3]] == [d for _, d in best], term
        assert bit_equal([w for w, _ in got[3]], [w for w, _ in best]), term
        assert all(type(w) is float and type(d) is int for w, d in got[3])


# Words that stress the tokeniser: case, plurals, underscores, digits, accents, Greek final
# sigma (lower-cased by context), dotted capital I (two characters lower-cased), the Kelvin
# sign (lower-cases to ASCII), title-case digraphs, CJK/Thai runs (bigrams) and mixed runs.
_WORDS = [
    "csv",
    "CSV",
    "Reports",
    "report",
    "queries",
    "class",
    "status",
    "the",
    "a_b",
    "x1",
    "2024",
    "Café",
    "ΟΔΟΣ",
    "Σ",
    "ὈΔΥΣΣΕΎΣ",
    "naïve",
    "İstanbul",
    "\u212aelvin",
    "ǅemal",
    "使用浏览器截图",
    "文",
    "ทดสอบ",
    "abc中文def",
    "Straße",
    "١٢٣",
    "e\u0301",
]
_GLUE = [" ", " ", "-", ", ", ".", "\n", "*", "—", "'", "\x00", "/", "_"]
_texts = st.one_of(
    st.lists(st.tuples(st.sampled_from(_WORDS), st.sampled_from(_GLUE)), max_size=14).map(
        lambda parts: "".join(w + g for w, g in parts)
    ),
    st.text(max_size=12),
)


@st.composite
def skill_lists(draw: st.DrawFn) -> list[SkillMetadata]:
    # Up to 150 skills over a small vocabulary: common terms get more than 64 postings,
    # many with equal impacts (ties in the kept best ones).
    n = draw(st.integers(0, 150))
    common = draw(st.lists(st.sampled_from(_WORDS[:8]), min_size=1, max_size=6).map(" ".join))
    skills = []
    for i in range(n):
        desc = draw(st.one_of(st.just(common), _texts))
        skills.append(
            meta(
                draw(st.sampled_from([f"s{i}-{w}" for w in ("csv", "Reports", "文")] + ["dup"])),
                desc,
                triggers=tuple(draw(st.lists(_texts, max_size=2))),
                file_patterns=tuple(
                    draw(st.lists(st.sampled_from(["*.csv", "*.MD", "a/**/*", "*.*"]), max_size=3))
                ),
                priority=draw(st.integers(-1, 1)),
                disable_model_invocation=draw(st.booleans()) and draw(st.booleans()),
                headings=tuple(draw(st.lists(_texts, max_size=2))),
            )
        )
    return skills


@settings(_PROFILE, max_examples=_EXAMPLES)
@given(skill_lists(), st.sampled_from([1, 2, 5, 1_024]))
def test_the_bulk_build_equals_the_plain_construction(
    skills: list[SkillMetadata], join_texts: int
) -> None:
    ref = reference(skills)
    for kind in BUILDS:
        with build(kind, join_texts):
            index = SearchIndex(skills)
        assert_same_index(index, ref)


def _reference_index(skills: Sequence[SkillMetadata]) -> SearchIndex:
    """A search index answering from the plain construction's postings and norms."""
    with build("pure"):
        index = SearchIndex(skills)
    ref = reference(skills)
    index._norm, index._postings = ref["norm"], ref["postings"]  # type: ignore[assignment]
    return index


_QUERIES = st.lists(st.sampled_from([*_WORDS, "s3", "dup", "*.csv"]), min_size=1, max_size=4)


@settings(_PROFILE, max_examples=_EXAMPLES)
@given(
    skill_lists(),
    _QUERIES.map(" ".join),
    st.sampled_from([None, "a/b.csv", "x.md"]),
    st.integers(1, 12),
)
def test_the_bulk_build_gives_the_same_answers(
    skills: list[SkillMetadata], query: str, path: str | None, limit: int
) -> None:
    expected = _reference_index(skills).search(query, path, limit)
    for kind in BUILDS:
        with build(kind):
            index = SearchIndex(skills)
        assert index.search(query, path, limit) == expected


@pytest.mark.parametrize("kind", BUILDS)
def test_a_large_mixed_catalog_across_joined_runs(kind: str) -> None:
    # ASCII and non-ASCII texts alternate, one text holds NUL, runs span several joins.
    skills = [
        meta(
            f"skill-{i:04d}",
            (
                f"Audit {_WORDS[i % len(_WORDS)]} tables and reports {i % 17}"
                + (" — Überprüfung 检查报告" if i % 3 == 0 else "")
                + ("\x00nul" if i == 500 else "")
            ),
            triggers=("audit tables",) if i % 2 else (),
            file_patterns=("**/*.sql",) if i % 5 == 0 else (),
            headings=("Overview", f"Reports {i % 7}") if i % 3 == 1 else (),
        )
        for i in range(1_500)
    ]
    with build(kind, join_texts=97):
        index = SearchIndex(skills)
    assert_same_index(index, reference(skills))
    assert index.search("audit reports") == _reference_index(skills).search("audit reports")


@pytest.mark.parametrize("kind", BUILDS)
def test_impacts_are_computed_on_first_use_once_across_threads(kind: str) -> None:
    skills = [meta(f"k{i}", "alpha beta" if i % 2 else "alpha gamma") for i in range(300)]
    with build(kind):
        index = SearchIndex(skills)
    postings = index._postings
    assert isinstance(postings, ranking_build.Postings) and not postings._done
    seen: list[object] = []
    barrier = threading.Barrier(4)

    def first_query() -> None:
        barrier.wait()
        seen.append(postings["alpha"])

    threads = [threading.Thread(target=first_query) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(seen) == 4 and all(p is seen[0] for p in seen)
    assert set(postings._done) == {"alpha"}
    assert "delta" not in postings and "beta" in postings
    with pytest.raises(KeyError):
        postings["delta"]
    assert_same_index(index, reference(skills))


def test_an_empty_and_a_wordless_catalog() -> None:
    for skills in ([], [meta("---", "..."), meta("-", "", disable_model_invocation=True)]):
        for kind in BUILDS:
            with build(kind):
                index = SearchIndex(skills)
            assert_same_index(index, reference(skills))
            assert index.search("anything") == []
