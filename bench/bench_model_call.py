"""Per model call cost against conversation length (H) and library size (N).

    python bench/bench_model_call.py                          # H = 10..5,000, N = 100..10,000
    python bench/bench_model_call.py --sizes 100 --lengths 10 1000 --json out.json

What a model call costs the skills layer, measured inside the real runtimes on realistic
histories, against no skills layer and each framework's own skills support:

- **LangChain**: ``wrap_model_call`` of skillcore's ``SkillsMiddleware`` and of deepagents'
  ``SkillsMiddleware`` on a ``ModelRequest`` captured from a real ``create_agent`` run. The
  history mixes user messages, tool-calling AI messages and tool replies (~400 characters),
  with three ``load_skill`` calls early in it (the oldest messages: the worst case for any
  scan), and grows by two messages per model call, as a tool loop does (same message objects,
  a new list each call, like LangGraph's state). ``compacted``: the same after a summary
  replaced all but the last 20 messages (the load replies gone: instructions repeated).
- **Google ADK**: ADK's whole request preprocessing for one model call (``_preprocess_async``:
  contents built from H session events, instructions, every toolset's
  ``process_llm_request``), for an agent with skillcore's ``SkillToolset``, with ADK's own
  ``SkillToolset`` (LAZY: only its tools, the catalog arrives through ``list_skills``), and
  with no skills.
- **OpenAI loop**: ``OpenAISkills.instructions(history=...)`` + ``chat_tools`` for one model
  call of a Chat Completions loop (the messages list grows by two per call), against
  nothing (a loop without skills does no such work).
- **one-call turn at N**: a whole ``invoke`` (LangChain) / runner turn (ADK) with one model
  call, default settings (``refresh=True``), against no skills layer.

Times are CPU time (``time.process_time``), medians of repeated batches, variants
interleaved: the machine is shared, so wall time would measure the neighbours.
"""

# The timed closures are defined and called within one loop iteration, so they see that
# iteration's values.
# ruff: noqa: B023

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import statistics
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import synth  # noqa: E402
from timing import print_table  # noqa: E402

CACHE = Path(os.environ.get("SKILLCORE_BENCH_CACHE", "/tmp/skillcore-bench"))
LOADED = 3  # skills loaded early in every history
REPLY = "x" * 400  # a plain tool reply


REPS = 5


def cpu_per_call(fn: Callable[[int], Any], calls: int, reps: int = REPS) -> float:
    """Median over ``reps`` batches of the CPU seconds per call of ``fn(i)``; ``i`` counts on
    across batches (one conversation that keeps growing)."""
    out = []
    for b in range(reps):
        gc.collect()
        start = time.process_time()
        for i in range(calls):
            fn(1 + b * calls + i)
        out.append((time.process_time() - start) / calls)
    return statistics.median(out)


def us(seconds: float) -> str:
    return f"{seconds * 1e6:,.0f}"


def library(n: int) -> Path:
    return synth.make_library(CACHE / f"lib-{n}", n)


# -- LangChain ---------------------------------------------------------------------------------


def lc_history(h: int, extra: int, replies: list[tuple[str, str]]) -> list[Any]:
    """``h + extra`` messages: user, AI with a tool call, tool reply, ...; the load calls and
    their replies (``replies``: (call id, text)) come right after the first user message."""
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

    msgs: list[Any] = [HumanMessage("start", id=str(uuid.uuid4()))]
    for call_id, text in replies:
        msgs.append(
            AIMessage(
                "",
                tool_calls=[{"name": "load_skill", "args": {"skill_name": "x"}, "id": call_id}],
                id=str(uuid.uuid4()),
            )
        )
        msgs.append(
            ToolMessage(text, tool_call_id=call_id, name="load_skill", id=str(uuid.uuid4()))
        )
    i = 0
    while len(msgs) < h + extra:
        i += 1
        if i % 10 == 0:
            msgs.append(HumanMessage(f"next step {i}", id=str(uuid.uuid4())))
            continue
        cid = f"call-{i}"
        msgs.append(
            AIMessage(
                "",
                tool_calls=[{"name": "Read", "args": {"path": f"{i}.txt"}, "id": cid}],
                id=str(uuid.uuid4()),
            )
        )
        msgs.append(ToolMessage(REPLY, tool_call_id=cid, name="Read", id=str(uuid.uuid4())))
    return msgs[: h + extra]


