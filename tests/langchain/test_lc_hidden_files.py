"""Hidden and VCS files through create_agent: a model that names ``.env`` or ``.git/config``
gets a refusal, never their contents (only what the listing shows is readable)."""

from __future__ import annotations

from pathlib import Path

import pytest
from langchain_core.messages import ToolMessage

from skillcore.testing import write_skill
from skillcore_langchain.testing import tool_calls

SECRET = "TOKEN-9f3c-secret"
HIDDEN = (".env", ".git/config", "node_modules/pkg/index.js", "references/.secret")


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    d = write_skill(root, "alpha", "Alpha tasks.", "See references/guide.md.")
    for rel in (*HIDDEN, "references/guide.md"):
        (d / rel).parent.mkdir(parents=True, exist_ok=True)
        (d / rel).write_text(f"url = https://user:{SECRET}@example.com/r.git\n")
    (d / "references" / "guide.md").write_text("The guide.\n")
    return root


@pytest.mark.parametrize("use_async", [False, True], ids=["invoke", "ainvoke"])
def test_hidden_files_are_refused_by_name(
    make_agent, model, run, checkout: Path, use_async: bool
) -> None:
    agent, _ = make_agent(checkout)
    load = tool_calls(("load_skill", {"skill_name": "alpha"}))
    reads = tool_calls(
        *(("load_skill_resource", {"skill_name": "alpha", "path": p}) for p in HIDDEN),
        ("load_skill_resource", {"skill_name": "alpha", "path": "references/guide.md"}),
    )
    model.push(load, reads)
    out = run(agent, use_async=use_async)
    sent = [m for m in out["messages"] if isinstance(m, ToolMessage)]
    by_id = {m.tool_call_id: m for m in sent}
    *hidden_ids, guide_id = (c["id"] for c in reads.tool_calls)
    for call_id in hidden_ids:
        reply = by_id[call_id]
        assert reply.status == "error" and reply.artifact == {"code": "PATH_REJECTED"}
        assert "hidden" in str(reply.content)
    assert "The guide." in str(by_id[guide_id].content)
    assert all(SECRET not in str(m.content) for m in out["messages"])
    # Nor is any of it in what the model was sent.
    assert SECRET not in repr(model.requests[-1]["messages"])
