"""Hypothesis profiles for the whole suite.

``HYPOTHESIS_PROFILE=long pytest ...`` runs the property tests that scale with the profile
(those built on ``settings(settings.get_profile("skillcore"), ...)``) with many more examples;
the default keeps the normal run fast.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings

_COMMON = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}
settings.register_profile("ci", max_examples=100, **_COMMON)
settings.register_profile("long", max_examples=5_000, **_COMMON)
#: The selected profile under a fixed name, so a test module can build on it even after
#: another module has loaded a different default profile at import time.
settings.register_profile(
    "skillcore", settings.get_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
)
settings.load_profile("skillcore")


@pytest.fixture(autouse=True, scope="session")
def _isolated_parse_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Libraries made by tests keep their parse cache in a temporary directory, not ~/.cache."""
    old = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("xdg-cache"))
    yield
    if old is None:
        os.environ.pop("XDG_CACHE_HOME", None)
    else:
        os.environ["XDG_CACHE_HOME"] = old


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A throwaway PostgreSQL server for this test session (its URL); skipped when the
    PostgreSQL binaries or psycopg are not installed."""
    pytest.importorskip("psycopg")
    from pgserver import PgServer, binaries

    if binaries() is None:
        pytest.skip("PostgreSQL binaries (initdb, pg_ctl, postgres) are not installed")
    with PgServer() as pg:
        yield pg.url
