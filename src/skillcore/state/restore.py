"""How adapters read saved state (:class:`Restorer`) and keep values derived from a catalog
(:class:`CatalogMemo`), each rebuilt only when its input object changes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

from skillcore.limits import Limits
from skillcore.model import Catalog
from skillcore.names import ToolNames
from skillcore.policy.rules import ToolPolicy
from skillcore.state.session import Restored, restore_session


class Restorer:
    """How adapters read saved state: :func:`~skillcore.restore_session` over the current
    catalog, remembering the last result. Frameworks hand every hook of a run the same state
    object until it changes (LangGraph state, ADK session state values are replaced, never
    mutated), so an identity check saves re-validating it, and a repair is reported once."""

    def __init__(
        self, catalog: Callable[[], Catalog], limits: Limits, policy: ToolPolicy, names: ToolNames
    ) -> None:
        self.catalog, self.limits, self.policy, self.names = catalog, limits, policy, names
        # Holds a reference to the state object, so its id cannot be reused meanwhile.
        self._last: tuple[Any, Catalog, Restored] | None = None

    def __call__(self, state: Any) -> Restored:
        """The session saved in ``state`` (None: an empty one); never raises."""
        catalog, last = self.catalog(), self._last
        if last is not None and last[0] is state and last[1] is catalog:
            return last[2]
        restored = restore_session(state, catalog, self.limits, self.policy, self.names)
        self._last = (state, catalog, restored)
        return restored


T = TypeVar("T")


class CatalogMemo(Generic[T]):
    """A value derived from a catalog (e.g. framework tool objects for its specs), rebuilt only
    when the catalog object changes: adapters ask on every model call."""

    def __init__(self, build: Callable[[Catalog], T]) -> None:
        self._build = build
        self._cached: tuple[Catalog, T] | None = None

    def __call__(self, catalog: Catalog) -> T:
        """The value for ``catalog``."""
        cached = self._cached
        if cached is None or cached[0] is not catalog:
            cached = self._cached = (catalog, self._build(catalog))
        return cached[1]
