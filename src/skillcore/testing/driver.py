"""What a conformance driver is: the scenario's tools, one call and its reply, the capabilities
a driver declares, and :class:`AdapterDriver`, which runs model turns through an adapter."""

from __future__ import annotations

import abc
import base64
import dataclasses
import enum
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from skillcore.library import SkillLibrary
from skillcore.limits import Limits
from skillcore.names import ToolNames
from skillcore.policy import ToolPolicy

PLAIN_TOOLS = ("Read", "Write")
#: The shell tool of the scenario: deepagents' name, so the ``"deepagents"`` alias preset
#: checks ``Bash(...)`` argument patterns against its ``command`` argument.
SHELL_TOOL = "execute"


def shell_reply(command: str) -> str:
    """What the scenario's shell tool replies when it runs ``command``."""
    return f"ran: {command}"


#: The skill-gated tool of the gating check (any behaviour; unlocked by ``delta-deploy``).
GATED_TOOL = "Deploy"


@attrs.frozen
class Call:
    """A tool call the scripted model makes."""

    tool: str
    args: dict[str, Any] = attrs.field(factory=dict)


@attrs.frozen
class Attachment:
    """A binary part that reached the model natively (an image or file part)."""

    mime_type: str
    data: bytes = attrs.field(repr=False)

    @classmethod
    def from_data_url(cls, url: str) -> Attachment:
        """Decode a ``data:<mime>;base64,...`` URL (as OpenAI parts carry them)."""
        head, _, encoded = url.partition(",")
        if not head.startswith("data:") or not head.endswith(";base64"):
            raise ValueError(f"not a base64 data URL: {url[:40]!r}")
        return cls(head[len("data:") : -len(";base64")], base64.b64decode(encoded))


@attrs.frozen
class Reply:
    """What came back to the model for one call."""

    tool: str
    text: str
    is_error: bool
    #: Binary parts delivered natively with this reply (binary resources).
    parts: tuple[Attachment, ...] = ()


class Capability(enum.Enum):
    """What a driver (its adapter) can do. A check runs only with a driver that has every
    capability it :func:`requires`; the others skip it, naming what is missing."""

    #: The agent's own tools (``Read``, ``Write``, :data:`SHELL_TOOL`) run beside the skill
    #: tools, and the adapter applies the tool policy to them.
    HOST_TOOLS = "host tools"
    #: The system instructions are rendered for each conversation and model call, so they
    #: can follow its state (``prompt_mode="dynamic"``, unloaded configured skills).
    CONVERSATION_PROMPT = "conversation prompt"
    #: :meth:`AdapterDriver.use_conversation` switches between conversations of one agent.
    CONVERSATIONS = "conversations"
    #: :meth:`AdapterDriver.offered` reports the tools offered on the latest model call.
    OFFERED_TOOLS = "offered tools"
    #: Skill-gated tools (:attr:`AdapterDriver.gated`) can be registered with the adapter.
    GATED_TOOLS = "gated tools"
    #: Binary resources reach the model as the framework's native parts.
    BINARY_PARTS = "binary parts"
    #: :meth:`AdapterDriver.drop_history` hides earlier messages from the model.
    DROP_HISTORY = "drop history"
    #: A call to a tool the model was not offered reaches the adapter, which refuses it (a
    #: framework may instead fail the run, as the Agents SDK does).
    UNOFFERED_CALLS = "unoffered calls"
    #: A user message ``/name args`` loads the skill with its arguments when the adapter is
    #: built with :attr:`AdapterDriver.user_invocation` (:meth:`AdapterDriver.user_turn`).
    USER_INVOCATION = "user invocation"
    #: Forked skills (``context: fork``) run in a subagent through the framework's own
    #: subagent mechanism: the driver registers a scripted subagent named
    #: :data:`SUBAGENT_NAME` that takes :attr:`AdapterDriver.subagent_turns`, then answers
    #: :data:`SUBAGENT_ANSWER`.
    SUBAGENTS = "subagents"


#: The name of the conformance scenario's subagent (:attr:`Capability.SUBAGENTS`).
SUBAGENT_NAME = "Explore"
#: The final answer of the conformance scenario's subagent.
SUBAGENT_ANSWER = "The subagent found X in a.py."


