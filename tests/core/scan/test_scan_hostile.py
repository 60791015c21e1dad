"""The scanner on hostile input: it never raises, and no pattern can backtrack
catastrophically, checked by construction (every repeat bounded, a bounded number of ways to
try a match from one position) rather than by timing."""

from __future__ import annotations

import re
import re._constants as sre  # type: ignore[import-not-found]
import re._parser as sre_parse  # type: ignore[import-not-found]
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillcore.scan import scan_text
from skillcore.scan.patterns import DETECTORS, possessive

#: The most ways one pattern may try to match from one position (the product of the choices a
#: backtracking match can make: lazy gaps, optional parts, alternatives).
MAX_WAYS = 100_000


def _ways(seq: Any) -> float:
    total = 1.0
    for op, av in seq:
        total *= _node(op, av)
    return total


def _node(op: Any, av: Any) -> float:
    if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
        lo, hi, sub = av
        if hi == sre.MAXREPEAT:
            return float("inf")
        inner = _ways(sub)
        if op is sre.POSSESSIVE_REPEAT:
            return inner  # never gives back: one way a repeat, each iteration tries its own
        return (hi - lo + 1) * inner ** (hi if inner > 1 else 1)
    if op is sre.SUBPATTERN:
        return _ways(av[-1])
    if op is sre.ATOMIC_GROUP:
        return _ways(av)
    if op is sre.BRANCH:
        return sum(_ways(b) for b in av[1])
    return 1.0  # a character, class, anchor or lookaround (a lookaround is atomic)


def _children(op: Any, av: Any) -> list[Any]:
    """The sub-patterns of one node."""
    if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
        return [av[2]]
    if op is sre.SUBPATTERN:
        return [av[-1]]
    if op is sre.BRANCH:
        return list(av[1])
    if op in (sre.ASSERT, sre.ASSERT_NOT):
        return [av[1]]
    return []


def _unbounded(seq: Any) -> bool:
    for op, av in seq:
        repeat = op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT)
        if repeat and av[1] == sre.MAXREPEAT:
            return True
        if any(_unbounded(sub) for sub in _children(op, av)):
            return True
    return False


def _branches(pattern: re.Pattern[str]) -> list[Any]:
    tree = list(sre_parse.parse(pattern.pattern, pattern.flags))
    if len(tree) == 1 and tree[0][0] is sre.BRANCH:
        return list(tree[0][1][1])
    return [tree]


@pytest.mark.parametrize("det", DETECTORS, ids=lambda d: d.rule)
def test_patterns_are_bounded_by_construction(det: Any) -> None:
    for branch in _branches(det.pattern):
        assert not _unbounded(branch), det.pattern.pattern
        assert _ways(branch) <= MAX_WAYS, (det.rule, _ways(branch))


def test_the_ways_measure_catches_a_catastrophic_pattern() -> None:
    assert _ways(sre_parse.parse(r"(?:a{0,50}){0,50}b")) > MAX_WAYS
    assert _unbounded(sre_parse.parse(r"x(?:a|b)+y"))
    assert _ways(sre_parse.parse(possessive(r"(?:a{0,50}){0,50}b"))) <= MAX_WAYS


def test_possessive_keeps_lazy_gaps_and_classes() -> None:
    assert possessive(r"a{1,5}[^{]{0,3}?b{2}[x{]") == r"a{1,5}+[^{]{0,3}?b{2}+[x{]"
    assert possessive(r"\{1,2}") == r"\{1,2}"
    assert possessive(r"a\s[\s=]") == r"a[^\S\n][ \t\r\f\v=]"
    assert possessive(r"[^\s']") == r"[^ \t\r\f\v\n']"


# Long strings built from the pieces the patterns look for, so that a pattern starts a match
# attempt at (nearly) every position: the shape that makes backtracking patterns explode.
PIECES = [
    "curl ",
    "curl $(cat ",
    "curl -d @",
    "wget -O x; ",
    "exec(",
    "eval(",
    "iex (",
    "fetch(",
    "requests.post(",
    "send contents ",
    "ignore all ",
    "do not tell ",
    "you are now ",
    "base64 -d ",
    "chr(1)+",
    "\\x41",
    "http://1.1.1.1",
    "~/.ssh",
    ".env ",
    "<system",
    "powershell -e ",
    "nc ",
    "keep it ",
    "\u202e",
    "\u200b",
    "p\u0430",
    "\U000e0041",
    "a" * 61,
]


@pytest.mark.parametrize("piece", PIECES)
@pytest.mark.parametrize("path", ["SKILL.md", "scripts/x.sh", "references/x.md"])
def test_adversarial_repetitions_scan(piece: str, path: str) -> None:
    from skillcore.scan.engine import MAX_FINDINGS_PER_RULE

    text = piece * (5_000 // len(piece))
    found = scan_text(path, text)
    per_rule: dict[str, int] = {}
    for f in found:
        per_rule[f.rule_id] = per_rule.get(f.rule_id, 0) + 1
    assert all(n <= MAX_FINDINGS_PER_RULE for n in per_rule.values())


_ALPHABET = st.sampled_from(
    [*PIECES, "\n", " ", "|", "sh", "bash", "```", "---\n", "allowed-tools: ", "*", "(", ")"]
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    path=st.sampled_from(["SKILL.md", "a/SKILL.md", "scripts/x", "scripts/x.py", "r.md", ""]),
    text=st.one_of(st.text(max_size=400), st.lists(_ALPHABET, max_size=80).map("".join)),
)
def test_scan_never_raises(path: str, text: str) -> None:
    for f in scan_text(path, text):
        assert f.line >= 1 and f.column >= 1
        assert "\n" not in f.excerpt and len(f.excerpt) <= 81


def _both_ways(path: str, text: str) -> None:
    """The keyword shortcut finds what matching the whole text finds."""
    from skillcore.scan.context import text_map
    from skillcore.scan.engine import _Lines, _matches

    tmap = text_map(path, text)
    lowered = text.lower()
    if len(lowered) != len(text):
        return
    for det in DETECTORS:
        fast = [m.span() for m in _matches(det, tmap, _Lines(tmap, lowered))]
        whole = [m.span() for m in _matches(det, tmap, _Lines(tmap, ""))]
        assert fast == whole, (det.rule, text)


def test_keywords_cover_every_sample() -> None:
    from tests.core.scan.labelled import BENIGN, MALICIOUS
    from tests.core.scan.test_scan_rules import HOSTILE

    for path, text, _, _ in HOSTILE:
        _both_ways(path, text)
    for files in [*BENIGN.values(), *(f for _, f in MALICIOUS.values())]:
        for rel, text in files.items():
            _both_ways(rel, text)


@settings(max_examples=200, deadline=None)
@given(
    path=st.sampled_from(["SKILL.md", "scripts/x.py", "r.md"]),
    text=st.lists(_ALPHABET, max_size=60).map("".join),
)
def test_keywords_cover_fuzzed_text(path: str, text: str) -> None:
    _both_ways(path, text)
