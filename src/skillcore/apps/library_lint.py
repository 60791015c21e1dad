"""The library linter: what in a skill library makes the model pick the wrong skill.

Three rules, each a finding with the skills it names, a score and a suggested fix:

- ``overlap`` — two skills whose descriptions say nearly the same thing
  (:func:`~skillcore.apps.evaluate.confusable_pairs` at or above ``overlap_min``);
- ``black-hole`` — an over-general description that wins requests meant for unrelated
  skills. Every skill's own distinctive phrases (its body headings, its triggers, the later
  sentences of its description) are asked as *probe* requests against the whole library; a
  skill that comes first for the probes of many other, unrelated skills (not its near
  duplicates) is a black hole: it would hijack their requests;
- ``over-general`` — a description that claims every request ("any task", "anything",
  "whenever the user asks") and names almost nothing only it does (at most
  :data:`GENERAL_MAX_DISTINCT` words that few other skills use and that name a domain, see
  :data:`GENERIC_WORDS`). A model reading the catalog
  is drawn to such a skill; the search ranker is not (it favours specific words), so this
  rule reads the wording instead of asking probes;
- ``too-short`` — a description too short to route (few words), and ``no-when`` — one that
  never says when to use the skill.

No model and no network: probes run through the same search index the skill tools use, so
the linter sees the library as the ranker does. The cost is one search per probe (at most
:data:`PROBES_PER_SKILL` per skill): about a second per thousand skills with BM25.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence

import attrs

from skillcore.apps.evaluate import confusable_pairs
from skillcore.catalog import STOPWORDS, Ranker, index_for, tokens
from skillcore.model import Catalog, SkillMetadata

#: Probe requests asked per skill (its most distinctive phrases first).
PROBES_PER_SKILL = 4
#: A probe needs this many index words to say something about one skill.
PROBE_MIN_WORDS = 2
#: A heading shared by this share of the library (or by 3 skills) is boilerplate, not a probe
#: ("Overview", "Quick start").
BOILERPLATE_SHARE = 0.01
#: A skill is a black hole when it wins the probes of at least this many unrelated skills...
BLACK_HOLE_MIN_VICTIMS = 4
#: ...and of at least this share of the library's other skills (whichever is larger).
BLACK_HOLE_SHARE = 0.02
#: Description similarity at which two skills are reported as overlapping (TF-IDF cosine).
OVERLAP_MIN = 0.6
#: Overlapping pairs reported at most (the most similar first).
OVERLAP_TOP = 200
#: An over-general description names at most this many distinctive words...
GENERAL_MAX_DISTINCT = 2
#: ...a word being distinctive when at most this share of the skills (or 2) use it.
DISTINCT_SHARE = 0.01
#: Words that name no domain of their own: they never make a description distinctive.
_GENERIC = """
    any all every anything everything general purpose assistant helper help helps expert best
    practice practices quality result results high productivity boost boosts task tasks request
    requests question questions thing things work works job jobs need needs project projects
    code coding program programs software development develop developer app apps application
    applications file files document documents data content text language languages tool tools
    system systems workflow workflows user users team business modern framework frameworks make
    build create write edit review test debug fix refactor improve analyse analyze plan design
    generate automate convert format summarise summarize manage handle support run use deploy
    research writing related kind kinds type types way ways various more etc
"""
GENERIC_WORDS = frozenset(_GENERIC.split())
#: Claims of every request: "any task", "all kinds of documents", "anything", "whenever the user".
_UNIVERSAL = re.compile(
    r"\b(?:any|every|all)\s+(?:\w+\s+){0,2}?(?:tasks?|requests?|questions?|things?|kinds?|"
    r"types?|files?|code|projects?|languages?|documents?|work|needs?|purposes?)\b"
    r"|\b(?:anything|everything|whatever|general[- ]purpose|all-in-one|catch-all)\b"
    r"|\bwhenever the user\b",
    re.I,
)
#: Fewer words than this in a description is too little to route on.
MIN_DESCRIPTION_WORDS = 8
#: Words that say when to use a skill ("Use when...", "for ... tasks", "if the user asks").
_WHEN = re.compile(r"\b(when|whenever|if|for|use|used|trigger|triggers|before|after)\b", re.I)
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


@attrs.frozen
class LibraryFinding:
    """One thing in the library that makes routing worse, and what to do about it."""

    rule: str
    severity: str
    skills: tuple[str, ...]
    score: float
    message: str
    fix: str


@attrs.frozen
class LibraryLint:
    """The findings over one library: ``probes`` requests asked, ``skills`` linted."""

    skills: int
    probes: int
    findings: tuple[LibraryFinding, ...]

    def counts(self) -> dict[str, int]:
        """Findings per rule."""
        return dict(Counter(f.rule for f in self.findings))


def probe_requests(skills: Sequence[SkillMetadata]) -> list[tuple[str, str]]:
    """``(owner, request)`` probes: each skill's distinctive phrases, boilerplate left out."""
    heading_owners: Counter[str] = Counter()
    for skill in skills:
        heading_owners.update({h.strip().lower() for h in skill.headings})
    common = max(3, int(len(skills) * BOILERPLATE_SHARE))
    probes: list[tuple[str, str]] = []
    for skill in skills:
        phrases = [
            *(h for h in skill.headings if heading_owners[h.strip().lower()] < common),
            *skill.triggers,
            *_SENTENCE.split(skill.description.strip())[1:],
        ]
        seen: set[str] = set()
        taken = 0
        for phrase in phrases:
            key = phrase.strip().lower()
            if key in seen or len(tokens(phrase)) < PROBE_MIN_WORDS:
                continue
            seen.add(key)
            probes.append((skill.name, phrase.strip()))
            taken += 1
            if taken == PROBES_PER_SKILL:
                break
    return probes


