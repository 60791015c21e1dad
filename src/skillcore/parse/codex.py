"""Codex's ``agents/openai.yaml`` beside a ``SKILL.md``, read into the one skillcore model.

Codex keeps a skill's invocation policy and its user-interface text out of the frontmatter::

    interface:
      display_name: "Deploy"
      short_description: "Ship the app to an environment"
      default_prompt: "Deploy the web app to staging"
    policy:
      allow_implicit_invocation: false

``policy.allow_implicit_invocation: false`` (the model may not pick the skill by itself; the
user invokes it with ``$name``) is ``disable-model-invocation: true``; only the literal
``true``/``false`` are read, and any other value reads as ``false`` (fails closed, as an
unreadable ``disable-model-invocation`` does). The ``interface`` texts become ``metadata``
entries (``display-name``, ``short-description``, ``default-prompt``, ``brand-color``), one
line each, capped. Everything else (icons, ``dependencies``) is left out. A file that cannot
be read is reported and changes nothing, except that an unreadable ``policy`` fails closed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from skillcore._escaping import folded
from skillcore.model import SkillMetadata
from skillcore.parse.frontmatter_caps import MAX_TEXT
from skillcore.parse.nesting import depth_problem

#: Where Codex keeps it, relative to the skill directory.
CODEX_FILE = "agents/openai.yaml"
#: The largest file read (Codex's are a few hundred bytes).
MAX_CODEX_BYTES = 16 * 1024
#: ``interface`` fields kept, and the ``metadata`` key each becomes.
INTERFACE_FIELDS: Mapping[str, str] = {
    "display_name": "display-name",
    "short_description": "short-description",
    "default_prompt": "default-prompt",
    "brand_color": "brand-color",
}


@attrs.frozen
class CodexInterface:
    """What one ``agents/openai.yaml`` says: ``model_invocable`` (None: the file does not
    say), the ``metadata`` entries it adds, and ``problems`` (sentences) found reading it."""

    model_invocable: bool | None = None
    metadata: Mapping[str, str] = attrs.field(factory=dict)
    problems: tuple[str, ...] = ()


def read_codex_interface(data: bytes) -> CodexInterface:
    """Read an ``agents/openai.yaml``. Never raises; bounded (size, nesting)."""
    if len(data) > MAX_CODEX_BYTES:
        return CodexInterface(False, {}, (f"larger than {MAX_CODEX_BYTES} bytes; not read",))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return CodexInterface(False, {}, ("not UTF-8 text; not read",))
    problem = depth_problem(text)
    if problem is not None:
        return CodexInterface(False, {}, (problem,))
    from skillcore.parse.yamlload import load_yaml

    try:
        doc, _dropped = load_yaml(text)
    except Exception as exc:  # a YAMLError, RecursionError or an alias bomb
        return CodexInterface(False, {}, (f"not valid YAML ({type(exc).__name__}); not read",))
    if doc is None:
        return CodexInterface()
    if not isinstance(doc, dict):
        return CodexInterface(False, {}, ("not a mapping; not read",))
    problems: list[str] = []
    invocable = _policy(doc.get("policy"), problems) if "policy" in doc else None
    metadata = _interface(doc.get("interface"), problems)
    return CodexInterface(invocable, metadata, tuple(problems))


def _policy(policy: Any, problems: list[str]) -> bool | None:
    if not isinstance(policy, dict):
        problems.append("'policy' is not a mapping; the skill is kept from the model")
        return False
    if "allow_implicit_invocation" not in policy:
        return None
    value = policy["allow_implicit_invocation"]
    if value is True or value is False:
        return value
    problems.append(
        "'policy.allow_implicit_invocation' is not true or false; the skill is kept from the model"
    )
    return False


def _interface(interface: Any, problems: list[str]) -> dict[str, str]:
    if interface is None:
        return {}
    if not isinstance(interface, dict):
        problems.append("'interface' is not a mapping; ignored")
        return {}
    out: dict[str, str] = {}
    for field, key in INTERFACE_FIELDS.items():
        value = interface.get(field)
        if value is None:
            continue
        if not isinstance(value, str):
            problems.append(f"'interface.{field}' is not text; ignored")
            continue
        out[key] = folded(value, MAX_TEXT)
    return out


def with_codex_interface(meta: SkillMetadata, found: CodexInterface) -> SkillMetadata:
    """``meta`` with what Codex's file says: a skill the file keeps from the model is
    ``disable-model-invocation``; the interface texts join ``metadata`` (the frontmatter's
    own entries win). Nothing in it makes a skill more visible than its frontmatter does."""
    changes: dict[str, Any] = {}
    if found.model_invocable is False and not meta.disable_model_invocation:
        changes["disable_model_invocation"] = True
    added = {k: v for k, v in found.metadata.items() if k not in meta.metadata}
    if added:
        changes["metadata"] = {**meta.metadata, **added}
    return attrs.evolve(meta, **changes) if changes else meta


__all__ = [
    "CODEX_FILE",
    "INTERFACE_FIELDS",
    "MAX_CODEX_BYTES",
    "CodexInterface",
    "read_codex_interface",
    "with_codex_interface",
]
