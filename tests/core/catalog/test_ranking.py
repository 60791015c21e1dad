"""The BM25 index behind search_skills: exactness of the pruned search, ties, memoisation,
Unicode, file patterns, bounds, and the "did you mean" names."""

from __future__ import annotations

import difflib
import gc
import weakref

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillcore import Catalog, SkillLocation, SkillMetadata, memo, search_skills, typos
from skillcore.catalog.ranking import SearchIndex, index_for
from skillcore.catalog.semantic import semantic_available
from skillcore.catalog.terms import MAX_QUERY_TERMS, query_terms, tokens
from skillcore.typos import CLOSE_NAMES_POSTINGS, CLOSE_NAMES_SCAN_ALL, NameIndex, close_names


def meta(name: str, desc: str = "d", **kw) -> SkillMetadata:
    return SkillMetadata(name, desc, SkillLocation("s", name, f"/s/{name}"), **kw)


VOCAB = ["csv", "pdf", "report", "reports", "deploy", "the", "table", "audit", "lint", "docs"]


@st.composite
def catalogs(draw: st.DrawFn, patterns: bool = False) -> Catalog:
    n = draw(st.integers(1, 120))
    skills = []
    for i in range(n):
        words = draw(st.lists(st.sampled_from(VOCAB), min_size=1, max_size=12))
        trig = draw(st.lists(st.sampled_from(VOCAB), max_size=2))
        skills.append(
            meta(
                f"s{i}-{draw(st.sampled_from(VOCAB))}",
                " ".join(words),
                triggers=tuple(trig),
                priority=draw(st.integers(0, 2)),
                file_patterns=tuple(
                    draw(st.lists(st.sampled_from(["*.csv", "*.md", "a/*"]), max_size=2))
                    if patterns
                    else ()
                ),
            )
        )
    return Catalog(skills)


def brute_force(index: SearchIndex, query: str, limit: int) -> list[tuple[int, float]]:
    """Score every skill with every term, no pruning, same order of additions."""
    found = [index._postings[t] for t in query_terms(query) if t in index._postings]
    found.sort(key=lambda p: -p[2])
    acc: dict[int, float] = {}
    for docs, impacts, _, _ in found:
        for d, w in zip(docs, impacts):
            acc[d] = acc.get(d, 0.0) + w
    exact = index._exact(query.strip())
    if exact is not None:
        acc.setdefault(exact, 0.0)
    order = sorted(
        acc.items(),
        key=lambda it: (it[0] != exact, -it[1], index.skills[it[0]].priority, it[0]),
    )
    return [(d, s) for d, s in order[:limit] if s > 0 or d == exact]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    catalogs(),
    st.lists(st.sampled_from(VOCAB), min_size=1, max_size=5).map(" ".join),
    st.integers(1, 12),
)
def test_pruned_search_equals_brute_force(cat: Catalog, query: str, limit: int) -> None:
    index = SearchIndex(cat.skills)
    assert index.bm25(query, None, limit) == brute_force(index, query, limit)


def test_pruning_is_exact_on_a_large_dense_catalog() -> None:
    # Long posting lists (> 64 entries) exercise the cut and the kept-best shortcut.
    words = ["alpha", "beta", "gamma", "delta", "omega"]
    skills = [
        meta(f"k{i:04d}", " ".join(words[j % 5] for j in range(i % 7, i % 7 + 1 + i % 4)))
        for i in range(3_000)
    ]
    index = SearchIndex(Catalog(skills).skills)
    for query in ("alpha beta", "gamma delta omega", "alpha beta gamma delta omega", "beta"):
        for limit in (1, 5, 10, 50):
            assert index.bm25(query, None, limit) == brute_force(index, query, limit)


def test_results_are_deterministic_and_ties_break_by_priority_then_order() -> None:
    cat = Catalog(
        (
            meta("x-one", "same words"),
            meta("x-two", "same words", priority=-3),
            meta("x-three", "same words"),
            meta("x-four", "same words", priority=3),
        )
    )
    first = search_skills(cat, "same")
    # Lower priority first; equal priorities keep catalog order.
    assert [h.skill.name for h in first] == ["x-two", "x-one", "x-three", "x-four"]
    assert search_skills(cat, "same") == first
    assert search_skills(Catalog(cat.skills), "same") == first