def lc_capture(middleware: list[Any]) -> Any:
    """A ModelRequest exactly as create_agent builds it (tools, system message, runtime)."""
    from langchain.agents import create_agent
    from langchain.agents.middleware.types import AgentMiddleware
    from langchain_core.messages import HumanMessage
    from langchain_core.tools import tool

    from skillcore_langchain.testing import ScriptedChatModel

    @tool("Read")
    def read(path: str = "") -> str:
        """Read a file."""
        return "ok"

    captured: list[Any] = []

    class Capture(AgentMiddleware):
        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            captured.append(request)
            return handler(request)

    agent = create_agent(
        ScriptedChatModel(),
        [read],
        system_prompt="You are helpful.",
        middleware=[Capture(), *middleware],
    )
    agent.invoke({"messages": [HumanMessage("hi")]})
    return captured[0]


def bench_langchain(sizes: list[int], lengths: list[int], calls: int) -> list[dict[str, Any]]:
    from langchain.agents.middleware.types import ModelResponse
    from langchain_core.messages import AIMessage, HumanMessage

    from skillcore_langchain import SkillsMiddleware

    rows = []
    response = ModelResponse(result=[AIMessage("done")])

    def handler(request: Any) -> Any:
        return response

    for n in sizes:
        root = library(n)
        ours = SkillsMiddleware(root, refresh=False)
        session = ours.session(None)
        names = [m.name for m in session.catalog.model_visible][:LOADED]
        replies = []
        for k, name in enumerate(names):
            res = ours.toolkit.call(
                session, "load_skill", {"skill_name": name}, **_call_id(ours, f"load-{k}")
            )
            session = res.session
            replies.append((f"load-{k}", res.text))
        state_value = session.to_state()
        request = lc_capture([])
        deep = _deepagents(root)
        deep_state: dict[str, Any] = {}
        if deep is not None:
            update = (
                deep.before_agent({"messages": []}, request.runtime, {"configurable": {}}) or {}
            )
            deep_state = dict(update)
        for h in lengths:
            grow = 2 * (calls * REPS + 1)
            full = lc_history(h, grow, replies)
            compacted_tail = full[-(20 + grow) :]
            summary = HumanMessage("Summary of the conversation so far.", id=str(uuid.uuid4()))

            def ours_call(i: int, msgs: list[Any] = full) -> Any:
                m = msgs[: h + 2 * i]
                req = request.override(messages=m, state={"messages": m, "skillcore": state_value})
                return ours.wrap_model_call(req, handler)

            def ours_compacted(i: int) -> Any:
                m = [summary, *compacted_tail[: 20 + 2 * i]]
                req = request.override(messages=m, state={"messages": m, "skillcore": state_value})
                return ours.wrap_model_call(req, handler)

            def deep_call(i: int, msgs: list[Any] = full) -> Any:
                m = msgs[: h + 2 * i]
                req = request.override(messages=m, state={"messages": m, **deep_state})
                return deep.wrap_model_call(req, handler)

            def none_call(i: int, msgs: list[Any] = full) -> Any:
                m = msgs[: h + 2 * i]
                req = request.override(messages=m, state={"messages": m})
                return handler(req)

            ours_call(0)
            ours_compacted(0)
            t_none = cpu_per_call(none_call, calls)
            t_ours = cpu_per_call(ours_call, calls)
            t_comp = cpu_per_call(ours_compacted, calls)
            t_deep = cpu_per_call(deep_call, calls) if deep is not None else float("nan")
            row = {
                "N": n,
                "H": h,
                "no middleware µs": us(t_none),
                "skillcore µs": us(t_ours - t_none),
                "skillcore, compacted µs": us(t_comp - t_none),
                "deepagents µs": us(t_deep - t_none),
                "deepagents / skillcore": f"{(t_deep - t_none) / max(t_ours - t_none, 1e-9):.2f}x",
            }
            print(row, flush=True)
            rows.append(row)
    return rows


