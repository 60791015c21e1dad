"""Near-duplicate skills ("families") and how a ranked list folds them.

Large libraries collect variants of one skill: the same skill copied into several sources,
or siblings such as ``pdf``, ``pdf-legacy`` and ``pdf-enterprise`` whose descriptions open
with the same sentence. They score alike for any request, so without care five variants of
one skill fill the first five results and push out every other candidate (the right skill
among them), and a scoped variant whose shorter description scores a little higher comes
before the general skill.

A *family* is a set of skills whose descriptions open with the same first sentence (ignoring
case and spacing): of at least :data:`FAMILY_MIN_WORDS` words, or shorter when their names
say they are variants too (``qiskit`` and ``qiskit-legacy`` both opening with "IBM quantum
computing framework."); a bare "Helper." shared by unrelated skills makes none.
A ranked list is folded in two steps, which move results but never add or drop one:

1. within a family, a skill whose name is another member's name plus qualifier words
   (``pdf-legacy`` for ``pdf``) goes after that member, unless the request names one of the
   qualifier words: the request did not ask for that scope;
2. each family keeps its best :data:`FAMILY_SHOWN` place(s) where it ranked; its other
   members move after every other candidate of the list (the way web search shows a
   site's pages: the best one in place, the rest on request).

Folding is done once per query over the ranker's candidate list (cheap: a dictionary look-up
per candidate). An exact name match stays first.
"""

from __future__ import annotations

import hashlib
import re
from array import array
from collections.abc import Callable, Iterable, Sequence

from skillcore.model import SkillMetadata

#: A first sentence of fewer words makes no family (too generic to say two skills are one).
FAMILY_MIN_WORDS = 5
#: Places a family keeps where it ranked; its other members go after the other candidates.
FAMILY_SHOWN = 1
#: Characters of a first sentence compared (bounds the build's memory on long descriptions).
FAMILY_KEY_CHARS = 300

_SENTENCE_END = re.compile(r"(?<=[.!?])\s")
_SPACE = re.compile(r"\s+")


def first_sentence(description: str) -> str:
    """The description's first sentence, lower-cased with spaces collapsed and the closing
    stop dropped (at most :data:`FAMILY_KEY_CHARS` characters)."""
    head = description[: FAMILY_KEY_CHARS * 2].strip()
    first = _SENTENCE_END.split(head, maxsplit=1)[0]
    return _SPACE.sub(" ", first.lower()).strip().rstrip(".!?")[:FAMILY_KEY_CHARS]


def family_key(description: str) -> str | None:
    """What groups a skill with its near-duplicates whatever their names: the first sentence
    (:func:`first_sentence`); None when it has fewer than :data:`FAMILY_MIN_WORDS` words."""
    key = first_sentence(description)
    return key if _long_enough(key) else None


def _long_enough(key: str) -> bool:
    """True when a first sentence says two skills are one whatever their names."""
    return len(key.split()) >= FAMILY_MIN_WORDS


def _digest(key: str) -> int:
    # A 64-bit digest, not the text: the build's memory stays small at 100,000 skills.
    return int.from_bytes(hashlib.blake2b(key.encode(), digest_size=8).digest(), "big")


def _base_name(own: str, names: dict[str, int] | set[str]) -> int:
    """Where the longest other name of ``names`` that ``own`` extends ends ("pdf-legacy"
    -> "pdf": 3), one look-up per hyphen; 0 when it extends none."""
    cut = own.rfind("-")
    while cut > 0 and own[:cut] not in names:
        cut = own.rfind("-", 0, cut)
    return max(cut, 0)


