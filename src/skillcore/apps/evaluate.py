"""Skill selection, measured: does the right skill reach the model?

Two kinds of query file:

- **trigger evals**, the agentskills format for one skill:
  ``[{"query": "...", "should_trigger": true}, ...]``. Positive queries must find the skill;
  negative ones must not put it first.
- **routing files** for a whole library: ``[{"query": "...", "skill": "name"}, ...]``; an
  entry with ``"skill": null`` is a request no skill serves (the search should abstain).

:func:`evaluate` reports recall@k and MRR of the ranked search, and for the catalog in the
prompt whether the expected skill is *visible* within the budget, *found by one search*
(top 10, what the search tool returns), or either; how often the search abstains ("no close
match") on requests no skill serves and on routed ones; and *reachable*: the skill is in
the catalog, in the per-request suggestion note, or in the search tool's top 5.
:func:`confusable_pairs` lists skills whose descriptions are so alike that a model is likely
to pick the wrong one.
"""

from __future__ import annotations

import heapq
import json
import math
import os
import stat
from collections.abc import Iterable, Sequence
from pathlib import Path

import attrs

from skillcore.catalog import (
    ABSTAIN_KEEP,
    STOPWORDS,
    WORD,
    CatalogOrder,
    Encoding,
    Ranker,
    SearchIndex,
    index_for,
    relevant_catalog,
    resolve_ranker,
    semantic_available,
    skill_text,
    tokens,
    word_terms,
)
from skillcore.errors import SkillcoreError
from skillcore.limits import Limits
from skillcore.model import Catalog, SkillMetadata
from skillcore.parse import MAX_HEADINGS
from skillcore.state import SkillSession
from skillcore.tools import NOTE_SUGGESTIONS

#: Bounds on what an eval file may hold.
MAX_EVAL_FILE_BYTES = 10 * 1024 * 1024
MAX_CASES = 100_000
MAX_QUERY_CHARS = 4_000
#: How many results one call of the search tool returns.
SEARCH_DEPTH = 10
KS = (1, 5, 10)
#: "Reachable": the skill is in the catalog, suggested, or within this many search results.
REACH_DEPTH = 5
#: Up to this many skills, the semantic linter compares every pair.
SEMANTIC_ALL_PAIRS = 1_500


class EvalFileError(SkillcoreError, ValueError):
    """An eval file that cannot be used: the message names the file, the entry and why."""


@attrs.frozen
class EvalCase:
    """One query and the skill it is about (``should_trigger`` False: must not win; ``skill``
    None: no skill serves the request)."""

    query: str
    skill: str | None
    should_trigger: bool = True


def _read_bounded(path: Path) -> bytes:
    # Non-blocking open, then fstat: a FIFO or device given as an eval file is refused
    # instead of blocking the command forever.
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise EvalFileError(f"{path}: not a regular file")
        if st.st_size > MAX_EVAL_FILE_BYTES:
            raise EvalFileError(f"{path}: {st.st_size} bytes, more than {MAX_EVAL_FILE_BYTES}")
        chunks: list[bytes] = []
        total = 0
        while total <= MAX_EVAL_FILE_BYTES:
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > MAX_EVAL_FILE_BYTES:
            raise EvalFileError(f"{path}: more than {MAX_EVAL_FILE_BYTES} bytes")
        return b"".join(chunks)
    finally:
        os.close(fd)


def _read_entries(path: Path) -> list[object]:
    try:
        data = json.loads(_read_bounded(path).decode("utf-8"))
    except OSError as exc:
        raise EvalFileError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise EvalFileError(f"{path}: not valid JSON: {exc}") from exc
    if isinstance(data, dict) and isinstance(data.get("evals", data.get("queries")), list):
        data = data.get("evals", data.get("queries"))
    if not isinstance(data, list):
        raise EvalFileError(f"{path}: expected a JSON list of objects")
    if len(data) > MAX_CASES:
        raise EvalFileError(f"{path}: {len(data)} entries, more than {MAX_CASES}")
    return data


