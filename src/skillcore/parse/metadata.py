"""The ``metadata`` field: a mapping of text to text (converted, cleaned, capped), with the
typed keys of Google ADK read as their type."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from skillcore._frozen import adopt
from skillcore.diagnostics import Code
from skillcore.parse.context import ParseContext
from skillcore.parse.frontmatter_caps import MAX_METADATA_ENTRIES, MAX_METADATA_KEY, MAX_TEXT
from skillcore.parse.truncation import cap_text
from skillcore.parse.values import scalar_text, type_name


def read_metadata_field(
    fm: dict[str, Any], ctx: ParseContext, kwargs: dict[str, Any]
) -> dict[str, str] | None:
    """``metadata`` of the skill from its field; the mapping kept (None when there is none)."""
    meta = fm.get("metadata")
    if meta is None:
        return None
    if (
        ctx.cleaner is None
        and type(meta) is dict
        and len(meta) <= MAX_METADATA_ENTRIES
        and plain_metadata(meta)
    ):
        # Text keys and values within the caps and nothing to clean: kept as they are, the
        # loader's own dict (nothing else holds it once the frontmatter is read).
        kwargs["metadata"] = adopt(meta)
        return meta
    if type(meta) is dict or isinstance(meta, Mapping):
        meta_dict = _metadata(meta, ctx)
        kwargs["metadata"] = adopt(meta_dict)  # str -> str: no deep freeze needed
        return meta_dict
    ctx.diags.append(
        ctx.problem(
            Code.INVALID_TYPE,
            f"'metadata' must be a mapping, got {type_name(meta)}; ignored",
            "metadata",
        )
    )
    return None


def plain_metadata(meta: dict[Any, Any]) -> bool:
    """True when every entry maps text to text within the caps (kept as it is)."""
    for k, v in meta.items():
        if type(k) is not str or type(v) is not str:
            return False
        if len(k) > MAX_METADATA_KEY or len(v) > MAX_TEXT:
            return False
    return True


def _metadata(meta: Mapping[Any, Any], ctx: ParseContext) -> dict[str, str]:
    """The ``metadata`` mapping as text to text: converted, cleaned, capped."""
    clean, strict = ctx.clean, ctx.strict
    clean_meta: dict[str, str] = {}
    converted = False
    for k, v in meta.items():
        if len(clean_meta) == MAX_METADATA_ENTRIES:
            ctx.diags.append(
                ctx.problem(
                    Code.FIELD_TOO_LONG,
                    f"metadata has {len(meta)} entries (limit {MAX_METADATA_ENTRIES}); "
                    f"kept the first {MAX_METADATA_ENTRIES}",
                    "metadata",
                )
            )
            break
        if not converted and (not isinstance(k, str) or not isinstance(v, str)):
            if isinstance(k, str) and _typed_metadata_ok(k, v):
                # Google ADK's own typed keys, which skillcore reads: not a problem.
                clean_meta[k] = clean(scalar_text(v), "metadata")
                continue
            converted = True  # one diagnostic, not one per entry
            bad = k if not isinstance(k, str) else v
            outcome = "quote it in YAML" if strict else "converted to text"
            ctx.diags.append(
                ctx.problem(
                    Code.INVALID_TYPE,
                    f"metadata entry {scalar_text(k)[:60]!r} should map a string to a "
                    f"string, got a {type_name(bad)}; {outcome}",
                    "metadata",
                )
            )
        key = cap_text(clean(scalar_text(k), "metadata"), "metadata key", MAX_METADATA_KEY, ctx)
        text = clean(scalar_text(v), "metadata")
        clean_meta[key] = cap_text(text, "metadata value", MAX_TEXT, ctx)
    return clean_meta


#: skillcore's extension fields a spec-valid skill writes under ``metadata`` (the spec allows
#: no other top-level field): read as the field when the frontmatter does not set it.
METADATA_EXTENSIONS = frozenset(
    {
        "triggers",
        "file-patterns",
        "dependencies",
        "priority",
        "disable-model-invocation",
        "user-invocable",
        "argument-hint",
    }
)
_INTEGER = re.compile(r"[+-]?[0-9]{1,9}")
#: ``metadata`` keys already normalised (most libraries repeat a few: ``author``,
#: ``version``): bounded in entries and key length, as keys come from files.
_FIELD_OF: dict[str, str] = {}
_MAX_FIELDS = 1024


def _field_of(key: str) -> str:
    """The field a ``metadata`` key names: stripped, lower-case, ``_`` read as ``-``."""
    field = key.strip().lower().replace("_", "-")
    if len(_FIELD_OF) < _MAX_FIELDS and len(key) <= 64:
        _FIELD_OF[key] = field
    return field


def metadata_extensions(meta: Mapping[str, str], fm: Mapping[str, Any]) -> dict[str, Any]:
    """The extension fields given as ``metadata`` text and not as fields of their own, as the
    field readers take them: lists stay comma-separated text, ``priority`` an integer when it
    is one, the flags ``true``/``false`` as booleans (anything else is left as text, which
    ``disable-model-invocation`` reads as disabled: it fails closed)."""
    found: dict[str, Any] = {}
    for key, text in meta.items():
        field = _FIELD_OF.get(key)
        if field is None:
            field = _field_of(key)
        if field not in METADATA_EXTENSIONS or field in fm or field in found:
            continue
        value: Any = text
        if field == "priority" and _INTEGER.fullmatch(text.strip()):
            value = int(text)
        elif field in ("disable-model-invocation", "user-invocable"):
            flag = text.strip().lower()
            value = True if flag == "true" else False if flag == "false" else text
        found[field] = value
    return found


#: ``metadata`` keys whose peers give them a type other than text, with the type skillcore
#: reads them as: ADK's ``adk_additional_tools`` (a list of tool names, see
#: :mod:`skillcore.policy.gating`) and ``adk_inject_state`` (a bool).
TYPED_METADATA: Mapping[str, str] = {"adk_additional_tools": "list", "adk_inject_state": "bool"}


def _typed_metadata_ok(key: str, value: Any) -> bool:
    kind = TYPED_METADATA.get(key)
    if kind == "bool":
        return isinstance(value, bool)
    if kind == "list":
        return isinstance(value, list) and all(type(v) is str for v in value)
    return False
