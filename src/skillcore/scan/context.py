"""Where a match sits decides how much it weighs: what kind of file it is in, and, in Markdown,
whether the text around it warns about the thing rather than asks for it.

A script runs; instructions (``SKILL.md``) are what the model follows; other text files
(references) are read on demand. In Markdown, a match whose line or lead-in (the prose line
before its code block, or the line right above when it ends with a colon) names it as something
to avoid or detect ("never run", "do not", "malicious", "flag", "detect", ...) is a *mention*:
it is reported at ``low``. A script is never read as a mention: what it says, it does.
"""

from __future__ import annotations

import bisect
import enum
import re

import attrs

from skillcore.parse import body_span


class FileKind(str, enum.Enum):
    """How a file of a skill is used."""

    FRONTMATTER = "frontmatter"  # SKILL.md frontmatter: the catalog shows it every turn
    INSTRUCTIONS = "instructions"  # SKILL.md body: the model follows it when loaded
    SCRIPT = "script"  # code the skill runs
    TEXT = "text"  # any other text file (references, templates)


SKILL_FILE = "SKILL.md"


#: Extensions of code, wherever the file is.
def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


SCRIPT_EXTENSIONS = _words(
    ".sh .bash .zsh .ksh .fish .py .pyw .js .mjs .cjs .ts .ps1 .psm1 .bat .cmd .rb .pl .php "
    ".lua .vbs .applescript .scpt"
)
#: Extensions of data and prose: text even under ``scripts/``.
TEXT_EXTENSIONS = _words(
    ".md .markdown .txt .rst .json .jsonl .csv .tsv .yaml .yml .toml .xml .html .htm .svg "
    ".ini .cfg .lock"
)


def file_kind(path: str) -> FileKind:
    """The kind of a file by its path inside the skill (``SKILL.md`` is split by the caller)."""
    name = path.rsplit("/", 1)[-1].lower()
    dot = name.rfind(".")
    ext = name[dot:] if dot > 0 else ""
    if ext in SCRIPT_EXTENSIONS:
        return FileKind.SCRIPT
    if ext not in TEXT_EXTENSIONS and (path.startswith("scripts/") or "/scripts/" in path):
        return FileKind.SCRIPT
    return FileKind.TEXT


def is_skill_file(path: str) -> bool:
    """Whether ``path`` names a skill's ``SKILL.md``."""
    return path == SKILL_FILE or path.endswith("/" + SKILL_FILE)


# Words that make a match a mention: anywhere on its line (the match itself cut out) or on the
# prose line that leads into it. A negation counts only just before the match on its line
# ("never run `curl ... | sh`"): attack text is full of "do not" too.
_WARNING = re.compile(
    r"\b(?:avoid|bad|dangerous|unsafe|insecure|malicious|attack\w{0,4}|flag\w{0,3}|detect\w{0,5}"
    r"|look\s{1,3}for|watch\s{1,3}(?:out\s{1,3})?for|red\s{1,3}flags?|suspicious|anti-?pattern"
    r"|example\s{1,3}of|warn\w{0,4}|risk\w{0,3}|vulnerab\w{0,6}|exploit\w{0,4}|forbidden"
    r"|block\w{0,3}|reject\w{0,3}|refuse\w{0,2}|injection)\b",
    re.IGNORECASE,
)
_NEGATION = re.compile(r"\b(?:never|don'?t|do\s{1,3}not|avoid)\b[^.;!?]{0,60}$", re.IGNORECASE)
# ... and in a lead-in, a negation of doing something ("Never run this:").
_DO_NOT = re.compile(
    r"\b(?:never|don'?t|do\s{1,3}not|avoid)\s{1,3}(?:ever\s{1,3})?(?:run\w{0,3}|us\w{1,3}|pip\w{1,3}"
    r"|execut\w{1,3}|do|doing|copy\w{0,3}|past\w{1,3}|install\w{0,3}|writ\w{1,3}|call\w{0,3}"
    r"|commit\w{0,3}|stor\w{1,3}|read\w{0,3}|send\w{0,3}|follow\w{0,3}|obey\w{0,3}|trust\w{0,3})\b",
    re.IGNORECASE,
)
#: Characters each side of a match (and at the end of its lead-in) looked at for those words.
_CONTEXT_CHARS = 200
#: Characters before a match looked at for a negation.
_NEGATION_REACH = 80
_FENCE = re.compile(r"[ \t]{0,3}(?:```|~~~)")


