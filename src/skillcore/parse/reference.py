"""The rules of the Agent Skills reference validator (``skills-ref``, ``agentskills validate``),
as a pure function of a ``SKILL.md`` text and its directory's name.

``skillcore validate --mode reference`` gives the reference's verdict on every skill: valid or
not, with the reference's own messages. Its YAML reader (StrictYAML) reads every scalar as
text and refuses flow collections (``[a, b]``, ``{a: b}``), anchors, aliases, tags and
repeated keys; this module reads PyYAML's event stream the same way (no types resolved, so
``version: 1.10`` stays ``"1.10"``), building values with an explicit stack (no recursion
however deep the input nests). Two bounds of skillcore's own come first: the file size (the
caller's byte cap) and :data:`~skillcore.parse.frontmatter_caps.MAX_FRONTMATTER_BYTES` of
frontmatter.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from skillcore.model import SkillMetadata
from skillcore.parse.frontmatter_caps import (
    MAX_COMPATIBILITY,
    MAX_DESCRIPTION,
    MAX_FRONTMATTER_BYTES,
    MAX_NAME,
)

#: The top-level fields the reference allows; any other is an error there.
REFERENCE_FIELDS = frozenset(
    {"name", "description", "license", "allowed-tools", "metadata", "compatibility"}
)


class _Refused(Exception):
    """A frontmatter the reference's YAML reader refuses (the message says why)."""


def reference_errors(text: str, directory: str | None) -> list[str]:
    """The reference validator's errors for a ``SKILL.md`` ``text`` (empty: valid).
    ``directory``: the name of the skill's folder (None: not checked)."""
    # The reference reads the file in text mode: CR and CRLF line ends become LF.
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not text.startswith("---"):
        return ["SKILL.md must start with YAML frontmatter (---)"]
    parts = text.split("---", 2)
    if len(parts) < 3:
        return ["SKILL.md frontmatter not properly closed with ---"]
    frontmatter = parts[1]
    if len(frontmatter) > MAX_FRONTMATTER_BYTES:
        return [f"Frontmatter is longer than {MAX_FRONTMATTER_BYTES} characters"]
    try:
        fields = _read_yaml(frontmatter)
    except _Refused as exc:
        return [f"Invalid YAML in frontmatter: {exc}"]
    if not isinstance(fields, dict):
        return ["SKILL.md frontmatter must be a YAML mapping"]
    return check_fields(fields, directory)


def check_fields(fields: dict[str, Any], directory: str | None) -> list[str]:
    """The reference's checks of a read frontmatter (values as its YAML reader gives them)."""
    errors: list[str] = []
    extra = set(fields) - REFERENCE_FIELDS
    if extra:
        errors.append(
            f"Unexpected fields in frontmatter: {', '.join(sorted(extra))}. "
            f"Only {sorted(REFERENCE_FIELDS)} are allowed."
        )
    if "name" not in fields:
        errors.append("Missing required field in frontmatter: name")
    else:
        errors.extend(_name_errors(fields["name"], directory))
    if "description" not in fields:
        errors.append("Missing required field in frontmatter: description")
    else:
        description = fields["description"]
        if not isinstance(description, str) or not description.strip():
            errors.append("Field 'description' must be a non-empty string")
        elif len(description) > MAX_DESCRIPTION:
            errors.append(
                f"Description exceeds {MAX_DESCRIPTION} character limit ({len(description)} chars)"
            )
    if "compatibility" in fields:
        compatibility = fields["compatibility"]
        if not isinstance(compatibility, str):
            errors.append("Field 'compatibility' must be a string")
        elif len(compatibility) > MAX_COMPATIBILITY:
            errors.append(
                f"Compatibility exceeds {MAX_COMPATIBILITY} character limit "
                f"({len(compatibility)} chars)"
            )
    return errors


