"""The restorer's memo of restored sessions: one per state object over the current catalog,
and nothing kept for a catalog that is no longer current (each would hold a whole catalog)."""

from __future__ import annotations

import gc
import weakref

from skillcore import Catalog, Limits, SkillMetadata, ToolPolicy
from skillcore.model import SkillLocation
from skillcore.names import ToolNames
from skillcore.state.restore import Restorer


def _catalog(i: int) -> Catalog:
    location = SkillLocation(source="test", directory=f"s{i}", url=f"file:///s{i}")
    return Catalog((SkillMetadata(name=f"s{i}", description="Does it.", location=location),))


def test_old_catalogs_are_not_kept() -> None:
    current = [_catalog(0)]
    restorer = Restorer(lambda: current[0], Limits(), ToolPolicy(), ToolNames())
    refs = []
    for i in range(1, 20):
        refs.append(weakref.ref(current[0]))
        restorer({"skills": None, "n": i})  # a state object per call, kept while it is current
        current[0] = _catalog(i)
    restorer({})
    gc.collect()
    assert [r() for r in refs[:-1]] == [None] * (len(refs) - 1)


def test_a_state_object_is_restored_once_per_catalog() -> None:
    current = [_catalog(0)]
    restorer = Restorer(lambda: current[0], Limits(), ToolPolicy(), ToolNames())
    a, b = {}, {}
    first = restorer(a)
    assert restorer(b) is not first or a is b
    assert restorer(a) is first  # the other conversation did not evict it
    current[0] = _catalog(1)
    assert restorer(a) is not first  # another catalog: restored again over it
