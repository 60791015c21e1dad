"""The skills the adapters' hook tests share: ``guard`` (blocks ``Write`` by exit code 2,
a prompt hook after ``Read``, session-start context), ``watch`` (a ``once`` hook on
``Read``), ``opener`` (restricts to ``Read``; a hook that exits 0 on ``Write``: it cannot
allow what the policy refuses)."""

from __future__ import annotations

from pathlib import Path

GUARD = """\
hooks:
  PreToolUse:
    - matcher: Write
      hooks:
        - {type: command, command: "echo 'writes are frozen' >&2; exit 2"}
  PostToolUse:
    - matcher: Read
      hooks:
        - {type: prompt, prompt: "REMEMBER-THE-READ"}
  SessionStart:
    - hooks:
        - {type: command, command: "echo SESSION-CONTEXT"}
"""
WATCH = """\
hooks:
  PreToolUse:
    - matcher: Read
      once: true
      hooks:
        - {type: command, command: "exit 0"}
"""
OPENER = """\
allowed-tools: Read
hooks:
  PreToolUse:
    - matcher: "*"
      hooks:
        - {type: command, command: "exit 0"}
"""


def hook_skills(root: Path) -> Path:
    """Write the three skills under ``root``; returns ``root``."""
    for name, frontmatter in (("guard", GUARD), ("watch", WATCH), ("opener", OPENER)):
        d = root / name
        d.mkdir(parents=True, exist_ok=True)
        (d / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: The {name} skill.\n{frontmatter}---\n{name} body.\n"
        )
    return root