def _call_id(mw: Any, call_id: str) -> dict[str, Any]:
    """``call_id=`` where the toolkit takes it (older versions do not)."""
    import inspect

    return (
        {"call_id": call_id} if "call_id" in inspect.signature(mw.toolkit.call).parameters else {}
    )


def _deepagents(root: Path) -> Any:
    try:
        from deepagents.backends import FilesystemBackend
        from deepagents.middleware.skills import SkillsMiddleware as DeepSkills
    except ImportError:
        return None
    return DeepSkills(backend=FilesystemBackend(root_dir=root, virtual_mode=True), sources=["/"])


# -- OpenAI loop -------------------------------------------------------------------------------


def bench_openai(sizes: list[int], lengths: list[int], calls: int) -> list[dict[str, Any]]:
    from skillcore_openai import OpenAISkills

    rows = []
    for n in sizes:
        skills = OpenAISkills(library(n))
        session = skills.session()
        names = [m.name for m in session.catalog.model_visible][:LOADED]
        replies = []
        for k, name in enumerate(names):
            call = {
                "id": f"load-{k}",
                "type": "function",
                "function": {"name": "load_skill", "arguments": json.dumps({"skill_name": name})},
            }
            res = skills.dispatch(session, call)
            session = res.session
            replies.append(res.message)
        for h in lengths:
            msgs: list[Any] = [
                {"role": "system", "content": "You are helpful."},
                {"role": "user", "content": "start"},
            ]
            for k, r in enumerate(replies):
                msgs.append(
                    {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            {
                                "id": f"load-{k}",
                                "type": "function",
                                "function": {"name": "load_skill", "arguments": "{}"},
                            }
                        ],
                    }
                )
                msgs.append(r)
            i = 0
            grow = 2 * (calls * REPS + 1)
            while len(msgs) < h + grow:
                i += 1
                cid = f"call-{i}"
                msgs.append(
                    {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            {
                                "id": cid,
                                "type": "function",
                                "function": {"name": "Read", "arguments": "{}"},
                            }
                        ],
                    }
                )
                msgs.append({"role": "tool", "tool_call_id": cid, "content": REPLY})
            history: list[Any] = msgs[:h]

            def one(i: int) -> Any:
                # The loop's own list grows by two per model call.
                if i:
                    history.extend(msgs[len(history) : h + 2 * i])
                else:
                    history[:] = msgs[:h]
                skills.instructions(session, "You are helpful.", history=history)
                return skills.chat_tools(session)

            one(0)
            t = cpu_per_call(one, calls)
            row = {"N": n, "H": h, "skillcore µs (instructions + tools)": us(t)}
            print(row, flush=True)
            rows.append(row)
    return rows


# -- Google ADK --------------------------------------------------------------------------------


def _adk_events(h: int, replies: list[tuple[str, str]], author: str) -> list[Any]:
    """``h`` session events: a user message, the load calls and replies, then tool calls and
    replies with a user message every tenth event."""
    from google.adk.events.event import Event
    from google.genai import types

    def ev(role: str, part: Any) -> Any:
        return Event(
            invocation_id="earlier",
            author=author if role == "model" else "user",
            content=types.Content(role=role, parts=[part]),
        )

    out = [ev("user", types.Part.from_text(text="start"))]
    for call_id, text in replies:
        fc = types.FunctionCall(id=call_id, name="load_skill", args={"skill_name": "x"})
        fr = types.FunctionResponse(id=call_id, name="load_skill", response={"result": text})
        out += [
            ev("model", types.Part(function_call=fc)),
            ev("user", types.Part(function_response=fr)),
        ]
    out.append(ev("model", types.Part.from_text(text="On it.")))  # pairs stay whole
    i = 0
    while len(out) < h:
        i += 1
        if i % 10 == 0:
            out.append(ev("user", types.Part.from_text(text=f"next step {i}")))
            out.append(ev("model", types.Part.from_text(text="Continuing.")))
            continue
        cid = f"adk-call-{i}"
        fc = types.FunctionCall(id=cid, name="Read", args={"path": f"{i}.txt"})
        fr = types.FunctionResponse(id=cid, name="Read", response={"result": REPLY})
        out += [
            ev("model", types.Part(function_call=fc)),
            ev("user", types.Part(function_response=fr)),
        ]
    return out


