"""The allowed-tools policy: pure matching of tool names against skills' ``allowed-tools``."""

from __future__ import annotations

import enum
import functools
import json
import unicodedata
from collections.abc import Collection, Iterable, Mapping
from typing import Any

import attrs

from skillcore._text import single_line
from skillcore.codes import DecisionCode as DecisionCode  # defined with OutcomeCode; re-exported

#: Longest tool name that can match an ``allowed-tools`` entry; a longer name matches nothing
#: (so RESTRICT blocks it). Real tool names are far shorter (OpenAI allows 64 characters).
MAX_TOOL_NAME = 256
#: Longest tool part of an ``allowed-tools`` entry; a longer entry matches nothing (fails closed).
MAX_TOOL_PATTERN = 256
#: Longest shell command an argument pattern (``Bash(git:*)``) is checked against; a longer
#: command matches no argument pattern (fails closed).
MAX_COMMAND = 8192
#: Largest JSON text of tool arguments parsed to find the command; larger arguments cannot
#: be checked, so argument-restricted entries do not allow the call.
MAX_ARGUMENTS_JSON = 65536
#: Characters that chain, substitute or redirect shell commands. A command containing one
#: matches no argument pattern except ``*``: ``git status; rm -rf /`` starts with ``git`` too.
SHELL_OPERATORS = frozenset(";&|`$()<>\n\r")


class PolicyMode(str, enum.Enum):
    """RECOMMEND shows ``allowed-tools`` to the model; RESTRICT also blocks other tools."""

    RECOMMEND = "recommend"
    RESTRICT = "restrict"


def normalize_tool_name(name: str) -> str:
    """Unicode NFC only: case, whitespace and look-alike characters stay significant."""
    return unicodedata.normalize("NFC", name)


def _to_frozenset(value: Iterable[str]) -> frozenset[str]:
    return frozenset(normalize_tool_name(v) for v in value)


class UnrestrictedSkills(str, enum.Enum):
    """What a loaded skill *without* ``allowed-tools`` means under RESTRICT.

    ``LIFT`` (the default, as the Agent Skills convention reads): it restricts nothing, so it
    lifts the restriction while it is loaded. ``IGNORE`` (stricter): it adds no tools, and the
    other loaded skills' lists still apply; with only such skills loaded, only the
    always-allowed tools may run.
    """

    LIFT = "lift"
    IGNORE = "ignore"


@attrs.frozen
class ToolAliases:
    """Claude-style ``allowed-tools`` names (``Read``, ``Bash``) mapped to one framework's
    tool names (``read_file``, ``execute``), with the framework tools that are part of the
    harness (always allowed) and the argument holding the command of its shell tools.

    Use a preset (:data:`ALIAS_PRESETS`, by name) or build one: ``ToolAliases.of({"Read":
    ["read_file"]}, always_allowed=["write_todos"], command_arguments={"execute":
    "command"})``.
    """

    name: str
    #: ``(Claude name, framework names)`` pairs, sorted (hashable, like every policy value).
    names: tuple[tuple[str, frozenset[str]], ...]
    always_allowed: frozenset[str] = frozenset()
    #: ``(framework shell tool, argument name)`` pairs: where an argument pattern such as
    #: ``Bash(git:*)`` finds the command. A list under ``commands`` is several commands
    #: (each must match); a list under any other name is one command's argv.
    command_arguments: tuple[tuple[str, str], ...] = ()

    @classmethod
    def of(
        cls,
        names: Mapping[str, Iterable[str]],
        *,
        always_allowed: Iterable[str] = (),
        command_arguments: Mapping[str, str] | None = None,
        name: str = "custom",
    ) -> ToolAliases:
        """Aliases from plain mappings (names are NFC-normalised, as tool names are)."""
        for key, value in names.items():
            if not isinstance(key, str) or isinstance(value, str):
                raise TypeError(
                    f"tool aliases map a name to a list of tool names, got {key!r}: {value!r}"
                )
        pairs = tuple(sorted((normalize_tool_name(k), _to_frozenset(v)) for k, v in names.items()))
        commands = tuple(
            sorted((normalize_tool_name(k), v) for k, v in (command_arguments or {}).items())
        )
        return cls(name, pairs, _to_frozenset(always_allowed), commands)

    def targets(self, claude_name: str) -> frozenset[str]:
        """The framework tools ``claude_name`` (an entry's tool part) stands for."""
        for key, value in self.names:
            if key == claude_name:
                return value
        return frozenset()

    def command_argument(self, tool_name: str) -> str | None:
        """The argument holding the command of ``tool_name``, if it is a shell tool."""
        for key, value in self.command_arguments:
            if key == tool_name:
                return value
        return None

    def table(self) -> str:
        """The mapping as a Markdown table (for docs and diagnostics)."""
        rows = [f"| `{k}` | {', '.join(f'`{t}`' for t in sorted(v))} |" for k, v in self.names]
        return "\n".join(["| allowed-tools | tools |", "|---|---|", *rows])