def test_exact_name_comes_first_and_name_words_outweigh_description() -> None:
    cat = Catalog(
        (
            meta("pdf-tools", "Merge pdf files, pdf forms, pdf text, pdf pages"),
            meta("forms", "Fill web forms"),
            meta("merge-helper", "Generic helper"),
        )
    )
    assert search_skills(cat, "forms")[0].skill.name == "forms"
    assert search_skills(cat, "Merge Helper")[0].skill.name == "merge-helper"
    assert search_skills(cat, "merge")[0].skill.name == "merge-helper"


def test_reasons_name_fields_and_patterns() -> None:
    cat = Catalog((meta("csv-audit", "Check csv tables", file_patterns=("*.csv",)),))
    (hit,) = search_skills(cat, "csv tables", "data/x.csv")
    assert "name words: csv" in hit.reasons
    assert any(r.startswith("description:") for r in hit.reasons)
    assert "file pattern '*.csv'" in hit.reasons


def test_path_semantics_match_full_path_or_file_name() -> None:
    cat = Catalog(
        (
            meta("py", "python", file_patterns=("**/test_*.py",)),
            meta("md", "docs", file_patterns=("*.md",)),
            meta("lit", "literal", file_patterns=("Makefile",)),
        )
    )
    assert [h.skill.name for h in search_skills(cat, None, "src/tests/test_api.py")] == ["py"]
    assert [h.skill.name for h in search_skills(cat, None, "test_api.py")] == []
    assert [h.skill.name for h in search_skills(cat, None, "docs\\index.md")] == ["md"]
    assert [h.skill.name for h in search_skills(cat, None, "a/b/Makefile")] == ["lit"]
    # Case-insensitive: file systems of macOS and Windows fold case.
    assert [h.skill.name for h in search_skills(cat, None, "a/b/makefile")] == ["lit"]
    assert [h.skill.name for h in search_skills(cat, None, "DOCS/README.MD")] == ["md"]


def test_hidden_skills_are_never_found() -> None:
    cat = Catalog((meta("secret", "csv", disable_model_invocation=True), meta("open", "csv")))
    assert [h.skill.name for h in search_skills(cat, "csv")] == ["open"]
    assert [h.skill.name for h in search_skills(cat, "secret")] == []
    assert close_names(cat, "secrit") == []


def test_no_filter_lists_by_priority_then_order() -> None:
    cat = Catalog((meta("a"), meta("b", priority=-1), meta("c"), meta("d", priority=1)))
    assert [h.skill.name for h in search_skills(cat, limit=2)] == ["b", "a"]
    assert [h.skill.name for h in search_skills(cat)] == ["b", "a", "c", "d"]
    assert search_skills(cat, "a", limit=0) == []


def test_unicode_scripts_and_plurals() -> None:
    cat = Catalog(
        (
            meta("web-shot", "使用浏览器截图并检查页面"),
            meta("doc-writer", "문서 작성 도우미"),
            meta("ru", "Проверка отчётов"),
            meta("rep", "Builds quarterly reports"),
        )
    )
    assert [h.skill.name for h in search_skills(cat, "浏览器")] == ["web-shot"]
    assert [h.skill.name for h in search_skills(cat, "截图")] == ["web-shot"]
    assert [h.skill.name for h in search_skills(cat, "문서 작성")] == ["doc-writer"]
    assert [h.skill.name for h in search_skills(cat, "отчётов")] == ["ru"]
    assert [h.skill.name for h in search_skills(cat, "report")] == ["rep"]
    # Plurals and other English forms meet on one term; short words are left alone.
    assert tokens("Queries Reports class") == tokens("query report class")
    assert tokens("class pdf") == ["class", "pdf"]


def test_stopwords_only_dropped_when_other_words_remain() -> None:
    assert query_terms("how to use the csv tool") == ["csv", "tool"]
    assert query_terms("the") == ["the"]
    assert len(query_terms(" ".join(f"w{i}" for i in range(500)))) == MAX_QUERY_TERMS


