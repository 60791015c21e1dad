"""A library of real ``SKILL.md`` files for the discovery benchmarks.

The 431 skills of ``examples/evals/selection/skills.json`` come from six public repositories
(their ``source`` is ``owner/name/path``); their bodies are longer and richer in headings than
the synthetic ones (about 10 KB each). :func:`make_real_library` copies each one ``copies``
times (``name-c1`` ...; the ``name:`` line follows the directory) into a local source.

The repositories are read from ``REPOS`` (``owner+name`` each: a clone or a bare git
directory), at the commits below when they have them (the commits the eval set was checked
against), else at ``HEAD``. Missing ones are cloned when ``clone=True`` (network).

CLI: ``python bench/real_skills.py DIR [--copies 5] [--repos REPOS]``.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SKILLS_JSON = REPO / "examples" / "evals" / "selection" / "skills.json"
REPOS = Path("/tmp/skillcore-bench/real-repos")
#: The commit read from each repository (when the clone has it).
COMMITS = {
    "K-Dense-AI/claude-scientific-skills": "899a51bfbd63218153b272c9459dcb4a7ae88da6",
    "anthropics/skills": "9d2f1ae187231d8199c64b5b762e1bdf2244733d",
    "obra/superpowers": "44c9b2d6e889982ac18c27d05a19fefe335194e1",
    "openai/skills": "f6b8344b4e519f964d8884d6f60b57991f3f4993",
    "trailofbits/skills": "293fb74c3151cceda32a85a545fe8acd67f8f5c6",
    "wshobson/agents": "367cb6a4a182cf7e9b0a17c9429f7411ddd9cf35",
}
_MARKER = ".real.json"
_NAME_LINE = re.compile(rb"^name:[^\n]*$", re.M)


def _git_dir(repos: Path, repo: str, clone: bool) -> Path:
    """The git directory of ``repo`` under ``repos`` (cloned when missing and allowed)."""
    base = repos / repo.replace("/", "+")
    for candidate in (base / "repo", base / ".git", base):
        if (candidate / "HEAD").is_file():
            return candidate
    if not clone:
        raise SystemExit(f"{repo}: no clone under {base} (pass --clone to fetch it)")
    base.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        ["git", "clone", "--bare", "--quiet", f"https://github.com/{repo}.git", str(base)],
        check=True,
    )
    return base


def _show(git_dir: Path, repo: str, path: str) -> bytes:
    """``path`` at the pinned commit when the clone has it, else at ``HEAD``."""
    for rev in (COMMITS[repo], "HEAD"):
        proc = subprocess.run(
            ["git", "--git-dir", str(git_dir), "show", f"{rev}:{path}"], capture_output=True
        )
        if proc.returncode == 0:
            return proc.stdout
    raise SystemExit(f"{repo}: {path} not found")


def real_skill_files(repos: Path = REPOS, clone: bool = False) -> dict[str, bytes]:
    """``{name: SKILL.md bytes}`` of the eval set's real skills."""
    skills = json.loads(SKILLS_JSON.read_text())["skills"]
    dirs: dict[str, Path] = {}
    out = {}
    for skill in skills:
        owner, name, path = skill["source"].split("/", 2)
        repo = f"{owner}/{name}"
        if repo not in dirs:
            dirs[repo] = _git_dir(repos, repo, clone)
        out[skill["name"]] = _show(dirs[repo], repo, path)
    return out


def make_real_library(
    root: Path, copies: int = 5, repos: Path = REPOS, clone: bool = False
) -> Path:
    """``root`` holding ``copies`` copies of each real skill (reused when already built)."""
    marker = root / _MARKER
    want = {"copies": copies, "commits": COMMITS}
    if marker.is_file() and json.loads(marker.read_text()) == want:
        return root
    files = real_skill_files(repos, clone)
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    for name, data in files.items():
        for i in range(1, copies + 1):
            copy = f"{name}-c{i}"
            (root / copy).mkdir()
            body = _NAME_LINE.sub(f"name: {copy}".encode(), data, count=1)
            (root / copy / "SKILL.md").write_bytes(body)
    marker.write_text(json.dumps(want))
    return root


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir", type=Path)
    parser.add_argument("--copies", type=int, default=5)
    parser.add_argument("--repos", type=Path, default=REPOS)
    parser.add_argument("--clone", action="store_true", help="clone missing repositories")
    args = parser.parse_args()
    root = make_real_library(args.dir, args.copies, args.repos, args.clone)
    print(f"{root}: {sum(1 for _ in root.iterdir()) - 1} skills")


if __name__ == "__main__":
    main()
