"""The shared conformance suite every adapter runs (like ``langchain-tests``).

An adapter's test module subclasses :class:`AdapterDriver` so that each ``turn`` runs one
model turn through the *real* framework runtime (a scripted model emitting the given tool
calls), then calls :func:`run_conformance`, or parametrizes over :data:`CHECKS`.

The scenario uses a copy of a small skill library with ``max_loaded=2`` and the RESTRICT
policy, and two ordinary tools the agent must expose: ``Read`` and ``Write`` (any behaviour),
plus the shell tool :data:`SHELL_TOOL` (argument ``command``; it replies
:func:`shell_reply` of the command).
"""

from __future__ import annotations

import abc
import base64
import enum
import itertools
import logging
import shutil
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

import attrs

from skillcore.events import EVENTS
from skillcore.library import SkillLibrary
from skillcore.limits import Limits
from skillcore.names import ToolNames
from skillcore.policy.rules import PolicyMode, ToolPolicy
from skillcore.runtime.config import SkillConfig

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


#: Every capability: what a driver of a full agent framework adapter declares.
ALL_CAPABILITIES: frozenset[Capability] = frozenset(Capability)


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


SCENARIO_SKILLS = {
    "alpha-tools": (
        "Alpha restricts tools. Use for alpha tasks.",
        "allowed-tools: Read\n",
        "Alpha instructions: only read.",
    ),
    "beta-open": ("Beta does beta tasks; it restricts nothing.", "", "Beta instructions."),
    "gamma-files": (
        "Gamma has files. Use for gamma tasks.",
        "allowed-tools: Read Bash(ls:*)\n",
        "Gamma instructions: see references/notes.md.",
    ),
}


def write_skill(
    root: Path, name: str, description: str = "", body: str = "", extra: str = ""
) -> Path:
    """Write ``root/name/SKILL.md`` (``extra`` is raw frontmatter lines) and return the
    skill directory. A helper for adapter test suites."""
    d = root / name
    d.mkdir(parents=True, exist_ok=True)
    desc = description or f"Use {name} for {name} tasks."
    (d / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: {desc}\n{extra}---\n\n{body or f'{name} body.'}\n"
    )
    return d


#: The relevance scenario: a budget that shows a few of :func:`make_relevance_library`'s
#: skills, and two user messages, each about one skill that sorts last in precedence order.
RELEVANCE_BUDGET = 1_500
INVOICE_QUERY = "Is the total on this scanned invoice receipt right?"
ROLLOUT_QUERY = "Roll out the new kubernetes deployment"


def make_relevance_library(root: Path) -> Path:
    """Write 300 skills under ``root`` and return it: ``zz-invoice-check`` and
    ``zz-k8s-rollout`` (the skills of :data:`INVOICE_QUERY` and :data:`ROLLOUT_QUERY`) sort
    last, past :data:`RELEVANCE_BUDGET` in precedence order."""
    for i in range(298):
        write_skill(root, f"helper-{i:03d}", f"Generic helper number {i} for chores.")
    write_skill(root, "zz-invoice-check", "Check totals of scanned invoice receipts.")
    write_skill(root, "zz-k8s-rollout", "Roll out kubernetes deployments safely.")
    return root


#: A small PNG of the scenario (``gamma-files/assets/diagram.png``).
SCENARIO_PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(64))
#: The prompt-prefix scenario: ten model calls of one conversation (nine tool calls that load,
#: use and unload skills of :func:`make_prefix_library`, then an answer, ``None``).
PREFIX_SCRIPT: tuple[Call | None, ...] = (
    Call("load_skill", {"skill_name": "skill-03"}),
    Call("Read", {}),
    Call("load_skill", {"skill_name": "skill-07"}),
    Call("unload_skill", {"skill_name": "skill-03"}),
    Call("search_skills", {"query": "task 11", "path": None}),
    Call("load_skill", {"skill_name": "skill-11"}),
    Call("unload_skill", {"skill_name": "skill-07"}),
    Call("Read", {}),
    Call("unload_skill", {"skill_name": "skill-11"}),
    None,
)


def make_gated_library(root: Path) -> Path:
    """Write the skill-gated tool scenario under ``root`` and return it: ``release`` unlocks
    ``deploy`` through ``metadata.include_tools``, ``ops`` through
    ``metadata.adk_additional_tools`` (and allows ``Read``), ``writer`` unlocks nothing."""
    write_skill(
        root, "release", "Release work.", "Release steps.", "metadata:\n  include_tools: deploy\n"
    )
    write_skill(
        root,
        "ops",
        "Ops work.",
        "Ops steps.",
        "allowed-tools: Read\nmetadata:\n  adk_additional_tools: [deploy]\n",
    )
    write_skill(root, "writer", "Writing.", "Write things.", "allowed-tools: Read Write Edit\n")
    return root


