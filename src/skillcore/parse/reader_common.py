"""What both frontmatter readers share: the frontmatter fields skillcore knows, the bounds
the YAML loader enforces, and how a YAML error is told. No PyYAML here, so the rules
(:mod:`skillcore.parse.frontmatter`) and the loader (:mod:`skillcore.parse.yamlload`) both
import it and neither imports the other at module level.
"""

from __future__ import annotations

from skillcore.errors import SkillcoreError

#: Characters (plus one per collection item) the frontmatter may expand to through aliases.
MAX_EXPANDED_CHARS = 128 * 1024
#: Characters of one integer literal (Python refuses to convert ~4,300 digits and more).
MAX_INT_CHARS = 100

#: Top-level frontmatter keys skillcore reads (the spec's and the known extensions).
KNOWN_FIELDS = frozenset(
    {
        "name",
        "description",
        "license",
        "compatibility",
        "metadata",
        "allowed-tools",
        "version",
        "triggers",
        "file-patterns",
        "priority",
        "dependencies",
        "disable-model-invocation",
        "user-invocable",
        "argument-hint",
        "hooks",
    }
)
#: Claude Code fields skillcore acts on, by the spellings their readers accept. The parser
#: keeps them verbatim in ``SkillMetadata.extra`` and each has one reader there
#: (``SkillMetadata.forked``/``agent``, ``policy.skill_options``, ``argument_names``), so
#: they are known extensions for strict validation, not unknown keys.
ACTED_ON_EXTRA_FIELDS = frozenset(
    {
        "context",
        "agent",
        "model",
        "effort",
        "arguments",
        "disallowed-tools",
        "disallowed_tools",
        "disallowedTools",
        "paths",
    }
)
#: The agentskills spec's own fields.
SPEC_FIELDS = frozenset(
    {"name", "description", "license", "compatibility", "metadata", "allowed-tools"}
)


class FrontmatterRefused(SkillcoreError):
    """The frontmatter is too complex to build (alias bomb, recursive alias); discovery turns it
    into a ``YAML_TOO_COMPLEX`` diagnostic."""


def yaml_message(exc: BaseException) -> str:
    """A YAML error in one line, with the line and column in the ``SKILL.md`` file."""
    if isinstance(exc, RecursionError):
        return "nesting too deep"
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    if mark is not None:
        # +1: the frontmatter starts on the second line of the file.
        return f"{problem} (line {mark.line + 2}, column {mark.column + 1})"
    return str(problem)
