"""The allowed-tools policy: pure matching of tool names against skills' ``allowed-tools``.

The policy's settings and its one decision (:func:`decide`) live here; entries and their
matching in :mod:`~skillcore.policy.patterns`, tool aliases in
:mod:`~skillcore.policy.aliases`, the commands of shell tool calls in
:mod:`~skillcore.policy.commands`.
"""

from __future__ import annotations

import enum
from collections.abc import Collection, Iterable

import attrs

from skillcore._escaping import single_line
from skillcore.codes import DecisionCode as DecisionCode  # defined with OutcomeCode; re-exported
from skillcore.outcome_texts import approval_reason
from skillcore.policy.aliases import (
    ALIAS_PRESETS,
    AliasesLike,
    ToolAliases,
    to_aliases,
    to_frozenset,
)
from skillcore.policy.commands import (
    GIT_GLOBAL_RUNNERS,
    GIT_RUNNER_COMMANDS,
    GIT_RUNNER_OPTIONS,
    GIT_RUNNER_SHORT,
    GIT_RUNNER_WORDS,
    MAX_ARGUMENTS_JSON,
    Arguments,
    RawInput,
    command_texts,
    program_option,
)
from skillcore.policy.patterns import (
    MAX_COMMAND,
    MAX_TOOL_NAME,
    MAX_TOOL_PATTERN,
    SHELL_OPERATORS,
    ToolPattern,
    normalize_tool_name,
    wildcard_match,
)

__all__ = [
    "ALIAS_PRESETS",
    "GIT_GLOBAL_RUNNERS",
    "GIT_RUNNER_COMMANDS",
    "GIT_RUNNER_OPTIONS",
    "GIT_RUNNER_SHORT",
    "GIT_RUNNER_WORDS",
    "MAX_ARGUMENTS_JSON",
    "MAX_COMMAND",
    "MAX_TOOL_NAME",
    "MAX_TOOL_PATTERN",
    "SHELL_OPERATORS",
    "AliasesLike",
    "Arguments",
    "DecisionCode",
    "PolicyMode",
    "ProgramOptions",
    "RawInput",
    "ToolAliases",
    "ToolDecision",
    "ToolPattern",
    "ToolPolicy",
    "UnrestrictedSkills",
    "command_texts",
    "decide",
    "decide_script",
    "names_tool",
    "normalize_tool_name",
    "program_option",
    "to_aliases",
    "wildcard_match",
]


class PolicyMode(str, enum.Enum):
    """RECOMMEND shows ``allowed-tools`` to the model; RESTRICT also blocks other tools;
    APPROVE runs them after the user approves (the listed tools are pre-approved)."""

    RECOMMEND = "recommend"
    RESTRICT = "restrict"
    #: The calls RESTRICT would block run once the user approves them, through the
    #: framework's human-in-the-loop (``ToolDecision.needs_approval``); the others run.
    APPROVE = "approve"


class ProgramOptions(str, enum.Enum):
    """Whether an argument pattern (``Bash(git:*)``) allows the options and subcommands
    through which the program runs another one (``git -c core.pager=...``). ``REFUSE`` (the
    default): it does not; ``ALLOW``: the pattern matches the words only."""

    REFUSE = "refuse"
    ALLOW = "allow"


class UnrestrictedSkills(str, enum.Enum):
    """What a loaded skill *without* ``allowed-tools`` means under RESTRICT.

    ``IGNORE`` (the default): it adds nothing and lifts nothing. The loaded skills that declare
    ``allowed-tools`` restrict as if it were not loaded; with none of them loaded nothing is
    blocked. ``LIFT`` (a lenient opt-in): while it is loaded it lifts the restriction
    entirely, so loading any such skill (most published skills declare no ``allowed-tools``)
    lets every tool run.
    """

    LIFT = "lift"
    IGNORE = "ignore"


