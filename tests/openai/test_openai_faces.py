"""skillcore_openai has one face per audience: every public name is imported from
``skillcore_openai`` (the test helpers from ``skillcore_openai.testing``) and is defined in
exactly one module; no other module re-exports it."""

from __future__ import annotations

import ast
from pathlib import Path

import skillcore_openai
import skillcore_openai.testing

PACKAGE = Path(skillcore_openai.__file__).parent
#: The faces: the package for users, ``testing`` for the test helpers.
FACES = {"skillcore_openai", "skillcore_openai.testing"}


def _modules() -> dict[str, ast.Module]:
    found = {}
    for file in sorted(PACKAGE.rglob("*.py")):
        parts = file.relative_to(PACKAGE.parent).with_suffix("").parts
        dotted = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[dotted] = ast.parse(file.read_text(encoding="utf-8"))
    return found


def _exported(tree: ast.Module) -> set[str]:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            value = ast.literal_eval(node.value)
            return set(value)
    return set()


def _defined(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def test_only_the_faces_re_export() -> None:
    re_exports = {
        name: sorted(n for n in _exported(tree) if n not in _defined(tree))
        for name, tree in _modules().items()
        if name not in FACES
    }
    assert {m: names for m, names in re_exports.items() if names} == {}


def test_every_public_name_is_defined_once_and_exported_by_its_face_only() -> None:
    modules = _modules()
    for face in (skillcore_openai, skillcore_openai.testing):
        for name in face.__all__:
            definers = [m for m, tree in modules.items() if name in _defined(tree)]
            assert len(definers) == 1, (name, definers)
            exporters = {m for m, tree in modules.items() if name in _exported(tree)}
            assert exporters <= {face.__name__, definers[0]}, (name, exporters)


def test_the_subpackages_are_no_faces() -> None:
    """``chat`` and ``agents`` export nothing of their own: their names are the package's."""
    modules = _modules()
    for sub in ("skillcore_openai.chat", "skillcore_openai.agents"):
        assert not _exported(modules[sub]), sub
        assert not _defined(modules[sub]) - {"__all__"}, sub


def test_no_class_declares_attributes_another_class_sets() -> None:
    """A bare class-level annotation outside a record class (attrs, a Protocol) is a part of
    a class declaring what its host sets: the class is cut, not composed."""
    stubs = []
    for name, tree in _modules().items():
        for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
            marks = {ast.unparse(d) for d in cls.decorator_list}
            marks |= {ast.unparse(b) for b in cls.bases}
            if marks & {"attrs.frozen", "attrs.define", "Protocol"}:
                continue
            stubs += [
                f"{name}.{cls.name}.{ast.unparse(n.target)}"
                for n in cls.body
                if isinstance(n, ast.AnnAssign) and n.value is None
            ]
    assert stubs == []
