"""The bounded most-recent map every cache and per-conversation memory uses."""

from __future__ import annotations

from skillcore._recent import Recent


def test_least_recently_set_is_dropped_and_returned() -> None:
    recent: Recent[str, int] = Recent(2)
    assert recent.set("a", 1) == []
    recent.set("b", 2)
    assert recent.set("a", 10) == []  # a set again: b is now the oldest
    assert recent.set("c", 3) == [2]
    assert "b" not in recent and recent.get("a") == 10 and len(recent) == 2
    assert list(recent) == ["a", "c"]  # least recent first


def test_refresh_on_read_keeps_an_entry() -> None:
    recent: Recent[str, int] = Recent(2)
    recent.set("a", 1)
    recent.set("b", 2)
    assert recent.get("a") == 1  # a plain read changes nothing
    recent.set("c", 3)
    assert "a" not in recent
    assert recent.get("b", refresh=True) == 2
    recent.set("d", 4)
    assert "b" in recent and "c" not in recent


def test_size_read_on_every_set() -> None:
    bound = [3]
    recent: Recent[int, int] = Recent(lambda: bound[0])
    for i in range(3):
        recent.set(i, i)
    bound[0] = 1
    assert recent.size == 1
    assert recent.set(3, 3) == [0, 1, 2]
    bound[0] = 0
    assert recent.set(4, 4) == [3, 4]  # nothing is kept under a zero bound
    assert len(recent) == 0


def test_pop_and_take() -> None:
    recent: Recent[str, int | None] = Recent(4)
    recent.set("a", None)
    assert recent.pop("a") and not recent.pop("a")  # pop tells presence, even of None
    recent.set("b", 2)
    assert recent.take("b") == 2 and recent.take("b") is None