def bench_adk(sizes: list[int], lengths: list[int], calls: int) -> list[dict[str, Any]]:
    from google.adk.agents import LlmAgent
    from google.adk.agents.readonly_context import ReadonlyContext
    from google.adk.models.base_llm import BaseLlm
    from google.adk.models.llm_request import LlmRequest
    from google.adk.models.llm_response import LlmResponse
    from google.adk.runners import InMemoryRunner
    from google.adk.tools.base_toolset import BaseToolset
    from google.adk.tools.function_tool import FunctionTool
    from google.genai import types

    from skillcore_adk import SkillToolset

    class Scripted(BaseLlm):
        model: str = "scripted"

        async def generate_content_async(self, llm_request: Any, stream: bool = False) -> Any:
            yield LlmResponse(
                content=types.Content(role="model", parts=[types.Part.from_text(text="done")])
            )

    def read(path: str) -> str:
        """Read a file."""
        return "ok"

    async def context_of(toolset: Any, state: dict[str, Any]) -> Any:
        agent = LlmAgent(
            name="bench",
            model=Scripted(),
            instruction="Hi.",
            tools=[*([toolset] if toolset is not None else []), FunctionTool(read)],
        )
        runner = InMemoryRunner(agent=agent, app_name="bench")
        session = await runner.session_service.create_session(
            app_name="bench", user_id="u", state=state
        )
        grabbed: list[Any] = []
        agent.before_model_callback = lambda callback_context, llm_request: grabbed.append(
            callback_context._invocation_context
        )
        msg = types.Content(role="user", parts=[types.Part.from_text(text="go")])
        async for _ in runner.run_async(user_id="u", session_id=session.id, new_message=msg):
            pass
        agent.before_model_callback = None
        return agent, grabbed[0]

    async def run() -> list[dict[str, Any]]:
        rows = []
        for n in sizes:
            root = library(n)
            ours = SkillToolset(root)
            session = ours.session_from_state(None)
            names = [m.name for m in session.catalog.model_visible][:LOADED]
            replies = []
            for k, name in enumerate(names):
                kw = _call_id(ours, f"adk-load-{k}")
                res = ours.toolkit.call(session, "load_skill", {"skill_name": name}, **kw)
                session = res.session
                replies.append((f"adk-load-{k}", res.text))
            systems: dict[str, Any] = {
                "none": await context_of(None, {}),
                "skillcore": await context_of(ours, {ours.state_key("bench"): session.to_state()}),
            }
            try:
                from google.adk.skills import load_skills_from_dir
                from google.adk.tools.skill_toolset import SkillToolset as AdkSkillToolset

                native = AdkSkillToolset(load_skills_from_dir(root))
                systems["ADK SkillToolset (lazy)"] = await context_of(native, {})
            except ImportError:
                pass
            from google.adk.tools.tool_context import ToolContext

            for h in lengths:
                grow = 2 * (calls * REPS + 1)
                events = _adk_events(h + grow, replies, "bench")
                # The contents ADK builds from these events (once; the hooks are timed).
                agent0, ctx0 = systems["none"]
                ctx0.session.events = events
                built = LlmRequest()
                async for _ in agent0._llm_flow._preprocess_async(ctx0, built):
                    pass
                contents = built.contents
                times: dict[str, float] = {}
                for name, (agent, ctx) in systems.items():
                    tc = ToolContext(ctx)
                    tools = agent.tools

                    async def one(i: int, tc: Any = tc, tools: Any = tools, ctx: Any = ctx) -> None:
                        request = LlmRequest(
                            contents=contents[: h + 2 * i],
                            config=types.GenerateContentConfig(system_instruction="Hi."),
                        )
                        ro = ReadonlyContext(ctx)
                        for t in tools:
                            if isinstance(t, BaseToolset):
                                for tool in await t.get_tools(ro):
                                    await tool.process_llm_request(
                                        tool_context=tc, llm_request=request
                                    )
                                await t.process_llm_request(tool_context=tc, llm_request=request)
                            else:
                                await t.process_llm_request(tool_context=tc, llm_request=request)

                    await one(0)
                    batches = []
                    for b in range(REPS):
                        gc.collect()
                        start = time.process_time()
                        for i in range(calls):
                            await one(1 + b * calls + i)
                        batches.append((time.process_time() - start) / calls)
                    times[name] = statistics.median(batches)
                lazy = times.get("ADK SkillToolset (lazy)", float("nan"))
                row = {
                    "N": n,
                    "H": h,
                    "no skills µs": us(times["none"]),
                    "skillcore µs": us(times["skillcore"]),
                    "ADK SkillToolset (lazy) µs": us(lazy),
                    "skillcore / lazy": f"{times['skillcore'] / lazy:.2f}x",
                    "skillcore - none µs": us(times["skillcore"] - times["none"]),
                }
                print(row, flush=True)
                rows.append(row)
        return rows

    return asyncio.run(run())


