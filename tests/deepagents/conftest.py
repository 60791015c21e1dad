"""Fixtures for the deepagents backend tests: real backends holding a small skill tree."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("deepagents")

sys.path.insert(0, str(Path(__file__).resolve().parent))

from da_helpers import TREE
from deepagents.backends import FilesystemBackend, StoreBackend
from langgraph.store.memory import InMemoryStore


@pytest.fixture
def fs_backend(tmp_path: Path) -> FilesystemBackend:
    """A FilesystemBackend (virtual paths) over a tmp dir holding :data:`TREE`."""
    for path, data in TREE.items():
        target = tmp_path / path.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return FilesystemBackend(root_dir=tmp_path, virtual_mode=True)


@pytest.fixture
def store_backend() -> StoreBackend:
    """A StoreBackend on LangGraph's InMemoryStore holding :data:`TREE`."""
    backend = StoreBackend(store=InMemoryStore(), namespace=lambda _rt: ("skills-test",))
    responses = backend.upload_files(list(TREE.items()))
    assert all(r.error is None for r in responses)
    return backend
