"""The words of skills and queries: tokenisation, the indexed fields and their BM25 weights,
query terms, inverse document frequency and file-pattern matching.
"""

from __future__ import annotations

import fnmatch
import functools
import math
import posixpath
import re

from skillcore.catalog.stemming import stem as _english_stem
from skillcore.model import SkillMetadata

#: BM25 parameters (the usual defaults) and field weights (BM25F: a word in the name or a
#: trigger says more about a skill than the same word in its description; one in a heading
#: of the body less: 0.25 measured best of 0.25/0.5/0.7 on the development routing set).
#: Each weight is a multiple of 0.25, so the sums of both index builds are exact and equal.
K1 = 1.2
B = 0.75
FIELD_WEIGHTS = {
    "name": 3.0,
    "triggers": 2.5,
    "description": 1.0,
    "patterns": 1.0,
    "headings": 0.25,
}
#: A matching file pattern counts as this many occurrences of a term in the name field.
PATH_WEIGHT = 2.0
#: Bounds on what one query may cost.
MAX_QUERY_CHARS = 1_000
MAX_QUERY_TERMS = 32
MAX_PATH_CHARS = 1_024

WORD = re.compile(r"\w+")
# Scripts written without spaces between words: such runs are indexed as character bigrams.
_NO_SPACE = re.compile(
    "([\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff"
    "\uf900-\ufaff]+)"
)


def stem(word: str) -> str:
    """The index term of an ASCII word (:func:`skillcore.catalog.stemming.stem`)."""
    return _english_stem(word)


_STOP = re.findall(
    r"\w+",
    """a an and are as at be by can do for from how i in is it me my of on or please so
    that the this to use using want we when with you your""",
)
#: Terms too common to say anything (the words and their index terms, "please" and
#: "pleas"); dropped from a query when it has other words.
STOPWORDS = frozenset(_STOP) | frozenset(map(stem, _STOP))


def tokens(text: str) -> list[str]:
    """Index terms of ``text``: lower-cased Unicode words, English forms folded ("rebasing"
    and "rebase" give one term); runs of CJK, Thai, Lao, Khmer or Myanmar characters become
    overlapping character bigrams."""
    out: list[str] = []
    cache = _TOKEN_CACHE
    for word in WORD.findall(text.lower()):
        terms = cache.get(word)
        if terms is None:
            terms = word_terms(word)
            if len(cache) < 500_000:  # bounded: a hostile catalog cannot grow it forever
                cache[word] = terms
        out.extend(terms)
    return out


_TOKEN_CACHE: dict[str, tuple[str, ...]] = {}


def word_terms(word: str) -> tuple[str, ...]:
    if word.isascii():
        return (stem(word),)
    out: list[str] = []
    for part in _NO_SPACE.split(word):
        if not part:
            continue
        if _NO_SPACE.fullmatch(part) and len(part) > 1:
            out.extend(part[i : i + 2] for i in range(len(part) - 1))
        else:
            out.append(part)
    return tuple(out)


def field_texts(skill: SkillMetadata) -> tuple[str, str, str, str, str]:
    """The indexed text of each field, in the order of :data:`FIELD_WEIGHTS`."""
    return (
        skill.name.replace("-", " "),
        " ".join(skill.triggers),
        skill.description,
        " ".join(skill.file_patterns).replace("*", " "),
        " ".join(skill.headings),
    )


def fields(skill: SkillMetadata) -> dict[str, list[str]]:
    return dict(zip(FIELD_WEIGHTS, map(tokens, field_texts(skill))))


def query_terms(query: str) -> list[str]:
    terms = list(dict.fromkeys(tokens(query[:MAX_QUERY_CHARS])))
    content = [t for t in terms if t not in STOPWORDS]
    return (content or terms)[:MAX_QUERY_TERMS]


def inverse_df(n: int, df: int) -> float:
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


__all__ = [
    "FIELD_WEIGHTS",
    "K1",
    "MAX_PATH_CHARS",
    "MAX_QUERY_CHARS",
    "MAX_QUERY_TERMS",
    "PATH_WEIGHT",
    "STOPWORDS",
    "B",
    "field_texts",
    "fields",
    "inverse_df",
    "pattern_matches",
    "query_terms",
    "stem",
    "tokens",
    "word_terms",
]