#: The alias presets, selected by name (``SkillConfig(tool_aliases="deepagents")``).
#: ``delete`` (deepagents) and ``computer_use_preview`` (Agents SDK) are deliberately not
#: aliased: a skill that needs them names them.
ALIAS_PRESETS: Mapping[str, ToolAliases] = {
    "deepagents": ToolAliases.of(
        {
            "Read": ["read_file", "ls", "glob", "grep"],
            "LS": ["ls"],
            "Glob": ["glob", "ls"],
            "Grep": ["grep"],
            "Write": ["write_file", "edit_file"],
            "Edit": ["edit_file"],
            "MultiEdit": ["edit_file"],
            "Bash": ["execute"],
            "TodoWrite": ["write_todos"],
            "Task": ["task"],
        },
        always_allowed=["write_todos", "task"],
        command_arguments={"execute": "command"},
        name="deepagents",
    ),
    # google.adk.tools: ExecuteBashTool (execute_bash) and the environment toolset's
    # ReadFile / WriteFile / EditFile / Execute; built-in search and page loading.
    "adk": ToolAliases.of(
        {
            "Read": ["ReadFile", "load_artifacts"],
            "Write": ["WriteFile", "EditFile"],
            "Edit": ["EditFile"],
            "MultiEdit": ["EditFile"],
            "Bash": ["execute_bash", "Execute"],
            "WebSearch": ["google_search", "enterprise_web_search"],
            "WebFetch": ["load_web_page", "url_context"],
        },
        always_allowed=["transfer_to_agent", "exit_loop"],
        command_arguments={"execute_bash": "command", "Execute": "command"},
        name="adk",
    ),
    # agents: ShellTool (shell), LocalShellTool (local_shell), ApplyPatchTool (apply_patch),
    # FileSearchTool (file_search), WebSearchTool (web_search).
    "agents_sdk": ToolAliases.of(
        {
            "Read": ["file_search"],
            "Grep": ["file_search"],
            "Write": ["apply_patch"],
            "Edit": ["apply_patch"],
            "MultiEdit": ["apply_patch"],
            "Bash": ["shell", "local_shell"],
            "WebSearch": ["web_search"],
        },
        command_arguments={"shell": "commands", "local_shell": "command"},
        name="agents_sdk",
    ),
}

#: What ``aliases`` accepts: a preset name, a :class:`ToolAliases`, a plain mapping
#: (Claude name -> framework names), or None (names match only themselves).
AliasesLike = ToolAliases | str | Mapping[str, Iterable[str]] | None


def to_aliases(value: AliasesLike) -> ToolAliases | None:
    """A :class:`ToolAliases` from a preset name or mapping; an unknown name is an error."""
    if value is None or isinstance(value, ToolAliases):
        return value
    if isinstance(value, str):
        try:
            return ALIAS_PRESETS[value]
        except KeyError:
            raise ValueError(
                f"unknown tool alias preset {value!r}; presets: {', '.join(ALIAS_PRESETS)}"
            ) from None
    if isinstance(value, Mapping):
        return ToolAliases.of(value)
    raise TypeError(f"tool aliases must be a preset name or a mapping, not {type(value).__name__}")


