"""The scanner's rules: each a stable id, the attack class it belongs to, a base severity, what
it means and how to fix it. Defined once here; the detectors name rules by id."""

from __future__ import annotations

import enum
from types import MappingProxyType

import attrs


class ScanSeverity(str, enum.Enum):
    """How bad a finding is, from ``low`` (worth a look) to ``critical`` (runs remote or
    hidden code)."""

    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"
    CRITICAL = "critical"

    @property
    def rank(self) -> int:
        """0 (low) to 3 (critical), for comparisons."""
        return _RANKS[self]


_RANKS = {
    ScanSeverity.LOW: 0,
    ScanSeverity.MEDIUM: 1,
    ScanSeverity.HIGH: 2,
    ScanSeverity.CRITICAL: 3,
}

#: The severity ``skillcore scan`` fails on unless told (``--fail-on``); also the threshold
#: the labelled set's precision and recall are measured at.
DEFAULT_FAIL_ON = ScanSeverity.MEDIUM


class RuleClass(str, enum.Enum):
    """The published attack class a rule detects."""

    INJECTION = "prompt-injection"
    UNICODE = "hidden-unicode"
    REMOTE_EXEC = "remote-exec"
    ENCODED_EXEC = "encoded-exec"
    CREDENTIALS = "credentials"
    EXFILTRATION = "exfiltration"
    OBFUSCATION = "obfuscation"
    ALLOWED_TOOLS = "allowed-tools"
    NETWORK = "network"


@attrs.frozen
class Rule:
    """One rule: ``id`` never changes between releases."""

    id: str
    name: str
    rule_class: RuleClass
    severity: ScanSeverity
    message: str
    fix: str


_C, _H, _M, _L = ScanSeverity.CRITICAL, ScanSeverity.HIGH, ScanSeverity.MEDIUM, ScanSeverity.LOW
_K = RuleClass

