"""The example skill library, eval files and example scripts that ship with skillcore.

They are installed inside the package (``skillcore/_examples``), so code and docs reach them
from any directory, without a checkout: ``SkillLibrary(skillcore.examples_path())``. The
scripts run with ``python -m skillcore.examples NAME [ARGS...]`` (``openai_loop``,
``real_model``); without a name it lists them.
"""

from __future__ import annotations

from pathlib import Path

#: What ships: the example skills, the selection eval files written for them, and the
#: example scripts the docs run.
KINDS = ("skills", "evals", "scripts")
#: Where each kind lives in a source checkout (the scripts sit in ``examples/`` itself).
_CHECKOUT = {"skills": "skills", "evals": "evals", "scripts": "."}


def examples_path(kind: str = "skills") -> Path:
    """The directory of the bundled examples: ``"skills"`` (a small real skill library),
    ``"evals"`` (routing and trigger eval files for ``skillcore eval``) or ``"scripts"`` (the
    example programs the docs run).

    The installed copy inside the package; in a source checkout, its ``examples/`` folder.
    """
    if kind not in KINDS:
        raise ValueError(f"unknown examples kind {kind!r}; use one of: {', '.join(KINDS)}")
    here = Path(__file__).resolve().parent
    # The wheel's copy, then the checkout's folder (src/skillcore -> the repository root).
    checkout = (here.parents[1] / "examples" / _CHECKOUT[kind]).resolve()
    for candidate in (here / "_examples" / kind, checkout):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(
        f"the bundled examples/{kind} are missing from this installation ({here}); "
        "reinstall skillcore-agents (in its checkout: pip install -e .; from a built wheel: "
        "pip install --force-reinstall --find-links dist skillcore-agents)"
    )


def scripts() -> dict[str, Path]:
    """The bundled example scripts, by name (``openai_loop`` -> its file)."""
    return {p.stem: p for p in sorted(examples_path("scripts").glob("*.py"))}


def main(argv: list[str] | None = None) -> int:
    """``python -m skillcore.examples NAME [ARGS...]``: run a bundled example script as
    ``python NAME.py ARGS...`` would (without a name: list them)."""
    import runpy
    import sys

    args = sys.argv[1:] if argv is None else argv
    found = scripts()
    if not args or args[0] not in found:
        names = ", ".join(found) or "none"
        if args and args[0] not in ("-h", "--help"):
            print(f"unknown example {args[0]!r}; the examples are: {names}", file=sys.stderr)
            return 2
        print(f"usage: python -m skillcore.examples NAME [ARGS...]\nexamples: {names}")
        return 0
    path = found[args[0]]
    sys.argv = [str(path), *args[1:]]
    runpy.run_path(str(path), run_name="__main__")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
