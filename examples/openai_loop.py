"""A complete custom agent loop on the OpenAI SDK with skills, on either API.

    python -m skillcore.examples openai_loop            # offline, both APIs
    python -m skillcore.examples openai_loop --api responses "Is my CSV clean?"
    python -m skillcore.examples openai_loop --stream   # stream=True on both APIs

Offline (no OPENAI_API_KEY) the model is a scripted OpenAI-compatible server on 127.0.0.1, so
the real client, real HTTP and the real request payloads are used without a network. With
OPENAI_API_KEY set (and optionally OPENAI_BASE_URL for any OpenAI-compatible server, and
OPENAI_MODEL) it talks to that endpoint instead.

The loop gives the model the four skill tools plus two tools of its own, ``Read`` and
``Write``, and enforces the skills' ``allowed-tools`` (RESTRICT): while ``csv-data-audit`` is
loaded only ``Read`` (and ``Bash(python3:*)``) may run, so a ``Write`` is refused until the
model unloads the skill.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import openai

from skillcore import Limits, PolicyMode, SkillLibrary, ToolPolicy, examples_path
from skillcore.runtime import SessionRef
from skillcore_openai import ChatDeltas, OpenAISkills
from skillcore_openai.testing import ScriptedCall, ScriptedServer, text, tool_calls

# The bundled examples, found from any directory (installed package or checkout).
SKILLS = examples_path("skills")
ROOT = SKILLS.parent
SYSTEM = "You are a careful assistant. Use a skill when one matches the task."
PROMPT = "Which skill audits a CSV file? Load it, read its checklist and write a short plan."
OUT_DIR = Path(tempfile.gettempdir()) / "skillcore-openai-loop"

# -- the user's own tools ----------------------------------------------------------------------

OWN_PARAMS = {
    "Read": {
        "type": "object",
        "properties": {"path": {"type": "string", "description": "A file under examples/."}},
        "required": ["path"],
        "additionalProperties": False,
    },
    "Write": {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "A file name (written to a temp dir)."},
            "text": {"type": "string"},
        },
        "required": ["path", "text"],
        "additionalProperties": False,
    },
}
OWN_DESCRIPTIONS = {"Read": "Read a text file.", "Write": "Write a text file."}


def read(args: dict[str, Any]) -> str:
    path = (ROOT / str(args.get("path", ""))).resolve()
    if not path.is_relative_to(ROOT) or not path.is_file():
        return f"Error: no readable file {args.get('path')!r} under examples/"
    return path.read_text(encoding="utf-8")[:4000]


def write(args: dict[str, Any]) -> str:
    OUT_DIR.mkdir(exist_ok=True)
    target = OUT_DIR / Path(str(args.get("path", "out.txt"))).name
    target.write_text(str(args.get("text", "")), encoding="utf-8")
    return f"wrote {len(str(args.get('text', '')))} characters to {target}"


def own_tools(api: str) -> list[dict[str, Any]]:
    tools = []
    for name, params in OWN_PARAMS.items():
        fn = {"name": name, "description": OWN_DESCRIPTIONS[name], "parameters": params}
        tools.append(
            {"type": "function", "function": {**fn, "strict": True}}
            if api == "chat"
            else {"type": "function", **fn, "strict": True}
        )
    return tools


# -- the loops ---------------------------------------------------------------------------------


#: Every skill tool result of the current run, to tell afterwards what really happened.
RESULTS: list[Any] = []


def show(results: Any) -> None:
    for r in results:
        RESULTS.append(r)
        flag = "error" if r.is_error else "ok"
        first = (r.output or "").splitlines()[0][:90] if r.output else ""
        print(f"  {r.call.name}({r.call.arguments}) -> [{flag}] {first}")


def loads_failed(results: list[Any]) -> list[Any]:
    """The ``load_skill`` calls of a run, when every one of them failed (else [])."""
    loads = [r for r in results if r.call.name == "load_skill"]
    return loads if loads and all(r.is_error for r in loads) else []


def chat_loop(
    client: openai.OpenAI, model: str, skills: OpenAISkills, prompt: str, stream: bool = False
) -> str:
    session = skills.session(Limits(max_loaded=3), ToolPolicy(PolicyMode.RESTRICT))
    messages: list[Any] = [{"role": "system", "content": ""}, {"role": "user", "content": prompt}]
    for _ in range(10):
        # The catalog changes as skills load and unload: rebuild the system message each call.
        messages[0] = {"role": "system", "content": skills.instructions(session, SYSTEM)}
        tools = [*skills.chat_tools(session), *own_tools("chat")]
        if stream:
            # Tool calls arrive in pieces: assemble the message, dispatch when it is complete.
            deltas = ChatDeltas()
            for chunk in client.chat.completions.create(
                model=model, messages=messages, tools=tools, stream=True
            ):
                deltas.add(chunk)
            message: Any = deltas.message
            calls: Any = deltas.tool_calls
        else:
            response = client.chat.completions.create(model=model, messages=messages, tools=tools)
            message = response.choices[0].message
            calls = message.tool_calls
        messages.append(message)
        if not calls:
            return (message["content"] if stream else message.content) or ""
        turn = skills.dispatch_all(session, calls)
        show(turn.results)
        session = turn.session
        messages.extend(turn.messages)
    return "(stopped after 10 model calls)"


def responses_loop(
    client: openai.OpenAI, model: str, skills: OpenAISkills, prompt: str, stream: bool = False
) -> str:
    if stream:
        return responses_stream_loop(client, model, skills, prompt)
    session = skills.session(Limits(max_loaded=3), ToolPolicy(PolicyMode.RESTRICT))
    items: list[Any] = [{"role": "user", "content": prompt}]
    for _ in range(10):
        response = client.responses.create(
            model=model,
            instructions=skills.instructions(session, SYSTEM),
            input=items,
            tools=[*skills.response_tools(session), *own_tools("responses")],
        )
        items += response.output
        calls = [item for item in response.output if item.type == "function_call"]
        if not calls:
            return response.output_text
        turn = skills.dispatch_all(session, calls)
        show(turn.results)
        session = turn.session
        items += turn.messages
    return "(stopped after 10 model calls)"


def responses_stream_loop(
    client: openai.OpenAI, model: str, skills: OpenAISkills, prompt: str
) -> str:
    """Each function call is dispatched as soon as its ``response.output_item.done`` event
    arrives; one shared store carries the session from call to call."""
    store = SessionRef(skills.session(Limits(max_loaded=3), ToolPolicy(PolicyMode.RESTRICT)))
    items: list[Any] = [{"role": "user", "content": prompt}]
    for _ in range(10):
        results, answer = [], ""
        for event in client.responses.create(
            model=model,
            instructions=skills.instructions(store.read(), SYSTEM),
            input=items,
            tools=[*skills.response_tools(store.read()), *own_tools("responses")],
            stream=True,
        ):
            if event.type == "response.output_item.done":
                items.append(event.item)
                if event.item.type == "function_call":
                    results.append(skills.dispatch(store, event.item))
            elif event.type == "response.completed":
                answer = event.response.output_text
        if not results:
            return answer
        show(results)
        items += [r.message for r in results]
    return "(stopped after 10 model calls)"


# -- offline script ----------------------------------------------------------------------------


def script() -> list[Any]:
    """What the scripted model does: load, read a resource, try to write (blocked), unload,
    write, answer."""
    csv = {"skill_name": "csv-data-audit"}
    return [
        tool_calls(ScriptedCall("search_skills", {"query": "csv audit", "path": None})),
        tool_calls(ScriptedCall("load_skill", csv)),
        tool_calls(
            ScriptedCall("load_skill_resource", {**csv, "path": "references/checklist.md"}),
            ScriptedCall("Write", {"path": "plan.md", "text": "1. profile\n2. report\n"}),
        ),
        tool_calls(ScriptedCall("unload_skill", csv)),
        tool_calls(ScriptedCall("Write", {"path": "plan.md", "text": "1. profile\n2. report\n"})),
        text("csv-data-audit fits; its checklist is read and the plan is in plan.md."),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--api", choices=["chat", "responses", "both"], default="both")
    parser.add_argument("--stream", action="store_true", help="stream the model's answers")
    parser.add_argument("prompt", nargs="?", default=PROMPT)
    args = parser.parse_args(argv)
    apis = ["chat", "responses"] if args.api == "both" else [args.api]

    skills = OpenAISkills(SkillLibrary([SKILLS]), handlers={"Read": read, "Write": write})
    live = bool(os.environ.get("OPENAI_API_KEY"))
    status = 0
    for api in apis:
        RESULTS.clear()
        print(f"== {api} ({'live' if live else 'offline, scripted server'})")
        server = None
        if live:
            client = openai.OpenAI()  # reads OPENAI_API_KEY and OPENAI_BASE_URL
            model = os.environ.get("OPENAI_MODEL", "gpt-4.1-mini")
        else:
            server = ScriptedServer(script()).start()
            client = openai.OpenAI(base_url=server.base_url, api_key="offline", max_retries=0)
            model = "scripted-model"
        try:
            loop = chat_loop if api == "chat" else responses_loop
            answer = loop(client, model, skills, args.prompt, args.stream)
        finally:
            client.close()
            if server is not None:
                server.close()
        print(f"answer: {answer}")
        failed = loads_failed(RESULTS)
        if failed:
            # The model answered anyway: say so instead of presenting the answer as skill-based.
            reasons = "; ".join(
                f"{r.call.arguments}: {r.code.value if r.code else 'error'}" for r in failed
            )
            print(
                f"warning: every load_skill call failed ({reasons}); the answer above is not "
                f"based on any skill (skills searched: {SKILLS})",
                file=sys.stderr,
            )
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
