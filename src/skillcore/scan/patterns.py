"""The text patterns of the rules, each with the cheap keywords that must appear first.

Every pattern is linear by construction: each repeat has an upper bound (gaps are
``[^\\n]{0,300}``, never ``.*``), so a match attempt looks at a bounded number of characters
from each position, whatever the input (tests/core/scan checks every pattern's repeats).
Patterns stay on one line.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import attrs

from skillcore.scan.context import FileKind
from skillcore.scan.rules import ScanSeverity

_ALL = frozenset(FileKind)
_TEXT = frozenset({FileKind.FRONTMATTER, FileKind.INSTRUCTIONS, FileKind.TEXT})
_SCRIPT = frozenset({FileKind.SCRIPT})
_I = re.IGNORECASE | re.MULTILINE


@attrs.frozen
class Detector:
    """One pattern of a rule."""

    rule: str
    pattern: re.Pattern[str]
    #: Lowercase words one of which must be in the (lowercased) text for the pattern to run.
    keywords: tuple[str, ...]
    kinds: frozenset[FileKind] = _ALL
    #: ScanSeverity by file kind where it differs from the rule's.
    severity: tuple[tuple[FileKind, ScanSeverity], ...] = ()
    #: A last check of a match (e.g. the address is public).
    accept: Callable[[re.Match[str]], bool] | None = None
    #: Lowercase words one of which must also be on a line for the pattern to run there.
    also: tuple[str, ...] = ()


# -- shared pieces ---------------------------------------------------------------------------
_GAP = r"[^\n]{0,300}?"
_SP = r"\s{1,5}"
_FETCHER = r"\b(?:curl|wget|fetch|iwr|irm|invoke-webrequest|invoke-restmethod)\b"
_SHELL = r"(?:sudo\s{1,5}(?:-\S{1,10}\s{1,5}){0,3})?(?:env\s{1,5})?(?:ba|z|k|da|fi|c|tc)?sh\b"
_STDIN_INTERP = r"(?:python[0-9.]{0,4}|perl|ruby|node|php)\s{0,3}(?:-\s{0,3})?(?=$|[;&|)\n])"
_DECODER = (
    r"(?:base64\s{1,5}(?:-d|--decode|-D)\b|xxd\s{1,5}-r|openssl\s{1,5}(?:base64|enc)\b"
    r"[^\n|]{0,100}?-d\b|gunzip\b|zcat\b|uudecode\b)"
)
_DECODE_CALL = (
    r"(?:b64decode|b32decode|b85decode|a85decode|unhexlify|fromhex|decompress|marshal\.loads"
    r"|codecs\.decode|atob|Buffer\.from|unescape)\s{0,3}\("
)
_DOWNLOAD_CALL = (
    r"(?:urlopen|requests\.(?:get|post)|httpx\.(?:get|post)|urllib\.request|fetch\s{0,3}\("
    r"|\.downloadstring\s{0,3}\()"
)
#: Words one of which every :data:`_SECRET_PATH` match holds.
_SECRET_WORDS = (
    ".ssh id_rsa id_ed25519 id_ecdsa credentials .env passwd shadow _history .netrc .kube "
    "gcloud keychain .aws"
)
_SECRET_PATH = (
    r"(?:\.ssh|id_rsa|id_ed25519|id_ecdsa|credentials|\.env\b|passwd|shadow|_history|\.netrc"
    r"|\.kube|gcloud|keychain|\.aws)"
)


def possessive(pattern: str) -> str:
    """``pattern`` with every greedy counted repeat (``{m,n}``, ``{m}``) made possessive, and
    ``\\s`` kept off line breaks (each pattern matches within one line).

    The patterns are written so that what follows such a repeat never starts with what it
    repeats (``\\s{1,5}`` before a word, ``[^\\n|]{0,300}`` before ``|``): giving back
    characters could not make a match, so forbidding it changes no match and leaves the lazy
    gaps (``{0,300}?``) as the only places a match attempt backtracks.
    """
    out: list[str] = []
    i, n, in_class, negated = 0, len(pattern), False, False
    while i < n:
        c = pattern[i]
        if c == "\\":
            pair = pattern[i : i + 2]
            if pair == "\\s":  # whitespace, but never a line break: a match stays on its line
                pair = (
                    (" \\t\\r\\f\\v\\n" if negated else " \\t\\r\\f\\v")
                    if in_class
                    else "[^\\S\\n]"
                )
            out.append(pair)
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True  # (no class here starts with "]")
            negated = pattern[i + 1 : i + 2] == "^"
        elif c == "{":
            end = pattern.index("}", i)
            out.append(pattern[i : end + 1])
            i = end + 1
            if pattern[i : i + 1] not in ("?", "+"):
                out.append("+")
            continue
        out.append(c)
        i += 1
    return "".join(out)


def _d(
    rule: str,
    pattern: str,
    keywords: str,
    kinds: frozenset[FileKind] = _ALL,
    severity: tuple[tuple[FileKind, ScanSeverity], ...] = (),
    accept: Callable[[re.Match[str]], bool] | None = None,
    also: str = "",
) -> Detector:
    compiled = re.compile(possessive(pattern), _I)
    words = tuple(keywords.split())
    return Detector(rule, compiled, words, kinds, severity, accept, tuple(also.split()))


_IN_SCRIPT_MEDIUM = ((FileKind.SCRIPT, ScanSeverity.MEDIUM),)
_IN_TEXT_LOW = tuple((k, ScanSeverity.LOW) for k in _TEXT)


def _public_ip(match: re.Match[str]) -> bool:
    """Whether the literal IP of a URL match is a public address (loopback, private and
    unspecified ones are local services, the metadata address has its own rule)."""
    parts = [int(p) for p in match.group("ip").split(".")]
    if any(p > 255 for p in parts):
        return False
    a, b = parts[0], parts[1]
    return not (
        a in (0, 10, 127)
        or a >= 224
        or (a == 169 and b == 254)
        or (a == 172 and 16 <= b <= 31)
        or (a == 192 and b == 168)
        or (a == 100 and 64 <= b <= 127)
    )


DETECTORS: tuple[Detector, ...] = (
    # -- prompt injection --------------------------------------------------------------------
    _d(
        "SC101",
        r"\b(?:ignore|disregard|forget|override|bypass)\s{1,5}(?:(?:all|any|the|your|of|everything"
        r"|about)\s{1,5}){0,3}(?:previous|prior|above|earlier|preceding|former|original|system"
        r"|safety|existing)\s{1,5}(?:instructions?|rules|guidelines|directions|directives"
        r"|prompts?|messages|constraints|guardrails|polic(?:y|ies))\b"
        r"|\bdo\s{1,3}not\s{1,5}follow\s{1,5}(?:the\s{1,5}|any\s{1,5})?(?:previous|prior|system"
        r"|user'?s?)\s{1,5}(?:instructions?|rules|prompts?)\b",
        "ignore disregard forget override bypass follow",
        severity=_IN_SCRIPT_MEDIUM,
    ),
    _d(
        "SC102",
        r"\b(?:do\s{1,3}not|don'?t|never|without)\s{1,5}(?:tell(?:ing)?|inform(?:ing)?"
        r"|reveal(?:ing)?|notify(?:ing)?|alert(?:ing)?|disclos(?:e|ing)|warn(?:ing)?)\s{1,5}"
        r"(?:(?:this|it|anything)\s{1,5})?(?:to\s{1,5})?the\s{1,5}user\b"
        r"|\b(?:do\s{1,3}not|don'?t|never)\s{1,5}let\s{1,5}the\s{1,5}user\s{1,5}(?:know|see)\b"
        r"|\b(?:keep|hide)\s{1,5}(?:this|it|[\w ]{1,30}?)\s{1,5}(?:secret|hidden|confidential)"
        r"\s{1,5}from\s{1,5}the\s{1,5}user\b"
        r"|\bthe\s{1,5}user\s{1,5}(?:must|should)\s{1,5}(?:not|never)\s{1,5}(?:know|see|notice"
        r"|find\s{1,5}out|be\s{1,5}told)\b"
        r"|\bwithout\s{1,5}(?:the\s{1,5})?user'?s?\s{1,5}(?:knowledge|noticing|knowing|consent)\b"
        r"|\bsilently\s{1,5}(?:send|upload|post|copy|run|execute|install|exfiltrate)\b",
        "user silently",
        severity=_IN_SCRIPT_MEDIUM,
        also="tell inform reveal notify alert disclos warn let secret hidden confidential must "
        "should without silently",
    ),
    _d(
        "SC103",
        r"<\s{0,3}/?\s{0,3}(?:system|system_prompt|sys)\s{0,3}>|\[/?(?:system|inst)\]"
        r"|<\|(?:im_start|im_end|system|start_header_id)\|>"
        r"|\b(?:begin|start|new|updated|real|actual|true|override|hidden)\s{1,5}system\s{1,5}"
        r"(?:prompt|message|instructions)\b"
        r"|\byou\s{1,5}are\s{1,5}no\s{1,5}longer\b"
        r"|\byou\s{1,5}are\s{1,5}now\s{1,5}(?:in\s{1,5})?(?:an?\s{1,5})?(?:unrestricted|unfiltered"
        r"|jailbroken|developer\s{1,5}mode|dan\b|god\s{1,5}mode|evil|the\s{1,5}system)"
        r"|\b(?:this|the\s{1,5}following)\s{1,5}(?:message|text|instructions?)\s{1,5}(?:is|are"
        r"|comes?)\s{1,5}(?:from|by)\s{1,5}(?:the\s{1,5})?(?:system|anthropic|openai"
        r"|your\s{1,5}(?:developers?|creators?|administrator))\b"
        r"|\b(?:act|behave|respond|speak)\s{1,5}as\s{1,5}(?:if\s{1,5}you\s{1,5}were\s{1,5})?"
        r"(?:the|a)\s{1,5}system\b"
        r"|\bpretend\s{1,5}(?:to\s{1,5}be|you\s{1,5}are)\s{1,5}(?:the\s{1,5})?(?:system|developer"
        r"|administrator)\b"
        r"|\bfrom\s{1,5}now\s{1,5}on,?\s{1,5}you\s{1,5}(?:will|must|are|shall)\s{1,5}(?:ignore"
        r"|obey|only|always|never|not)\b",
        "sys inst im_ start_header longer now pretend anthropic openai developer creator "
        "administrator",
        severity=_IN_SCRIPT_MEDIUM,
        also="you sys inst im_ start_header pretend anthropic openai developer creator "
        "administrator",
    ),
    # -- remote code -------------------------------------------------------------------------
    _d(
        "SC301",
        _FETCHER
        + r"[^\n|]{0,300}\|\s{0,5}(?:"
        + _SHELL
        + r"(?![\w.-])|"
        + _STDIN_INTERP
        + r"|iex\b|invoke-expression\b)"
        r"|\b(?:ba|z)?sh\s{1,5}<\(\s{0,5}(?:curl|wget)\b"
        r"|\b(?:source|\.)\s{1,5}<\(\s{0,5}(?:curl|wget)\b"
        r"|\b(?:ba|z)?sh\s{1,5}-c\s{1,5}[\"']?\$\(\s{0,5}(?:curl|wget)\b",
        "curl wget fetch iwr irm invoke-",
        also="| <( $(",
    ),
    _d(
        "SC302",
        r"\b(?:iex|invoke-expression)\s{0,5}\(?\s{0,5}\(?\s{0,5}(?:iwr|irm|invoke-webrequest"
        r"|invoke-restmethod|new-object\s{1,5}(?:system\.)?net\.webclient|\[system\.net\.webclient\])"
        r"|\.downloadstring\s{0,3}\(" + _GAP + r"\)\s{0,5}\|\s{0,5}(?:iex|invoke-expression)\b"
        r"|\b(?:exec|eval)\s{0,5}\("
        + _GAP
        + _DOWNLOAD_CALL
        + r"|\bnew\s{1,5}Function\s{0,3}\("
        + _GAP
        + r"fetch\s{0,3}\("
        r"|\b(?:curl|wget)\b[^\n;&]{0,300}(?:&&|;)\s{0,5}(?:chmod\s{1,5}(?:\+|[0-7]{3})\w{0,3}\s"
        r"|(?:ba)?sh\s{1,5}/tmp/|/tmp/\S)",
        "iex invoke- downloadstring exec eval function curl wget",
    ),
    _d(
        "SC401",
        _DECODER
        + r"[^\n|]{0,200}\|\s{0,5}(?:"
        + _SHELL
        + r"(?![\w.-])|"
        + _STDIN_INTERP
        + r"|iex\b)"
        r"|\b(?:exec|eval)\s{0,5}\(\s{0,5}(?:compile\s{0,3}\()?"
        + r"[^\n]{0,120}?"
        + _DECODE_CALL
        + r"|\bnew\s{1,5}Function\s{0,3}\(\s{0,5}(?:atob|Buffer\.from)\s{0,3}\("
        r"|\b(?:powershell|pwsh)(?:\.exe)?\b[^\n]{0,100}?\s-(?:e|ec|enc|encodedcommand)\s{1,5}"
        r"[A-Za-z0-9+/=]{16,4096}"
        r"|\b(?:iex|invoke-expression)\b" + _GAP + r"frombase64string"
        r"|frombase64string" + _GAP + r"\|\s{0,5}(?:iex|invoke-expression)\b",
        "base64 xxd openssl gunzip zcat uudecode exec eval function powershell pwsh "
        "frombase64string",
    ),
    # -- credentials -------------------------------------------------------------------------
    _d(
        "SC501",
        r"(?:~|\$home|\$\{home\}|%userprofile%|\bhome/[\w.-]{1,32}|expanduser\(\s{0,3}['\"]~)"
        r"/\.ssh\b(?!/(?:known_hosts|config)\b|/[\w.-]{1,64}?\.pub\b)"
        r"|\bid_(?:rsa|dsa|ecdsa|ed25519)\b(?!\.pub)"
        r"|\.aws/(?:credentials|config)\b|\.config/gcloud\b|application_default_credentials\.json"
        r"|\.kube/config\b|\.netrc\b|\.git-credentials\b|\.docker/config\.json"
        r"|\blogin\.keychain|\bkeychain-db\b|\bsecurity\s{1,5}(?:find-(?:generic|internet)-password"
        r"|dump-keychain)\b|/etc/shadow\b|\bLogin\s{1,3}Data\b|\.gnupg/|\.password-store\b"
        r"|\bwallet\.dat\b",
        ".ssh id_ .aws gcloud application_default .kube .netrc .git-credentials .docker "
        "keychain security shadow login .gnupg password-store wallet",
    ),
    _d(
        "SC502",
        r"(?<![\w$.])\.env(?:\.(?:local|prod(?:uction)?|dev(?:elopment)?|staging|test))?(?![\w.-])",
        ".env",
        severity=_IN_TEXT_LOW,
    ),
    _d(
        "SC502",
        # a command that reads it (its first argument): as serious in instructions as in a script
        r"\b(?:cat|less|more|head|tail|source|type|get-content|base64|xxd|cp|scp|open)\s{1,5}"
        r"(?:-[\w-]{1,10}\s{1,5}){0,3}['\"]?(?:[\w.~$/-]{0,80}?/)?(?<![\w$.])\.env"
        r"(?:\.(?:local|prod(?:uction)?|dev(?:elopment)?|staging|test))?(?![\w.-])",
        ".env",
    ),
    _d(
        "SC503",
        r"169\.254\.169\.254|\bmetadata\.google\.internal\b|100\.100\.100\.200|fd00:ec2::254",
        "169.254.169.254 metadata.google.internal 100.100.100.200 fd00:ec2::254",
    ),
    # -- exfiltration ------------------------------------------------------------------------
    _d(
        "SC601",
        r"\b(?:pastebin\.com|paste\.ee|hastebin\.com|ghostbin\.\w{2,4}|dpaste\.(?:com|org)"
        r"|termbin\.com|transfer\.sh|0x0\.st|file\.io|webhook\.site|requestbin\.\w{2,4}"
        r"|pipedream\.net|hookbin\.com|beeceptor\.com|ngrok(?:-free)?\.(?:io|app|dev)"
        r"|trycloudflare\.com|interact\.sh|oast\.(?:fun|me|pro|live|site|online)"
        r"|burpcollaborator\.net|discord(?:app)?\.com/api/webhooks|api\.telegram\.org/bot)",
        "paste bin termbin transfer.sh 0x0 file.io webhook pipedream beeceptor ngrok "
        "trycloudflare interact oast burpcollaborator discord telegram",
    ),
    # SC602 in parts, each with the words its lines must hold.
    _d(
        "SC602",
        r"\b(?:env|printenv|set)\s{0,3}\|\s{0,5}(?:curl|wget|nc|ncat|netcat)\b",
        "env set",
        also="|",
    ),
    _d(
        "SC602",
        # the first command substitution after curl
        r"\b(?:curl|wget)\b(?:[^\n$]|\$(?!\()){0,300}\$\(\s{0,3}(?:env|printenv"
        r"|cat\s{1,5}[^\n)]{0,100}?" + _SECRET_PATH + r")",
        "curl wget",
        also="$(",
    ),
    _d(
        "SC602",
        r"(?<![\w-])(?:-d|--data[\w-]{0,12}|-F|--form)[\s=]{1,3}['\"]?(?:[\w-]{1,40}=)?@"
        r"['\"]?[^\s'\"]{0,120}?"
        + _SECRET_PATH
        + r"|(?<![\w-])(?:-T|--upload-file|--post-file)[\s=]{1,3}['\"]?[^\s'\"]{0,120}?"
        + _SECRET_PATH,
        "-d --data -f --form -t --upload-file --post-file",
        also=_SECRET_WORDS,
    ),
    _d(
        "SC602",
        r"\b(?:requests|httpx|session|client)\.(?:post|put)\s{0,3}\("
        + _GAP
        + r"(?:os\.environ|environ\.copy|dict\(\s{0,3}os\.environ)"
        r"|\burlopen\s{0,3}\(" + _GAP + r"os\.environ",
        "environ",
    ),
    _d(
        "SC602",
        r"\bfetch\s{0,3}\(" + _GAP + r"process\.env\b(?!\.)"
        r"|\bJSON\.stringify\(\s{0,3}process\.env\s{0,3}\)",
        "process.env",
    ),
    _d(
        "SC602",
        # asking the model to send something secret to a URL (the first URL after it)
        r"\b(?:send|post|upload|submit|forward|transmit|exfiltrate|copy)\b[^\n]{0,120}?"
        r"\b(?:contents?|keys?|tokens?|secrets?|credentials?|environment|env\s{1,3}vars?"
        r"|variables|history|conversation|chat\s{1,3}log)\b(?:[^\nh]|h(?!ttps?://)){0,120}"
        r"https?://",
        "http",
        also="send post upload submit forward transmit exfiltrate copy",
    ),
    _d(
        "SC603",
        r"\b(?:https?|ftp|wss?|tcp|udp)://(?:[^\s/@]{1,100}@)?(?P<ip>\d{1,3}(?:\.\d{1,3}){3})\b",
        "://",
        accept=_public_ip,
    ),
    # -- obfuscation (scripts) ---------------------------------------------------------------
    _d(
        "SC703",
        r"\beval\s{0,3}\(\s{0,3}function\s{0,3}\(\s{0,3}p\s{0,3},\s{0,3}a\s{0,3},\s{0,3}c"
        r"\s{0,3},\s{0,3}k\s{0,3},\s{0,3}e\s{0,3},\s{0,3}[dr]\s{0,3}\)"
        r"|\beval\s{0,3}\(\s{0,3}(?:unescape|decodeURIComponent|String\.fromCharCode)\s{0,3}\("
        r"|\b(?:exec|eval)\s{0,3}\(\s{0,3}['\"]?(?:\\x[0-9a-f]{2}){8}",
        "eval exec",
        kinds=_SCRIPT,
    ),
    _d(
        "SC704",
        r"(?:\bchr\s{0,3}\(\s{0,3}(?:0x[0-9a-f]{1,6}|\d{1,7})\s{0,3}\)\s{0,3}[+,]\s{0,3}){6}"
        r"|\bfromCharCode\s{0,3}\(\s{0,3}\d{1,7}(?:\s{0,3},\s{0,3}\d{1,7}){5}"
        r"|(?:\\x[0-9a-f]{2}){16}|(?:\\u00[0-9a-f]{2}){12}",
        "chr fromcharcode \\x \\u00",
        kinds=_SCRIPT,
    ),
    # -- network -----------------------------------------------------------------------------
    _d("SC902", r"/dev/(?:tcp|udp)/[\w.-]{1,253}/\d{1,5}", "/dev/tcp /dev/udp"),
    _d(
        "SC902",
        r"\b(?:nc|ncat|netcat)\b[^\n]{0,100}?\s-(?:e|c)\s{0,3}(?:/bin/)?(?:ba|z)?sh\b",
        "nc",
        also="-e -c",
    ),
    _d(
        "SC902",
        r"\bpty\.spawn\s{0,3}\(|\bos\.dup2\s{0,3}\(\s{0,3}\w{1,40}\.fileno\s{0,3}\(",
        "pty.spawn dup2",
    ),
    _d("SC902", r"\bsocat\b[^\n]{0,200}?\bexec:", "socat", also="exec:"),
    _d("SC902", r"\bmkfifo\b[^\n]{0,200}?\b(?:nc|ncat)\b", "mkfifo", also="nc"),
    _d(
        "SC901",
        r"^[ \t]{0,40}(?:import|from)\s{1,5}(?:socket|requests|httpx|aiohttp|urllib3?"
        r"|urllib\.request|http\.client|ftplib|smtplib|telnetlib|paramiko|websockets?)\b"
        r"|\brequire\s{0,3}\(\s{0,3}['\"](?:https?|net|dgram|axios|node-fetch|ws|got)['\"]"
        r"|\bfrom\s{1,5}['\"](?:axios|node-fetch|ws|got|node:https?|node:net)['\"]"
        r"|\bfetch\s{0,3}\(|\bXMLHttpRequest\b|\bsocket\.socket\s{0,3}\("
        r"|(?:^|[;&|(]\s{0,5}|\$\(\s{0,3})(?:curl|wget|nc|ncat|netcat|socat|telnet|ftp)\s"
        r"|\bInvoke-(?:WebRequest|RestMethod)\b|\bNet\.WebClient\b",
        "import from require fetch xmlhttprequest socket curl wget nc netcat socat telnet ftp "
        "invoke- webclient",
        kinds=_SCRIPT,
    ),
)