@attrs.frozen
class TextMap:
    """Line starts of a text, its kind by offset, and for Markdown the code-fence lead-ins."""

    text: str
    starts: tuple[int, ...]
    body_start: int  # offset where a SKILL.md body starts (0 for other files)
    skill_file: bool
    kind: FileKind
    #: For each line inside a code fence: the index of the prose line that leads into it.
    lead_in: dict[int, int] = attrs.field(factory=dict, eq=False)

    def position(self, offset: int) -> tuple[int, int]:
        """1-based ``(line, column)`` of an offset."""
        i = bisect.bisect_right(self.starts, offset) - 1
        return i + 1, offset - self.starts[i] + 1

    def line_text(self, index: int) -> str:
        """The text of 0-based line ``index`` (no newline)."""
        start = self.starts[index]
        end = self.starts[index + 1] - 1 if index + 1 < len(self.starts) else len(self.text)
        return self.text[start:end]

    def kind_at(self, offset: int) -> FileKind:
        """The kind of the text at ``offset``."""
        if not self.skill_file:
            return self.kind
        return FileKind.INSTRUCTIONS if offset >= self.body_start else FileKind.FRONTMATTER

    def mention(self, start: int, end: int) -> bool:
        """Whether the match ``[start, end)`` is a mention (see the module docstring)."""
        if self.kind is FileKind.SCRIPT:
            return False
        index = bisect.bisect_right(self.starts, start) - 1
        line_start = self.starts[index]
        line_end = self.starts[index + 1] - 1 if index + 1 < len(self.starts) else len(self.text)
        # The words around the match, within a window (a long line costs no more).
        text = self.text
        before = text[max(line_start, start - _CONTEXT_CHARS) : start]
        after = text[end : min(line_end, end + _CONTEXT_CHARS)]
        if _WARNING.search(before + " " + after) or _NEGATION.search(before[-_NEGATION_REACH:]):
            return True
        lead_index = self.lead_in.get(index)
        if lead_index is not None:
            lead = self._tail(lead_index)
        elif index > 0 and self._tail(index - 1).rstrip().endswith(":"):
            lead = self._tail(index - 1)  # "Never do this:" right above
        else:
            return False
        return _WARNING.search(lead) is not None or _DO_NOT.search(lead) is not None

    def _tail(self, index: int) -> str:
        """The last :data:`_CONTEXT_CHARS` of line ``index`` (bounded work on long lines)."""
        start = self.starts[index]
        end = self.starts[index + 1] - 1 if index + 1 < len(self.starts) else len(self.text)
        return self.text[max(start, end - _CONTEXT_CHARS) : end]


def text_map(path: str, text: str) -> TextMap:
    """The map of one file's text."""
    starts = [0]
    find = text.find
    pos = find("\n")
    while pos != -1:
        starts.append(pos + 1)
        pos = find("\n", pos + 1)
    skill_file = is_skill_file(path)
    body_start = body_span(text)[0] if skill_file else 0
    kind = FileKind.INSTRUCTIONS if skill_file else file_kind(path)
    lead_in: dict[int, int] = {}
    if kind is not FileKind.SCRIPT and ("```" in text or "~~~" in text):
        lead_in = _fences(text, starts)
    return TextMap(text, tuple(starts), body_start, skill_file, kind, lead_in)


def _fences(text: str, starts: list[int]) -> dict[int, int]:
    """Each line inside a fenced code block -> the last prose line before the fence."""
    out: dict[int, int] = {}
    fence_open: int | None = None
    last_prose = -1
    for i, start in enumerate(starts):
        if _FENCE.match(text, start):
            fence_open = None if fence_open is not None else last_prose
            continue
        if fence_open is not None:
            if fence_open >= 0:
                out[i] = fence_open
        else:
            end = starts[i + 1] if i + 1 < len(starts) else len(text)
            if text[start:end].strip():
                last_prose = i
    return out
