"""What the scanner reports: findings (a rule matched at a place) and notes (what it could not
scan, and why)."""

from __future__ import annotations

from typing import Any

import attrs

from skillcore.scan.rules import RULES, Rule, RuleClass, ScanSeverity


@attrs.frozen
class Finding:
    """One rule matched in one file: ``path`` is relative to the source (the skill directory
    joined with the file), ``line`` and ``column`` are 1-based."""

    rule_id: str
    severity: ScanSeverity
    path: str
    line: int
    column: int
    #: The matched text, one safe line, cut to a few dozen characters.
    excerpt: str
    skill: str = ""
    #: What the match says beyond the rule's own message (e.g. the text tag characters spell).
    detail: str = ""
    #: The source (label or URL) the file was read from.
    source: str = ""

    @property
    def rule(self) -> Rule:
        """The rule that matched."""
        return RULES[self.rule_id]

    @property
    def rule_class(self) -> RuleClass:
        """The attack class of the rule."""
        return self.rule.rule_class

    @property
    def message(self) -> str:
        """The rule's message, with the detail when there is one."""
        msg = self.rule.message
        return f"{msg} ({self.detail})" if self.detail else msg

    def to_json(self) -> dict[str, Any]:
        """A JSON-native dict."""
        rule = self.rule
        return {
            "rule": self.rule_id,
            "name": rule.name,
            "class": rule.rule_class.value,
            "severity": self.severity.value,
            "source": self.source,
            "skill": self.skill,
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "message": self.message,
            "excerpt": self.excerpt,
            "fix": rule.fix,
        }


@attrs.frozen
class ScanNote:
    """A file or skill the scanner did not read in full: binary, over the byte cap, a listing
    cut at the file cap, a read that failed, a SKILL.md discovery skipped."""

    path: str
    message: str
    source: str = ""

    def to_json(self) -> dict[str, Any]:
        """A JSON-native dict."""
        return {"source": self.source, "path": self.path, "message": self.message}


@attrs.frozen
class ScanReport:
    """The findings and notes of one scan, in file order."""

    findings: tuple[Finding, ...]
    notes: tuple[ScanNote, ...] = ()
    skills: int = 0
    files: int = 0

    def at_least(self, severity: ScanSeverity) -> tuple[Finding, ...]:
        """The findings at or above ``severity``."""
        return tuple(f for f in self.findings if f.severity.rank >= severity.rank)

    def to_json(self) -> dict[str, Any]:
        """A JSON-native dict (``skillcore scan --format json``)."""
        counts = {s.value: 0 for s in ScanSeverity}
        for f in self.findings:
            counts[f.severity.value] += 1
        return {
            "skills": self.skills,
            "files": self.files,
            "counts": counts,
            "findings": [f.to_json() for f in self.findings],
            "notes": [n.to_json() for n in self.notes],
        }
