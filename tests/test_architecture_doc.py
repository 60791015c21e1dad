"""docs/architecture.md names every module of the four packages, so the map cannot fall behind
the code: a module of a core layer is named in its layer's row, an adapter's module in its
package's row, a top-level core module in the foundations row (or anywhere, spelled in full)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
DOC = ROOT / "docs" / "architecture.md"


def _rows() -> dict[str, str]:
    """Each table row of the page by its first backticked package name."""
    rows: dict[str, str] = {}
    for line in DOC.read_text(encoding="utf-8").splitlines():
        found = re.findall(r"`(skillcore[\w.]*)`", line)
        if line.startswith("|") and found:
            rows.setdefault(found[0], line)
    return rows


def _named(text: str, name: str) -> bool:
    return re.search(r"`[^`]*\b" + re.escape(name) + r"\b[^`]*`", text) is not None


def _unnamed() -> list[str]:
    rows = _rows()
    page = DOC.read_text(encoding="utf-8")
    missing = []
    for file in sorted(SRC.rglob("*.py")):
        parts = file.relative_to(SRC).with_suffix("").parts
        if parts[-1] == "__init__" or parts[-1] == "__main__":
            continue
        dotted = ".".join(parts)
        if len(parts) == 3:  # skillcore.<layer>.<module>
            row = rows.get(".".join(parts[:2]), "")
        elif parts[0] == "skillcore":  # a foundation, or a package's own module
            row = rows.get("skillcore.outcome_texts", "") + rows.get("skillcore.testing", "")
        else:
            row = rows.get(parts[0], "")
        if not (_named(row, parts[-1]) or f"`{dotted}`" in page):
            missing.append(dotted)
    return missing


def test_every_module_is_on_the_map() -> None:
    missing = _unnamed()
    assert not missing, f"docs/architecture.md does not name: {missing}"