def _query(path: Path, i: int, entry: object) -> dict[str, object]:
    if not isinstance(entry, dict):
        raise EvalFileError(f"{path}: entry {i}: expected an object, got {type(entry).__name__}")
    query = entry.get("query")
    if not isinstance(query, str) or not query.strip():
        raise EvalFileError(f"{path}: entry {i}: 'query' must be a non-empty string")
    if len(query) > MAX_QUERY_CHARS:
        raise EvalFileError(f"{path}: entry {i}: query longer than {MAX_QUERY_CHARS} characters")
    return entry


def load_trigger_evals(path: str | Path, skill: str) -> list[EvalCase]:
    """Cases of an agentskills trigger-eval file for ``skill``."""
    path = Path(path)
    cases = []
    for i, entry in enumerate(_read_entries(path)):
        item = _query(path, i, entry)
        flag = item.get("should_trigger", True)
        if not isinstance(flag, bool):
            raise EvalFileError(f"{path}: entry {i}: 'should_trigger' must be true or false")
        cases.append(EvalCase(str(item["query"]), skill, flag))
    return cases


def load_routing(path: str | Path) -> list[EvalCase]:
    """Cases of a routing file: ``[{"query": ..., "skill": ...}]``."""
    path = Path(path)
    cases = []
    for i, entry in enumerate(_read_entries(path)):
        item = _query(path, i, entry)
        skill = item.get("skill")
        if "skill" not in item or (skill is not None and (not isinstance(skill, str) or not skill)):
            raise EvalFileError(
                f"{path}: entry {i}: 'skill' must be a skill name, or null for a request "
                "no skill serves"
            )
        cases.append(EvalCase(str(item["query"]), skill, bool(item.get("should_trigger", True))))
    return cases


def skill_for_file(path: str | Path, names: Iterable[str]) -> str | None:
    """The skill a trigger-eval file belongs to: the nearest folder named like a skill
    (``<skill>/evals/triggers.json``), else the file name (``evals/<skill>.json``)."""
    known = set(names)
    p = Path(path)
    for part in reversed(p.resolve().parent.parts):
        if part in known:
            return part
    return p.stem if p.stem in known else None


@attrs.frozen
class Miss:
    """A positive case whose skill was not ranked first."""

    query: str
    expected: str
    got: str | None
    rank: int | None


@attrs.frozen
class EvalReport:
    """Selection quality of one library for one set of cases (fractions in 0..1)."""

    skills: int
    positives: int
    negatives: int
    unknown: tuple[str, ...]
    recall: dict[int, float]
    mrr: float
    visible: float
    found_by_search: float
    visible_or_found: float
    #: Negative cases whose skill came out first (a false trigger).
    false_triggers: float
    misses: tuple[Miss, ...]
    ranker: str
    budget: int
    #: Requests no skill serves (``"skill": null``).
    unserved: int = 0
    #: Share of them for which the search abstained ("no close match").
    abstain_recall: float = 0.0
    #: Share of abstentions (over all requests) that were for requests no skill serves.
    abstain_precision: float = 0.0
    #: Share of requests no skill serves that got at most ``ABSTAIN_KEEP`` results.
    few_results: float = 0.0
    #: Share of routed requests for which the search abstained.
    routed_abstained: float = 0.0
    #: recall@k of what the search tool returns (after abstention cut the list).
    tool_recall: dict[int, float] = attrs.field(factory=dict)
    #: Routed requests whose skill the per-request suggestion note names.
    suggested: float = 0.0
    #: Routed requests whose skill is in the catalog, suggested, or in the tool's top 5.
    reachable: float = 0.0

    def to_dict(self) -> dict[str, object]:
        """JSON-native form."""
        data = attrs.asdict(self)
        data["recall"] = {str(k): v for k, v in self.recall.items()}
        data["tool_recall"] = {str(k): v for k, v in self.tool_recall.items()}
        return data