def test_index_is_built_once_per_catalog_and_released_with_it() -> None:
    cat = Catalog((meta("a", "alpha"),))
    index = index_for(cat)
    assert index_for(cat) is index
    assert index_for(Catalog(cat.skills)) is not index  # identity, not equality
    ref = weakref.ref(index)
    del cat, index
    gc.collect()
    assert ref() is None


def test_search_accepts_a_plain_iterable() -> None:
    hits = search_skills([meta("a", "alpha"), meta("b", "beta")], "beta")
    assert [h.skill.name for h in hits] == ["b"]


def test_close_names_small_and_large_catalogs() -> None:
    small = Catalog((meta("csv-data-audit"), meta("python-testing")))
    assert close_names(small, "csv-data-audti") == ["csv-data-audit"]
    assert close_names(small, "zzzz") == []
    big = Catalog((*(meta(f"skill-{i:05d}-tool") for i in range(5_000)), meta("release-notes")))
    assert close_names(big, "relase-notes") == ["release-notes"]
    assert close_names(big, "skill-00042-tol")[0] == "skill-00042-tool"


_WORDS = [
    "pdf",
    "docx",
    "excel",
    "chart",
    "deploy",
    "review",
    "test",
    "lint",
    "format",
    "image",
    "audio",
    "video",
    "data",
    "sql",
    "api",
    "git",
    "docker",
    "cloud",
    "slack",
    "email",
    "note",
    "web",
    "code",
    "debug",
]
#: 4,000 names of three words (above the size where every name is compared).
_NAMES = sorted({f"{a}-{b}-{c}" for a in _WORDS for b in _WORDS for c in _WORDS[:7]})
_NAME_INDEX = NameIndex(meta(n) for n in _NAMES)


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from(_NAMES),
    st.integers(min_value=0, max_value=40),
    st.sampled_from(["delete", "insert", "replace", "swap"]),
    st.sampled_from("xqz-"),
)
def test_the_trigram_hint_finds_what_comparing_every_name_finds(
    name: str, at: int, edit: str, char: str
) -> None:
    i = at % len(name)
    typo = {
        "delete": name[:i] + name[i + 1 :],
        "insert": name[:i] + char + name[i:],
        "replace": name[:i] + char + name[i + 1 :],
        "swap": name[:i] + name[i + 1 : i + 2] + name[i : i + 1] + name[i + 2 :],
    }[edit]
    assert len(_NAMES) > CLOSE_NAMES_SCAN_ALL
    if difflib.get_close_matches(typo, _NAMES, n=1) == [name] and typo != name:
        assert name in _NAME_INDEX.close_names(typo)


def test_a_hint_counts_a_bounded_number_of_postings_and_builds_no_search_index() -> None:
    # Every name shares the trigrams of "skill-": a typo there leaves only common ones.
    cat = Catalog(tuple(meta(f"skill-{i:05d}") for i in range(3 * CLOSE_NAMES_POSTINGS)))
    counted: list[int] = []
    real_counter = typos.Counter

    def counter(items: object) -> object:
        found = real_counter(items)  # type: ignore[call-overload]
        counted.append(sum(found.values()))
        return found

    typos.Counter = counter  # type: ignore[assignment,misc]
    try:
        assert close_names(cat, "skil-00042")[0] == "skill-00042"
        close_names(cat, "skill-0")  # every trigram but one is in all 30,000 names
    finally:
        typos.Counter = real_counter  # type: ignore[misc]
    assert counted and max(counted) <= CLOSE_NAMES_POSTINGS
    # The hint has its own small index: a typo does not build the BM25 one.
    assert ("bm25", id(cat)) not in memo._MEMO
    assert ("names", id(cat)) in memo._MEMO


def test_unknown_ranker_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown ranker"):
        search_skills(Catalog((meta("a"),)), "a", ranker="fuzzy")  # type: ignore[arg-type]


