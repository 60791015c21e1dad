"""The PyYAML side of frontmatter parsing, imported only when the fast scanner declines.

``skillcore.parse.frontmatter`` holds the rules; this module holds what needs PyYAML (the
bounded safe loader, duplicate-key and alias-expansion checks on the node graph, the
event-stream depth check), so ``import skillcore`` and a cold start from the parse cache
never import it.
"""

from __future__ import annotations

from typing import Any

import yaml
from yaml.constructor import ConstructorError, SafeConstructor
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from skillcore.parse.reader_common import (
    KNOWN_FIELDS,
    MAX_EXPANDED_CHARS,
    MAX_INT_CHARS,
    FrontmatterRefused,
    yaml_message,
)

try:  # libyaml is ~10x faster; fall back to the pure-Python *safe* loader, never an unsafe one.
    _Loader: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - depends on how PyYAML was built
    _Loader = yaml.SafeLoader


def event_depth(yaml_text: str, limit: int) -> tuple[int, bool]:
    """Nesting depth from the parser's event stream, stopping once past ``limit``.

    Returns ``(depth, complete)``: ``complete`` is False when the parser stopped early (a
    syntax error, or a parser that enforces a nesting limit of its own, as libyaml 0.2.6 in
    PyYAML 6.0.4 does); the depth is then only what was reached before it stopped.
    libyaml's event parser keeps an explicit stack (no C recursion), so this is safe on input
    that would crash the recursive composer behind ``yaml.load``.
    """
    depth = max_depth = 0
    try:
        for event in yaml.parse(yaml_text, Loader=_Loader):
            if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
                depth += 1
                if depth > max_depth:
                    max_depth = depth
                    if max_depth > limit:
                        return max_depth, True
            elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
                depth -= 1
    except (yaml.YAMLError, RecursionError):
        return max_depth, False
    return max_depth, True


_INT_TAG = "tag:yaml.org,2002:int"
_STR_TAG = "tag:yaml.org,2002:str"
_MERGE_TAG = "tag:yaml.org,2002:merge"


def _construct_int(loader: SafeConstructor, node: ScalarNode) -> int:
    # Refuse before converting: int() of ~4,300+ digits raises, and a long hex literal builds an
    # int that no one can print later.
    if len(node.value) > MAX_INT_CHARS:
        raise ConstructorError(
            None,
            None,
            f"integer literal of {len(node.value)} characters (at most {MAX_INT_CHARS})",
            node.start_mark,
        )
    return SafeConstructor.construct_yaml_int(loader, node)


class _SkillLoader(_Loader):  # type: ignore[misc]  # a base picked at import time is untyped
    """The safe loader (libyaml's when present) with bounded integers."""


_SkillLoader.add_constructor(_INT_TAG, _construct_int)


class _LocatingLoader(_SkillLoader):
    """Slow path only: re-runs a failed load to tell which node a conversion error came from."""

    def construct_object(self, node: Node, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep)
        except yaml.YAMLError:
            raise
        except Exception as exc:
            tag = node.tag.replace("tag:yaml.org,2002:", "!!")
            value = node.value if isinstance(node, ScalarNode) else ""
            what = f"{tag} value {value[:40]!r}" if value else f"{tag} value"
            detail = "" if isinstance(exc, (KeyError, TypeError, AttributeError)) else f": {exc}"
            raise ConstructorError(
                None, None, f"cannot convert {what}{detail}", node.start_mark
            ) from exc


def _key_id(key: ScalarNode, top: bool) -> tuple[str, str]:
    """What makes two keys the same: top-level known fields compare as ``_build`` reads them."""
    if top and key.tag == _STR_TAG:
        norm = key.value.strip().lower().replace("_", "-")
        if norm in KNOWN_FIELDS:
            return key.tag, norm
    return key.tag, key.value


