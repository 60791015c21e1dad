"""The example skill library and eval files that ship with skillcore.

They are installed inside the package (``skillcore/_examples``), so code and docs reach them
from any directory, without a checkout: ``SkillLibrary(skillcore.examples_path())``.
"""

from __future__ import annotations

from pathlib import Path

#: What ships: the example skills, and the selection eval files written for them.
KINDS = ("skills", "evals")


def examples_path(kind: str = "skills") -> Path:
    """The directory of the bundled examples: ``"skills"`` (a small real skill library) or
    ``"evals"`` (routing and trigger eval files for ``skillcore eval``).

    The installed copy inside the package; in a source checkout, its ``examples/`` folder.
    """
    if kind not in KINDS:
        raise ValueError(f"unknown examples kind {kind!r}; use one of: {', '.join(KINDS)}")
    here = Path(__file__).resolve().parent
    # The wheel's copy, then the checkout's folder (src/skillcore -> the repository root).
    for candidate in (here / "_examples" / kind, here.parents[1] / "examples" / kind):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(
        f"the bundled examples/{kind} are missing from this installation ({here}); "
        'reinstall with pip install --force-reinstall "skillcore-agents"'
    )