@pytest.mark.skipif(semantic_available(), reason="the semantic extra is installed")
def test_hybrid_without_the_extra_names_the_install_command() -> None:
    with pytest.raises(ImportError, match=r'pip install "skillcore-agents\[semantic\]"'):
        search_skills(Catalog((meta("a", "alpha"),)), "alpha", ranker="hybrid")
    # auto falls back to BM25 quietly
    cat = Catalog((meta("a", "alpha"),))
    assert [h.skill.name for h in search_skills(cat, "alpha", ranker="auto")] == ["a"]


@pytest.mark.skipif(not semantic_available(), reason="needs skillcore-agents[semantic]")
def test_hybrid_finds_a_paraphrase_bm25_misses() -> None:
    cat = Catalog(
        (
            meta("pdf-extract", "Extract text and tables from PDF documents"),
            meta("k8s-deploy", "Roll out services to a Kubernetes cluster"),
            meta("sheet", "Edit spreadsheet formulas"),
        )
    )
    ask = "get my microservice containers running in prod"  # no word in common
    assert search_skills(cat, ask, ranker="bm25") == []
    hits = search_skills(cat, ask, ranker="hybrid")
    # Only the close match: skills that share no word and are not similar are not listed.
    assert [h.skill.name for h in hits] == ["k8s-deploy"]
    assert search_skills(cat, "sheet", ranker="hybrid")[0].skill.name == "sheet"


def _both_paths(cat: Catalog) -> tuple[SearchIndex, SearchIndex]:
    np = pytest.importorskip("numpy")
    pure, vector = SearchIndex(cat.skills), SearchIndex(cat.skills)
    pure._numpy, vector._numpy = None, np
    return pure, vector


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    catalogs(patterns=True),
    st.lists(st.sampled_from(VOCAB), min_size=1, max_size=5).map(" ".join),
    st.integers(1, 12),
    st.sampled_from([None, "a/b.csv", "x.md"]),
)
def test_numpy_path_gives_the_same_answers(cat, query, limit, path) -> None:
    pure, vector = _both_paths(cat)
    assert vector.bm25(query, path, limit) == pure.bm25(query, path, limit)


def test_numpy_path_breaks_many_ties_like_the_pure_path() -> None:
    # 300 skills tie on every query word: the numpy path orders the ties in C, by priority
    # (any integer, far beyond int64 too) and catalog order, exactly as the pure path does.
    prios = [0, 3, -2, 10**30, -(10**30), 7]
    skills = [
        meta(f"tied-{i:03d}", "alpha beta gamma", priority=prios[i % len(prios)])
        for i in range(300)
    ]
    pure, vector = _both_paths(Catalog(tuple(skills)))
    for query in ("alpha", "beta gamma", "tied 007 alpha"):
        for limit in (1, 5, 40):
            assert vector.bm25(query, None, limit) == pure.bm25(query, None, limit)


def test_numpy_path_on_a_dense_catalog_and_exact_names() -> None:
    words = ["alpha", "beta", "gamma", "delta", "omega"]
    skills = [
        meta(f"k{i:04d}", " ".join(words[j % 5] for j in range(i % 7, i % 7 + 1 + i % 4)))
        for i in range(3_000)
    ]
    pure, vector = _both_paths(Catalog(skills))
    for query in ("alpha beta", "gamma delta omega", "k0042", "beta k0007"):
        for limit in (1, 10, 50):
            assert vector.bm25(query, None, limit) == pure.bm25(query, None, limit)


def test_a_catalog_collected_while_the_memo_is_locked_does_not_deadlock() -> None:
    """The memo's weakref callback runs wherever a catalog's last reference goes, including
    inside the memo's own locked section in the same thread (a garbage collection there)."""
    import threading

    from skillcore.memo import _INDEX_LOCK, per_catalog

    done = threading.Event()

    def run() -> None:
        dying = Catalog((meta("a"),))
        per_catalog(dying, "probe", lambda: 1)
        with _INDEX_LOCK:
            del dying  # its forget() callback runs now, in this thread, under the lock
        done.set()

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(10)
    assert done.is_set(), "the memo deadlocked on its own weakref callback"
