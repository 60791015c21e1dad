"""Saved skill state per conversation: the in-memory and SQLite stores, and SavedSession."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from skillcore import SkillLibrary, SkillToolkit
from skillcore.state.restore import restore_session
from skillcore.state.saved import (
    MAX_CONVERSATION_KEY,
    MAX_SAVED_STATE_BYTES,
    MemoryStateStore,
    SavedSession,
    SQLiteStateStore,
    StateStore,
)

ROOT = Path(__file__).resolve().parents[3]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
states = st.dictionaries(st.text(max_size=8), json_values, max_size=5)
# Any key a database can store (NUL and lone surrogates are refused: see test_bounds...).
keys = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
    min_size=1,
    max_size=40,
)


@pytest.fixture(scope="module")
def sqlite_store() -> SQLiteStateStore:
    return SQLiteStateStore(":memory:")


@given(key=keys, state=states)
def test_round_trip_and_isolation(sqlite_store: SQLiteStateStore, key: str, state: dict) -> None:
    for store in (MemoryStateStore(), sqlite_store):
        assert isinstance(store, StateStore)
        store.save(key, state)
        assert store.load(key) == state
        assert store.load(key + "-other") is None
        state["mutated-key"] = True  # what the caller holds cannot change what was saved
        assert "mutated-key" not in (store.load(key) or {})
        del state["mutated-key"]
        store.delete(key)
        assert store.load(key) is None


def test_bounds_and_bad_keys(tmp_path: Path) -> None:
    store = MemoryStateStore(max_conversations=2)
    for k in "abc":
        store.save(k, {"n": k})
    assert len(store) == 2 and store.load("a") is None
    sqlite = SQLiteStateStore(":memory:")
    for bad in ("", "x" * (MAX_CONVERSATION_KEY + 1), "a\x00b", "a\ud800"):
        for each in (store, sqlite):
            with pytest.raises(ValueError, match="conversation key"):
                each.save(bad, {})
            with pytest.raises(ValueError, match="conversation key"):
                each.load(bad)
    with pytest.raises(ValueError, match="exceeds"):
        store.save("big", {"x": "y" * MAX_SAVED_STATE_BYTES})
    with pytest.raises(ValueError, match="identifier"):
        SQLiteStateStore(tmp_path / "x.db", table="t; DROP TABLE x")


def test_sqlite_survives_reopen_and_bad_rows(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    SQLiteStateStore(db).save("c", {"schema": 1, "loaded": []})
    with sqlite3.connect(db) as conn:
        conn.execute("INSERT INTO skillcore_state VALUES ('bad', 'not json')")
        conn.execute("INSERT INTO skillcore_state VALUES ('list', '[1]')")
    again = SQLiteStateStore(db)
    assert again.load("c") == {"schema": 1, "loaded": []}
    assert again.load("bad") is None and again.load("list") is None


def test_saved_session_writes_through() -> None:
    library = SkillLibrary([ROOT / "examples" / "skills"])
    store = MemoryStateStore()

    def restore(state: object):
        return restore_session(state, library.catalog).session

    saved = SavedSession(store, "c", restore)
    assert saved.read().loaded_names == ()
    SkillToolkit(library).call(saved, "load_skill", {"skill_name": "csv-data-audit"})
    assert SavedSession(store, "c", restore).read().loaded_names == ("csv-data-audit",)


def test_postgres_refuses_keys_it_cannot_store_clearly(postgres_url: str) -> None:
    """A NUL in a conversation key is refused by name, in every method, not by a
    ``DataError`` from the database (nor half-way through ``update``)."""
    from skillcore.state.saved import PostgresStateStore

    store = PostgresStateStore(postgres_url, table="state_bad_keys")
    for call in (
        lambda: store.load("a\x00b"),
        lambda: store.save("a\x00b", {}),
        lambda: store.update("a\x00b", lambda s: {}),
        lambda: store.delete("a\x00b"),
    ):
        with pytest.raises(ValueError, match="conversation key"):
            call()
    store.save("ok", {"n": 1})
    assert store.load("ok") == {"n": 1}
    store.close()