@attrs.frozen
class ToolPolicy:
    """How tool calls are checked against the loaded skills' ``allowed-tools``."""

    mode: PolicyMode = attrs.field(default=PolicyMode.RECOMMEND, converter=PolicyMode)
    #: Tool names never blocked (the skill tools themselves are always added by the session).
    always_allowed: frozenset[str] = attrs.field(factory=frozenset, converter=_to_frozenset)
    #: Claude-style names -> this framework's tools (a preset name, mapping or None).
    aliases: ToolAliases | None = attrs.field(default=None, converter=to_aliases)
    #: Whether a loaded skill without ``allowed-tools`` lifts RESTRICT (see
    #: :class:`UnrestrictedSkills`).
    unrestricted_skills: UnrestrictedSkills = attrs.field(
        default=UnrestrictedSkills.LIFT, converter=UnrestrictedSkills
    )
    #: Skill-gated tools: offered and callable only while a loaded skill names them (see
    #: :mod:`skillcore.policy.gating`), in every mode.
    gated_tools: frozenset[str] = attrs.field(factory=frozenset, converter=_to_frozenset)

    @property
    def always(self) -> frozenset[str]:
        """Every always-allowed tool: the configured ones and the alias preset's."""
        extra = self.aliases.always_allowed if self.aliases is not None else frozenset()
        return self.always_allowed | extra


@attrs.frozen
class ToolPattern:
    """One ``allowed-tools`` entry: ``Read``, ``mcp__github__*`` or ``Bash(git:*)``."""

    entry: str
    tool: str
    argument: str | None

    @classmethod
    def parse(cls, entry: str) -> ToolPattern:
        """Split an entry into the tool part and the (verbatim) argument pattern."""
        return _parse_pattern(entry)

    @classmethod
    def _parse(cls, entry: str) -> ToolPattern:
        entry = normalize_tool_name(entry.strip())
        paren = entry.find("(")
        if paren > 0 and entry.endswith(")"):
            return cls(entry, entry[:paren].strip(), entry[paren + 1 : -1])
        return cls(entry, entry, None)

    def matches(self, tool_name: str) -> bool:
        """Exact (full) match on the tool part; ``*`` is the only wildcard.

        ``tool_name`` is compared as given: callers normalise it with
        :func:`normalize_tool_name` (as :func:`decide` does).
        """
        return wildcard_match(self.tool, tool_name)

    def allows_command(self, command: str) -> bool:
        """Whether the argument pattern allows the shell command ``command``.

        ``prefix:*`` (Claude Code style) matches a command that is ``prefix`` or starts with
        ``prefix`` and a space, so ``git:*`` means "the first word is ``git``"; any other
        pattern must match the whole command, ``*`` being the only wildcard. A command with a
        shell operator (:data:`SHELL_OPERATORS`) matches no pattern but ``*``.
        """
        pattern = self.argument
        if pattern is None or pattern.strip() == "*":
            return True
        command = command.strip()
        if len(command) > MAX_COMMAND or any(c in SHELL_OPERATORS for c in command):
            return False
        pattern = pattern.strip()
        if pattern.endswith(":*"):
            prefix = pattern[:-2].strip()
            if not prefix:
                return False
            rest = command[len(prefix) :]
            return command.startswith(prefix) and (not rest or rest[0] in " \t")
        return _wildcard(pattern, command)


@functools.lru_cache(maxsize=4096)
def _parse_pattern(entry: str) -> ToolPattern:
    # Every tool call under RESTRICT checks every entry of every loaded skill: parse once.
    return ToolPattern._parse(entry)


def wildcard_match(pattern: str, name: str) -> bool:
    """True when ``pattern`` matches the *whole* of ``name``; ``*`` matches any run of
    characters (including none) and every other character matches only itself.

    No regular expressions (a pattern like ``*a*a*a*...b`` made the backtracking engine take
    minutes): the literal segments between stars are found left to right with ``str.find``,
    the first anchored at the start and the last at the end. Taking the leftmost occurrence of
    each middle segment is always safe, so there is no backtracking; the cost is at most
    O(len(pattern) * len(name)), and both are capped (:data:`MAX_TOOL_PATTERN`,
    :data:`MAX_TOOL_NAME`; beyond them nothing matches).
    """
    if len(pattern) > MAX_TOOL_PATTERN or len(name) > MAX_TOOL_NAME:
        return False
    return _wildcard(pattern, name)


