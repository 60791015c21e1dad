"""Binary resources through the real ``openai`` client (Chat Completions and Responses) and
the Agents SDK Runner: the request JSON carries the image/file part."""

from __future__ import annotations

import asyncio
import base64
import json
from pathlib import Path
from typing import Any

import openai
import pytest
from agents import Agent, RunConfig, Runner
from agents.testing import ScriptedModel, assistant_message, function_call

from skillcore import BinaryPayload, SkillLibrary
from skillcore.runtime import replies
from skillcore.testing import write_skill
from skillcore_openai import (
    AgentSkills,
    OpenAISkills,
    attachment_message,
    latest_user_text,
    tool_output,
)
from skillcore_openai.testing import ScriptedCall, ScriptedServer, text, tool_calls

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(200))
PDF = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\nbody"
PNG_URL = "data:image/png;base64," + base64.b64encode(PNG).decode()
PDF_URL = "data:application/pdf;base64," + base64.b64encode(PDF).decode()
LOAD = {"skill_name": "pics"}
LOGO = {"skill_name": "pics", "path": "assets/logo.png"}
GUIDE = {"skill_name": "pics", "path": "assets/guide.pdf"}
BLOB = {"skill_name": "pics", "path": "assets/blob.bin"}


@pytest.fixture
def library(tmp_path: Path) -> SkillLibrary:
    d = write_skill(tmp_path / "skills", "pics", "Pictures.", "See assets/logo.png.")
    (d / "assets").mkdir()
    (d / "assets" / "logo.png").write_bytes(PNG)
    (d / "assets" / "guide.pdf").write_bytes(PDF)
    (d / "assets" / "blob.bin").write_bytes(b"\x00\x01")
    return SkillLibrary([tmp_path / "skills"])


SCRIPT = [
    tool_calls(ScriptedCall("load_skill", LOAD, "c1")),
    tool_calls(
        ScriptedCall("load_skill_resource", LOGO, "c2"),
        ScriptedCall("load_skill_resource", GUIDE, "c3"),
        ScriptedCall("load_skill_resource", BLOB, "c4"),
    ),
    text("seen"),
]


def test_chat_completions_tool_text_then_user_attachments(
    library: SkillLibrary, server: ScriptedServer, client: openai.OpenAI
) -> None:
    skills = OpenAISkills(library, binary_resources=True)
    session = skills.session()
    server.add(*SCRIPT)
    messages: list[Any] = [{"role": "user", "content": "Describe the logo."}]
    for _ in range(3):
        response = client.chat.completions.create(
            model="m",
            messages=[{"role": "system", "content": skills.instructions(session)}, *messages],
            tools=skills.chat_tools(session),
        )
        message = response.choices[0].message
        messages.append(message)
        if not message.tool_calls:
            break
        turn = skills.dispatch_all(session, message.tool_calls)
        session = turn.session
        messages.extend(turn.messages)

    sent = server.requests[-1].body["messages"]
    roles = [m["role"] for m in sent]
    # The tool messages follow the assistant message at once; the attachments come after.
    assert roles[-6:] == ["assistant", "tool", "tool", "tool", "user", "user"]
    png_tool, pdf_tool, blob_tool, png_user, pdf_user = sent[-5:]
    assert png_tool["tool_call_id"] == "c2" and "image/png" in png_tool["content"]
    assert pdf_tool["tool_call_id"] == "c3" and "application/pdf" in pdf_tool["content"]
    assert blob_tool["content"].startswith("Error: ") and "binary file" in blob_tool["content"]
    assert png_user["content"][1] == {"type": "image_url", "image_url": {"url": PNG_URL}}
    assert png_user["content"][0]["text"].startswith(replies.ATTACHMENT_PREFIX)
    assert pdf_user["content"][1] == {
        "type": "file",
        "file": {"file_data": PDF_URL, "filename": "guide.pdf"},
    }
    # The attachment messages are not taken for the user's latest words.
    assert latest_user_text(messages) == "Describe the logo."


