"""Binary resources through create_agent: the image/file arrives as a standard content block."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from langchain_core.messages import ToolMessage

from skillcore.testing import write_skill
from skillcore_langchain.testing import tool_calls

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(200))
PDF = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\nbody"


@pytest.fixture
def pics(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    d = write_skill(root, "pics", "Pictures.", "See assets/logo.png and assets/guide.pdf.")
    (d / "assets").mkdir()
    (d / "assets" / "logo.png").write_bytes(PNG)
    (d / "assets" / "guide.pdf").write_bytes(PDF)
    (d / "assets" / "blob.bin").write_bytes(b"\x00\x01\x02")
    return root


def _tool_message(model, call_id: str) -> ToolMessage:
    """The ToolMessage the model was sent for ``call_id`` (on its last request)."""
    found = [
        m
        for m in model.requests[-1]["messages"]
        if isinstance(m, ToolMessage) and m.tool_call_id == call_id
    ]
    assert len(found) == 1, model.requests[-1]["messages"]
    return found[0]


@pytest.mark.parametrize("use_async", [False, True], ids=["invoke", "ainvoke"])
def test_image_and_pdf_arrive_as_content_blocks(
    make_agent, model, run, pics: Path, use_async: bool
) -> None:
    agent, _ = make_agent(pics, binary_resources=True)
    load = tool_calls(("load_skill", {"skill_name": "pics"}))
    read = tool_calls(
        ("load_skill_resource", {"skill_name": "pics", "path": "assets/logo.png"}),
        ("load_skill_resource", {"skill_name": "pics", "path": "assets/guide.pdf"}),
        ("load_skill_resource", {"skill_name": "pics", "path": "assets/blob.bin"}),
    )
    model.push(load, read)
    run(agent, use_async=use_async)
    png_id, pdf_id, bin_id = (c["id"] for c in read.tool_calls)

    image = _tool_message(model, png_id)
    assert image.status == "success" and image.artifact == {"code": "RESOURCE_READ"}
    text, block = image.content
    assert text["type"] == "text" and "image/png" in text["text"]
    assert block == {
        "type": "image",
        "base64": base64.b64encode(PNG).decode(),
        "mime_type": "image/png",
    }
    # langchain-core reads it as a standard image block.
    assert [b["type"] for b in image.content_blocks] == ["text", "image"]

    pdf = _tool_message(model, pdf_id)
    assert pdf.content[1] == {
        "type": "file",
        "base64": base64.b64encode(PDF).decode(),
        "mime_type": "application/pdf",
        "extras": {"filename": "guide.pdf"},
    }
    assert [b["type"] for b in pdf.content_blocks] == ["text", "file"]

    # Unknown binary: refused as before, plain text.
    blob = _tool_message(model, bin_id)
    assert blob.status == "error" and isinstance(blob.content, str)
    assert blob.artifact == {"code": "BINARY_RESOURCE"}


def test_default_is_off(make_agent, model, run, pics: Path) -> None:
    agent, mw = make_agent(pics)
    assert mw.toolkit.binary_resources is False
    read = tool_calls(("load_skill_resource", {"skill_name": "pics", "path": "assets/logo.png"}))
    model.push(tool_calls(("load_skill", {"skill_name": "pics"})), read)
    run(agent)
    reply = _tool_message(model, read.tool_calls[0]["id"])
    assert reply.status == "error" and reply.artifact == {"code": "BINARY_RESOURCE"}
    assert isinstance(reply.content, str)
