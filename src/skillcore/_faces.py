"""How a package's ``__init__`` becomes its face without importing what it names.

A face is a table ``{name: module}``; each name is imported from its module on first use
(PEP 562) and then kept. Layers import each other through their faces, so an eager face would
make the first import of any module of a layer pay for the whole layer (YAML, attrs classes,
the ranking indexes) and would turn the layers' imports into cycles; a lazy one costs one dict.
A value whose last part is the name itself is a submodule.

A layer's face also serves the layers above it, so it may name what the user face
(:mod:`skillcore`) exports too; ``__all__`` lists only the names whose one public import path
is this face: the table less the user face's names.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def face(
    package: str, table: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]], list[str]]:
    """``__getattr__``, ``__dir__`` and ``__all__`` of the face ``package`` over ``table``."""
    namespace = sys.modules[package].__dict__

    def __getattr__(name: str) -> Any:
        module = table.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        imported = importlib.import_module(module)
        value = imported if module.rpartition(".")[2] == name else getattr(imported, name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(table))

    root = sys.modules["skillcore"].__dict__.get("__all__", ()) if package != "skillcore" else ()
    return __getattr__, __dir__, sorted(set(table) - set(root))
