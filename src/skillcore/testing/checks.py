"""The conformance checks every adapter runs (:data:`CHECKS`) and :func:`run_conformance`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from skillcore.library import SkillLibrary
from skillcore.limits import Limits
from skillcore.policy import PolicyMode, ToolPolicy
from skillcore.testing.capabilities import Check, applicable, requires
from skillcore.testing.checks_options import check_disallowed_tools, check_paths_skill_untouched
from skillcore.testing.driver import (
    GATED_TOOL,
    SHELL_TOOL,
    AdapterDriver,
    Attachment,
    Call,
    Capability,
    Reply,
    shell_reply,
)
from skillcore.testing.fork_checks import (
    check_forked_skill_in_subagent,
    check_forked_skill_never_loads,
)
from skillcore.testing.invocation_checks import check_user_invocation
from skillcore.testing.recording import EventRecorder
from skillcore.testing.scenario import (
    SCENARIO_PNG,
    SCENARIO_SKILLS,
    make_scenario_library,
    write_skill,
)


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
    """RESTRICT blocks unlisted tools (exact names), allows listed ones and skill tools; a
    skill without allowed-tools adds nothing and lifts nothing."""
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
    assert r.is_error, f"a loaded skill without allowed-tools lifts nothing: {r}"
    _one(driver, Call(driver.names.unload, {"skill_name": "alpha-tools"}))
    r = _one(driver, Call("Write", {}))
    assert not r.is_error, f"no loaded skill declares allowed-tools: nothing blocks: {r}"


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


#: The script of the script check: prints its arguments and its stdin upper-cased.
SCENARIO_SCRIPT = "import sys\nprint('args:', *sys.argv[1:])\nprint(sys.stdin.read().upper())\n"


def check_run_skill_script(driver: AdapterDriver, root: Path) -> None:
    """``run_skill_script`` (offered with a configured runner) runs a listed script of a
    loaded skill and replies with its exit code and output; it is refused for a skill that
    is not loaded, and under RESTRICT for a skill whose allowed-tools do not allow it
    (``run_skill_script(<path>)`` allows that script; ``Bash(...)`` does not)."""
    from skillcore.runner import Isolation
    from skillcore.testing.script_runner import RecordingRunner

    skills = make_scenario_library(root)
    for name, allowed in (("delta-script", "Read run_skill_script(scripts/show.py)"),):
        d = write_skill(skills, name, "Delta runs a script.", "Run scripts/show.py.", "")
        (d / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: Delta runs a script.\n"
            f"allowed-tools: {allowed}\n---\n\nRun scripts/show.py.\n"
        )
        (d / "scripts").mkdir()
        (d / "scripts" / "show.py").write_text(SCENARIO_SCRIPT)
    (skills / "gamma-files" / "scripts").mkdir()
    (skills / "gamma-files" / "scripts" / "show.py").write_text(SCENARIO_SCRIPT)
    driver.options = {"script_runner": RecordingRunner(), "script_isolation": Isolation.PROCESS}
    driver.start(SkillLibrary([skills]), Limits(max_loaded=2), ToolPolicy(PolicyMode.RESTRICT))
    tool = driver.names.script

    def run(skill: str) -> Reply:
        args = {"skill_name": skill, "script": "scripts/show.py", "args": ["a b", "c"]}
        return _one(driver, Call(tool, {**args, "stdin": "some csv"}))

    r = run("delta-script")
    assert r.is_error and "not loaded" in r.text, r
    assert not _one(driver, Call(driver.names.load, {"skill_name": "delta-script"})).is_error
    r = run("delta-script")
    assert not r.is_error, r
    assert "args: a b c" in r.text and "SOME CSV" in r.text and 'exit_code="0"' in r.text, r
    assert 'isolation="PROCESS"' in r.text, r
    assert not _one(driver, Call(driver.names.load, {"skill_name": "gamma-files"})).is_error
    r = run("gamma-files")  # Read Bash(ls:*): no entry allows its scripts
    assert r.is_error and "not allowed" in r.text and "SOME CSV" not in r.text, r


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
    assert r_write.is_error and not r_load.is_error, "Write beside an unrestricted load"
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
    check_run_skill_script,
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
    check_user_invocation,
    check_forked_skill_never_loads,
    check_forked_skill_in_subagent,
    check_disallowed_tools,
    check_paths_skill_untouched,
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