# -- a whole one-call turn ---------------------------------------------------------------------


def bench_turn(sizes: list[int], turns: int) -> list[dict[str, Any]]:
    """CPU time of a whole turn with one model call (default settings), skills layer or not."""
    from google.adk.agents import LlmAgent
    from google.adk.models.base_llm import BaseLlm
    from google.adk.models.llm_response import LlmResponse
    from google.adk.runners import InMemoryRunner
    from google.adk.tools.function_tool import FunctionTool
    from google.genai import types
    from langchain.agents import create_agent
    from langchain_core.messages import AIMessage, HumanMessage
    from langchain_core.tools import tool
    from langgraph.checkpoint.memory import InMemorySaver

    from skillcore_adk import SkillToolset
    from skillcore_langchain import SkillsMiddleware
    from skillcore_langchain.testing import ScriptedChatModel

    @tool("Read")
    def read_lc(path: str = "") -> str:
        """Read a file."""
        return "ok"

    def read(path: str) -> str:
        """Read a file."""
        return "ok"

    class Scripted(BaseLlm):
        model: str = "scripted"

        async def generate_content_async(self, llm_request: Any, stream: bool = False) -> Any:
            yield LlmResponse(
                content=types.Content(role="model", parts=[types.Part.from_text(text="done")])
            )

    rows = []
    for n in sizes:
        root = library(n)
        lc: dict[str, Any] = {}
        for name, mw in (("none", []), ("skillcore", [SkillsMiddleware(root)])):
            model = ScriptedChatModel()
            agent = create_agent(model, [read_lc], middleware=mw, checkpointer=InMemorySaver())
            lc[name] = (agent, model)
        adk: dict[str, Any] = {}
        for name, ts in (("none", []), ("skillcore", [SkillToolset(root)])):
            agent = LlmAgent(
                name="bench", model=Scripted(), instruction="Hi.", tools=[*ts, FunctionTool(read)]
            )
            adk[name] = InMemoryRunner(agent=agent, app_name="bench")

        async def adk_sessions() -> dict[str, str]:
            return {
                k: (await r.session_service.create_session(app_name="bench", user_id="u")).id
                for k, r in adk.items()
            }

        sessions = asyncio.run(adk_sessions())

        def lc_turn(name: str, k: int) -> None:
            agent, model = lc[name]
            model.push(AIMessage("done"))
            agent.invoke(
                {"messages": [HumanMessage(f"turn {k}")]}, {"configurable": {"thread_id": "t"}}
            )

        async def adk_turn(name: str, k: int) -> None:
            msg = types.Content(role="user", parts=[types.Part.from_text(text=f"turn {k}")])
            async for _ in adk[name].run_async(
                user_id="u", session_id=sessions[name], new_message=msg
            ):
                pass

        samples: dict[str, list[float]] = {f"{a} {b}": [] for a in ("LangChain", "ADK") for b in lc}
        for k in range(turns + 2):
            for name in lc:
                for fw, fn in (
                    ("LangChain", lambda: lc_turn(name, k)),
                    ("ADK", lambda: asyncio.run(adk_turn(name, k))),
                ):
                    gc.collect()
                    start = time.process_time()
                    fn()
                    if k >= 2:  # the first turns discover and warm up
                        samples[f"{fw} {name}"].append(time.process_time() - start)
        for fw in ("LangChain", "ADK"):
            none = statistics.median(samples[f"{fw} none"])
            ours = statistics.median(samples[f"{fw} skillcore"])
            row = {
                "framework": fw,
                "N": n,
                "no skills ms": f"{none * 1e3:.2f}",
                "skillcore ms": f"{ours * 1e3:.2f}",
                "skillcore / none": f"{ours / none:.2f}x",
            }
            print(row, flush=True)
            rows.append(row)
    return rows


