"""``catalog_order="relevance"`` through ``create_agent``: the catalog in the system message is
ranked for the latest user message and stays the same for every model call of that message."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

from skillcore.catalog.relevance import _relevant
from skillcore.testing import INVOICE_QUERY as INVOICE
from skillcore.testing import RELEVANCE_BUDGET as BUDGET
from skillcore.testing import ROLLOUT_QUERY as ROLLOUT
from skillcore.testing import make_relevance_library
from skillcore_langchain._messages import latest_user_text as _latest_user_text
from skillcore_langchain.testing import ScriptedChatModel, tool_calls


@pytest.fixture
def library(tmp_path: Path) -> Path:
    """300 skills; the two that matter sort last, past any small budget in precedence order."""
    root = tmp_path / "skills"
    make_relevance_library(root)
    return root


@pytest.mark.parametrize("use_async", [False, True])
def test_relevance_puts_the_asked_skill_in_the_prompt_and_keeps_it_stable(
    library: Path, model: ScriptedChatModel, make_agent: Any, run: Any, use_async: bool
) -> None:
    agent, _ = make_agent(
        library, catalog_order="relevance", max_description_budget=BUDGET, system_prompt="Hi."
    )
    model.push(tool_calls(("Read", {"path": "invoice.pdf"})))  # two model calls this message
    misses = _relevant.cache_info().misses
    run(agent, INVOICE, use_async=use_async)
    assert len(model.requests) == 2
    assert _relevant.cache_info().misses == misses + 1  # ranked once for two calls
    first, second = model.system(0), model.system(1)
    assert "**zz-invoice-check**" in first
    assert first == second  # the same user message: the same prompt
    assert first.startswith("Hi.\n\n## Skills")

    run(agent, ROLLOUT, use_async=use_async)  # a new user message re-ranks the catalog
    assert "**zz-k8s-rollout**" in model.system()
    assert "**zz-invoice-check**" not in model.system()


def test_precedence_does_not_show_it(
    library: Path, model: ScriptedChatModel, make_agent: Any, run: Any
) -> None:
    agent, _ = make_agent(library, max_description_budget=BUDGET)
    model.push(tool_calls(("Read", {"path": "invoice.pdf"})))
    run(agent, INVOICE)
    assert "zz-invoice-check" not in model.system(0)
    assert model.system(0) == model.system(1)


def test_latest_user_text_reads_the_last_human_message() -> None:
    messages = [
        SystemMessage("sys"),
        HumanMessage("old question"),
        AIMessage("answer"),
        HumanMessage(
            [
                {"type": "text", "text": "check the"},
                {"type": "image", "url": "https://example.com/a.png"},
                "invoice",
            ]
        ),
        AIMessage("", tool_calls=[{"name": "Read", "args": {}, "id": "1"}]),
        ToolMessage("file text", tool_call_id="1"),
    ]
    assert _latest_user_text(messages) == "check the\ninvoice"
    assert _latest_user_text([SystemMessage("sys"), AIMessage("hi")]) is None
