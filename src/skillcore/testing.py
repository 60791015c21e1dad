"""The shared conformance suite every adapter runs (like ``langchain-tests``).

An adapter's test module subclasses :class:`AdapterDriver` so that each ``turn`` runs one
model turn through the *real* framework runtime (a scripted model emitting the given tool
calls), then calls :func:`run_conformance`, or parametrizes over :data:`CHECKS`.

The scenario uses a copy of a small skill library with ``max_loaded=2`` and the RESTRICT
policy, and two ordinary tools the agent must expose: ``Read`` and ``Write`` (any behaviour).
"""

from __future__ import annotations

import abc
import logging
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

import attrs

from skillcore.events import EVENTS
from skillcore.library import SkillLibrary
from skillcore.names import ToolNames
from skillcore.policy import PolicyMode, ToolPolicy
from skillcore.session import Limits

PLAIN_TOOLS = ("Read", "Write")
#: The skill-gated tool of the gating check (any behaviour; unlocked by ``delta-deploy``).
GATED_TOOL = "Deploy"


@attrs.frozen
class Call:
    """A tool call the scripted model makes."""

    tool: str
    args: dict[str, Any] = attrs.field(factory=dict)


@attrs.frozen
class Reply:
    """What came back to the model for one call."""

    tool: str
    text: str
    is_error: bool


class AdapterDriver(abc.ABC):
    """Runs model turns through one adapter and reports what the model would observe."""

    names: ToolNames = ToolNames()
    #: Plain tools to register as skill-gated (the adapter's ``tools=``), set by the gating
    #: check before :meth:`start`; each may do anything.
    gated: tuple[str, ...] = ()

    def offered(self) -> list[str]:
        """Names of the tools offered to the model on its most recent call."""
        raise NotImplementedError(f"{type(self).__name__} does not report offered tools")

    @abc.abstractmethod
    def start(self, library: SkillLibrary, limits: Limits, policy: ToolPolicy) -> None:
        """Build the agent (fresh conversation) around ``library``."""

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
    return skills


Check = Callable[[AdapterDriver, Path], None]


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
        if name in EVENTS:
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


def _start(driver: AdapterDriver, root: Path) -> SkillLibrary:
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


def check_load_and_marks(driver: AdapterDriver, root: Path) -> None:
    """A load returns the wrapped body; the next prompt marks the skill [Loaded]."""
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


def check_search(driver: AdapterDriver, root: Path) -> None:
    """Search ranks by name/description and works with null arguments."""
    _start(driver, root)
    r = _one(driver, Call(driver.names.search, {"query": "gamma", "path": None}))
    assert not r.is_error and "gamma-files" in r.text, r
    assert "beta-open" not in r.text, r


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


def check_conversations_are_separate(driver: AdapterDriver, root: Path) -> None:
    """Two conversations of one agent never see each other's state (DESIGN §3.9)."""
    _start(driver, root)
    load = driver.names.load
    assert not _one(driver, Call(load, {"skill_name": "alpha-tools"})).is_error
    driver.use_conversation("other")
    r = _one(driver, Call("Write", {}))
    assert not r.is_error, f"nothing is loaded in this conversation: {r}"
    r = _one(driver, Call(load, {"skill_name": "alpha-tools"}))
    assert not r.is_error and "only read" in r.text, r
    assert driver.loaded() == ["alpha-tools"]
    driver.use_conversation("main")
    assert not _one(driver, Call(driver.names.unload, {"skill_name": "alpha-tools"})).is_error
    assert driver.loaded() == []
    driver.use_conversation("other")
    assert driver.loaded() == ["alpha-tools"]
    assert _one(driver, Call("Write", {})).is_error


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


def check_gated_tools(driver: AdapterDriver, root: Path) -> None:
    """A skill-gated tool is offered, and runs, only while a loaded skill names it in
    ``metadata.include_tools``; a call while it is locked is refused naming that skill, in
    call order (an unload earlier in the same turn locks it)."""
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
    load, unload = driver.names.load, driver.names.unload
    r = _one(driver, Call(GATED_TOOL, {}))
    assert r.is_error and "delta-deploy" in r.text and load in r.text, r
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


CHECKS: tuple[Check, ...] = (
    check_catalog_in_instructions,
    check_load_and_marks,
    check_refusals,
    check_limit_and_unload,
    check_parallel_loads_one_slot,
    check_parallel_load_and_unload,
    check_restrict_policy,
    check_resources,
    check_search,
    check_call_order_in_one_turn,
    check_conversations_are_separate,
    check_events_once,
    check_gated_tools,
)


def run_conformance(make_driver: Callable[[], AdapterDriver], root: Path) -> None:
    """Run every check with a fresh driver each (raises AssertionError on the first failure)."""
    for i, check in enumerate(CHECKS):
        driver = make_driver()
        try:
            check(driver, root / f"c{i}")
        finally:
            driver.close()
