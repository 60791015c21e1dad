"""Tool aliases: Claude-style ``allowed-tools`` names (``Read``, ``Bash``) mapped to one
framework's tools, with the framework's always-allowed tools and where its shell tools take
their command; and the presets for the frameworks skillcore supports."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import attrs

from skillcore.policy.patterns import normalize_tool_name


def to_frozenset(value: Iterable[str]) -> frozenset[str]:
    """Tool names as a set, NFC-normalised."""
    return frozenset(normalize_tool_name(v) for v in value)


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
        pairs = tuple(sorted((normalize_tool_name(k), to_frozenset(v)) for k, v in names.items()))
        commands = tuple(
            sorted((normalize_tool_name(k), v) for k, v in (command_arguments or {}).items())
        )
        return cls(name, pairs, to_frozenset(always_allowed), commands)

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

#: The adapters' default ``tool_aliases``: the adapter's framework preset, names only.
AUTO_ALIASES = "auto"


def framework_aliases(framework: str | None) -> ToolAliases | None:
    """What ``tool_aliases="auto"`` means in an adapter for ``framework`` (a preset name, or
    None for an adapter whose tools have no fixed names): the preset's name table and shell
    tools, *without* its always-allowed harness tools. Mapping ``Read`` to ``read_file`` only
    carries out what a skill declares; always allowing tools the skill does not name widens
    RESTRICT, so it stays the user's choice (name the preset to get it)."""
    if framework is None:
        return None
    return attrs.evolve(ALIAS_PRESETS[framework], always_allowed=frozenset())


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