def _name_errors(value: Any, directory: str | None) -> list[str]:
    """Name rules: NFKC-normalised, at most 64 characters, lowercase letters (any script),
    digits and single inner hyphens, equal to the folder's name (NFKC too)."""
    if not isinstance(value, str) or not value.strip():
        return ["Field 'name' must be a non-empty string"]
    name = unicodedata.normalize("NFKC", value.strip())
    errors: list[str] = []
    if len(name) > MAX_NAME:
        errors.append(f"Skill name '{name}' exceeds {MAX_NAME} character limit ({len(name)} chars)")
    if name != name.lower():
        errors.append(f"Skill name '{name}' must be lowercase")
    if name.startswith("-") or name.endswith("-"):
        errors.append("Skill name cannot start or end with a hyphen")
    if "--" in name:
        errors.append("Skill name cannot contain consecutive hyphens")
    if not all(c.isalnum() or c == "-" for c in name):
        errors.append(
            f"Skill name '{name}' contains invalid characters. "
            "Only letters, digits, and hyphens are allowed."
        )
    if directory is not None and unicodedata.normalize("NFKC", directory) != name:
        errors.append(f"Directory name '{directory}' must match skill name '{name}'")
    return errors


def _read_yaml(text: str) -> Any:
    """The value StrictYAML reads from ``text``: every scalar as text, mappings and lists;
    flow collections, anchors, aliases, tags and repeated keys refused."""
    import yaml  # imported on first use: ``import skillcore`` stays light

    # The pure-Python parser: its event stream needs no recursion (libyaml's C loader can
    # crash on deep nesting), and StrictYAML accepts an empty document as empty text.
    root: list[Any] = []
    stack: list[list[Any] | dict[str, Any]] = []
    keys: list[str | None] = []  # per open mapping: the key awaiting its value
    documents = 0

    def add(value: Any) -> None:
        if not stack:
            root.append(value)
            return
        top = stack[-1]
        if isinstance(top, list):
            top.append(value)
        elif keys[-1] is None:
            if not isinstance(value, str):
                raise _Refused("a mapping key must be text")
            if value in top:
                raise _Refused(f"duplicate key {value[:60]!r}")
            keys[-1] = value
        else:
            top[keys[-1]] = value
            keys[-1] = None

    try:
        for event in yaml.parse(text, Loader=yaml.SafeLoader):
            if isinstance(event, yaml.DocumentStartEvent):
                documents += 1
                if documents > 1:
                    raise _Refused("more than one document")
            _refuse_strict(event)
            if isinstance(event, yaml.ScalarEvent):
                add(event.value)
            elif isinstance(event, yaml.SequenceStartEvent):
                stack.append([])
                keys.append(None)
            elif isinstance(event, yaml.MappingStartEvent):
                stack.append({})
                keys.append(None)
            elif isinstance(event, yaml.CollectionEndEvent):
                done = stack.pop()
                keys.pop()
                add(done)
    except yaml.YAMLError as exc:
        raise _Refused(" ".join(str(exc).split())[:300]) from None
    except RecursionError:  # pragma: no cover - the parser keeps its own stack
        raise _Refused("nested too deeply") from None
    return root[0] if root else ""


def _refuse_strict(event: Any) -> None:
    """Raise for what StrictYAML refuses in one parser event."""
    import yaml

    if isinstance(event, yaml.AliasEvent):
        raise _Refused("aliases are not allowed")
    if isinstance(event, yaml.NodeEvent) and event.anchor is not None:
        raise _Refused("anchors are not allowed")
    if isinstance(event, (yaml.ScalarEvent, yaml.CollectionStartEvent)) and event.tag is not None:
        raise _Refused("tags are not allowed")
    if isinstance(event, yaml.CollectionStartEvent) and event.flow_style:
        raise _Refused("flow collections ([...], {...}) are not allowed")


def reference_properties(meta: SkillMetadata) -> dict[str, Any]:
    """A skill's properties as the reference's ``read-properties`` prints them: name and
    description, then license, compatibility, ``allowed-tools`` (one space-separated string)
    and metadata only when set."""
    out: dict[str, Any] = {"name": meta.name, "description": meta.description}
    if meta.license is not None:
        out["license"] = meta.license
    if meta.compatibility is not None:
        out["compatibility"] = meta.compatibility
    if meta.allowed_tools is not None:
        out["allowed-tools"] = " ".join(meta.allowed_tools)
    if meta.metadata:
        out["metadata"] = dict(meta.metadata)
    return out


__all__ = [
    "REFERENCE_FIELDS",
    "check_fields",
    "reference_errors",
    "reference_properties",
]