_TABLE = (
    Rule(
        "SC101",
        "ignore-instructions",
        _K.INJECTION,
        _H,
        "text tells the model to ignore or replace its earlier instructions",
        "remove the phrase; a skill adds instructions, it never cancels the user's or the system's",
    ),
    Rule(
        "SC102",
        "conceal-from-user",
        _K.INJECTION,
        _H,
        "text tells the model to hide what it does from the user",
        "remove it; a skill must not ask the model to keep anything from the user",
    ),
    Rule(
        "SC103",
        "system-override",
        _K.INJECTION,
        _H,
        "text poses as a system prompt, a system message or a new role for the model",
        "remove the fake system markers and role claims; write plain instructions",
    ),
    Rule(
        "SC201",
        "bidi-control",
        _K.UNICODE,
        _H,
        "bidirectional control character: the text shown differs from the text read",
        "delete the bidi controls (U+202A-U+202E, U+2066-U+2069, U+200E/F, U+061C)",
    ),
    Rule(
        "SC202",
        "invisible-character",
        _K.UNICODE,
        _M,
        "invisible character (zero-width, joiner, BOM, filler) a model reads but a user cannot see",
        "delete the invisible characters",
    ),
    Rule(
        "SC203",
        "tag-characters",
        _K.UNICODE,
        _C,
        "Unicode tag characters: hidden text only a model reads (ASCII smuggling)",
        "delete the tag characters (U+E0000-U+E007F) and review the text they spelled",
    ),
    Rule(
        "SC204",
        "homoglyph-word",
        _K.UNICODE,
        _M,
        "word mixing Latin with look-alike Cyrillic or Greek letters",
        "retype the word in one script",
    ),
    Rule(
        "SC301",
        "pipe-to-shell",
        _K.REMOTE_EXEC,
        _C,
        "downloads code and pipes it into a shell or interpreter",
        "ship the script inside the skill (pinned, reviewed); never run it from the network",
    ),
    Rule(
        "SC302",
        "download-and-execute",
        _K.REMOTE_EXEC,
        _C,
        "downloads code and executes it (iex, exec of a response, download then run)",
        "ship the code inside the skill; never execute what a URL returns",
    ),
    Rule(
        "SC401",
        "decode-and-execute",
        _K.ENCODED_EXEC,
        _C,
        "decodes base64/hex/compressed data and executes it",
        "ship readable code; encoded payloads hide what runs",
    ),
    Rule(
        "SC501",
        "credential-path",
        _K.CREDENTIALS,
        _H,
        "reads a credential store (SSH keys, cloud credentials, .netrc, keychains)",
        "a skill never needs the user's keys; take a token from a documented setting instead",
    ),
    Rule(
        "SC502",
        "dotenv-file",
        _K.CREDENTIALS,
        _M,
        "reads a .env file (secrets of the project)",
        "read only the variables the skill needs, from the environment, and say which",
    ),
    Rule(
        "SC503",
        "cloud-metadata",
        _K.CREDENTIALS,
        _H,
        "queries the cloud instance metadata service (instance credentials)",
        "remove it; a skill has no business with instance credentials",
    ),
    Rule(
        "SC601",
        "exfil-service",
        _K.EXFILTRATION,
        _H,
        "sends data to a paste site, webhook collector or tunnel",
        "remove it; send data only to a documented service the user chose",
    ),
    Rule(
        "SC602",
        "send-secrets",
        _K.EXFILTRATION,
        _H,
        "posts files, the environment or secrets to a URL",
        "remove it, or upload only named, non-secret files to a documented API",
    ),
    Rule(
        "SC603",
        "literal-ip-url",
        _K.EXFILTRATION,
        _M,
        "talks to a URL whose host is a literal IP address",
        "use the documented host name of the service",
    ),
    Rule(
        "SC701",
        "long-line",
        _K.OBFUSCATION,
        _M,
        "a script line of several thousand characters (minified or packed code)",
        "ship the readable source",
    ),
    Rule(
        "SC702",
        "high-entropy-string",
        _K.OBFUSCATION,
        _M,
        "a long random-looking string in a script (an encoded payload or an embedded key)",
        "ship readable code and keep secrets out of the skill",
    ),
    Rule(
        "SC703",
        "packed-code",
        _K.OBFUSCATION,
        _H,
        "packed JavaScript (eval(function(p,a,c,k,e,...)) or an eval of built-up code",
        "ship the readable source",
    ),
    Rule(
        "SC704",
        "char-code-chain",
        _K.OBFUSCATION,
        _H,
        "a string built character by character from codes (chr()/fromCharCode chains)",
        "write the string as text",
    ),
    Rule(
        "SC705",
        "oversized-script",
        _K.OBFUSCATION,
        _M,
        "a script larger than the scanner reads: only its start was scanned",
        "split it into readable files, or ship it as a reviewed dependency",
    ),
    Rule(
        "SC801",
        "unrestricted-shell",
        _K.ALLOWED_TOOLS,
        _M,
        "allowed-tools grants the shell with any command (Bash, Bash(*))",
        "list the commands the skill needs, e.g. Bash(git:*)",
    ),
    Rule(
        "SC802",
        "wildcard-tools",
        _K.ALLOWED_TOOLS,
        _H,
        "allowed-tools grants every tool (*)",
        "list the tools the skill needs",
    ),
    Rule(
        "SC901",
        "network-use",
        _K.NETWORK,
        _L,
        "a script opens the network (sockets, HTTP clients, curl, nc)",
        "document what the script contacts and why",
    ),
    Rule(
        "SC902",
        "reverse-shell",
        _K.NETWORK,
        _C,
        "a script connects a shell to the network (reverse or bind shell)",
        "remove it",
    ),
)

#: Every rule by id.
RULES: MappingProxyType[str, Rule] = MappingProxyType({r.id: r for r in _TABLE})


def rule(rule_id: str) -> Rule:
    """The rule with this id (a KeyError names a typo in a detector)."""
    return RULES[rule_id]
