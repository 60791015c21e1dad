"""Reading a SKILL.md: the frontmatter rules, the fast scanner, the bounded YAML loader and the
parse cache.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from skillcore._faces import face

if TYPE_CHECKING:
    from skillcore.parse.cache import (
        CACHE_ENV_OFF,
        ParseCache,
        cache_disabled,
        default_cache_dir,
        gc_paused,
    )
    from skillcore.parse.codex import (
        CODEX_FILE,
        MAX_CODEX_BYTES,
        read_codex_interface,
        with_codex_interface,
    )
    from skillcore.parse.context import ParseResult, ValidationMode
    from skillcore.parse.document import body_span, decode_text, split_frontmatter
    from skillcore.parse.frontmatter import load_yaml, parse_skill_file
    from skillcore.parse.frontmatter_caps import (
        FRONTMATTER_HEAD_BYTES,
        MAX_DESCRIPTION,
        MAX_FRONTMATTER_BYTES,
        MAX_HEADINGS,
        MAX_HEADINGS_SCANNED,
        MAX_NAME_USABLE,
        MAX_NESTING,
    )
    from skillcore.parse.length import length_problem
    from skillcore.parse.name_field import check_name
    from skillcore.parse.nesting import too_deep
    from skillcore.parse.reader_common import MAX_INT_CHARS
    from skillcore.parse.reference import reference_errors

__getattr__, __dir__, __all__ = face(
    __name__,
    {
        "CACHE_ENV_OFF": "skillcore.parse.cache",
        "CODEX_FILE": "skillcore.parse.codex",
        "MAX_CODEX_BYTES": "skillcore.parse.codex",
        "FRONTMATTER_HEAD_BYTES": "skillcore.parse.frontmatter_caps",
        "MAX_DESCRIPTION": "skillcore.parse.frontmatter_caps",
        "MAX_FRONTMATTER_BYTES": "skillcore.parse.frontmatter_caps",
        "MAX_HEADINGS": "skillcore.parse.frontmatter_caps",
        "MAX_HEADINGS_SCANNED": "skillcore.parse.frontmatter_caps",
        "MAX_INT_CHARS": "skillcore.parse.reader_common",
        "MAX_NAME_USABLE": "skillcore.parse.frontmatter_caps",
        "MAX_NESTING": "skillcore.parse.frontmatter_caps",
        "ParseCache": "skillcore.parse.cache",
        "ParseResult": "skillcore.parse.context",
        "ValidationMode": "skillcore.parse.context",
        "body_span": "skillcore.parse.document",
        "cache_disabled": "skillcore.parse.cache",
        "check_name": "skillcore.parse.name_field",
        "decode_text": "skillcore.parse.document",
        "default_cache_dir": "skillcore.parse.cache",
        "gc_paused": "skillcore.parse.cache",
        "length_problem": "skillcore.parse.length",
        "load_yaml": "skillcore.parse.frontmatter",
        "parse_skill_file": "skillcore.parse.frontmatter",
        "read_codex_interface": "skillcore.parse.codex",
        "with_codex_interface": "skillcore.parse.codex",
        "reference_errors": "skillcore.parse.reference",
        "split_frontmatter": "skillcore.parse.document",
        "too_deep": "skillcore.parse.nesting",
    },
)