def lint_library(
    catalog: Catalog | Iterable[SkillMetadata],
    *,
    ranker: Ranker = "bm25",
    overlap_min: float = OVERLAP_MIN,
    overlap_top: int = OVERLAP_TOP,
    min_words: int = MIN_DESCRIPTION_WORDS,
) -> LibraryLint:
    """Lint the model-visible skills of ``catalog`` (see the module docstring)."""
    skills = [s for s in catalog if not s.disable_model_invocation]
    pairs = confusable_pairs(skills, top=overlap_top, min_score=overlap_min)
    findings = [
        LibraryFinding(
            "overlap",
            "warning",
            (p.first, p.second),
            p.score,
            f"{p.first} and {p.second} describe nearly the same thing "
            f"(similarity {p.score:.2f}; shared: {', '.join(p.shared) or 'wording'})",
            "merge them, or make each description say what sets it apart and when not to use it",
        )
        for p in pairs
    ]
    near = {frozenset((p.first, p.second)) for p in pairs}
    probes = probe_requests(skills)
    findings += _black_holes(skills, probes, near, ranker)
    findings += _over_general(skills)
    findings += _short(skills, min_words)
    return LibraryLint(len(skills), len(probes), tuple(findings))


def _black_holes(
    skills: Sequence[SkillMetadata],
    probes: Sequence[tuple[str, str]],
    near: set[frozenset[str]],
    ranker: Ranker,
) -> list[LibraryFinding]:
    index = index_for(skills)
    victims: dict[str, set[str]] = {}
    for owner, request in probes:
        hits = index.search(request, None, 1, ranker)
        if not hits:
            continue
        winner = hits[0].skill.name
        if winner != owner and frozenset((winner, owner)) not in near:
            victims.setdefault(winner, set()).add(owner)
    floor = max(BLACK_HOLE_MIN_VICTIMS, int(BLACK_HOLE_SHARE * (len(skills) - 1)) + 1)
    out = []
    for name, lost in sorted(victims.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        if len(lost) < floor:
            continue
        share = len(lost) / max(1, len(skills) - 1)
        shown = ", ".join(sorted(lost)[:5]) + (", ..." if len(lost) > 5 else "")
        out.append(
            LibraryFinding(
                "black-hole",
                "warning",
                (name,),
                round(share, 4),
                f"{name} wins requests meant for {len(lost)} unrelated skills ({shown})",
                "narrow its description to what it alone does; name the tasks it is for "
                "instead of general words such as 'any', 'files', 'tasks', 'help'",
            )
        )
    return out


def _over_general(skills: Sequence[SkillMetadata]) -> list[LibraryFinding]:
    words = [{t for t in tokens(f"{s.name} {s.description}") if t not in STOPWORDS} for s in skills]
    used: Counter[str] = Counter()
    for w in words:
        used.update(w)
    rare = max(2, int(DISTINCT_SHARE * len(skills)))
    generic = set(tokens(" ".join(GENERIC_WORDS)))
    out = []
    for skill, own in zip(skills, words):
        claim = _UNIVERSAL.search(skill.description)
        if claim is None:
            continue
        distinct = sum(used[t] <= rare and t not in generic for t in own)
        if distinct > GENERAL_MAX_DISTINCT:
            continue
        out.append(
            LibraryFinding(
                "over-general",
                "warning",
                (skill.name,),
                float(distinct),
                f"{skill.name}: the description claims {claim.group(0)!r} and names "
                f"{distinct} word(s) few other skills use: a model reading the catalog is "
                "drawn to it for unrelated requests",
                "replace the claim with the concrete tasks and inputs this skill handles "
                "(file types, tools, domains) and say when not to use it",
            )
        )
    return out


def _short(skills: Sequence[SkillMetadata], min_words: int) -> list[LibraryFinding]:
    out = []
    for skill in skills:
        words = skill.description.split()
        if len(words) < min_words:
            out.append(
                LibraryFinding(
                    "too-short",
                    "warning",
                    (skill.name,),
                    float(len(words)),
                    f"{skill.name}: the description has {len(words)} words, too few to route on",
                    "say what the skill does, on what, and when to use it (one or two sentences)",
                )
            )
        elif not _WHEN.search(skill.description):
            out.append(
                LibraryFinding(
                    "no-when",
                    "info",
                    (skill.name,),
                    0.0,
                    f"{skill.name}: the description never says when to use the skill",
                    "add a clause such as 'Use when the user asks to ...'",
                )
            )
    return out
