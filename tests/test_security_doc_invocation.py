"""docs/security.md states the bounds of user invocation; each number is the constant."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillcore import limits
from skillcore.parse import MAX_CODEX_BYTES

DOC = " ".join((Path(__file__).resolve().parents[1] / "docs" / "security.md").read_text().split())


@pytest.mark.parametrize(
    "text",
    [
        f"at most {limits.MAX_INVOCATION_ARGUMENTS:,} characters (`MAX_INVOCATION_ARGUMENTS`)",
        f"at most {limits.MAX_POSITIONAL_ARGUMENTS} positional arguments",
        f"at most {limits.MAX_NAMED_ARGUMENTS} names (`MAX_NAMED_ARGUMENTS`) of at most "
        f"{limits.MAX_ARGUMENT_NAME} characters",
        f"at most {limits.MAX_SUBSTITUTED_CHARS:,} characters to the body",
        f"at most {MAX_CODEX_BYTES // 1024} KiB (`MAX_CODEX_BYTES`)",
    ],
)
def test_security_page_states_the_invocation_bounds(text: str) -> None:
    assert text in DOC
