"""Helpers for the deepagents backend tests: skill files, and running code inside a real
LangGraph run (``StateBackend`` reads the graph state of the running thread)."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypedDict

from deepagents.backends.protocol import (
    ExecuteResponse,
    FileDownloadResponse,
    FileUploadResponse,
)
from deepagents.backends.sandbox import BaseSandbox
from deepagents.backends.utils import create_file_data
from deepagents.middleware.filesystem import _file_data_reducer
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph


def skill_md(name: str, description: str = "", body: str = "", extra: str = "") -> bytes:
    desc = description or f"Use {name} for {name} tasks."
    return (
        f"---\nname: {name}\ndescription: {desc}\n{extra}---\n\n{body or f'{name} body.'}\n"
    ).encode()


#: A small tree: two skills under /skills, one with a script and a reference.
TREE: dict[str, bytes] = {
    "/skills/alpha/SKILL.md": skill_md("alpha", "Alpha tasks.", "Run scripts/run.py."),
    "/skills/alpha/scripts/run.py": b"print('alpha ran')\n",
    "/skills/alpha/references/notes.md": b"Alpha notes: 42.\n",
    "/skills/beta/SKILL.md": skill_md("beta", "Beta tasks."),
    "/other/readme.md": b"not a skill\n",
}


def state_files(tree: dict[str, bytes]) -> dict[str, Any]:
    """``tree`` as the ``files`` value of a deep agent's graph state."""
    return {path: create_file_data(data.decode()) for path, data in tree.items()}


class _State(TypedDict, total=False):
    files: Annotated[dict[str, Any], _file_data_reducer]
    out: Any


def run_in_graph(fn: Callable[[], Any], files: dict[str, Any], *, is_async: bool = False) -> Any:
    """Call ``fn`` inside a node of a real LangGraph run whose state holds ``files``."""
    graph = StateGraph(_State)
    if is_async:

        async def anode(state: _State) -> dict[str, Any]:
            return {"out": await fn()}

        graph.add_node("work", anode)
    else:

        def node(state: _State) -> dict[str, Any]:
            return {"out": fn()}

        graph.add_node("work", node)
    graph.add_edge(START, "work")
    graph.add_edge("work", END)
    app = graph.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    if is_async:
        import asyncio

        return asyncio.run(app.ainvoke({"files": files}, config))["out"]
    return app.invoke({"files": files}, config)["out"]


class LocalSandbox(BaseSandbox):
    """deepagents' ``BaseSandbox`` over a local shell: its ``ls`` and ``glob`` run deepagents'
    own remote scripts through :meth:`execute`, as in a real sandbox."""

    def __init__(self) -> None:
        self.commands: list[str] = []

    @property
    def id(self) -> str:
        return "local-test-sandbox"

    def execute(self, command: str, *, timeout: int | None = None) -> ExecuteResponse:
        self.commands.append(command)
        proc = subprocess.run(
            ["sh", "-c", command], capture_output=True, text=True, timeout=timeout or 60
        )
        return ExecuteResponse(proc.stdout + proc.stderr, proc.returncode)

    def upload_files(self, files: list[tuple[str, bytes]]) -> list[FileUploadResponse]:
        out = []
        for path, data in files:
            target = Path(path)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            out.append(FileUploadResponse(path=path))
        return out

    def download_files(self, paths: list[str]) -> list[FileDownloadResponse]:
        out = []
        for path in paths:
            p = Path(path)
            if p.is_dir():
                out.append(FileDownloadResponse(path=path, error="is_directory"))
            elif not p.is_file():
                out.append(FileDownloadResponse(path=path, error="file_not_found"))
            else:
                out.append(FileDownloadResponse(path=path, content=p.read_bytes()))
        return out