#: The catalog budget of a session with default limits.
DEFAULT_BUDGET = Limits().catalog_budget


def visible_names(catalog: Catalog, budget: int) -> frozenset[str]:
    """Skills whose entry the budgeted catalog shows with no skill loaded."""
    from skillcore.catalog import CatalogFormat, catalog_view
    from skillcore.limits import Limits
    from skillcore.state import SkillSession

    if budget <= 0:
        return frozenset()
    session = SkillSession(catalog, Limits(catalog_budget=budget))
    return frozenset(catalog_view(session, CatalogFormat.MARKDOWN, budget).shown)


def relevant_shown(catalog: Catalog, query: str, budget: int, ranker: Ranker) -> set[str]:
    """Skills the relevance-aware catalog shows with a description for ``query``."""
    if budget <= 0:
        return set()
    session = SkillSession(catalog, Limits(catalog_budget=budget))
    return set(relevant_catalog(session, query, budget=budget, ranker=ranker).shown)


def evaluate(
    catalog: Catalog,
    cases: Sequence[EvalCase],
    *,
    ranker: Ranker = "auto",
    budget: int = DEFAULT_BUDGET,
    ks: Sequence[int] = KS,
    catalog_order: CatalogOrder | str = CatalogOrder.PRECEDENCE,
    suggestions: int = NOTE_SUGGESTIONS,
    encoding: Encoding | None = None,
) -> EvalReport:
    """Run ``cases`` against ``catalog`` and measure selection (see the module docstring).

    Cases naming a skill that is not in the catalog (or hidden from the model) are left out
    of the scores and listed in ``unknown``. ``catalog_order="relevance"`` measures
    visibility in the relevance-aware catalog (:mod:`skillcore.catalog.relevance`) for each
    query instead of the precedence-ordered one. ``suggestions``: how many skills the
    per-request note names and ``encoding`` the encoders (as in :class:`SkillToolkit`)."""
    order = CatalogOrder(catalog_order)  # ValueError names an unknown order
    index = index_for(catalog, encoding)
    unknown, pos, neg, unserved = _sorted_cases(cases, {s.name for s in index.skills})
    shown = visible_names(catalog, budget)
    tally = _Tally(dict.fromkeys(ks, 0), dict.fromkeys(ks, 0))
    for case in pos:
        if order is CatalogOrder.PRECEDENCE:
            seen = case.skill in shown
        else:
            seen = case.skill in relevant_shown(catalog, case.query, budget, ranker)
        tally.add(index, case, seen, ranker, suggestions, ks)
    false = sum(
        1
        for case in neg
        if [h.skill.name for h in index.search(case.query, None, 1, ranker)] == [case.skill]
    )
    none_abstained, few = _abstentions(index, unserved, ranker)
    n = len(pos) or 1
    abstentions = none_abstained + tally.abstained
    return EvalReport(
        skills=len(index),
        positives=len(pos),
        negatives=len(neg),
        unknown=unknown,
        recall={k: tally.hits[k] / n for k in ks},
        mrr=tally.rr / n,
        visible=tally.visible / n,
        found_by_search=tally.found / n,
        visible_or_found=tally.either / n,
        false_triggers=false / (len(neg) or 1),
        misses=tuple(tally.misses),
        ranker=resolve_ranker(ranker),
        budget=budget,
        unserved=len(unserved),
        abstain_recall=none_abstained / (len(unserved) or 1),
        abstain_precision=none_abstained / (abstentions or 1),
        few_results=few / (len(unserved) or 1),
        routed_abstained=tally.abstained / n,
        tool_recall={k: tally.tool_hits[k] / n for k in ks},
        suggested=tally.suggested / n,
        reachable=tally.reachable / n,
    )


