"""The light English stemmer: the forms of a word meet on one term, short words and other
scripts are left alone, and search finds a description through another form of a word."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from skillcore import Catalog, SkillLocation, SkillMetadata, search_skills
from skillcore.catalog.stemming import MIN_STEM, stem
from skillcore.catalog.terms import STOPWORDS
from skillcore.catalog.terms import query_terms as _query_terms


@pytest.mark.parametrize(
    "forms",
    [
        ("rebase", "rebasing", "rebased", "rebases"),
        ("fuzz", "fuzzer", "fuzzing", "fuzzers"),
        ("classify", "classifier", "classification"),
        ("deploy", "deployment", "deployments", "deploying"),
        ("query", "queries"),
        ("test", "tests", "testing"),
        ("process", "processes", "processing"),
    ],
)
def test_forms_of_a_word_meet(forms: tuple[str, ...]) -> None:
    assert len({stem(w) for w in forms}) == 1


@pytest.mark.parametrize("word", ["pdf", "csv", "use", "status", "analysis", "string", "being"])
def test_short_and_unsuffixed_words_stay(word: str) -> None:
    assert stem(word) == word


@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=20))
def test_a_stem_is_never_empty_nor_longer(word: str) -> None:
    out = stem(word.lower())
    assert len(out) <= len(word.lower())
    assert not word or out
    if not (word.lower().isascii() and word.lower().isalpha()):
        assert out == word.lower() or len(word.lower()) > 4  # only plurals fold there
    if len(word.lower()) > MIN_STEM and word.lower().isascii() and word.lower().isalpha():
        assert len(out) >= MIN_STEM


def test_stopwords_are_dropped_in_their_stemmed_form_too() -> None:
    assert stem("please") in STOPWORDS
    assert _query_terms("please check this csv") == ["check", "csv"]


def test_search_finds_a_description_through_another_form_of_its_words() -> None:
    def meta(name: str, desc: str) -> SkillMetadata:
        return SkillMetadata(name, desc, SkillLocation("s", name, f"/s/{name}"))

    cat = Catalog(
        (
            meta("git-workflows", "Advanced Git: rebasing, cherry-picking and the reflog."),
            meta("atheris", "Atheris is a coverage-guided Python fuzzer."),
            meta("sheets", "Edit spreadsheet formulas."),
        )
    )
    hits = search_skills(cat, "I lost a commit after a bad rebase")
    assert [h.skill.name for h in hits] == ["git-workflows"]
    # The reason names the request's own word, not the index term.
    assert hits[0].reasons == ("description: rebase",)
    assert search_skills(cat, "fuzz my python module")[0].skill.name == "atheris"
