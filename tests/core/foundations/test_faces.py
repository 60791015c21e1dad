"""The faces: each package ``__init__`` names each export twice at most (its TYPE_CHECKING
import and its table, ``__all__`` derived), and every public name has one import path."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from skillcore.errors import MissingDependencyError

SRC = Path(__file__).resolve().parents[3] / "src"

#: The faces a user or an adapter imports; each public name is in the ``__all__`` of one.
PUBLIC_FACES = (
    "skillcore",
    "skillcore.runtime",
    "skillcore.testing",
    "skillcore_langchain",
    "skillcore_adk",
    "skillcore_openai",
)


def _init(package: str) -> Path:
    return SRC / package.replace(".", "/") / "__init__.py"


def _lazy_faces() -> list[str]:
    faces = []
    for init in sorted(SRC.glob("skillcore/**/__init__.py")):
        if "face(" in init.read_text(encoding="utf-8"):
            faces.append(".".join(init.relative_to(SRC).parent.parts))
    return faces


def _face_parts(package: str) -> tuple[set[str], dict[str, str]]:
    """The names a face's ``if TYPE_CHECKING:`` block imports, and its table."""
    tree = ast.parse(_init(package).read_text(encoding="utf-8"))
    imported: set[str] = set()
    table: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for stmt in node.body:
                assert isinstance(stmt, ast.ImportFrom)
                imported.update(alias.asname or alias.name for alias in stmt.names)
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            found = node.value.args[1]
            assert isinstance(found, ast.Dict)
            table = {
                ast.literal_eval(k): ast.literal_eval(v)
                for k, v in zip(found.keys, found.values)
                if k is not None
            }
    return imported, table


def test_the_lazy_faces_are_the_layers_and_the_user_face() -> None:
    assert {"skillcore", "skillcore.runtime", "skillcore.state", "skillcore.tools"} <= set(
        _lazy_faces()
    )


@pytest.mark.parametrize("package", _lazy_faces())
def test_a_face_imports_for_the_type_checker_exactly_what_its_table_names(package: str) -> None:
    imported, table = _face_parts(package)
    assert table, package
    assert imported == set(table)


@pytest.mark.parametrize("package", _lazy_faces())
def test_every_name_of_a_face_resolves_and_all_is_derived(package: str) -> None:
    face = importlib.import_module(package)
    _imported, table = _face_parts(package)
    for name in table:
        try:
            value = getattr(face, name)
        except MissingDependencyError:  # a name whose module needs an extra not installed
            continue
        assert value is not None, (package, name)
    user = set(importlib.import_module("skillcore").__all__)
    expected = set(table) if package == "skillcore" else set(table) - user
    assert set(face.__all__) - {"__version__"} == expected


def _all_of(package: str) -> list[str]:
    """``__all__`` of a face: imported for the core, read from the source for an adapter
    (whose framework need not be installed)."""
    if package.startswith("skillcore."):
        return list(importlib.import_module(package).__all__)
    if package == "skillcore":
        return list(importlib.import_module(package).__all__)
    tree = ast.parse(_init(package).read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            getattr(t, "id", "") == "__all__" for t in node.targets
        ):
            return list(ast.literal_eval(node.value))
    raise AssertionError(f"{package} has no literal __all__")


def test_each_public_name_has_one_import_path() -> None:
    homes: dict[str, list[str]] = {}
    for package in PUBLIC_FACES:
        for name in _all_of(package):
            homes.setdefault(name, []).append(package)
    assert {name: where for name, where in homes.items() if len(where) > 1} == {}


def test_the_user_face_holds_what_users_construct_and_catch() -> None:
    import skillcore

    for name in ("SkillLibrary", "SkillSource", "SkillConfig", "ToolPolicy", "SkillcoreError"):
        assert name in skillcore.__all__
    for name in ("TurnStore", "SessionStore", "merge_states", "replies", "ToolSpec"):
        assert name not in skillcore.__all__
        assert name in importlib.import_module("skillcore.runtime").__all__
