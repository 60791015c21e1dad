"""Exceptions: for caller misuse only.

Bad skills become diagnostics and refused transitions become outcomes.
"""

from __future__ import annotations


class SkillcoreError(Exception):
    """Base class of every exception raised by skillcore."""


class SourceError(SkillcoreError):
    """A source URL or object could not be turned into a readable source."""


class SourceNotFoundError(SourceError, FileNotFoundError):
    """A local source the caller named does not exist (raised where the library is built)."""


class SkillSourceWarning(UserWarning):
    """A source failed during discovery (unreachable, or stale: its last good skills are
    kept). Shown through :mod:`warnings`, so it is seen without logging set up."""


class StateError(SkillcoreError, ValueError):
    """A serialized session state is malformed or has an unsupported schema version."""


class MissingDependencyError(SkillcoreError, ImportError):
    """An optional dependency is not installed; the message names the extra to install."""


#: The name users install this project under (the import packages are named ``skillcore*``).
DISTRIBUTION = "skillcore-agents"


def install_hint(extra: str) -> str:
    """The exact command that installs ``extra``, e.g. ``pip install "skillcore-agents[s3]"``."""
    return f'pip install "{DISTRIBUTION}[{extra}]"'


def require(module: str, extra: str, purpose: str) -> object:
    """Import ``module`` or raise an ImportError naming the exact ``pip install`` to run."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise MissingDependencyError(
            f"{purpose} needs the optional dependency {module!r}: {install_hint(extra)}"
        ) from exc
