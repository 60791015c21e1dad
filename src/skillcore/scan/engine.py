"""Scanning one file's text: every rule, where it applies, with its severity in context.

Pure and bounded: no I/O; each pattern is linear (see :mod:`skillcore.scan.patterns`) and each
rule reports at most :data:`MAX_FINDINGS_PER_RULE` places a file (one a line).
"""

from __future__ import annotations

import bisect
import math
import re
from collections import Counter
from collections.abc import Iterator
from typing import Protocol

from skillcore._escaping import BIDI_CONTROLS, find_invisible, folded, single_line
from skillcore.scan.context import FileKind, TextMap, text_map
from skillcore.scan.findings import Finding
from skillcore.scan.patterns import DETECTORS, Detector
from skillcore.scan.rules import RULES, ScanSeverity

#: Places one rule reports in one file (the first ones; one a line).
MAX_FINDINGS_PER_RULE = 10
#: Characters of a match shown in a finding.
EXCERPT_CHARS = 80
#: A script line longer than this is packed or minified code (SC701).
LONG_LINE_CHARS = 1_000
#: Shortest run of base64-like characters weighed for entropy (SC702), the bits a character
#: it must reach, and the shortest hex-only run reported (hex tops out at 4 bits: digests are
#: shorter than this).
ENTROPY_MIN_CHARS = 60
ENTROPY_BITS = 4.6
HEX_MIN_CHARS = 160

_KINDS_OF_SKILL_FILE = frozenset({FileKind.FRONTMATTER, FileKind.INSTRUCTIONS})
_IMPLICIT_BIDI = "\u061c\u200e\u200f"  # the marks: lower risk than overrides and isolates
_BIDI = re.compile(f"[{BIDI_CONTROLS}]")
_TAGS = re.compile("[\U000e0000-\U000e007f]{1,4096}")
# Letters of Cyrillic and Greek that look like Latin ones.
_CONFUSABLE = "аеорсухіјѕԁһӏԛԝАВЕКМНОРСТХІЈЅѴԜαεικνορτυχΑΒΕΖΗΙΚΜΝΟΡΤΥΧ"
_MIXED = re.compile(f"[A-Za-z][{_CONFUSABLE}]|[{_CONFUSABLE}][A-Za-z]")
_TOKEN = re.compile(r"[A-Za-z0-9+/=_-]{" + str(ENTROPY_MIN_CHARS) + ",4096}")
_HEX = re.compile(r"[0-9a-fA-F]+")
_ALLOWED_TOOLS = re.compile(r"^allowed[-_]tools[ \t]{0,20}:", re.MULTILINE | re.IGNORECASE)
_TOOL_ENTRY = re.compile(r"[^\s,\[\]\"'()]{1,200}(?:\([^()\n]{0,200}\))?")
_SHELL_TOOLS = frozenset({"bash", "shell", "sh", "execute", "execute_bash", "run_shell_command"})
_ANY_ARGS = frozenset({"", "*", "*:*", ":*", "**"})


def scan_text(
    path: str, text: str, skill: str = "", source: str = "", within: str | None = None
) -> tuple[Finding, ...]:
    """Every finding in one file's ``text``. Its path inside the skill (``within``, default
    ``path``) decides its kind: ``SKILL.md``, a script, or other text; findings name ``path``."""
    tmap = text_map(path if within is None else within, text)
    found = _Found(tmap, path, skill, source)
    lowered = text.lower()
    if len(lowered) != len(text):  # a few characters lower to two: offsets would not line up
        lowered = ""
    present = _KINDS_OF_SKILL_FILE if tmap.skill_file else frozenset({tmap.kind})
    lines = _Lines(tmap, lowered)
    for det in DETECTORS:
        if det.kinds.isdisjoint(present):
            continue
        for m in _matches(det, tmap, lines):
            kind = tmap.kind_at(m.start())
            severity = dict(det.severity).get(kind, RULES[det.rule].severity)
            line = tmap.position(m.start())[0]
            if not found.wanted(det.rule, line, severity):
                continue  # skip the mention check: nothing it could decide would be kept
            if tmap.mention(m.start(), m.end()):
                severity = ScanSeverity.LOW
            found.add(det.rule, severity, m.start(), m.group())
    if not text.isascii():
        _unicode(tmap, found.add)
    if tmap.kind is FileKind.SCRIPT:
        _obfuscation(tmap, found.add)
    if tmap.skill_file:
        _allowed_tools(tmap, found.add)
    return found.findings()