class Families:
    """The near-duplicate families of a list of skills (indexed like it), built once.

    Kept small for large catalogs: a family number per skill in one int array, and the
    qualifier words only for the skills that have some.
    """

    def __init__(
        self, skills: Sequence[SkillMetadata], terms: Callable[[str], Iterable[str]]
    ) -> None:
        """``terms`` splits a text into index terms as the ranker does (qualifier words are
        compared with the query's terms)."""
        n = len(skills)
        self._family = array("i", [-1]) * n
        first: dict[int, int] = {}  # key digest -> the first skill with it
        numbers: dict[int, int] = {}  # key digest -> family number, from its second skill on
        short: dict[int, list[int]] = {}  # a short first sentence's digest -> its skills
        for doc, skill in enumerate(skills):
            key = first_sentence(skill.description)
            if not _long_enough(key):
                if key:
                    short.setdefault(_digest(key), []).append(doc)
                continue
            digest = _digest(key)
            seen = first.setdefault(digest, doc)
            if seen != doc:
                number = numbers.get(digest)
                if number is None:
                    number = numbers[digest] = len(numbers)
                    self._family[seen] = number
                self._family[doc] = number
        count = len(numbers)
        del first, numbers
        for docs in short.values():
            if len(docs) > 1 and self._variants(skills, docs, count):
                count += 1
        del short
        self._members = sum(1 for f in self._family if f >= 0)
        #: doc -> the qualifier terms its name adds to another member's name.
        self.qualifiers: dict[int, frozenset[str]] = {}
        by_family: dict[int, dict[str, int]] = {}
        for doc, number in enumerate(self._family):
            if number >= 0:
                by_family.setdefault(number, {})[skills[doc].name.lower()] = doc
        for names in by_family.values():
            for own, doc in names.items():
                cut = _base_name(own, names)
                if cut > 0:
                    self.qualifiers[doc] = frozenset(terms(own[cut + 1 :].replace("-", " ")))

    def _variants(self, skills: Sequence[SkillMetadata], docs: list[int], number: int) -> bool:
        """Make family ``number`` of the skills of ``docs`` (which share a short first
        sentence) whose names say they are variants of one another; True when there were."""
        names = {skills[d].name.lower(): d for d in docs}
        related: set[int] = set()
        for own, doc in names.items():
            cut = _base_name(own, names)
            if cut > 0:
                related.update((doc, names[own[:cut]]))
        for doc in related:
            self._family[doc] = number
        return bool(related)

    def __len__(self) -> int:
        """How many skills have a near-duplicate."""
        return self._members

    def family_of(self, doc: int) -> int | None:
        """The family number of skill ``doc``, None when it has no near-duplicate."""
        number = self._family[doc]
        return None if number < 0 else number

    def fold(
        self,
        ranked: Sequence[tuple[int, float]],
        query_terms: Iterable[str],
        pinned: int | None = None,
    ) -> list[tuple[int, float]]:
        """``ranked`` (``(doc, score)``, best first) with families folded (see the module
        docstring); ``pinned`` (an exact name match) stays where it is."""
        if not self._members:
            return list(ranked)
        family = {d: f for d, _ in ranked if (f := self._family[d]) >= 0}
        if not family:
            return list(ranked)
        asked = frozenset(query_terms)
        # 1. Within each family, the slots it holds go to its members in a new order: the
        #    unqualified (or asked-for) ones first, each group in rank order.
        members: dict[int, list[tuple[int, float]]] = {}
        for item in ranked:
            number = family.get(item[0])
            if number is not None and item[0] != pinned:
                members.setdefault(number, []).append(item)
        order = {
            number: iter(sorted(items, key=lambda item: self._scoped(item[0], asked)))
            for number, items in members.items()
        }
        reordered = [
            next(order[family[d]]) if d in family and d != pinned else (d, s) for d, s in ranked
        ]
        # 2. A family keeps FAMILY_SHOWN places; the rest go after the other candidates.
        kept: dict[int, int] = {}
        head: list[tuple[int, float]] = []
        tail: list[tuple[int, float]] = []
        for d, s in reordered:
            number = family.get(d)
            if number is None:
                head.append((d, s))
                continue
            kept[number] = kept.get(number, 0) + 1
            (head if kept[number] <= FAMILY_SHOWN or d == pinned else tail).append((d, s))
        return head + tail

    def _scoped(self, doc: int, asked: frozenset[str]) -> bool:
        """True when ``doc`` is a scoped variant the request did not ask for."""
        extra = self.qualifiers.get(doc)
        return extra is not None and not (extra & asked)