@attrs.frozen
class ToolPolicy:
    """How tool calls are checked against the loaded skills' ``allowed-tools``."""

    mode: PolicyMode = attrs.field(default=PolicyMode.RECOMMEND, converter=PolicyMode)
    #: Tool names never blocked (the skill tools themselves are always added by the session).
    always_allowed: frozenset[str] = attrs.field(factory=frozenset, converter=to_frozenset)
    #: Claude-style names -> this framework's tools (a preset name, mapping or None).
    aliases: ToolAliases | None = attrs.field(default=None, converter=to_aliases)
    #: Whether a loaded skill without ``allowed-tools`` lifts RESTRICT (see
    #: :class:`UnrestrictedSkills`; by default it does not).
    unrestricted_skills: UnrestrictedSkills = attrs.field(
        default=UnrestrictedSkills.IGNORE, converter=UnrestrictedSkills
    )
    #: Skill-gated tools: offered and callable only while a loaded skill names them (see
    #: :mod:`skillcore.policy.gating`), in every mode.
    gated_tools: frozenset[str] = attrs.field(factory=frozenset, converter=to_frozenset)
    #: Whether argument patterns allow options through which a program runs another one
    #: (see :class:`ProgramOptions`; refused by default).
    program_options: ProgramOptions = attrs.field(
        default=ProgramOptions.REFUSE, converter=ProgramOptions
    )

    @property
    def always(self) -> frozenset[str]:
        """Every always-allowed tool: the configured ones and the alias preset's."""
        extra = self.aliases.always_allowed if self.aliases is not None else frozenset()
        return self.always_allowed | extra


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

    @property
    def needs_approval(self) -> bool:
        """True when the call runs only after the user approves it (APPROVE mode)."""
        return self.code is DecisionCode.APPROVAL_REQUIRED


def names_tool(pattern: ToolPattern, name: str, aliases: ToolAliases | None) -> bool:
    """The one alias match: ``pattern`` names tool ``name`` directly (exact or ``*`` glob) or
    through ``aliases`` (``Bash`` naming ``execute``, for example)."""
    return pattern.matches(name) or (aliases is not None and name in aliases.targets(pattern.tool))


def _entry_allows(
    pattern: ToolPattern,
    name: str,
    aliases: ToolAliases | None,
    arguments: Arguments,
    program_options: ProgramOptions | None = None,
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
        if program_options is ProgramOptions.ALLOW:
            return True, None
        for c in commands:
            word = program_option(c)
            if word is not None:
                return False, (
                    f"{pattern.entry!r} allows {name!r} for commands matching "
                    f"{single_line(pattern.argument)!r}, but this one runs other programs "
                    f"through {single_line(word)[:60]!r}, which argument patterns do not allow"
                )
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
    arguments: Arguments = None,
    pinned: Collection[str] = (),
) -> ToolDecision:
    """Decide one tool call. ``loaded`` is ``(skill name, allowed_tools or None)`` pairs.
    ``unload_tool`` is None when the caller (e.g. an agent a conversation was handed off to)
    has no unload tool, so the reason does not tell it to call one. ``arguments`` (a mapping,
    JSON text or a free-form tool's :class:`RawInput`; None when the caller cannot see them)
    are checked against argument
    patterns such as ``Bash(git:*)`` on shell tools. ``pinned``: loaded skills the model
    cannot unload; while one is loaded a refusal does not advise unloading.

    RESTRICT blocks a tool iff it is not always allowed, at least one loaded skill declares
    ``allowed-tools`` (skills without it are left out; with the lenient
    ``unrestricted_skills="lift"`` one of them loaded blocks nothing), and no entry allows
    the call: an entry names the tool itself
    or, through ``policy.aliases``, a Claude-style name standing for it, and its argument
    pattern (on a shell tool) matches the command. APPROVE allows every call, and exactly
    the calls RESTRICT would block need the user's approval (``APPROVAL_REQUIRED``).
    """
    name = normalize_tool_name(tool_name)
    if policy.mode is PolicyMode.RECOMMEND:
        return ToolDecision(True, DecisionCode.RECOMMEND_MODE, "recommend mode never blocks", name)
    always_allowed = policy.always
    if name in always_allowed or name in skill_tools:
        return ToolDecision(True, DecisionCode.ALWAYS_ALLOWED, f"{name!r} is always allowed", name)
    pairs = list(loaded)
    lifted = _lifted(name, policy, pairs)
    if lifted is not None:
        return lifted
    matched = _match(name, policy, pairs, arguments)
    if isinstance(matched, ToolDecision):
        return matched
    entries, notes = matched
    if policy.mode is PolicyMode.APPROVE:
        return _approval(name, pairs)
    # A caller without the unload tool has none of the skill tools: do not offer them.
    extra = sorted(always_allowed | (skill_tools if unload_tool is not None else set()))
    reason = f"{_blocked(name, pairs, entries, notes, extra)} {_lift(pairs, pinned, unload_tool)}"
    return ToolDecision(False, DecisionCode.TOOL_BLOCKED, reason, name)