class _Found:
    """The findings of one file: per rule, at most one a line and
    :data:`MAX_FINDINGS_PER_RULE` lines, the most severe kept (a run of mentions early in a
    file cannot push a real finding out)."""

    def __init__(self, tmap: TextMap, path: str, skill: str, source: str) -> None:
        self.tmap, self.path, self.skill, self.source = tmap, path, skill, source
        self.kept: dict[str, dict[int, Finding]] = {}

    def wanted(self, rule_id: str, line: int, severity: ScanSeverity) -> bool:
        """Whether a finding of this severity on this line would be kept."""
        per = self.kept.get(rule_id)
        if not per:
            return True
        old = per.get(line)
        if old is not None:
            return severity.rank > old.severity.rank
        if len(per) < MAX_FINDINGS_PER_RULE:
            return True
        return severity.rank > min(f.severity.rank for f in per.values())

    def add(
        self, rule_id: str, severity: ScanSeverity, offset: int, excerpt: str, detail: str = ""
    ) -> None:
        line, column = self.tmap.position(offset)
        if not self.wanted(rule_id, line, severity):
            return
        per = self.kept.setdefault(rule_id, {})
        if line not in per and len(per) >= MAX_FINDINGS_PER_RULE:
            weakest = min(per, key=lambda k: (per[k].severity.rank, -k))
            del per[weakest]
        shown = folded(single_line(excerpt), EXCERPT_CHARS)
        per[line] = Finding(
            rule_id, severity, self.path, line, column, shown, self.skill, detail, self.source
        )

    def findings(self) -> tuple[Finding, ...]:
        """Every kept finding in file order."""
        out = [f for per in self.kept.values() for f in per.values()]
        out.sort(key=lambda f: (f.line, f.column, f.rule_id))
        return tuple(out)


class _Lines:
    """The lines of one text holding each keyword, found once per keyword (detectors share
    keywords): each pattern's matches hold one of its keywords and stay on one line, so only
    those lines are matched, the rest costs a substring search."""

    def __init__(self, tmap: TextMap, lowered: str) -> None:
        self.tmap, self.lowered = tmap, lowered
        self.found: dict[str, tuple[int, ...]] = {}

    def of(self, keyword: str) -> tuple[int, ...]:
        """The 0-based indexes of the lines holding ``keyword``, in order."""
        cached = self.found.get(keyword)
        if cached is not None:
            return cached
        lowered, starts = self.lowered, self.tmap.starts
        out: list[int] = []
        i = lowered.find(keyword)
        while i != -1:
            line = bisect.bisect_right(starts, i) - 1
            out.append(line)
            if line + 1 >= len(starts):
                break
            i = lowered.find(keyword, starts[line + 1])
        self.found[keyword] = result = tuple(out)
        return result

    def ranges(self, det: Detector) -> list[tuple[int, int]]:
        """``(start, end)`` of each line the detector's pattern must look at."""
        text, starts, lowered = self.tmap.text, self.tmap.starts, self.lowered
        if not lowered:  # offsets of the lowered text do not line up: the whole text
            return [(0, len(text))]
        lines = sorted({i for kw in det.keywords for i in self.of(kw)})
        n = len(starts)
        spans = [(starts[i], starts[i + 1] if i + 1 < n else len(text)) for i in lines]
        if det.also:
            spans = [r for r in spans if any(a in lowered[r[0] : r[1]] for a in det.also)]
        return spans


def _matches(det: Detector, tmap: TextMap, lines: _Lines) -> Iterator[re.Match[str]]:
    for start, end in lines.ranges(det):
        yield from _accepted(det, tmap, det.pattern.finditer(tmap.text, start, end))


def _accepted(
    det: Detector, tmap: TextMap, matches: Iterator[re.Match[str]]
) -> Iterator[re.Match[str]]:
    for m in matches:
        if tmap.kind_at(m.start()) not in det.kinds:
            continue
        if det.accept is not None and not det.accept(m):
            continue
        yield m


