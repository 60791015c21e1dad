"""A scan report as text (one line a finding), JSON, or SARIF 2.1.0 for GitHub code scanning."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import quote

from skillcore._escaping import single_line
from skillcore.scan.findings import Finding, ScanReport
from skillcore.scan.rules import RULES, Rule, ScanSeverity

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
TOOL_URI = "https://github.com/skillcore/skillcore/blob/main/docs/scan.md"

#: SARIF result level of each severity.
SARIF_LEVEL = {
    ScanSeverity.LOW: "note",
    ScanSeverity.MEDIUM: "warning",
    ScanSeverity.HIGH: "error",
    ScanSeverity.CRITICAL: "error",
}
#: GitHub code scanning's ``security-severity`` (a CVSS-like score) of each severity.
SECURITY_SEVERITY = {
    ScanSeverity.LOW: "2.0",
    ScanSeverity.MEDIUM: "5.0",
    ScanSeverity.HIGH: "7.5",
    ScanSeverity.CRITICAL: "9.5",
}


def where(finding: Finding) -> str:
    """``source/path`` as a user opens it."""
    if finding.source:
        return f"{finding.source.rstrip('/')}/{finding.path}"
    return finding.path


def text_report(report: ScanReport, fail_on: ScanSeverity | None) -> str:
    """One line a finding (``path:line:col: severity RULE name: message: "excerpt"``), its fix
    indented below, the notes, and a count line."""
    lines: list[str] = []
    for f in report.findings:
        head = f"{where(f)}:{f.line}:{f.column}: {f.severity.value} {f.rule_id} {f.rule.name}"
        lines.append(single_line(f"{head}: {f.message}: {f.excerpt!r}"))
        lines.append(f"    fix: {f.rule.fix}")
    for n in report.notes:
        path = f"{n.source.rstrip('/')}/{n.path}" if n.source else n.path
        lines.append(single_line(f"note: {path}: {n.message}"))
    counts = ", ".join(
        f"{sum(1 for f in report.findings if f.severity is s)} {s.value}"
        for s in reversed(ScanSeverity)
    )
    total = len(report.findings)
    summary = f"{total} finding(s) ({counts}) in {report.skills} skill(s), {report.files} file(s)"
    if fail_on is not None:
        summary += f"; {len(report.at_least(fail_on))} at or above {fail_on.value}"
    lines.append(summary)
    return "\n".join(lines) + "\n"


def _rule_json(rule: Rule) -> dict[str, Any]:
    return {
        "id": rule.id,
        "name": rule.name,
        "shortDescription": {"text": rule.message},
        "fullDescription": {"text": f"{rule.message}. Fix: {rule.fix}."},
        "help": {"text": rule.fix},
        "defaultConfiguration": {"level": SARIF_LEVEL[rule.severity]},
        "properties": {
            "tags": ["security", rule.rule_class.value],
            "security-severity": SECURITY_SEVERITY[rule.severity],
            "problem.severity": "error" if rule.severity.rank >= 2 else "warning",
        },
    }


def sarif_report(
    report: ScanReport, version: str, uri_of: Callable[[Finding | None, str, str], str]
) -> dict[str, Any]:
    """The report as a SARIF 2.1.0 log (one run). ``uri_of(finding, source, path)`` gives a
    file's URI (:func:`uri_maker`)."""
    rules = list(RULES.values())
    index = {r.id: i for i, r in enumerate(rules)}
    results = []
    for f in report.findings:
        results.append(
            {
                "ruleId": f.rule_id,
                "ruleIndex": index[f.rule_id],
                "level": SARIF_LEVEL[f.severity],
                "message": {"text": single_line(f"{f.message}: {f.excerpt!r}")},
                "locations": [
                    {
                        "physicalLocation": {
                            "artifactLocation": {"uri": uri_of(f, f.source, f.path)},
                            "region": {
                                "startLine": max(f.line, 1),
                                "startColumn": max(f.column, 1),
                            },
                        }
                    }
                ],
                "properties": {"severity": f.severity.value, "skill": f.skill},
            }
        )
    notes = [
        {
            "level": "note",
            "message": {"text": single_line(n.message)},
            "locations": [
                {"physicalLocation": {"artifactLocation": {"uri": uri_of(None, n.source, n.path)}}}
            ],
        }
        for n in report.notes
    ]
    return {
        "version": SARIF_VERSION,
        "$schema": SARIF_SCHEMA,
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "skillcore-scan",
                        "version": version,
                        "informationUri": TOOL_URI,
                        "rules": [_rule_json(r) for r in rules],
                    }
                },
                "columnKind": "unicodeCodePoints",
                "invocations": [{"executionSuccessful": True, "toolExecutionNotifications": notes}],
                "results": results,
            }
        ],
    }


def uri_maker(
    urls: Mapping[str, str], cwd: str | None = None
) -> Callable[[Finding | None, str, str], str]:
    """File URIs for SARIF: a local file inside ``cwd`` (default: the current directory) as a
    relative path (what code scanning matches against the repository), any other local file as
    a ``file://`` URI, a remote source's file under its URL; percent-encoded as URIs are.
    ``urls``: source label -> URL."""
    base = Path(cwd or os.getcwd()).resolve()

    def uri_of(finding: Finding | None, source: str, path: str) -> str:
        url = urls.get(source, source)
        if "://" in url:
            return f"{url.rstrip('/')}/{quote(path)}"
        full = (Path(url) / path).resolve() if url else Path(path).resolve()
        try:
            return quote(full.relative_to(base).as_posix())
        except ValueError:
            return full.as_uri()

    return uri_of