def _sorted_cases(
    cases: Sequence[EvalCase], present: set[str]
) -> tuple[tuple[str, ...], list[EvalCase], list[EvalCase], list[EvalCase]]:
    """The skills named that are not ``present``, then the cases that should find their
    skill, those that should not, and the requests no skill serves."""
    unknown = tuple(sorted({c.skill for c in cases if c.skill and c.skill not in present}))
    pos = [c for c in cases if c.skill and c.should_trigger and c.skill in present]
    neg = [c for c in cases if c.skill and not c.should_trigger and c.skill in present]
    unserved = [c for c in cases if c.skill is None]
    return unknown, pos, neg, unserved


def _abstentions(index: SearchIndex, unserved: list[EvalCase], ranker: Ranker) -> tuple[int, int]:
    """Of the requests no skill serves: how many the search abstains on, and how many get at
    most :data:`~skillcore.catalog.ranking.ABSTAIN_KEEP` results."""
    abstained = few = 0
    for case in unserved:
        picked = index.select(case.query, None, SEARCH_DEPTH, ranker)
        abstained += picked.abstained
        few += len(picked.hits) <= ABSTAIN_KEEP
    return abstained, few


@attrs.define
class _Tally:
    """What the queries that name a skill add up to (see :class:`EvalReport`)."""

    hits: dict[int, int]
    tool_hits: dict[int, int]
    rr: float = 0.0
    visible: int = 0
    found: int = 0
    either: int = 0
    suggested: int = 0
    reachable: int = 0
    abstained: int = 0
    misses: list[Miss] = attrs.Factory(list)

    def add(
        self,
        index: SearchIndex,
        case: EvalCase,
        seen: bool,
        ranker: Ranker,
        suggestions: int,
        ks: Sequence[int],
    ) -> None:
        """Count one query whose skill is ``case.skill`` (``seen``: in the catalog shown)."""
        assert case.skill is not None
        depth = max([*ks, SEARCH_DEPTH])
        picked = index.select(case.query, None, depth, ranker)
        ranked = [h.skill.name for h in index.search(case.query, None, depth, ranker)]
        tool = [h.skill.name for h in picked.hits]
        rank = ranked.index(case.skill) + 1 if case.skill in ranked else None
        for k in ks:
            self.hits[k] += rank is not None and rank <= k
            self.tool_hits[k] += case.skill in tool[:k]
        self.rr += 1.0 / rank if rank else 0.0
        got = rank is not None and rank <= SEARCH_DEPTH
        first = picked.hits[:suggestions]
        note = case.skill in [h.skill.name for h in picked.close if h in first]
        self.visible += seen
        self.found += got
        self.either += seen or got
        self.suggested += note
        self.reachable += seen or note or case.skill in tool[:REACH_DEPTH]
        self.abstained += picked.abstained
        if rank != 1:
            self.misses.append(Miss(case.query, case.skill, ranked[0] if ranked else None, rank))


def report_table(reports: Sequence[EvalReport]) -> str:
    """A Markdown table of eval reports, one row per library size."""
    head = (
        "| skills | queries | recall@1 | recall@5 | recall@10 | MRR | visible | "
        "found by search | visible or found | suggested | reachable | false triggers |"
    )
    rows = [head, "|" + " --- |" * 12]
    for r in reports:
        rows.append(
            f"| {r.skills} | {r.positives} | {r.recall.get(1, 0):.2f} | {r.recall.get(5, 0):.2f} "
            f"| {r.recall.get(10, 0):.2f} | {r.mrr:.2f} | {r.visible:.2f} | "
            f"{r.found_by_search:.2f} | {r.visible_or_found:.2f} | {r.suggested:.2f} | "
            f"{r.reachable:.2f} | " + (f"{r.false_triggers:.2f} |" if r.negatives else "- |")
        )
    if reports and any(r.unserved for r in reports):
        rows += [
            "",
            "| skills | requests no skill serves | abstained | 3 or fewer results | "
            "abstention precision | routed abstained | recall@5 after abstention |",
            "|" + " --- |" * 7,
        ]
        for r in reports:
            rows.append(
                f"| {r.skills} | {r.unserved} | {r.abstain_recall:.2f} | {r.few_results:.2f} | "
                f"{r.abstain_precision:.2f} | {r.routed_abstained:.2f} | "
                f"{r.tool_recall.get(5, 0):.2f} |"
            )
    if reports:
        r = reports[-1]
        rows.append(
            f"\nranker: {r.ranker}; catalog budget: {r.budget} characters; "
            f"{r.negatives} should-not-trigger queries"
        )
    return "\n".join(rows)