def _drop_duplicate_keys(root: Node) -> list[tuple[str, int, bool]]:
    """Keep the first of each repeated mapping key; return ``(key, line, top_level)`` per drop.

    Works on the composed node graph, so the file is parsed once. Merge keys (``<<``) are
    YAML's own override mechanism, not duplicates.
    """
    dropped: list[tuple[str, int, bool]] = []
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        pairs = node.value
        if type(node) is MappingNode:
            top = node is root
            keys = [k.value for k, _ in pairs if type(k) is ScalarNode]
            # Fast path (nearly every file): all keys distinct, also as _build reads them.
            distinct = len(set(keys)) == len(pairs)
            if distinct and top:
                joined = "".join(keys)
                if "_" in joined or " " in joined or "\t" in joined or not joined.islower():
                    # Only then can two different keys read as the same field.
                    distinct = len({k.strip().lower().replace("_", "-") for k in keys}) == len(keys)
            if not distinct:
                dropped.extend(_dedupe_mapping(node, top))
                pairs = node.value
            stack.extend([v for _, v in pairs if type(v) is not ScalarNode])
            stack.extend([k for k, _ in pairs if type(k) is not ScalarNode])
        elif type(node) is SequenceNode:
            stack.extend([v for v in pairs if type(v) is not ScalarNode])
    return dropped


def _dedupe_mapping(node: MappingNode, top: bool) -> list[tuple[str, int, bool]]:
    dropped = []
    keys: set[tuple[str, str]] = set()
    kept = []
    for key, value in node.value:
        if isinstance(key, ScalarNode) and key.tag != _MERGE_TAG:
            ident = _key_id(key, top)
            if ident in keys:
                dropped.append((key.value, key.start_mark.line, top))
                continue
            keys.add(ident)
        kept.append((key, value))
    node.value = kept
    return dropped


def _expanded_size(root: Node, cap: int) -> int | None:
    """Characters plus one per collection item that ``root`` expands to, saturating at
    ``cap + 1``; None when an alias refers to its own ancestor (infinite expansion).

    Computed on the node graph with one size per distinct node, so aliases are counted as
    often as they are used without building or walking the expansion.
    """
    sizes: dict[int, int] = {}
    open_nodes: set[int] = set()
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, finished = stack.pop()
        nid = id(node)
        if isinstance(node, ScalarNode):
            sizes[nid] = max(1, len(node.value))
            continue
        children = (
            [n for pair in node.value for n in pair]
            if isinstance(node, MappingNode)
            else node.value
        )
        if finished:
            open_nodes.discard(nid)
            sizes[nid] = min(cap + 1, 1 + sum(sizes[id(c)] for c in children))
            continue
        if nid in sizes:
            continue
        if nid in open_nodes:
            return None
        open_nodes.add(nid)
        stack.append((node, True))
        stack.extend((c, False) for c in children if id(c) not in sizes)
    return sizes[id(root)]


def load_yaml(yaml_text: str) -> tuple[Any, list[tuple[str, int, bool]]]:
    """Load one frontmatter: ``(data, dropped duplicate keys)``.

    Raises ``FrontmatterRefused`` for alias bombs and whatever the loader raises for bad YAML.
    """
    loader = _SkillLoader(yaml_text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None, []
        dropped = _drop_duplicate_keys(node)
        if "&" in yaml_text:  # without an anchor there is no alias, so nothing to expand
            size = _expanded_size(node, MAX_EXPANDED_CHARS)
            if size is None:
                raise FrontmatterRefused("frontmatter contains a recursive alias (alias bomb?)")
            if size > MAX_EXPANDED_CHARS:
                raise FrontmatterRefused(
                    f"frontmatter expands to more than {MAX_EXPANDED_CHARS} characters through "
                    "aliases (alias bomb?)"
                )
        return loader.construct_document(node), dropped
    finally:
        loader.dispose()


def locate_error(yaml_text: str, exc: Exception) -> str:
    """A short message for a load failure, with the line when it can be found."""
    if isinstance(exc, (yaml.YAMLError, RecursionError)):
        return yaml_message(exc)
    try:
        yaml.load(yaml_text, Loader=_LocatingLoader)
    except yaml.YAMLError as located:
        return yaml_message(located)
    except Exception:  # the first message is good enough
        pass
    return f"{type(exc).__name__}: {str(exc)[:200]}"
