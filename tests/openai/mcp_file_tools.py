"""A tiny MCP server (the official ``mcp`` SDK, stdio) with ``Read``, ``Write`` and ``execute``
tools, for the Agents SDK tests. Every call is appended to the file named by
``SKILLCORE_TEST_LOG``."""

from __future__ import annotations

import os

from mcp.server.mcpserver import MCPServer

server = MCPServer("files")


def _log(line: str) -> None:
    with open(os.environ["SKILLCORE_TEST_LOG"], "a", encoding="utf-8") as f:
        f.write(line + "\n")


@server.tool(name="Read")
def read(path: str) -> str:
    """Read a file."""
    _log(f"Read {path}")
    return f"contents of {path}"


@server.tool(name="Write")
def write(path: str, text: str) -> str:
    """Write a file."""
    _log(f"Write {path}")
    return "written"


@server.tool(name="execute")
def execute(command: str) -> str:
    """Run a shell command (recorded, never run)."""
    _log(f"execute {command}")
    return "ran"


if __name__ == "__main__":
    server.run("stdio")