def load_skill_facts(path: str | Path) -> Catalog:
    """A catalog of skill facts from a JSON file: a list of ``{"name", "description"}``
    objects (or ``{"skills": [...]}``), e.g. ``examples/evals/selection/skills.json``; an
    optional ``"headings"`` list holds the body's section headings (as discovery reads
    them, at most :data:`~skillcore.parse.frontmatter_caps.MAX_HEADINGS` kept)."""
    from skillcore.model import SkillLocation

    path = Path(path)
    try:
        if path.stat().st_size > MAX_EVAL_FILE_BYTES:
            raise EvalFileError(f"{path}: more than {MAX_EVAL_FILE_BYTES} bytes")
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise EvalFileError(f"{path}: cannot read skill facts: {exc}") from exc
    data = raw.get("skills") if isinstance(raw, dict) else raw
    if not isinstance(data, list) or len(data) > MAX_CASES:
        raise EvalFileError(f"{path}: expected a list of at most {MAX_CASES} skills")
    skills = []
    for i, entry in enumerate(data):
        if not isinstance(entry, dict):
            raise EvalFileError(f"{path}: entry {i}: expected an object")
        name, desc = entry.get("name"), entry.get("description")
        if not isinstance(name, str) or not name or not isinstance(desc, str):
            raise EvalFileError(f"{path}: entry {i}: needs a 'name' and a 'description'")
        headings = entry.get("headings", [])
        if not isinstance(headings, list) or not all(isinstance(h, str) for h in headings):
            raise EvalFileError(f"{path}: entry {i}: 'headings' must be a list of strings")
        location = SkillLocation(path.name, name, f"{path}#{name}")
        skills.append(SkillMetadata(name, desc, location, headings=headings[:MAX_HEADINGS]))
    if not skills:
        raise EvalFileError(f"{path}: no skills")
    return Catalog(tuple(skills))


def sub_catalog(catalog: Catalog, size: int, keep: Iterable[str] = ()) -> Catalog:
    """A catalog of ``size`` skills: those named in ``keep`` first, filled with the others in
    catalog order; the result keeps catalog (precedence) order. Deterministic."""
    wanted = set(keep)
    chosen = [s for s in catalog.skills if s.name in wanted][:size]
    taken = {s.name for s in chosen}
    for s in catalog.skills:
        if len(chosen) >= size:
            break
        if s.name not in taken:
            chosen.append(s)
            taken.add(s.name)
    return Catalog(tuple(s for s in catalog.skills if s.name in taken))


# -- confusable descriptions ----------------------------------------------------------------


@attrs.frozen
class ConfusablePair:
    """Two skills whose descriptions are alike (cosine similarity in 0..1)."""

    first: str
    second: str
    score: float
    shared: tuple[str, ...]