# -- per tool call (LangChain wrap_tool_call) --------------------------------------------------


def bench_toolcall(sizes: list[int], calls: int) -> list[dict[str, Any]]:
    """``wrap_tool_call`` of a plain tool under RESTRICT with a restricting skill loaded:
    an allowed call and a blocked one (the tool itself excluded)."""
    from types import SimpleNamespace

    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
    from langgraph.prebuilt.tool_node import ToolCallRequest

    from skillcore_langchain import SkillsMiddleware

    rows = []
    for n in sizes:
        root = library(n)
        mw = SkillsMiddleware(root, refresh=False, allowed_tools_policy="restrict")
        session = mw.session_for(None)
        restricting = next(m.name for m in session.catalog.model_visible if m.allowed_tools)
        allowed_tool = session.catalog.get(restricting).allowed_tools[0].split("(")[0]
        session = mw.toolkit.call(session, "load_skill", {"skill_name": restricting}).session
        state_value = session.to_state()
        out: dict[str, float] = {}
        for label, tool in (("allowed", allowed_tool), ("blocked", "NotListedTool")):
            ai = AIMessage("", tool_calls=[{"name": tool, "args": {}, "id": "c1"}], id="m1")
            state = {"messages": [HumanMessage("go", id="h1"), ai], "skillcore": state_value}
            runtime = SimpleNamespace(config={"configurable": {"thread_id": "t"}})
            request = ToolCallRequest(
                tool_call={"name": tool, "args": {}, "id": "c1", "type": "tool_call"},
                tool=None,
                state=state,
                runtime=runtime,
            )
            done = ToolMessage("ok", tool_call_id="c1")

            def one(i: int, request: Any = request, done: Any = done) -> Any:
                return mw.wrap_tool_call(request, lambda r: done)

            one(0)
            out[label] = cpu_per_call(one, calls * 4)
        row = {
            "N": n,
            "allowed µs": us(out["allowed"]),
            "blocked µs": us(out["blocked"]),
        }
        print(row, flush=True)
        rows.append(row)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 1000, 10000])
    parser.add_argument("--lengths", type=int, nargs="+", default=[10, 100, 1000, 5000])
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument("--turns", type=int, default=30)
    parser.add_argument("--only", nargs="+", default=["langchain", "openai", "adk", "turn"])
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    os.environ.setdefault("SKILLCORE_NO_CACHE", "1")
    out: dict[str, Any] = {}
    if "langchain" in args.only:
        out["langchain"] = bench_langchain(args.sizes, args.lengths, args.calls)
        print_table(out["langchain"])
    if "openai" in args.only:
        out["openai"] = bench_openai(args.sizes, args.lengths, args.calls)
        print_table(out["openai"])
    if "adk" in args.only:
        out["adk"] = bench_adk(args.sizes, args.lengths, args.calls)
        print_table(out["adk"])
    if "turn" in args.only:
        out["turn"] = bench_turn(args.sizes, args.turns)
        print_table(out["turn"])
    if "toolcall" in args.only:
        out["toolcall"] = bench_toolcall(args.sizes, args.calls)
        print_table(out["toolcall"])
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
