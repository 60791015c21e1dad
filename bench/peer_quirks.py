"""Which odd-but-plausible SKILL.md inputs each peer accepts, skips or crashes on.

Run from the repository root: ``python bench/peer_quirks.py``. For every case it builds a
two-skill library (one valid skill + the odd one) and reports, per system, how many skills were
found (``2`` = accepted, ``1`` = skipped) or which exception escaped (the whole discovery failed).
"""

from __future__ import annotations

import logging
import shutil
import tempfile
from pathlib import Path

from peers import BASELINES, PEERS
from timing import print_table

_VALID = "---\nname: {dir}\ndescription: A valid skill used as a control.\n---\n\n# Body\n"

# case -> (directory name, file name, file content); "{dir}" is replaced by the directory name.
CASES: dict[str, tuple[str, str, str]] = {
    "control (valid)": ("odd-skill", "SKILL.md", _VALID),
    "flow-style list": (
        "odd-skill",
        "SKILL.md",
        "---\nname: {dir}\ndescription: Flow list.\ntriggers: [a, b]\n---\nBody\n",
    ),
    "allowed-tools as YAML list": (
        "odd-skill",
        "SKILL.md",
        "---\nname: {dir}\ndescription: List tools.\nallowed-tools:\n  - Read\n  - Bash\n---\n",
    ),
    "name != directory": (
        "odd-skill",
        "SKILL.md",
        "---\nname: other-name\ndescription: Mismatch.\n---\nBody\n",
    ),
    "unquoted colon in description": (
        "odd-skill",
        "SKILL.md",
        "---\nname: {dir}\ndescription: Use when: the user asks.\n---\nBody\n",
    ),
    "numeric name": ("123", "SKILL.md", "---\nname: 123\ndescription: Int name.\n---\nBody\n"),
    "metadata with int value": (
        "odd-skill",
        "SKILL.md",
        "---\nname: {dir}\ndescription: Meta.\nmetadata:\n  retries: 3\n---\nBody\n",
    ),
    "lowercase skill.md": ("odd-skill", "skill.md", _VALID),
    "CRLF line endings": ("odd-skill", "SKILL.md", _VALID.replace("\n", "\r\n")),
    "UTF-8 BOM": ("odd-skill", "SKILL.md", "\ufeff" + _VALID),
    "description > 1024 chars": (
        "odd-skill",
        "SKILL.md",
        "---\nname: {dir}\ndescription: " + "x" * 1100 + "\n---\nBody\n",
    ),
    "uppercase name": ("Odd-Skill", "SKILL.md", _VALID),
    "no frontmatter": ("odd-skill", "SKILL.md", "# Just Markdown\n"),
    "no closing ---": ("odd-skill", "SKILL.md", "---\nname: {dir}\ndescription: Open.\n"),
    "frontmatter only, no body": (
        "odd-skill",
        "SKILL.md",
        "---\nname: {dir}\ndescription: No body.\n---",
    ),
}


def _library(base: Path, case: str) -> Path:
    dirname, filename, content = CASES[case]
    root = base / str(abs(hash(case)))
    (root / "good-skill").mkdir(parents=True)
    (root / "good-skill" / "SKILL.md").write_text(_VALID.format(dir="good-skill"), encoding="utf-8")
    (root / dirname).mkdir()
    # newline="" keeps CRLF cases byte-exact.
    with open(root / dirname / filename, "w", encoding="utf-8", newline="") as fh:
        fh.write(content.replace("{dir}", dirname))
    return root


def main() -> None:
    """Print one Markdown row per case, one column per system."""
    logging.disable(logging.CRITICAL)  # the peers' per-skill warnings would drown the table
    systems = {**PEERS, **BASELINES}
    base = Path(tempfile.mkdtemp(prefix="peer-quirks-"))
    rows: list[dict[str, object]] = []
    try:
        for case in CASES:
            root = _library(base, case)
            row: dict[str, object] = {"case": case}
            for name, (fn, _dist) in systems.items():
                try:
                    row[name] = fn(root)
                except Exception as exc:  # recorded: it is the finding
                    row[name] = f"raises {type(exc).__name__}"
            rows.append(row)
    finally:
        shutil.rmtree(base)
    print_table(rows)


if __name__ == "__main__":
    main()