def _wildcard(pattern: str, name: str) -> bool:
    # The linear matcher of wildcard_match; callers bound both lengths.
    if "*" not in pattern:
        return pattern == name
    first, *middle, last = pattern.split("*")
    end = len(name) - len(last)
    if end < len(first) or not name.startswith(first) or not name.endswith(last):
        return False
    pos = len(first)
    for segment in middle:
        if segment:
            found = name.find(segment, pos, end)
            if found < 0:
                return False
            pos = found + len(segment)
    return True


@attrs.frozen
class ToolDecision:
    """The result of :meth:`SkillSession.check_tool`. ``reason`` is written for the model."""

    allowed: bool
    code: DecisionCode
    reason: str
    tool: str
    matched: str | None = None

    def __bool__(self) -> bool:
        return self.allowed


def command_texts(
    aliases: ToolAliases | None, tool_name: str, arguments: Mapping[str, Any] | str | None
) -> tuple[str, ...] | None:
    """The shell commands a call of ``tool_name`` runs, for argument patterns; None when
    they cannot be known (not a shell tool, arguments not seen, unreadable or too large)."""
    key = aliases.command_argument(tool_name) if aliases is not None else None
    if key is None or arguments is None:
        return None
    if isinstance(arguments, str):
        if len(arguments) > MAX_ARGUMENTS_JSON:
            return None
        try:
            arguments = json.loads(arguments)
        except ValueError:
            return None
    if not isinstance(arguments, Mapping):
        return None
    value = arguments.get(key)
    if isinstance(value, str):
        return (value,)
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, str) for v in value):
        # ``commands`` lists commands; any other list is one command's argv.
        return tuple(value) if key == "commands" else (" ".join(value),)
    return None


def names_tool(pattern: ToolPattern, name: str, aliases: ToolAliases | None) -> bool:
    """The one alias match: ``pattern`` names tool ``name`` directly (exact or ``*`` glob) or
    through ``aliases`` (``Bash`` naming ``execute``, for example)."""
    return pattern.matches(name) or (aliases is not None and name in aliases.targets(pattern.tool))


def _entry_allows(
    pattern: ToolPattern,
    name: str,
    aliases: ToolAliases | None,
    arguments: Mapping[str, Any] | str | None,
) -> tuple[bool, str | None]:
    """Whether one entry allows the call, and (when it names the tool but does not allow
    the call) why, for the reason."""
    if not names_tool(pattern, name, aliases):
        return False, None
    direct = pattern.matches(name)
    if pattern.argument is None or pattern.argument.strip() == "*":
        return True, None
    shell = aliases.command_argument(name) if aliases is not None else None
    if shell is None:
        # An argument pattern on a tool whose arguments are not understood: a direct name
        # match keeps the name-only meaning (the pattern is shown to the model); an alias
        # reached through it does not allow the call (fails closed).
        if direct:
            return True, None
        return False, (
            f"{pattern.entry!r} restricts arguments, which are checked only for shell tools, "
            f"so it does not allow {name!r}"
        )
    commands = command_texts(aliases, name, arguments)
    if commands is None:
        return False, (
            f"{pattern.entry!r} allows {name!r} only for commands matching "
            f"{single_line(pattern.argument)!r}, and the command of this call cannot be "
            "checked here, so it is blocked"
        )
    if all(pattern.allows_command(c) for c in commands):
        return True, None
    return False, (
        f"{pattern.entry!r} allows {name!r} only for commands matching "
        f"{single_line(pattern.argument)!r} (no shell operators such as ; && | $( )); this "
        "command does not match"
    )


