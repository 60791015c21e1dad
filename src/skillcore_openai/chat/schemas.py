"""What the model is offered: the skill tools as Chat Completions and Responses tool
schemas, the catalog text for the instructions, and the shape conversions of your own tools.

Plain dicts in the SDK's param shapes: nothing here imports ``openai``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from skillcore import CatalogFormat, PromptMode, SkillSession, catalog_view
from skillcore.runtime import ToolSpec, resolve_prompt_mode

__all__ = [
    "Api",
    "chat_shape",
    "chat_tool",
    "instructions",
    "response_shape",
    "response_tool",
    "tool_name",
]

#: The API a tool call came from (and its reply goes back to).
Api = Literal["chat", "responses", "anthropic"]


def chat_tool(spec: ToolSpec, *, strict: bool = True) -> dict[str, Any]:
    """A Chat Completions tool (``ChatCompletionFunctionToolParam``) for ``spec``."""
    return {
        "type": "function",
        "function": {
            "name": spec.name,
            "description": spec.description,
            "parameters": spec.json_schema(),
            "strict": strict,
        },
    }


def response_tool(spec: ToolSpec, *, strict: bool = True) -> dict[str, Any]:
    """A Responses API tool (``FunctionToolParam``) for ``spec``."""
    return {
        "type": "function",
        "name": spec.name,
        "description": spec.description,
        "parameters": spec.json_schema(),
        "strict": strict,
    }


def instructions(
    session: SkillSession,
    *,
    format: CatalogFormat | str = CatalogFormat.MARKDOWN,
    budget: int | None = None,
    prompt_mode: PromptMode | str | None = None,
) -> str:
    """The skill catalog text for the system prompt / ``instructions=`` (empty if no skills);
    ``prompt_mode``: see :class:`skillcore.PromptMode` (stable by default)."""
    dynamic = resolve_prompt_mode(prompt_mode) is PromptMode.DYNAMIC
    return catalog_view(session, CatalogFormat(format), budget, show_loaded=dynamic).text


def tool_name(tool: Mapping[str, Any]) -> str | None:
    """The name of a tool dict in either API's shape (None when it has none)."""
    function = tool.get("function")
    name = function.get("name") if isinstance(function, Mapping) else tool.get("name")
    return name if isinstance(name, str) else None


def chat_shape(tool: dict[str, Any]) -> dict[str, Any]:
    """A function tool dict in the Chat Completions shape."""
    if isinstance(tool.get("function"), Mapping):
        return tool
    inner = {k: v for k, v in tool.items() if k != "type"}
    return {"type": "function", "function": inner}


def response_shape(tool: dict[str, Any]) -> dict[str, Any]:
    """A function tool dict in the Responses shape."""
    function = tool.get("function")
    if not isinstance(function, Mapping):
        return {"type": "function", **{k: v for k, v in tool.items() if k != "type"}}
    return {"type": "function", **function}