#: Every capability: what a driver of a full agent framework adapter declares.
ALL_CAPABILITIES: frozenset[Capability] = frozenset(Capability)


@dataclasses.dataclass(frozen=True)
class UserTurn:
    """What one user message did (:meth:`AdapterDriver.user_turn`): ``delivered``, the text
    of the invocation's load reply the model received (None: none); ``answer``, the reply the
    user got without a model call (None: the model was called)."""

    delivered: str | None = None
    answer: str | None = None


class AdapterDriver(abc.ABC):
    """Runs model turns through one adapter and reports what the model would observe."""

    #: What this driver supports; checks needing anything else are skipped, not run.
    capabilities: frozenset[Capability] = ALL_CAPABILITIES
    names: ToolNames = ToolNames()
    #: Extra :class:`~skillcore.SkillConfig` options a check asks for (e.g.
    #: ``binary_resources=True``), set before :meth:`start`; pass them to the adapter.
    options: Mapping[str, Any] = {}
    #: The ``prompt_mode`` :meth:`start` builds the adapter with (None: the default); a
    #: check that pins one sets it before starting.
    prompt_mode: str | None = None
    #: Plain tools to register as skill-gated (the adapter's ``tools=``), set by the gating
    #: check before :meth:`start`; each may do anything.
    gated: tuple[str, ...] = ()
    #: Build the adapter with user invocation on (``/name args``), set before :meth:`start`.
    user_invocation: bool = False

    def user_turn(self, text: str) -> UserTurn:
        """One user message ``text`` (the model answers without tool calls), and what it did
        (needed with :attr:`Capability.USER_INVOCATION`)."""
        raise TypeError(f"{type(self).__name__} declares USER_INVOCATION but lacks user_turn()")

    #: The turns the scripted subagent takes when a forked skill runs (each a list of calls
    #: in parallel), set by a check before :meth:`start`; then it answers
    #: :data:`SUBAGENT_ANSWER` (needed with :attr:`Capability.SUBAGENTS`).
    subagent_turns: tuple[tuple[Call, ...], ...] = ()

    def subagent_replies(self) -> list[Reply]:
        """What came back to the subagent's model for its calls, in order, as it saw them
        on its last model call (needed with :attr:`Capability.SUBAGENTS`)."""
        raise TypeError(f"{type(self).__name__} declares SUBAGENTS but lacks subagent_replies()")

    def offered(self) -> list[str]:
        """Names of the tools offered to the model on its most recent call (needed with
        :attr:`Capability.OFFERED_TOOLS`)."""
        raise TypeError(f"{type(self).__name__} declares OFFERED_TOOLS but lacks offered()")

    @abc.abstractmethod
    def start(self, library: SkillLibrary, limits: Limits, policy: ToolPolicy) -> None:
        """Build the agent (fresh conversation) around ``library`` (with :attr:`options`)."""

    @abc.abstractmethod
    def turn(self, calls: Sequence[Call]) -> list[Reply]:
        """One model turn issuing ``calls`` (in parallel when more than one); replies in the
        order of ``calls``."""

    @abc.abstractmethod
    def instructions(self) -> str:
        """The system instructions the model received on its most recent call."""

    @abc.abstractmethod
    def loaded(self) -> list[str]:
        """Loaded skill names according to the adapter's persisted state."""

    @abc.abstractmethod
    def use_conversation(self, key: str) -> None:
        """Continue with conversation ``key`` of the same agent (a fresh one the first time;
        :meth:`start` begins conversation ``"main"``). Turns of every conversation are
        numbered the same way, so nothing but the conversation keeps them apart."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release resources."""

    def drop_history(self) -> None:
        """From the next turn on, the model no longer receives this conversation's earlier
        messages (as after compaction, a trimmed history or ADK's ``include_contents=
        'none'``); the skill state is kept. Used by
        :func:`check_redelivery_after_history_loss` (needed with
        :attr:`Capability.DROP_HISTORY`)."""
        raise TypeError(f"{type(self).__name__} declares DROP_HISTORY but lacks drop_history()")
