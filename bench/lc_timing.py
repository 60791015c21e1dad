"""A timing sandwich for LangChain agents: the middleware under test sits between ``Outer``
and ``Inner``, so ``Clock.samples`` holds its own time per model call (the model excluded)."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any

from langchain.agents.middleware.types import AgentMiddleware, ModelRequest, ModelResponse


class Clock:
    def __init__(self) -> None:
        self.samples: list[float] = []
        self.inner: float = 0.0


class Outer(AgentMiddleware):
    def __init__(self, clock: Clock) -> None:
        self.clock = clock

    @property
    def name(self) -> str:
        return "BenchOuter"

    def wrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], ModelResponse]
    ) -> Any:
        self.clock.inner = 0.0
        start = time.perf_counter()
        response = handler(request)
        self.clock.samples.append(time.perf_counter() - start - self.clock.inner)
        return response

    async def awrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
    ) -> Any:
        raise NotImplementedError("the benchmark runs invoke only")


class Inner(AgentMiddleware):
    def __init__(self, clock: Clock) -> None:
        self.clock = clock

    @property
    def name(self) -> str:
        return "BenchInner"

    def wrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], ModelResponse]
    ) -> Any:
        start = time.perf_counter()
        response = handler(request)
        self.clock.inner = time.perf_counter() - start
        return response

    async def awrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
    ) -> Any:
        raise NotImplementedError("the benchmark runs invoke only")