def decide_script(
    tool_name: str,
    skill: str,
    script: str,
    policy: ToolPolicy,
    loaded: Iterable[tuple[str, tuple[str, ...] | None]],
    script_tools: frozenset[str],
) -> ToolDecision:
    """Decide one run of ``script`` (a path in skill ``skill``) through the script tool
    ``tool_name``. ``loaded``: as for :func:`decide`; ``script_tools``: the names an entry
    may give the script tool (``run_skill_script`` and the configured, maybe prefixed, name).

    A script run is a tool call, judged as :func:`decide` judges one (RECOMMEND never blocks;
    always-allowed tools pass; RESTRICT applies only while a loaded skill declares
    ``allowed-tools``), with one difference: under RESTRICT only the *running skill's own*
    entries can allow it, so a skill allows only its own scripts. ``run_skill_script`` (or
    ``run_skill_script(*)``, or a ``*`` glob naming the tool) allows every listed script of
    the skill; ``run_skill_script(scripts/x.py)`` allows that script only (``*`` globs in the
    path). A shell entry such as ``Bash(python:*)`` or ``Bash(*)`` never allows it: aliases
    do not apply, since a script run is not a shell command the model wrote.
    """
    name = normalize_tool_name(tool_name)
    if policy.mode is PolicyMode.RECOMMEND:
        return ToolDecision(True, DecisionCode.RECOMMEND_MODE, "recommend mode never blocks", name)
    if name in policy.always:
        return ToolDecision(True, DecisionCode.ALWAYS_ALLOWED, f"{name!r} is always allowed", name)
    pairs = list(loaded)
    lifted = _lifted(name, policy, pairs)
    if lifted is not None:
        return lifted
    own = dict(pairs).get(skill)
    for entry in own or ():
        pattern = ToolPattern.parse(entry)
        if not any(pattern.matches(t) for t in script_tools):
            continue
        argument = None if pattern.argument is None else pattern.argument.strip()
        if argument in (None, "*") or wildcard_match(argument, script):
            return ToolDecision(
                True, DecisionCode.MATCHED, f"allowed by {pattern.entry!r}", name, pattern.entry
            )
    if policy.mode is PolicyMode.APPROVE:
        return _approval(name, pairs)
    shown = single_line(skill)
    entries = ", ".join(single_line(e) for e in own or ()) or "(none)"
    reason = (
        f"Running {single_line(script)!r} of skill {shown!r} is not allowed while these "
        f"skills are loaded: {', '.join(single_line(s) for s, _ in pairs)}. A skill allows "
        f"its own scripts with an allowed-tools entry {tool_name!r} (every listed script) or "
        f"'{tool_name}(<script path>)'; the allowed-tools of {shown!r} are: {entries}. Do the "
        "work with the tools you are allowed, or tell the user the script could not run."
    )
    return ToolDecision(False, DecisionCode.TOOL_BLOCKED, reason, name)


#: ``(skill name, allowed_tools or None)`` of each loaded skill.
_Loaded = list[tuple[str, tuple[str, ...] | None]]


def _approval(name: str, pairs: _Loaded) -> ToolDecision:
    """APPROVE's decision for a call RESTRICT would block: it runs once the user approves."""
    reason = approval_reason(name, tuple(s for s, _ in pairs))
    return ToolDecision(True, DecisionCode.APPROVAL_REQUIRED, reason, name)


