"""A skill past the length guidance through create_agent: the load reply is cut at the
configured cap with the offset of the rest, and the resource tool reads on from there."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from langchain_core.messages import ToolMessage

from skillcore import Limits
from skillcore.testing import write_skill
from skillcore_langchain.testing import tool_calls

CAP = 2_000


@pytest.fixture
def long_skill(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    body = "".join(f"Step {i}: follow this line of the long procedure.\n" for i in range(5_000))
    write_skill(root, "long", "A very long procedure.", body)
    return root


def _reply(model, call_id: str) -> str:
    found = [
        m
        for m in model.requests[-1]["messages"]
        if isinstance(m, ToolMessage) and m.tool_call_id == call_id
    ]
    assert len(found) == 1
    assert isinstance(found[0].content, str)
    return found[0].content


@pytest.mark.parametrize("use_async", [False, True], ids=["invoke", "ainvoke"])
def test_load_is_cut_and_the_rest_is_readable(
    make_agent, model, run, long_skill: Path, use_async: bool
) -> None:
    agent, _ = make_agent(long_skill, limits=Limits(max_load_chars=CAP))
    text = (long_skill / "long" / "SKILL.md").read_text()
    # Where the first cut falls: the last line end in the second half of the first page.
    start = text.index("Step 0:")
    first_cut = text.rfind("\n", start + CAP // 2, start + CAP) + 1
    load = tool_calls(("load_skill", {"skill_name": "long"}))
    more = tool_calls(
        ("load_skill_resource", {"skill_name": "long", "path": "SKILL.md", "offset": first_cut})
    )
    model.push(load, more)
    run(agent, use_async=use_async)
    loaded = _reply(model, load.tool_calls[0]["id"])
    assert len(loaded) < CAP + 600 and "Step 0:" in loaded and "Step 4999:" not in loaded
    assert f"offset {first_cut}." in loaded, loaded[-400:]
    page = _reply(model, more.tool_calls[0]["id"])
    assert page.split("\n", 1)[1].startswith(text[first_cut : first_cut + 200])
    following = int(re.search(r"and offset (\d+)\.", page).group(1))
    assert first_cut < following <= first_cut + CAP
