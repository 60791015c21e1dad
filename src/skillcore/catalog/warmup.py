"""Loading the semantic ranker when a catalog is first seen, in the background, so that the
first search does not pay for it (loading WordLlama takes about a second; a sentence encoder
its model and its skill vectors, computed or read from the vector cache)."""

from __future__ import annotations

import contextlib
import threading

from skillcore.catalog.embedders import Encoding
from skillcore.catalog.ranking import Ranker, index_for, resolve_ranker
from skillcore.memo import per_catalog
from skillcore.model import Catalog


def warm_up(
    catalog: Catalog, ranker: Ranker = "auto", encoding: Encoding | None = None
) -> threading.Thread | None:
    """Start building ``catalog``'s search index for ``ranker`` (and ``encoding``) in a
    daemon thread, once per catalog and encoding; None when there is nothing to load (BM25,
    or the semantic extra missing with ``"auto"``). A search that arrives meanwhile waits
    for the build instead of starting a second one; a build that fails leaves the search to
    fail the same way (with its own error)."""
    if resolve_ranker(ranker) != "hybrid" or not len(catalog):
        return None
    kind = "warm" if encoding is None else f"warm+{id(encoding)}"

    def start() -> threading.Thread:
        thread = threading.Thread(
            target=_build, args=(catalog, encoding), name="skillcore-warm-up", daemon=True
        )
        thread.start()
        return thread

    started: threading.Thread = per_catalog(catalog, kind, start)
    return started


def _build(catalog: Catalog, encoding: Encoding | None) -> None:
    # A failure is left to the first search to report (an extra missing, a refused model).
    with contextlib.suppress(Exception):
        index_for(catalog, encoding).warm("hybrid")


__all__ = ["warm_up"]