class _Add(Protocol):
    """The type of ``add`` above, for the helpers."""

    def __call__(
        self, rule_id: str, severity: ScanSeverity, offset: int, excerpt: str, detail: str = ""
    ) -> None: ...


def _around(tmap: TextMap, offset: int) -> str:
    """The line holding ``offset`` (for excerpts of invisible characters)."""
    line, _ = tmap.position(offset)
    return tmap.line_text(line - 1)


def _unicode(tmap: TextMap, add: _Add) -> None:
    text = tmap.text
    for m in _BIDI.finditer(text):
        severity = ScanSeverity.MEDIUM if m.group() in _IMPLICIT_BIDI else ScanSeverity.HIGH
        add("SC201", severity, m.start(), _around(tmap, m.start()), f"U+{ord(m.group()):04X}")
    for m in _TAGS.finditer(text):
        hidden = "".join(chr(ord(c) - 0xE0000) for c in m.group() if 0xE0020 <= ord(c) < 0xE007F)
        detail = f"they spell {folded(single_line(hidden), 60)!r}" if hidden else ""
        add("SC203", ScanSeverity.CRITICAL, m.start(), _around(tmap, m.start()), detail)
    for m in find_invisible(text):
        code = ord(m.group())
        if 0xE0000 <= code <= 0xE007F or (code == 0xFEFF and m.start() == 0):
            continue  # tags have their rule; a BOM that starts a file is an encoding mark
        add("SC202", ScanSeverity.MEDIUM, m.start(), _around(tmap, m.start()), f"U+{code:04X}")
    for m in _MIXED.finditer(text):
        add("SC204", ScanSeverity.MEDIUM, m.start(), _word(text, m.start()))


def _word(text: str, offset: int) -> str:
    start, end = offset, offset + 2
    while start > 0 and offset - start < 40 and text[start - 1].isalpha():
        start -= 1
    while end < len(text) and end - offset < 40 and text[end].isalpha():
        end += 1
    return text[start:end]


def _obfuscation(tmap: TextMap, add: _Add) -> None:
    starts = tmap.starts
    ends = [*starts[1:], len(tmap.text) + 1]
    for start, end in zip(starts, ends):
        if end - start - 1 > LONG_LINE_CHARS:
            length = f"{end - start - 1:,} characters"
            add("SC701", ScanSeverity.MEDIUM, start, tmap.text[start : start + 60], length)
    for m in _TOKEN.finditer(tmap.text):
        token = m.group()
        if _random_looking(token):
            add("SC702", ScanSeverity.MEDIUM, m.start(), token, f"{len(token)} characters")


def _random_looking(token: str) -> bool:
    """Whether a long token looks like an encoded payload rather than a name or a digest."""
    if _HEX.fullmatch(token):
        return len(token) >= HEX_MIN_CHARS
    upper, lower = any(c.isupper() for c in token), any(c.islower() for c in token)
    classes = upper + lower + any(c.isdigit() for c in token)
    return classes >= 2 and _entropy(token) >= ENTROPY_BITS


def _entropy(token: str) -> float:
    """Shannon entropy of the token's characters, in bits a character."""
    n = len(token)
    return -sum(c / n * math.log2(c / n) for c in Counter(token).values())


def _allowed_tools(tmap: TextMap, add: _Add) -> None:
    head = tmap.text[: tmap.body_start]
    m = _ALLOWED_TOOLS.search(head)
    if m is None:
        return
    lines = head[m.end() :].split("\n")[:50]
    value = [lines[0]]
    for line in lines[1:]:
        if not line[:1].isspace() and not line.startswith("-"):
            break
        value.append(line)
    for entry in _TOOL_ENTRY.finditer(" ".join(value)):
        tool = entry.group()
        name, _, args = tool.partition("(")
        args = args.rstrip(")").strip()
        if tool == "*":
            add("SC802", ScanSeverity.HIGH, m.start(), f"allowed-tools: {tool}")
        elif name.casefold() in _SHELL_TOOLS and args in _ANY_ARGS:
            add("SC801", ScanSeverity.MEDIUM, m.start(), f"allowed-tools: {tool}")