def _lifted(name: str, policy: ToolPolicy, pairs: _Loaded) -> ToolDecision | None:
    """The decision when RESTRICT does not apply: no skill loaded, none declaring
    ``allowed-tools``, or (lenient ``"lift"`` only) one without it lifting the restriction."""
    if not pairs:
        return ToolDecision(True, DecisionCode.NO_SKILL_LOADED, "no skill is loaded", name)
    if policy.unrestricted_skills is UnrestrictedSkills.LIFT:
        for skill, tools in pairs:
            if tools is None:
                return ToolDecision(
                    True,
                    DecisionCode.UNRESTRICTED_SKILL_LOADED,
                    f"loaded skill {skill!r} does not declare allowed-tools",
                    name,
                )
    if all(tools is None for _, tools in pairs):
        reason = "no loaded skill declares allowed-tools"
        return ToolDecision(True, DecisionCode.NO_RESTRICTING_SKILL, reason, name)
    return None


def _match(
    name: str, policy: ToolPolicy, pairs: _Loaded, arguments: Arguments
) -> ToolDecision | tuple[list[str], list[str]]:
    """The decision of the first entry allowing the call; else every entry seen and why the
    entries naming the tool did not allow it."""
    entries: list[str] = []
    notes: list[str] = []
    for _skill, tools in pairs:
        for entry in tools or ():
            pattern = ToolPattern.parse(entry)
            matched, note = _entry_allows(
                pattern, name, policy.aliases, arguments, policy.program_options
            )
            if matched:
                return ToolDecision(
                    True, DecisionCode.MATCHED, f"allowed by {pattern.entry!r}", name, pattern.entry
                )
            if note is not None and note not in notes:
                notes.append(note)
            if pattern.entry not in entries:
                entries.append(pattern.entry)
    return entries, notes


def _blocked(
    name: str, pairs: _Loaded, entries: list[str], notes: list[str], extra: list[str]
) -> str:
    """Why the call is blocked: the loaded skills, their entries, why the entries naming
    the tool did not allow it, and the always-allowed tools."""
    skills = ", ".join(single_line(s) for s, _ in pairs)
    allowed = ", ".join(single_line(e) for e in entries) if entries else "(none)"
    unrestricted = [single_line(s) for s, t in pairs if t is None]
    ignored = (
        f" Loaded skills without allowed-tools ({', '.join(unrestricted)}) do not lift the "
        "restriction here."
        if unrestricted
        else ""
    )
    always = f" Always allowed: {', '.join(extra)}." if extra else ""
    shown = repr(name)
    if len(name) > MAX_TOOL_NAME:
        shown = (
            f"{name[:32]!r}... ({len(name)} characters; names longer than {MAX_TOOL_NAME} "
            "characters match no allowed-tools entry)"
        )
    why = "".join(f" {n[0].upper()}{n[1:]}." for n in notes)
    return (
        f"Tool {shown} is not allowed while these skills are loaded: {skills}. "
        f"Their allowed-tools are: {allowed}.{why}{ignored}{always}"
    )


def _lift(pairs: _Loaded, pinned: Collection[str], unload_tool: str | None) -> str:
    """What the model can do about a block."""
    # Unloading only narrows the union of allowed tools until no skill is loaded, which a
    # pinned skill prevents: then the unload advice would be false.
    stuck = [single_line(s) for s, _ in pairs if s in pinned]
    if stuck:
        return (
            f"Use one of those tools: {', '.join(stuck)} "
            f"{'is' if len(stuck) == 1 else 'are'} pinned (cannot be unloaded), so the "
            "restriction stays."
        )
    if unload_tool is not None:
        return (
            f"Use one of those tools, or call {unload_tool} for a skill you no longer need to "
            "lift its restriction."
        )
    return (
        "Use one of those tools; you cannot unload skills, so the restriction stays "
        "until an agent that can unloads them."
    )
