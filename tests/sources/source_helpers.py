"""Helpers for the source tests: skill trees, Git repositories, S3 storage options."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from loopback_s3 import CREDENTIALS

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test User",
    "GIT_AUTHOR_EMAIL": "test@example.com",
    "GIT_COMMITTER_NAME": "Test User",
    "GIT_COMMITTER_EMAIL": "test@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_TERMINAL_PROMPT": "0",
}


def git(repo: Path, *args: str) -> str:
    """Run the git CLI in ``repo`` with a clean, fixed identity."""
    env = {**os.environ, **GIT_ENV}
    proc = subprocess.run(
        ["git", *args], cwd=repo, env=env, capture_output=True, text=True, check=True
    )
    return proc.stdout.strip()


def write_skill(
    root: Path,
    name: str,
    description: str | None = None,
    body: str = "Follow the steps.\n",
    files: dict[str, str | bytes] | None = None,
    directory: str | None = None,
) -> Path:
    """Write ``root/<directory or name>/SKILL.md`` (+ files) and return the skill folder."""
    folder = root / (directory or name)
    folder.mkdir(parents=True, exist_ok=True)
    desc = description or f"Use {name} when the user needs {name.replace('-', ' ')}."
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {desc}\n---\n\n{body}")
    for rel, content in (files or {}).items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
    return folder


def make_tree(root: Path, n: int, prefix: str = "skill") -> Path:
    """``n`` skills ``<prefix>-000..`` each with one reference file."""
    for i in range(n):
        write_skill(root, f"{prefix}-{i:03d}", files={"references/guide.md": f"guide {i}\n"})
    return root


def s3_options(endpoint: str, **extra: object) -> dict[str, object]:
    """Storage options for an s3:// source on the loopback server."""
    return {"endpoint_url": endpoint, **CREDENTIALS, **extra}