def confusable_pairs(
    catalog: Catalog | Iterable[SkillMetadata],
    top: int = 20,
    method: str = "tfidf",
    min_score: float = 0.0,
) -> list[ConfusablePair]:
    """The ``top`` most similar pairs of model-visible skills, most similar first.

    ``method``: ``"tfidf"`` (cosine of TF-IDF vectors of name, description and triggers),
    ``"semantic"`` (cosine of embeddings; needs the semantic extra) or ``"auto"`` (semantic
    when installed). Pairs are found through shared distinctive words, so the cost stays
    near-linear in the catalog size.
    """
    skills = [s for s in catalog if not s.disable_model_invocation]
    if method not in ("auto", "tfidf", "semantic"):
        raise ValueError(f"unknown method {method!r}; use 'auto', 'tfidf' or 'semantic'")
    vectors = _tfidf(skills)
    use_semantic = method == "semantic" or (method == "auto" and semantic_available())
    candidates = _candidate_pairs(vectors)
    if use_semantic:
        from skillcore.catalog import SemanticIndex

        emb = SemanticIndex(skills).vectors
        if len(skills) <= SEMANTIC_ALL_PAIRS:
            # Small enough to compare every pair: embeddings find paraphrases that share
            # no distinctive word.
            sims = emb @ emb.T
            candidates = {(a, b) for a in range(len(skills)) for b in range(a + 1, len(skills))}
            scored = [(float(sims[a, b]), a, b) for a, b in candidates]
        else:
            scored = [(float(emb[a] @ emb[b]), a, b) for a, b in candidates]
    else:
        scored = [(_cosine(vectors[a], vectors[b]), a, b) for a, b in candidates]
    best = heapq.nsmallest(
        top,
        ((-s, skills[a].name, skills[b].name, a, b) for s, a, b in scored if s >= min_score),
    )
    return [
        ConfusablePair(
            na,
            nb,
            round(-s, 4),
            # Heaviest first, ties by the term itself: the same list on every run; shown as
            # the first skill writes them ("propose", not the index term "propos").
            tuple(
                _written(skills[a], t)
                for t in sorted(
                    vectors[a].keys() & vectors[b].keys(), key=lambda t: (-vectors[a][t], t)
                )[:6]
            ),
        )
        for s, na, nb, a, b in best
    ]


def _written(skill: SkillMetadata, term: str) -> str:
    """The first word of ``skill``'s text whose index term is ``term`` (else the term)."""
    for word in WORD.findall(skill_text(skill).lower()):
        if term in word_terms(word):
            return str(word)
    return term


def _tfidf(skills: Sequence[SkillMetadata]) -> list[dict[str, float]]:
    docs = [[w for w in tokens(skill_text(s)) if w not in STOPWORDS] for s in skills]
    df: dict[str, int] = {}
    for words in docs:
        for w in set(words):
            df[w] = df.get(w, 0) + 1
    n = len(docs)
    out = []
    for words in docs:
        tf: dict[str, float] = {}
        for w in words:
            tf[w] = tf.get(w, 0.0) + 1.0
        vec = {w: (1 + math.log(c)) * math.log(1 + n / df[w]) for w, c in tf.items()}
        norm = math.sqrt(sum(v * v for v in vec.values())) or 1.0
        out.append({w: v / norm for w, v in vec.items()})
    return out


def _cosine(a: dict[str, float], b: dict[str, float]) -> float:
    if len(a) > len(b):
        a, b = b, a
    return sum(v * b.get(w, 0.0) for w, v in a.items())


def _candidate_pairs(vectors: Sequence[dict[str, float]], per_doc: int = 8) -> set[tuple[int, int]]:
    """Pairs that share one of their ``per_doc`` heaviest words (bounded per word)."""
    postings: dict[str, list[int]] = {}
    for i, vec in enumerate(vectors):
        for w in heapq.nlargest(per_doc, vec, key=vec.__getitem__):
            postings.setdefault(w, []).append(i)
    pairs: set[tuple[int, int]] = set()
    for docs in postings.values():
        if len(docs) > 200:  # a word that many skills share says little about any pair
            continue
        for x in range(len(docs)):
            for y in range(x + 1, len(docs)):
                pairs.add((docs[x], docs[y]))
    return pairs
