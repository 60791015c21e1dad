"""The spec's length guidance for a ``SKILL.md`` (numbers in :mod:`skillcore.limits`): what
discovery and ``skillcore validate`` say about a file past it."""

from __future__ import annotations

from skillcore.limits import CHARS_PER_TOKEN, GUIDANCE_BYTES, GUIDANCE_LINES, GUIDANCE_TOKENS


def length_problem(size: int | None, lines: int | None = None) -> str | None:
    """The warning for a ``SKILL.md`` whose body (its instructions, after the frontmatter) is
    ``size`` bytes and ``lines`` lines long (each None when unknown), or None when it is
    within the guidance."""
    over = []
    if size is not None and size > GUIDANCE_BYTES:
        over.append(f"{size:,} bytes (about {size // CHARS_PER_TOKEN:,} tokens)")
    if lines is not None and lines > GUIDANCE_LINES:
        over.append(f"{lines:,} lines")
    if not over:
        return None
    return (
        f"the instructions of SKILL.md are {' and '.join(over)}, past the spec's guidance "
        f"of about {GUIDANCE_LINES} lines and {GUIDANCE_TOKENS:,} tokens: move detail into "
        "files under references/ that they point to (one load delivers at most "
        "Limits.max_load_chars characters; the rest is read as a resource)"
    )


__all__ = ["length_problem"]
