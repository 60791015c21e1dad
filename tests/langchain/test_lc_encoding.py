"""Through ``create_agent``: a chosen encoder ranks ``search_skills``, and it has embedded
every skill once the agent's first model call has its prompt, before any search."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from langchain_core.messages import HumanMessage, ToolMessage
from tests.core.extras import needs

from skillcore.catalog import Calibration, EmbedderId, Encoding
from skillcore_langchain.testing import tool_calls

pytestmark = needs("numpy")
CFG: Any = {"configurable": {"thread_id": "encoding"}}


class WordVectors:
    """An encoder that knows two words, both meaning "the CSV skill"."""

    def __init__(self) -> None:
        self.embedded: list[str] = []

    @property
    def id(self) -> EmbedderId:
        return EmbedderId("word-vectors", "1", "0" * 64)

    def embed(self, texts: Sequence[str]) -> Any:
        import numpy as np

        self.embedded += texts
        out = np.zeros((len(texts), 2), dtype=np.float32)
        for i, text in enumerate(texts):
            words = text.lower()
            out[i] = [1.0, 0.0] if "csv" in words or "spreadsheet" in words else [0.0, 1.0]
        return out


def _join_warm_ups() -> None:
    for thread in threading.enumerate():
        if thread.name == "skillcore-warm-up":
            thread.join(60)


def test_the_encoder_is_loaded_with_the_prompt_and_ranks_the_search(
    make_agent, model, examples: Path
) -> None:
    emb = WordVectors()
    encoding = Encoding(emb, mode="replace", calibration=Calibration(0.5, 0.5), cache=False)
    agent, _ = make_agent(examples, ranker="hybrid", encoding=encoding)
    agent.invoke({"messages": [HumanMessage("hello")]}, CFG)  # no search: a plain answer
    _join_warm_ups()
    skills = len(emb.embedded)
    assert skills >= 5 and "hello" not in emb.embedded  # every skill, before any search

    model.push(tool_calls(("search_skills", {"query": "tidy my spreadsheet"})))
    out = agent.invoke({"messages": [HumanMessage("tidy my spreadsheet")]}, CFG)
    reply = next(m for m in reversed(out["messages"]) if isinstance(m, ToolMessage)).text
    assert reply.splitlines()[1].startswith("- csv-data-audit:"), reply
    assert emb.embedded[skills:] == ["tidy my spreadsheet"]  # the query alone
