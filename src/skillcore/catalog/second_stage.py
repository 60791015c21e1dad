"""The second stage of search: a reranker over the first stage's best candidates, near-
duplicate variants named on one line, and compact candidate lists for the model to choose from.

The first stage (BM25, fused with embeddings when installed) finds the right skill among its
best 20 for about 0.95 of requests but puts it in the first 5 less often (see
docs/selection.md). A second stage looks at those few candidates more closely:

- a *reranker* — any callable ``(query, candidates) -> scores`` (a cross-encoder, an
  embedding model, a rule of the host's) — reorders the first :data:`RERANK_DEPTH`
  candidates. It never adds or drops one, an exact name match stays first, and the first
  stage's verdict on whether anything fits (abstention) stands; when the search abstains
  the reranker still sees every candidate and the :data:`ABSTAIN_KEEP` kept are its best
  (abstention cuts after reranking, not before). A reranker that raises or
  answers with the wrong number of finite scores is ignored for that query (logged): it
  orders results, it decides nothing about policy;
- *variants*: skills of one near-duplicate family (:mod:`skillcore.catalog.families`) take
  one line, the best-placed member's, which names the others, so siblings never fill the
  places of other candidates;
- the *compact* style lists :data:`COMPACT_RESULTS` candidates as name and one short line,
  so the model — the strongest second stage there is — picks from a wider list at about the
  tokens of a few full entries.
"""

from __future__ import annotations

import enum
import logging
import math
from collections.abc import Callable, Sequence

import attrs

from skillcore.catalog.ranking import ABSTAIN_KEEP, SearchHit, SearchIndex, Selection
from skillcore.model import SkillMetadata

#: Candidates of the first stage a reranker sees.
RERANK_DEPTH = 30
#: Candidates the compact search reply lists.
COMPACT_RESULTS = 20
#: Characters of a description the compact reply shows (its first sentence, cut there).
COMPACT_LINE_CHARS = 90
#: Variants named on one line at most (the rest are counted).
MAX_VARIANTS_NAMED = 5


class SearchStyle(str, enum.Enum):
    """How the search tool lists what it found."""

    #: The best :data:`~skillcore.tools.toolkit.SEARCH_LIMIT` skills with their descriptions.
    FULL = "full"
    #: :data:`COMPACT_RESULTS` skills, each with one short line, for the model to choose from.
    COMPACT = "compact"


#: Scores ``candidates`` for ``query``, higher is better, one per candidate in order.
Reranker = Callable[[str, Sequence[SkillMetadata]], Sequence[float]]

_log = logging.getLogger("skillcore.search")


def rerank(selection: Selection, query: str | None, reranker: Reranker) -> Selection:
    """``selection`` with its hits reordered by ``reranker`` (see the module docstring). An
    abstained selection is reranked with the candidates abstention withheld, then cut back
    to :data:`ABSTAIN_KEEP`."""
    hits = selection.hits + selection.withheld
    if not query or not query.strip() or len(hits) < 2:
        return selection
    try:
        # Stripped as the first stage read it, so an encoder's query vector is shared.
        scores = [float(s) for s in reranker(query.strip(), [h.skill for h in hits])]
    except Exception as exc:  # user code: a failure costs the order, not the search
        _log.warning("the search reranker failed (%s); using the first stage's order", exc)
        return selection
    if len(scores) != len(hits) or not all(math.isfinite(s) for s in scores):
        _log.warning(
            "the search reranker returned %d scores (finite: %s) for %d candidates; using the "
            "first stage's order",
            len(scores),
            all(math.isfinite(s) for s in scores),
            len(hits),
        )
        return selection
    confidences = selection.confidences + selection.withheld_confidences
    has_confidences = len(confidences) == len(hits)
    asked = query.strip().lower()
    first = hits[0].skill.name.lower()
    pinned = 1 if first in (asked, asked.replace(" ", "-")) else 0
    order = list(range(pinned)) + sorted(range(pinned, len(hits)), key=lambda i: -scores[i])
    ranked = tuple(hits[i] for i in order)
    each = tuple(confidences[i] for i in order) if has_confidences else ()
    cut = ABSTAIN_KEEP if selection.abstained else len(ranked)
    return attrs.evolve(
        selection,
        hits=ranked[:cut],
        confidences=each[:cut],
        withheld=ranked[cut:],
        withheld_confidences=each[cut:],
    )


@attrs.frozen
class Candidate:
    """One line of a search reply: a hit and the near-duplicate variants folded into it."""

    hit: SearchHit
    variants: tuple[str, ...] = ()


def with_variants(index: SearchIndex, hits: Sequence[SearchHit]) -> list[Candidate]:
    """``hits`` with each near-duplicate family on its best-placed member's line."""
    families = index.families_of([h.skill.name for h in hits])
    lines: list[Candidate] = []
    first_of: dict[int, int] = {}  # family -> its line
    for hit, family in zip(hits, families):
        if family is None:
            lines.append(Candidate(hit))
        elif family in first_of:
            line = lines[first_of[family]]
            lines[first_of[family]] = attrs.evolve(line, variants=(*line.variants, hit.skill.name))
        else:
            first_of[family] = len(lines)
            lines.append(Candidate(hit))
    return lines


def compact_line(skill: SkillMetadata) -> str:
    """A description cut to its first sentence and :data:`COMPACT_LINE_CHARS` characters."""
    text = " ".join(skill.description.split())
    for end in (". ", "? ", "! "):
        cut = text.find(end)
        if 0 < cut < COMPACT_LINE_CHARS:
            return text[: cut + 1]
    if len(text) <= COMPACT_LINE_CHARS:
        return text
    return text[: COMPACT_LINE_CHARS - 1].rsplit(" ", 1)[0] + "…"
