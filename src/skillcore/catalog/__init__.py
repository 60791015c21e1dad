"""The catalog in the prompt: rendering with budgets, ranking, relevance and prompt modes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from skillcore._faces import face

if TYPE_CHECKING:
    from skillcore.catalog.embedders import (
        Calibration,
        Embedder,
        EmbedderId,
        Encoding,
        sharing_query_vectors,
    )
    from skillcore.catalog.prompt import (
        PromptMode,
        PromptTemplate,
        resolve_prompt_mode,
        to_template,
    )
    from skillcore.catalog.ranking import (
        ABSTAIN_KEEP,
        RANKERS,
        Ranker,
        SearchIndex,
        Selection,
        index_for,
        resolve_ranker,
    )
    from skillcore.catalog.relevance import CatalogOrder, query_text, relevant_catalog
    from skillcore.catalog.render import (
        CatalogFormat,
        CatalogView,
        catalog_intro,
        catalog_view,
        entry_description,
        render_catalog,
        render_load_reply,
    )
    from skillcore.catalog.search import SearchHit, search_skills
    from skillcore.catalog.second_stage import (
        COMPACT_RESULTS,
        MAX_VARIANTS_NAMED,
        RERANK_DEPTH,
        Candidate,
        Reranker,
        SearchStyle,
        compact_line,
        rerank,
        with_variants,
    )
    from skillcore.catalog.semantic import SemanticIndex, semantic_available, skill_text
    from skillcore.catalog.terms import STOPWORDS, WORD, tokens, word_terms
    from skillcore.catalog.warmup import warm_up

__getattr__, __dir__, __all__ = face(
    __name__,
    {
        "ABSTAIN_KEEP": "skillcore.catalog.ranking",
        "with_variants": "skillcore.catalog.second_stage",
        "rerank": "skillcore.catalog.second_stage",
        "compact_line": "skillcore.catalog.second_stage",
        "SearchStyle": "skillcore.catalog.second_stage",
        "Reranker": "skillcore.catalog.second_stage",
        "Candidate": "skillcore.catalog.second_stage",
        "RERANK_DEPTH": "skillcore.catalog.second_stage",
        "COMPACT_RESULTS": "skillcore.catalog.second_stage",
        "MAX_VARIANTS_NAMED": "skillcore.catalog.second_stage",
        "RANKERS": "skillcore.catalog.ranking",
        "STOPWORDS": "skillcore.catalog.terms",
        "WORD": "skillcore.catalog.terms",
        "Calibration": "skillcore.catalog.embedders",
        "Embedder": "skillcore.catalog.embedders",
        "EmbedderId": "skillcore.catalog.embedders",
        "Encoding": "skillcore.catalog.embedders",
        "sharing_query_vectors": "skillcore.catalog.embedders",
        "warm_up": "skillcore.catalog.warmup",
        "CatalogFormat": "skillcore.catalog.render",
        "CatalogOrder": "skillcore.catalog.relevance",
        "CatalogView": "skillcore.catalog.render",
        "PromptMode": "skillcore.catalog.prompt",
        "PromptTemplate": "skillcore.catalog.prompt",
        "Ranker": "skillcore.catalog.ranking",
        "SearchHit": "skillcore.catalog.search",
        "SearchIndex": "skillcore.catalog.ranking",
        "Selection": "skillcore.catalog.ranking",
        "SemanticIndex": "skillcore.catalog.semantic",
        "catalog_intro": "skillcore.catalog.render",
        "catalog_view": "skillcore.catalog.render",
        "entry_description": "skillcore.catalog.render",
        "index_for": "skillcore.catalog.ranking",
        "query_text": "skillcore.catalog.relevance",
        "relevant_catalog": "skillcore.catalog.relevance",
        "render_catalog": "skillcore.catalog.render",
        "render_load_reply": "skillcore.catalog.render",
        "resolve_prompt_mode": "skillcore.catalog.prompt",
        "resolve_ranker": "skillcore.catalog.ranking",
        "search_skills": "skillcore.catalog.search",
        "semantic_available": "skillcore.catalog.semantic",
        "skill_text": "skillcore.catalog.semantic",
        "to_template": "skillcore.catalog.prompt",
        "tokens": "skillcore.catalog.terms",
        "word_terms": "skillcore.catalog.terms",
    },
)