def make_prefix_library(root: Path) -> Path:
    """Write the 20 skills of :data:`PREFIX_SCRIPT` under ``root`` and return it."""
    for i in range(20):
        write_skill(
            root,
            f"skill-{i:02d}",
            f"Skill number {i}: use it for task {i} of the project, with its checklist.",
            f"Step one of task {i}. Step two of task {i}.",
            "allowed-tools: Read\n",
        )
    return root


@attrs.frozen
class PrefixStats:
    """How much of a conversation's model requests a provider prompt cache could reuse."""

    #: Model calls measured.
    calls: int
    #: Characters of the system text every call shares (its common prefix).
    system_common: int
    #: Length of the first call's system text.
    system_length: int
    #: Characters each request shares with the one before it, summed (what a prefix cache
    #: reuses), and the most it could share (the earlier requests' lengths, summed).
    reused: int
    reusable: int


def _common(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def prefix_stats(systems: Sequence[str], requests: Sequence[str]) -> PrefixStats:
    """Measure ``systems`` (the system text of each model call, in order) and ``requests``
    (each call's whole request serialized as text, system first)."""
    common = min((_common(systems[0], t) for t in systems), default=0)
    pairs = list(itertools.pairwise(requests))
    return PrefixStats(
        len(systems),
        common,
        len(systems[0]) if systems else 0,
        sum(_common(a, b) for a, b in pairs),
        sum(len(a) for a, _ in pairs),
    )


def make_scenario_library(root: Path) -> Path:
    """Write the conformance skill library under ``root`` and return its path."""
    skills = root / "conformance-skills"
    if skills.exists():
        shutil.rmtree(skills)
    for name, (desc, extra, body) in SCENARIO_SKILLS.items():
        d = skills / name
        d.mkdir(parents=True)
        (d / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: {desc}\n{extra}---\n\n{body}\n"
        )
    (skills / "gamma-files" / "references").mkdir()
    (skills / "gamma-files" / "references" / "notes.md").write_text("Gamma notes: 42.\n")
    (skills / "gamma-files" / "assets").mkdir()
    (skills / "gamma-files" / "assets" / "logo.bin").write_bytes(b"\x89PNG\x00\x01\x02")
    (skills / "gamma-files" / "assets" / "diagram.png").write_bytes(SCENARIO_PNG)
    return skills


Check = Callable[[AdapterDriver, Path], None]
_CheckT = TypeVar("_CheckT", bound=Check)


def requires(*needed: Capability) -> Callable[[_CheckT], _CheckT]:
    """Declare the capabilities a check needs (read back by :func:`missing`)."""

    def mark(check: _CheckT) -> _CheckT:
        check.requires = frozenset(needed)  # type: ignore[attr-defined]
        return check

    return mark


def required(check: Check) -> frozenset[Capability]:
    """The capabilities ``check`` needs (none when it declares none)."""
    found: object = getattr(check, "requires", None)
    return found if isinstance(found, frozenset) else frozenset()


def missing(check: Check, driver: AdapterDriver) -> frozenset[Capability]:
    """The capabilities ``check`` needs that ``driver`` lacks (empty: it applies)."""
    return required(check) - driver.capabilities


def applicable(check: Check, driver: AdapterDriver) -> bool:
    """Whether ``driver`` has every capability ``check`` needs."""
    return not missing(check, driver)


def skip_reason(check: Check, driver: AdapterDriver) -> str | None:
    """Why ``check`` does not apply to ``driver`` (None when it does)."""
    gone = missing(check, driver)
    if not gone:
        return None
    names = ", ".join(sorted(c.name for c in gone))
    return f"{type(driver).__name__} lacks capability {names} needed by {check.__name__}"


def run_check(check: Check, driver: AdapterDriver, root: Path) -> None:
    """Run one check with ``driver`` (then close it), for a test parametrized over
    :data:`CHECKS`; a check the driver lacks a capability for is skipped through
    ``pytest.skip``, naming what is missing."""
    try:
        reason = skip_reason(check, driver)
        if reason is not None:
            import pytest  # only here: this module is used without pytest too

            pytest.skip(reason)
        check(driver, root)
    finally:
        driver.close()


def make_tenant_libraries(root: Path) -> dict[str, Path]:
    """Two tenants' skill folders under ``root``, for profile tests: ``acme`` holds
    ``acme-report`` (allowed-tools: Read) and ``handbook``; ``beta`` holds ``beta-deploy`` and
    its own ``handbook`` (same name, other instructions: a loaded skill must not carry over)."""
    acme, beta = root / "acme", root / "beta"
    write_skill(
        acme, "acme-report", "Acme quarterly reports.", "ACME-REPORT-BODY", "allowed-tools: Read\n"
    )
    write_skill(acme, "handbook", "The company handbook.", "ACME-HANDBOOK-BODY")
    write_skill(beta, "beta-deploy", "Beta deployments.", "BETA-DEPLOY-BODY")
    write_skill(beta, "handbook", "The company handbook.", "BETA-HANDBOOK-BODY")
    return {"acme": acme, "beta": beta}


@attrs.frozen
class Event:
    """One structured event as logged: its name, logger, level and fields."""

    name: str
    logger: str
    level: int
    fields: dict[str, Any]


class EventRecorder(logging.Handler):
    """Records skillcore's structured events (every level) while used as a context manager::

    with EventRecorder() as rec:
        toolkit.call(session, "load_skill", {"skill_name": "x"})
    assert rec.names() == ["skill.loaded"]
    """

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.events: list[Event] = []
        self._logger = logging.getLogger("skillcore")
        self._level = self._logger.level

    def emit(self, record: logging.LogRecord) -> None:
        """Keep records that carry a ``skillcore_event``."""
        name = getattr(record, "skillcore_event", None)
        if isinstance(name, str) and name in EVENTS:
            fields = {f: getattr(record, f, None) for f in EVENTS[name].fields}
            self.events.append(Event(name, record.name, record.levelno, fields))

    def names(self) -> list[str]:
        """Names of the recorded events, in order."""
        return [e.name for e in self.events]

    def take(self) -> list[Event]:
        """The recorded events, then forget them."""
        out, self.events = self.events, []
        return out

    def __enter__(self) -> EventRecorder:
        self._level = self._logger.level
        self._logger.setLevel(logging.DEBUG)
        self._logger.addHandler(self)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._logger.removeHandler(self)
        self._logger.setLevel(self._level)


#: The profile a profiled adapter's driver selects on every run (see :func:`scenario_profiles`).
SCENARIO_PROFILE = "scenario"


def scenario_profiles(
    driver: AdapterDriver, library: SkillLibrary, limits: Limits, policy: ToolPolicy
) -> dict[str, tuple[SkillLibrary, SkillConfig]]:
    """The profiles a driver of a profiled adapter serves for :meth:`AdapterDriver.start`:
    the scenario (``library`` with ``limits``, ``policy`` and the driver's options) as
    :data:`SCENARIO_PROFILE`, which every run selects, beside an ``"other"`` profile over no
    skills, so every check goes through the selection."""
    config = SkillConfig(
        limits=limits,
        allowed_tools_policy=policy.mode,
        always_allowed_tools=policy.always_allowed,
        tool_aliases=policy.aliases,
        unrestricted_skills=policy.unrestricted_skills,
        prompt_mode=driver.prompt_mode,
        **driver.options,
    )
    return {SCENARIO_PROFILE: (library, config), "other": (SkillLibrary([]), config)}


def _start(driver: AdapterDriver, root: Path, **options: Any) -> SkillLibrary:
    driver.options = options
    lib = SkillLibrary([make_scenario_library(root)])
    driver.start(lib, Limits(max_loaded=2), ToolPolicy(PolicyMode.RESTRICT))
    return lib


def _one(driver: AdapterDriver, call: Call) -> Reply:
    replies = driver.turn([call])
    assert len(replies) == 1, f"expected one reply, got {replies!r}"
    return replies[0]


def check_catalog_in_instructions(driver: AdapterDriver, root: Path) -> None:
    """The catalog lists every skill before anything is loaded."""
    _start(driver, root)
    _one(driver, Call(driver.names.search, {"query": "alpha", "path": None}))
    text = driver.instructions()
    for name in SCENARIO_SKILLS:
        assert name in text, f"skill {name!r} missing from instructions:\n{text}"
    assert "[Loaded]" not in text


@requires(Capability.HOST_TOOLS, Capability.CONVERSATION_PROMPT)
def check_load_and_marks(driver: AdapterDriver, root: Path) -> None:
    """A load returns the wrapped body; with ``prompt_mode="dynamic"`` the next prompt marks
    the skill [Loaded]."""
    driver.prompt_mode = "dynamic"
    _start(driver, root)
    r = _one(driver, Call(driver.names.load, {"skill_name": "alpha-tools"}))
    assert not r.is_error, r
    assert '<skill_content name="alpha-tools">' in r.text and "only read" in r.text, r.text
    assert driver.loaded() == ["alpha-tools"]
    _one(driver, Call("Read", {}))
    assert "**alpha-tools** [Loaded]" in driver.instructions() or (
        "<name>alpha-tools</name>" in driver.instructions()
        and "<loaded>true</loaded>" in driver.instructions()
    ), driver.instructions()


def check_refusals(driver: AdapterDriver, root: Path) -> None:
    """Unknown, already loaded and not-loaded calls are errors that change nothing."""
    _start(driver, root)
    r = _one(driver, Call(driver.names.load, {"skill_name": "no-such-skill"}))
    assert r.is_error and "No skill named 'no-such-skill'" in r.text, r
    _one(driver, Call(driver.names.load, {"skill_name": "beta-open"}))
    r = _one(driver, Call(driver.names.load, {"skill_name": "beta-open"}))
    assert r.is_error and "already loaded" in r.text, r
    r = _one(driver, Call(driver.names.unload, {"skill_name": "alpha-tools"}))
    assert r.is_error and "not loaded" in r.text, r
    assert driver.loaded() == ["beta-open"]


def check_limit_and_unload(driver: AdapterDriver, root: Path) -> None:
    """The third load is refused with a way out; unload frees the slot."""
    _start(driver, root)
    _one(driver, Call(driver.names.load, {"skill_name": "alpha-tools"}))
    _one(driver, Call(driver.names.load, {"skill_name": "beta-open"}))
    r = _one(driver, Call(driver.names.load, {"skill_name": "gamma-files"}))
    assert r.is_error and driver.names.unload in r.text, r
    r = _one(driver, Call(driver.names.unload, {"skill_name": "alpha-tools"}))
    assert not r.is_error, r
    r = _one(driver, Call(driver.names.load, {"skill_name": "gamma-files"}))
    assert not r.is_error, r
    assert sorted(driver.loaded()) == ["beta-open", "gamma-files"]


def check_parallel_loads_one_slot(driver: AdapterDriver, root: Path) -> None:
    """Two parallel loads with one slot left: exactly one succeeds and replies are truthful."""
    _start(driver, root)
    _one(driver, Call(driver.names.load, {"skill_name": "beta-open"}))
    replies = driver.turn(
        [
            Call(driver.names.load, {"skill_name": "alpha-tools"}),
            Call(driver.names.load, {"skill_name": "gamma-files"}),
        ]
    )
    ok = [r for r in replies if not r.is_error]
    assert len(ok) == 1, replies
    winner = "alpha-tools" if "alpha-tools" in ok[0].text else "gamma-files"
    assert sorted(driver.loaded()) == sorted(["beta-open", winner]), driver.loaded()


def check_parallel_load_and_unload(driver: AdapterDriver, root: Path) -> None:
    """A load and an unload in one turn both land."""
    _start(driver, root)
    _one(driver, Call(driver.names.load, {"skill_name": "beta-open"}))
    replies = driver.turn(
        [
            Call(driver.names.load, {"skill_name": "alpha-tools"}),
            Call(driver.names.unload, {"skill_name": "beta-open"}),
        ]
    )
    assert not any(r.is_error for r in replies), replies
    assert driver.loaded() == ["alpha-tools"]


@requires(Capability.HOST_TOOLS)
def check_restrict_policy(driver: AdapterDriver, root: Path) -> None:
    """RESTRICT blocks unlisted tools (exact names), allows listed ones and skill tools."""
    _start(driver, root)
    r = _one(driver, Call("Write", {}))
    assert not r.is_error, f"nothing loaded: Write must be allowed: {r}"
    _one(driver, Call(driver.names.load, {"skill_name": "alpha-tools"}))
    r = _one(driver, Call("Write", {}))
    assert r.is_error and "not allowed" in r.text and driver.names.unload in r.text, r
    r = _one(driver, Call("Read", {}))
    assert not r.is_error, r
    r = _one(driver, Call(driver.names.search, {"query": "beta", "path": None}))
    assert not r.is_error, r
    _one(driver, Call(driver.names.load, {"skill_name": "beta-open"}))
    r = _one(driver, Call("Write", {}))
    assert not r.is_error, f"a loaded skill without allowed-tools lifts the restriction: {r}"


def check_resources(driver: AdapterDriver, root: Path) -> None:
    """Resources are read confined; escapes, missing and binary files are clear errors."""
    _start(driver, root)
    args = {"skill_name": "gamma-files", "path": "references/notes.md"}
    r = _one(driver, Call(driver.names.resource, args))
    assert r.is_error and "not loaded" in r.text and driver.names.load in r.text, r
    _one(driver, Call(driver.names.load, {"skill_name": "gamma-files"}))
    r = _one(
        driver,
        Call(driver.names.resource, {"skill_name": "gamma-files", "path": "references/notes.md"}),
    )
    assert not r.is_error and "Gamma notes: 42." in r.text, r
    r = _one(
        driver,
        Call(
            driver.names.resource, {"skill_name": "gamma-files", "path": "../alpha-tools/SKILL.md"}
        ),
    )
    assert r.is_error and "outside the skill directory" in r.text, r
    r = _one(driver, Call(driver.names.resource, {"skill_name": "gamma-files", "path": "nope.md"}))
    assert r.is_error and "no file" in r.text, r
    r = _one(
        driver,
        Call(driver.names.resource, {"skill_name": "gamma-files", "path": "assets/logo.bin"}),
    )
    assert r.is_error and "binary" in r.text, r
    # Images are delivered only when binary_resources is on (off by default).
    r = _one(
        driver,
        Call(driver.names.resource, {"skill_name": "gamma-files", "path": "assets/diagram.png"}),
    )
    assert r.is_error and "binary" in r.text and not r.parts, r


@requires(Capability.BINARY_PARTS)
def check_binary_resources(driver: AdapterDriver, root: Path) -> None:
    """With ``binary_resources=True`` an image reaches the model as the framework's native
    part, with a text saying what it is; an unknown binary file stays refused."""
    _start(driver, root, binary_resources=True)
    _one(driver, Call(driver.names.load, {"skill_name": "gamma-files"}))
    r = _one(
        driver,
        Call(driver.names.resource, {"skill_name": "gamma-files", "path": "assets/diagram.png"}),
    )
    assert not r.is_error, r
    assert "assets/diagram.png" in r.text and "image/png" in r.text, r
    assert f"{len(SCENARIO_PNG)} bytes" in r.text, r
    assert r.parts == (Attachment("image/png", SCENARIO_PNG),), r.parts
    r = _one(
        driver,
        Call(driver.names.resource, {"skill_name": "gamma-files", "path": "assets/logo.bin"}),
    )
    assert r.is_error and "binary" in r.text and not r.parts, r
    r = _one(driver, Call(driver.names.resource, {"skill_name": "gamma-files", "path": "nope.md"}))
    assert r.is_error and not r.parts, r


def check_search(driver: AdapterDriver, root: Path) -> None:
    """Search ranks by name/description and works with null arguments."""
    _start(driver, root)
    r = _one(driver, Call(driver.names.search, {"query": "gamma", "path": None}))
    assert not r.is_error and "gamma-files" in r.text, r
    assert "beta-open" not in r.text, r


@requires(Capability.HOST_TOOLS)
def check_call_order_in_one_turn(driver: AdapterDriver, root: Path) -> None:
    """Calls of one turn are decided in the model's call order (DESIGN §3.8), even when the
    framework runs them concurrently."""
    _start(driver, root)
    load, unload = driver.names.load, driver.names.unload
    r_load, r_write = driver.turn([Call(load, {"skill_name": "alpha-tools"}), Call("Write", {})])
    assert not r_load.is_error, r_load
    assert r_write.is_error and "not allowed" in r_write.text, "Write after a restricting load"
    r_write, r_load = driver.turn([Call("Write", {}), Call(load, {"skill_name": "beta-open"})])
    assert r_write.is_error and not r_load.is_error, "Write before an unrestricted load"
    r_unload, r_write = driver.turn([Call(unload, {"skill_name": "beta-open"}), Call("Write", {})])
    assert not r_unload.is_error and r_write.is_error, "alpha-tools still restricts"
    r_unload, r_write = driver.turn(
        [Call(unload, {"skill_name": "alpha-tools"}), Call("Write", {})]
    )
    assert not r_unload.is_error and not r_write.is_error, "nothing restricts after the unload"
    assert driver.loaded() == []


@requires(Capability.CONVERSATIONS)
def check_conversations_are_separate(driver: AdapterDriver, root: Path) -> None:
    """Two conversations of one agent never see each other's loaded skills."""
    _start(driver, root)
    load, unload = driver.names.load, driver.names.unload
    assert not _one(driver, Call(load, {"skill_name": "alpha-tools"})).is_error
    driver.use_conversation("other")
    assert driver.loaded() == [], driver.loaded()
    r = _one(driver, Call(load, {"skill_name": "alpha-tools"}))
    assert not r.is_error and "only read" in r.text, r
    assert driver.loaded() == ["alpha-tools"]
    driver.use_conversation("main")
    assert not _one(driver, Call(unload, {"skill_name": "alpha-tools"})).is_error
    assert driver.loaded() == []
    driver.use_conversation("other")
    assert driver.loaded() == ["alpha-tools"]
    r = _one(driver, Call(unload, {"skill_name": "beta-open"}))
    assert r.is_error and "not loaded" in r.text, r


@requires(Capability.HOST_TOOLS, Capability.CONVERSATIONS)
def check_policy_per_conversation(driver: AdapterDriver, root: Path) -> None:
    """A skill loaded in one conversation restricts that conversation's tools only."""
    _start(driver, root)
    load = driver.names.load
    assert not _one(driver, Call(load, {"skill_name": "alpha-tools"})).is_error
    driver.use_conversation("other")
    r = _one(driver, Call("Write", {}))
    assert not r.is_error, f"nothing is loaded in this conversation: {r}"
    assert not _one(driver, Call(load, {"skill_name": "beta-open"})).is_error
    driver.use_conversation("main")
    assert _one(driver, Call("Write", {})).is_error, "alpha-tools still restricts main"
    driver.use_conversation("other")
    assert not _one(driver, Call("Write", {})).is_error


@requires(Capability.HOST_TOOLS)
def check_events_once(driver: AdapterDriver, root: Path) -> None:
    """Every outcome is one structured event, emitted by the core (adapters never re-emit):
    a turn ``[load a restricting skill, Write]`` logs one ``skill.loaded`` and one
    ``tool.blocked``; a refused load logs one ``skill.load_refused``."""
    _start(driver, root)
    load = driver.names.load
    with EventRecorder() as rec:
        driver.turn([Call(load, {"skill_name": "alpha-tools"}), Call("Write", {})])
        _one(driver, Call(load, {"skill_name": "alpha-tools"}))
    calls = [e for e in rec.events if e.name.startswith(("skill.", "tool.", "resource."))]
    got = [(e.name, e.fields.get("skill") or e.fields.get("tool")) for e in calls]
    assert got == [
        ("skill.loaded", "alpha-tools"),
        ("tool.blocked", "Write"),
        ("skill.load_refused", "alpha-tools"),
    ], got
    assert calls[1].fields["loaded"] == ("alpha-tools",), calls[1]
    assert calls[2].fields["code"] == "ALREADY_LOADED", calls[2]


@requires(Capability.CONVERSATIONS)
def check_default_skills(driver: AdapterDriver, root: Path) -> None:
    """``default_skills`` are loaded when a conversation starts, their instructions are in
    the first prompt, the model may unload them, and they do not come back in that
    conversation; a new conversation starts with them again."""
    _start(driver, root, default_skills=("beta-open",))
    _one(driver, Call(driver.names.search, {"query": "gamma", "path": None}))
    text = driver.instructions()
    assert "Beta instructions." in text, text
    r = _one(driver, Call(driver.names.unload, {"skill_name": "beta-open"}))
    assert not r.is_error, r
    assert driver.loaded() == []
    _one(driver, Call(driver.names.search, {"query": "gamma", "path": None}))
    assert driver.loaded() == []
    driver.use_conversation("other")
    assert not _one(driver, Call(driver.names.load, {"skill_name": "gamma-files"})).is_error
    assert driver.loaded() == ["beta-open", "gamma-files"]


@requires(Capability.CONVERSATION_PROMPT)
def check_unloaded_default_leaves_prompt(driver: AdapterDriver, root: Path) -> None:
    """Once the model unloads a ``default_skills`` skill, its instructions leave the
    prompt of that conversation's next model call."""
    _start(driver, root, default_skills=("beta-open",))
    r = _one(driver, Call(driver.names.unload, {"skill_name": "beta-open"}))
    assert not r.is_error, r
    _one(driver, Call(driver.names.search, {"query": "gamma", "path": None}))
    assert "Beta instructions." not in driver.instructions(), driver.instructions()


def check_pinned_skills(driver: AdapterDriver, root: Path) -> None:
    """``pinned_skills`` are loaded from the first turn (their instructions in the prompt),
    an unload is refused (``PINNED``), and they hold a slot of ``max_loaded``."""
    _start(driver, root, pinned_skills=("alpha-tools",))
    _one(driver, Call(driver.names.search, {"query": "beta", "path": None}))
    text = driver.instructions()
    assert "Alpha instructions: only read." in text, text
    r = _one(driver, Call(driver.names.unload, {"skill_name": "alpha-tools"}))
    assert r.is_error and "pinned" in r.text, r
    assert not _one(driver, Call(driver.names.load, {"skill_name": "beta-open"})).is_error
    assert driver.loaded() == ["alpha-tools", "beta-open"]
    r = _one(driver, Call(driver.names.load, {"skill_name": "gamma-files"}))
    assert r.is_error and driver.names.unload in r.text, r


@requires(Capability.HOST_TOOLS)
def check_pinned_skills_restrict(driver: AdapterDriver, root: Path) -> None:
    """A pinned skill's ``allowed-tools`` apply from the first call of a conversation."""
    _start(driver, root, pinned_skills=("alpha-tools",))
    r = _one(driver, Call("Write", {}))
    assert r.is_error and "not allowed" in r.text, f"the pinned skill restricts tools: {r}"
    assert not _one(driver, Call("Read", {})).is_error


@requires(Capability.HOST_TOOLS, Capability.DROP_HISTORY)
def check_redelivery_after_history_loss(driver: AdapterDriver, root: Path) -> None:
    """A load of a loaded skill whose load reply the model still receives is refused as
    already loaded; once the history is gone, the same load sends the instructions again as
    a success (``REDELIVERED``) and changes nothing else."""
    _start(driver, root)
    load = Call(driver.names.load, {"skill_name": "alpha-tools"})
    first = _one(driver, load)
    assert not first.is_error and "only read" in first.text, first
    r = _one(driver, load)
    assert r.is_error and "already loaded" in r.text, f"the reply is still visible: {r}"
    driver.drop_history()
    r = _one(driver, load)
    assert not r.is_error, f"instructions the model cannot see must be sent again: {r}"
    assert r.text.startswith('<skill_content name="alpha-tools">') and "only read" in r.text, r
    assert driver.loaded() == ["alpha-tools"]
    r = _one(driver, Call("Write", {}))
    assert r.is_error and "not allowed" in r.text, f"alpha-tools still restricts: {r}"


@requires(Capability.HOST_TOOLS)
def check_tool_aliases(driver: AdapterDriver, root: Path) -> None:
    """With the ``"deepagents"`` alias preset, ``Bash(ls:*)`` allows the shell tool
    :data:`SHELL_TOOL` for ``ls`` commands only (its ``command`` argument is checked, chained
    commands included); ``Read`` still matches itself, and unlisted tools stay blocked."""
    lib = SkillLibrary([make_scenario_library(root)])
    policy = ToolPolicy(PolicyMode.RESTRICT, aliases="deepagents")
    driver.start(lib, Limits(max_loaded=2), policy)

    def shell(command: str) -> Reply:
        return _one(driver, Call(SHELL_TOOL, {"command": command}))

    r = shell("cat notes.md")
    assert not r.is_error and shell_reply("cat notes.md") in r.text, f"nothing loaded: {r}"
    assert not _one(driver, Call(driver.names.load, {"skill_name": "gamma-files"})).is_error
    r = shell("ls references")
    assert not r.is_error and shell_reply("ls references") in r.text, r
    for command in ("cat notes.md", "ls; cat notes.md"):
        r = shell(command)
        assert r.is_error and "ls:*" in r.text, f"{command!r} must be blocked: {r}"
        assert shell_reply(command) not in r.text, r
    assert not _one(driver, Call("Read", {})).is_error
    r = _one(driver, Call("Write", {}))
    assert r.is_error and "not allowed" in r.text, r


@requires(Capability.HOST_TOOLS)
def check_stable_prefix(driver: AdapterDriver, root: Path) -> None:
    """With the default prompt mode the system instructions are byte-identical on every model
    call of a conversation, through loads, unloads, refusals and blocked calls (so provider
    prompt caches keep the whole history); load state reaches the model in the replies."""
    driver.prompt_mode = None
    _start(driver, root)
    load, unload = driver.names.load, driver.names.unload
    steps = [
        Call(driver.names.search, {"query": "alpha", "path": None}),
        Call(load, {"skill_name": "alpha-tools"}),
        Call("Write", {}),
        Call(load, {"skill_name": "beta-open"}),
        Call(unload, {"skill_name": "alpha-tools"}),
        Call(load, {"skill_name": "gamma-files"}),
        Call(load, {"skill_name": "alpha-tools"}),
        Call(unload, {"skill_name": "beta-open"}),
        Call(unload, {"skill_name": "gamma-files"}),
        Call("Read", {}),
    ]
    seen = []
    for call in steps:
        reply = _one(driver, call)
        if call.tool == load and call.args["skill_name"] != "alpha-tools":
            assert not reply.is_error and "<skill_content" in reply.text, reply
        seen.append(driver.instructions())
    changed = [i for i, text in enumerate(seen) if text != seen[0]]
    assert not changed, f"the instructions changed at call(s) {changed}:\n{seen[changed[0]]}"
    assert "[Loaded]" not in seen[0] and "<loaded>" not in seen[0], seen[0]
    for name in SCENARIO_SKILLS:
        assert name in seen[0], f"skill {name!r} missing from instructions:\n{seen[0]}"
    assert driver.loaded() == [], driver.loaded()


def _start_gated(driver: AdapterDriver, root: Path) -> None:
    """The scenario plus ``delta-deploy``, which unlocks :data:`GATED_TOOL`."""
    driver.gated = (GATED_TOOL,)
    skills = make_scenario_library(root)
    write_skill(
        skills,
        "delta-deploy",
        "Delta deploys releases. Use for delta releases.",
        "Delta instructions: deploy with Deploy.",
        f"metadata:\n  include_tools: {GATED_TOOL}\n",
    )
    policy = ToolPolicy(PolicyMode.RESTRICT, gated_tools=frozenset(driver.gated))
    driver.start(SkillLibrary([skills]), Limits(max_loaded=2), policy)


@requires(Capability.HOST_TOOLS, Capability.GATED_TOOLS, Capability.OFFERED_TOOLS)
def check_gated_tools(driver: AdapterDriver, root: Path) -> None:
    """A skill-gated tool is offered, and runs, only while a loaded skill names it in
    ``metadata.include_tools``; a call offered before an unload earlier in the same turn is
    refused naming that skill (call order)."""
    _start_gated(driver, root)
    load, unload = driver.names.load, driver.names.unload
    _one(driver, Call(driver.names.search, {"query": "delta", "path": None}))
    assert GATED_TOOL not in driver.offered(), driver.offered()
    assert not _one(driver, Call(load, {"skill_name": "delta-deploy"})).is_error
    r = _one(driver, Call(GATED_TOOL, {}))
    assert not r.is_error, r
    assert GATED_TOOL in driver.offered(), driver.offered()
    r_unload, r_deploy = driver.turn(
        [Call(unload, {"skill_name": "delta-deploy"}), Call(GATED_TOOL)]
    )
    assert not r_unload.is_error and r_deploy.is_error, (r_unload, r_deploy)
    assert "delta-deploy" in r_deploy.text, r_deploy
    _one(driver, Call(driver.names.search, {"query": "delta", "path": None}))
    assert GATED_TOOL not in driver.offered(), driver.offered()


@requires(Capability.HOST_TOOLS, Capability.GATED_TOOLS, Capability.UNOFFERED_CALLS)
def check_locked_tool_call(driver: AdapterDriver, root: Path) -> None:
    """A call to a locked skill-gated tool (not offered) is refused naming the skill that
    unlocks it and the load tool, and does not run."""
    _start_gated(driver, root)
    r = _one(driver, Call(GATED_TOOL, {}))
    assert r.is_error and "delta-deploy" in r.text and driver.names.load in r.text, r


CHECKS: tuple[Check, ...] = (
    check_catalog_in_instructions,
    check_load_and_marks,
    check_refusals,
    check_limit_and_unload,
    check_parallel_loads_one_slot,
    check_parallel_load_and_unload,
    check_restrict_policy,
    check_resources,
    check_binary_resources,
    check_search,
    check_call_order_in_one_turn,
    check_conversations_are_separate,
    check_policy_per_conversation,
    check_events_once,
    check_default_skills,
    check_unloaded_default_leaves_prompt,
    check_pinned_skills,
    check_pinned_skills_restrict,
    check_redelivery_after_history_loss,
    check_tool_aliases,
    check_stable_prefix,
    check_gated_tools,
    check_locked_tool_call,
)


def run_conformance(make_driver: Callable[[], AdapterDriver], root: Path) -> list[Check]:
    """Run every check the driver has the capabilities for, with a fresh driver each (raises
    AssertionError on the first failure); returns the checks it skipped."""
    skipped: list[Check] = []
    for i, check in enumerate(CHECKS):
        driver = make_driver()
        try:
            if applicable(check, driver):
                check(driver, root / f"c{i}")
            else:
                skipped.append(check)
        finally:
            driver.close()
    return skipped