def test_responses_output_carries_the_parts(
    library: SkillLibrary, server: ScriptedServer, async_client: openai.AsyncOpenAI
) -> None:
    skills = OpenAISkills(library, binary_resources=True)

    async def loop() -> None:
        session = skills.session()
        items: list[Any] = [{"role": "user", "content": "Describe the logo."}]
        for _ in range(3):
            response = await async_client.responses.create(
                model="m", input=items, tools=skills.response_tools(session)
            )
            items += response.output
            calls = [i for i in response.output if i.type == "function_call"]
            if not calls:
                break
            turn = await skills.adispatch_all(session, calls)
            session = turn.session
            items += turn.messages
        await async_client.close()

    server.add(*SCRIPT)
    asyncio.run(loop())
    outputs = {
        i["call_id"]: i["output"]
        for i in server.requests[-1].body["input"]
        if i.get("type") == "function_call_output"
    }
    text_part, image = outputs["c2"]
    assert text_part["type"] == "input_text" and "image/png" in text_part["text"]
    assert image == {"type": "input_image", "image_url": PNG_URL}
    assert outputs["c3"][1] == {
        "type": "input_file",
        "file_data": PDF_URL,
        "filename": "guide.pdf",
    }
    assert isinstance(outputs["c4"], str) and "binary file" in outputs["c4"]
    # Nothing extra for the Responses API: the parts travel in the outputs themselves.
    assert [i.get("role") for i in server.requests[-1].body["input"]].count("user") == 1


def test_anthropic_tool_result_blocks() -> None:
    image = BinaryPayload("pics", "assets/logo.png", "image/png", PNG)
    pdf = BinaryPayload("pics", "assets/guide.pdf", "application/pdf", PDF)
    call = {"type": "tool_use", "id": "t1", "name": "load_skill_resource", "input": LOGO}
    out = tool_output(call, "Read it.", binary=image)
    assert out["content"] == [
        {"type": "text", "text": "Read it."},
        {
            "type": "image",
            "source": {"type": "base64", "media_type": "image/png", "data": image.base64()},
        },
    ]
    assert tool_output(call, "Read it.", binary=pdf)["content"][1]["type"] == "document"
    # Chat tool messages stay text; the bytes go in the attachment message.
    chat = {"id": "c", "type": "function", "function": {"name": "x", "arguments": "{}"}}
    assert tool_output(chat, "Read it.", binary=image)["content"] == "Read it."
    assert attachment_message(image)["role"] == "user"


def test_default_is_off(library: SkillLibrary) -> None:
    skills = OpenAISkills(library)
    session = skills.dispatch(skills.session(), _chat_call("load_skill", LOAD)).session
    result = skills.dispatch(session, _chat_call("load_skill_resource", LOGO))
    assert result.code is not None and result.code.value == "BINARY_RESOURCE"
    assert result.followup is None


def _chat_call(name: str, args: dict[str, str]) -> dict[str, Any]:
    return {
        "id": name,
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(args)},
    }


def test_agents_sdk_runner_sends_image_and_file_outputs(library: SkillLibrary) -> None:
    skills = AgentSkills(library, binary_resources=True)
    model = ScriptedModel(
        [
            [function_call("load_skill", LOAD, call_id="a1")],
            [
                function_call("load_skill_resource", LOGO, call_id="a2"),
                function_call("load_skill_resource", GUIDE, call_id="a3"),
                function_call("load_skill_resource", BLOB, call_id="a4"),
            ],
            [assistant_message("done")],
        ]
    )
    agent = Agent(name="a", instructions=skills.instructions(), tools=skills.tools(), model=model)
    result = asyncio.run(Runner.run(agent, "go", run_config=RunConfig(tracing_disabled=True)))
    assert result.final_output == "done"
    outputs = {
        i["call_id"]: i["output"]
        for i in model.calls[-1].input
        if isinstance(i, dict) and i.get("type") == "function_call_output"
    }
    assert outputs["a2"][0]["type"] == "input_text" and "image/png" in outputs["a2"][0]["text"]
    assert outputs["a2"][1] == {"type": "input_image", "image_url": PNG_URL}
    assert outputs["a3"][1] == {
        "type": "input_file",
        "file_data": PDF_URL,
        "filename": "guide.pdf",
    }
    assert isinstance(outputs["a4"], str) and "binary file" in outputs["a4"]