def decide(
    tool_name: str,
    policy: ToolPolicy,
    loaded: Iterable[tuple[str, tuple[str, ...] | None]],
    skill_tools: frozenset[str] = frozenset(),
    unload_tool: str | None = "unload_skill",
    arguments: Mapping[str, Any] | str | None = None,
    pinned: Collection[str] = (),
) -> ToolDecision:
    """Decide one tool call. ``loaded`` is ``(skill name, allowed_tools or None)`` pairs.
    ``unload_tool`` is None when the caller (e.g. an agent a conversation was handed off to)
    has no unload tool, so the reason does not tell it to call one. ``arguments`` (a mapping
    or JSON text; None when the caller cannot see them) are checked against argument
    patterns such as ``Bash(git:*)`` on shell tools. ``pinned``: loaded skills the model
    cannot unload; while one is loaded a refusal does not advise unloading.

    RESTRICT blocks a tool iff it is not always allowed, at least one skill is loaded, every
    loaded skill declares ``allowed-tools`` (with ``unrestricted_skills="ignore"``: skills
    without it are left out), and no entry allows the call: an entry names the tool itself
    or, through ``policy.aliases``, a Claude-style name standing for it, and its argument
    pattern (on a shell tool) matches the command.
    """
    name = normalize_tool_name(tool_name)
    if policy.mode is PolicyMode.RECOMMEND:
        return ToolDecision(True, DecisionCode.RECOMMEND_MODE, "recommend mode never blocks", name)
    always_allowed = policy.always
    if name in always_allowed or name in skill_tools:
        return ToolDecision(True, DecisionCode.ALWAYS_ALLOWED, f"{name!r} is always allowed", name)
    pairs = list(loaded)
    if not pairs:
        return ToolDecision(True, DecisionCode.NO_SKILL_LOADED, "no skill is loaded", name)
    ignore = policy.unrestricted_skills is UnrestrictedSkills.IGNORE
    for skill, tools in pairs:
        if tools is None and not ignore:
            return ToolDecision(
                True,
                DecisionCode.UNRESTRICTED_SKILL_LOADED,
                f"loaded skill {skill!r} does not declare allowed-tools",
                name,
            )
    entries: list[str] = []
    notes: list[str] = []
    for _skill, tools in pairs:
        for entry in tools or ():
            pattern = ToolPattern.parse(entry)
            matched, note = _entry_allows(pattern, name, policy.aliases, arguments)
            if matched:
                return ToolDecision(
                    True, DecisionCode.MATCHED, f"allowed by {pattern.entry!r}", name, pattern.entry
                )
            if note is not None and note not in notes:
                notes.append(note)
            if pattern.entry not in entries:
                entries.append(pattern.entry)
    skills = ", ".join(single_line(s) for s, _ in pairs)
    allowed = ", ".join(single_line(e) for e in entries) if entries else "(none)"
    unrestricted = [single_line(s) for s, t in pairs if t is None]
    ignored = (
        f" Loaded skills without allowed-tools ({', '.join(unrestricted)}) do not lift the "
        "restriction here."
        if unrestricted
        else ""
    )
    # A caller without the unload tool has none of the skill tools: do not offer them.
    extra = sorted(always_allowed | (skill_tools if unload_tool is not None else set()))
    always = f" Always allowed: {', '.join(extra)}." if extra else ""
    shown = repr(name)
    if len(name) > MAX_TOOL_NAME:
        shown = (
            f"{name[:32]!r}... ({len(name)} characters; names longer than {MAX_TOOL_NAME} "
            "characters match no allowed-tools entry)"
        )
    # Unloading only narrows the union of allowed tools until no skill is loaded, which a
    # pinned skill prevents: then the unload advice would be false.
    stuck = [single_line(s) for s, _ in pairs if s in pinned]
    lift = (
        f"Use one of those tools: {', '.join(stuck)} "
        f"{'is' if len(stuck) == 1 else 'are'} pinned (cannot be unloaded), so the "
        "restriction stays."
        if stuck
        else f"Use one of those tools, or call {unload_tool} for a skill you no longer need to "
        "lift its restriction."
        if unload_tool is not None
        else "Use one of those tools; you cannot unload skills, so the restriction stays "
        "until an agent that can unloads them."
    )
    why = "".join(f" {n[0].upper()}{n[1:]}." for n in notes)
    reason = (
        f"Tool {shown} is not allowed while these skills are loaded: {skills}. "
        f"Their allowed-tools are: {allowed}.{why}{ignored}{always} {lift}"
    )
    return ToolDecision(False, DecisionCode.TOOL_BLOCKED, reason, name)
