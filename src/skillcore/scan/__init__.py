"""The static scanner for hostile skills: rules for the published attack classes (prompt
injection, hidden Unicode, remote and encoded code, credential reads, exfiltration,
obfuscation, over-broad allowed-tools, network use), run over any source skillcore reads.

:func:`scan_text` scans one file's text (pure); :func:`scan_library` every skill of a library;
:mod:`~skillcore.scan.output` writes a report as text, JSON or SARIF. See docs/scan.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from skillcore._faces import face

if TYPE_CHECKING:
    from skillcore.scan.engine import scan_text
    from skillcore.scan.findings import Finding, ScanNote, ScanReport
    from skillcore.scan.library import scan_library
    from skillcore.scan.output import sarif_report, text_report, uri_maker
    from skillcore.scan.rules import DEFAULT_FAIL_ON, RULES, Rule, RuleClass, ScanSeverity

__getattr__, __dir__, __all__ = face(
    __name__,
    {
        "DEFAULT_FAIL_ON": "skillcore.scan.rules",
        "Finding": "skillcore.scan.findings",
        "RULES": "skillcore.scan.rules",
        "Rule": "skillcore.scan.rules",
        "RuleClass": "skillcore.scan.rules",
        "ScanNote": "skillcore.scan.findings",
        "ScanReport": "skillcore.scan.findings",
        "ScanSeverity": "skillcore.scan.rules",
        "sarif_report": "skillcore.scan.output",
        "scan_library": "skillcore.scan.library",
        "scan_text": "skillcore.scan.engine",
        "text_report": "skillcore.scan.output",
        "uri_maker": "skillcore.scan.output",
    },
)
