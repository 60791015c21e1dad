"""Assembling a streamed Chat Completions message (``stream=True``) from its chunks,
bounded: a stream is model output."""

from __future__ import annotations

from typing import Any

from skillcore_openai.chat.calls import read_field

__all__ = ["MAX_STREAMED_CALLS", "MAX_STREAMED_CHARS", "ChatDeltas"]

#: Most tool calls one streamed message may carry, and most characters of content plus
#: arguments it may accumulate (a stream is model output: bound it).
MAX_STREAMED_CALLS = 256
MAX_STREAMED_CHARS = 16 * 1024 * 1024


class ChatDeltas:
    """Assembles a streamed Chat Completions message (``stream=True``) from its chunks: the
    text, and each tool call from its pieces (id and name first, then argument fragments,
    matched by ``index``)::

        deltas = ChatDeltas()
        for chunk in client.chat.completions.create(..., stream=True):
            deltas.add(chunk)
        messages.append(deltas.message)
        session, replies = skills.dispatch_all(session, deltas.tool_calls)

    Chunks may be SDK objects or dicts. Raises ValueError for a stream that breaks the
    bounds (:data:`MAX_STREAMED_CALLS`, :data:`MAX_STREAMED_CHARS`).
    """

    def __init__(self) -> None:
        self.content: str = ""
        self.finish_reason: str | None = None
        self._calls: dict[int, dict[str, Any]] = {}
        self._chars = 0

    def _grow(self, text: Any) -> str:
        piece = text if isinstance(text, str) else ""
        self._chars += len(piece)
        if self._chars > MAX_STREAMED_CHARS:
            raise ValueError(f"the streamed message exceeds {MAX_STREAMED_CHARS} characters")
        return piece

    def add(self, chunk: Any) -> None:
        """Take one chunk (``chat.completion.chunk``; only its first choice is read)."""
        choices = read_field(chunk, "choices") or ()
        if not choices:
            return  # e.g. the usage chunk at the end
        choice = choices[0]
        self.finish_reason = read_field(choice, "finish_reason") or self.finish_reason
        delta = read_field(choice, "delta")
        if delta is None:
            return
        self.content += self._grow(read_field(delta, "content"))
        for part in read_field(delta, "tool_calls") or ():
            index = read_field(part, "index")
            if not isinstance(index, int) or not 0 <= index < MAX_STREAMED_CALLS:
                raise ValueError(f"a streamed tool call has an invalid index {index!r:.40}")
            call = self._calls.setdefault(
                index, {"id": "", "type": "function", "function": {"name": "", "arguments": ""}}
            )
            if isinstance(read_field(part, "id"), str):
                call["id"] = read_field(part, "id")
            function = read_field(part, "function")
            if function is not None:
                call["function"]["name"] += self._grow(read_field(function, "name"))
                call["function"]["arguments"] += self._grow(read_field(function, "arguments"))

    @property
    def tool_calls(self) -> list[dict[str, Any]]:
        """The assembled tool calls, in index order (Chat Completions dicts)."""
        return [self._calls[i] for i in sorted(self._calls)]

    @property
    def message(self) -> dict[str, Any]:
        """The assistant message to append to ``messages``."""
        message: dict[str, Any] = {"role": "assistant", "content": self.content or None}
        if self._calls:
            message["tool_calls"] = self.tool_calls
        return message
