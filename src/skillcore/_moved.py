"""Module paths from before the core was laid out in layer packages, kept importable.

``import skillcore.session`` and the like give the module at its new home (the same module
object, so patching either name patches both). Kept for one release; new code imports the
new paths (see docs/architecture.md).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any

#: old dotted path -> new dotted path
MOVED: dict[str, str] = {
    "skillcore.parsing": "skillcore.parse.frontmatter",
    "skillcore._fastfront": "skillcore.parse.fast",
    "skillcore._yamlload": "skillcore.parse.yamlload",
    "skillcore.cache": "skillcore.parse.cache",
    "skillcore.backends._common": "skillcore.sources.common",
    "skillcore.backends.archive": "skillcore.sources.archive",
    "skillcore.backends.git": "skillcore.sources.git",
    "skillcore.backends.s3": "skillcore.sources.s3",
    "skillcore.backends.mcp": "skillcore.sources.mcp",
    "skillcore.backends.deepagents": "skillcore.sources.deepagents",
    "skillcore.gating": "skillcore.policy.gating",
    "skillcore.session": "skillcore.state.session",
    "skillcore.coordination": "skillcore.state.coordination",
    "skillcore.render": "skillcore.catalog.render",
    "skillcore.ranking": "skillcore.catalog.ranking",
    "skillcore.relevance": "skillcore.catalog.relevance",
    "skillcore.prompt": "skillcore.catalog.prompt",
    "skillcore.search": "skillcore.catalog.search",
    "skillcore.replies": "skillcore.tools.replies",
    "skillcore.binary": "skillcore.tools.binary",
    "skillcore.calls": "skillcore.tools.calls",
    "skillcore.specs": "skillcore.tools.specs",
    "skillcore.preload": "skillcore.tools.preload",
    "skillcore.reinjection": "skillcore.tools.reinjection",
    "skillcore.preview": "skillcore.tools.preview",
    "skillcore.config": "skillcore.runtime.config",
    "skillcore.profiles": "skillcore.runtime.profiles",
    "skillcore.cli": "skillcore.apps.cli",
    "skillcore.mcp_server": "skillcore.apps.mcp_server",
    "skillcore.evaluate": "skillcore.apps.evaluate",
    "skillcore.backends": "skillcore.sources",
}


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(
        self, fullname: str, path: object = None, target: object = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in MOVED:
            return None
        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        return importlib.import_module(MOVED[spec.name])

    def exec_module(self, module: ModuleType) -> None:
        # The import system stamped the old name's spec on the real module: put its own back.
        real = sys.modules[module.__name__]
        real.__spec__ = importlib.util.find_spec(module.__name__)


def install() -> None:
    """Make the old paths importable (idempotent)."""
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder())


def forwarding(package: str, module: str) -> Callable[[str], Any]:
    """A package ``__getattr__`` for a package that was one module: names not found in the
    package come from ``module``, where that module's contents now live (one release)."""

    def __getattr__(name: str) -> Any:
        try:
            return getattr(importlib.import_module(module), name)
        except AttributeError:
            raise AttributeError(f"module {package!r} has no attribute {name!r}") from None

    return __getattr__
