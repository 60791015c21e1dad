"""How deep a frontmatter nests, bounded *before* it reaches a YAML parser: libyaml's C loader
can crash the process on deeply nested input and the pure-Python loader raises
``RecursionError``. A cheap count proves the common case shallow; the parser's event stream
(:mod:`skillcore.parse.yamlload`, imported on first use) checks the rest."""

from __future__ import annotations

from skillcore.parse.frontmatter_caps import MAX_NESTING


def _nesting_depth(yaml_text: str) -> int:
    """A cheap upper bound on YAML nesting: flow brackets plus block indentation levels."""
    if (
        yaml_text.count("[") + yaml_text.count("{") <= MAX_NESTING
        and "\n" + " " * 24 not in yaml_text
        and "- - - -" not in yaml_text
    ):
        # Fewer brackets than the limit, indentation under 24 and no long "- - -" runs:
        # the exact walk below cannot exceed the limit, so skip it (hot path of discovery).
        return 0
    flow = 0
    max_flow = 0
    for ch in yaml_text:
        if ch in "[{":
            flow += 1
            max_flow = max(max_flow, flow)
        elif ch in "]}" and flow:
            flow -= 1
    return max(max_flow, _block_depth(yaml_text, ("-",)))


def _block_depth(yaml_text: str, openers: tuple[str, ...]) -> int:
    """The deepest line's block level: its indentation levels plus the ``openers`` (``-``,
    ``?``) that start it, each opening one more level."""
    stack: list[int] = []
    deepest = 0
    for raw in yaml_text.splitlines():
        stripped = raw.lstrip(" ")
        if not stripped or stripped.startswith("#"):
            continue
        indent = len(raw) - len(stripped)
        while stack and stack[-1] >= indent:
            stack.pop()
        stack.append(indent)
        opened = 0
        while stripped in openers or (stripped[1:2] == " " and stripped[:1] in openers):
            opened += 1
            stripped = stripped[2:].lstrip(" ")
        deepest = max(deepest, len(stack) + opened)
    return deepest


def _indicator_count(yaml_text: str) -> int:
    """How many characters could each open a nesting level without a new indented line."""
    return (
        yaml_text.count("[")
        + yaml_text.count("{")
        + yaml_text.count("?")
        + yaml_text.count("- ")
        + yaml_text.count("-\t")
        + yaml_text.count(": -")
    )


def _event_depth(yaml_text: str, limit: int) -> int:
    """Nesting depth reached in the parser's event stream (see ``_yamlload.event_depth``)."""
    from skillcore.parse.yamlload import event_depth

    return event_depth(yaml_text, limit)[0]


def depth_problem(yaml_text: str) -> str | None:
    """Why the frontmatter is refused for nesting, or None when it is proven shallow enough.

    The cheap scan proves the common case shallow. It can be fooled (``]`` inside quotes,
    ``? `` chains), so anything it cannot prove shallow gets the event-stream check. When the
    parser stops before it could check (a syntax error, or a parser version with a nesting
    limit of its own), skillcore's own bound decides: over the limit by the cheap count is
    refused, whatever the installed parser would have said.
    """
    from skillcore.parse.yamlload import event_depth

    half = MAX_NESTING // 2  # the two cheap counts add up to a bound on the real depth
    if _nesting_depth(yaml_text) < half and _indicator_count(yaml_text) < half:
        return None
    depth, complete = event_depth(yaml_text, MAX_NESTING)
    if depth > MAX_NESTING:
        return _TOO_DEEP
    if not complete:
        bound = _depth_upper_bound(yaml_text)
        if bound > MAX_NESTING:
            return _MAYBE_TOO_DEEP.format(levels=bound)
    return None


def _depth_upper_bound(yaml_text: str) -> int:
    """A bound no YAML reading of the text can nest past, with no parser involved: every flow
    bracket (quotes can hide closers, so none is subtracted) plus the deepest line's block
    levels and the ``- `` / ``? `` indicators that open it."""
    return yaml_text.count("[") + yaml_text.count("{") + _block_depth(yaml_text, ("-", "?"))


def too_deep(yaml_text: str) -> bool:
    """True when the frontmatter is refused for nesting (see ``depth_problem``)."""
    return depth_problem(yaml_text) is not None


_TOO_DEEP = (
    f"frontmatter nests more than {MAX_NESTING} levels deep; refused before parsing "
    "(flatten the YAML)"
)
_MAYBE_TOO_DEEP = (
    "frontmatter may nest more than " + str(MAX_NESTING) + " levels deep (its brackets and "
    "indentation reach {levels} levels and the YAML parser stopped before it could check); "
    "refused before parsing (flatten the YAML)"
)
