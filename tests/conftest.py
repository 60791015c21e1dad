"""Hypothesis profiles for the whole suite.

``HYPOTHESIS_PROFILE=long pytest ...`` runs the property tests that scale with the profile
(those built on ``settings(settings.get_profile("skillcore"), ...)``) with many more examples;
the default keeps the normal run fast.
"""

from __future__ import annotations

import os

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
