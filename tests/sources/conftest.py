"""Fixtures for the source tests: a moto S3 server on loopback and a fault proxy."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from loopback_s3 import FaultProxy, MotoS3


@pytest.fixture(scope="session")
def moto_s3() -> Iterator[MotoS3]:
    server = MotoS3()
    yield server
    server.stop()


@pytest.fixture
def proxy(moto_s3: MotoS3) -> Iterator[FaultProxy]:
    p = FaultProxy(moto_s3.endpoint)
    yield p
    p.close()
