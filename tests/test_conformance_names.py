"""The same names for the same concepts in every adapter class (the four adapters and their
profiled variants): the first argument ``skills``, the profile selector ``select``, the
conversation's session ``session_for(...)``. A conformance check runs through each adapter
built with these names, through the real framework runtime; the names used before them are
gone (a clear ``TypeError`` / ``AttributeError``)."""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import Callable
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest

from skillcore import Limits, SkillConfig, SkillLibrary, SkillSession, ToolPolicy
from skillcore.testing import (
    SCENARIO_PROFILE,
    AdapterDriver,
    Call,
    check_limit_and_unload,
    check_restrict_policy,
    scenario_profiles,
)

pytest.importorskip("langchain.agents")
pytest.importorskip("google.adk")
pytest.importorskip("agents")

from agents import RunContextWrapper
from google.adk.agents.callback_context import CallbackContext

from skillcore_adk import ProfiledSkillToolset, SkillToolset
from skillcore_adk.testing import AdkDriver, ProfiledAdkDriver
from skillcore_langchain import ProfiledSkillsMiddleware, SkillsMiddleware
from skillcore_langchain.testing import LangChainDriver, ProfiledLangChainDriver
from skillcore_openai import (
    AgentSkills,
    OpenAISkills,
    ProfiledAgentSkills,
    ProfiledOpenAISkills,
    SkillConversation,
)
from skillcore_openai.testing import (
    AgentsSdkDriver,
    ChatDriver,
    ProfiledAgentsSdkDriver,
)

#: The context / session-state key the profiled adapters are told to select by (``select=``).
TENANT = "tenant"


def _scenario(
    driver: AdapterDriver, library: SkillLibrary, limits: Limits, policy: ToolPolicy
) -> SkillConfig:
    """The scenario's options (limits, policy, the check's options) as one config."""
    return scenario_profiles(driver, library, limits, policy)[SCENARIO_PROFILE][1]


def _profiles(
    driver: AdapterDriver, library: SkillLibrary, limits: Limits, policy: ToolPolicy
) -> dict[str, Any]:
    """The scenario profile given as a config only (its skills come from the adapter's first
    argument, so that argument is what the check exercises), beside a profile of no skills."""
    config = _scenario(driver, library, limits, policy)
    return {SCENARIO_PROFILE: config, "other": (SkillLibrary([]), config)}


# -- drivers building each adapter with the shared names ------------------------------------


class LangChain(LangChainDriver):
    def _middleware(self, library: SkillLibrary, limits: Limits, policy: ToolPolicy) -> Any:
        return SkillsMiddleware(skills=library, config=_scenario(self, library, limits, policy))

    def framework_session(self) -> SkillSession:
        result: SkillSession = self.middleware.session_for(self.agent.get_state(self.config).values)
        return result


class ProfiledLangChain(ProfiledLangChainDriver):
    context: Any = MappingProxyType({TENANT: SCENARIO_PROFILE})

    def _middleware(self, library: SkillLibrary, limits: Limits, policy: ToolPolicy) -> Any:
        profiles = _profiles(self, library, limits, policy)
        return ProfiledSkillsMiddleware(profiles, skills=library, select=TENANT)

    def framework_session(self) -> SkillSession:
        state = self.agent.get_state(self.config).values
        result: SkillSession = self.middleware.session_for(state, self.context)
        return result


class Adk(AdkDriver):
    def _toolset(self, library: SkillLibrary, limits: Limits, policy: ToolPolicy) -> Any:
        return SkillToolset(skills=library, config=_scenario(self, library, limits, policy))

    def _state_key(self) -> str:
        toolset = self.toolset
        if isinstance(toolset, ProfiledSkillToolset):
            toolset = toolset.profiles[SCENARIO_PROFILE]
        return str(toolset.state_key(self.agent_name))

    def framework_session(self) -> SkillSession:
        """``session_for`` of a real ADK context: the callback context of one more model
        call (a search, which changes nothing)."""
        seen: list[SkillSession] = []

        def capture(callback_context: CallbackContext, llm_request: Any) -> None:
            seen.append(self.toolset.session_for(callback_context))

        self.agent.before_model_callback = capture
        self.turn([Call(self.names.search, {"query": "alpha", "path": None})])
        return seen[-1]


class ProfiledAdk(Adk, ProfiledAdkDriver):
    def _toolset(self, library: SkillLibrary, limits: Limits, policy: ToolPolicy) -> Any:
        profiles = _profiles(self, library, limits, policy)
        return ProfiledSkillToolset(profiles, skills=library, select=TENANT)

    def _session_state(self) -> dict[str, Any]:
        return {TENANT: SCENARIO_PROFILE}


class AgentsSdk(AgentsSdkDriver):
    def _make_skills(self, library: SkillLibrary, limits: Limits, policy: ToolPolicy) -> Any:
        return AgentSkills(skills=library, config=_scenario(self, library, limits, policy))

    def framework_session(self) -> SkillSession:
        result: SkillSession = self.skills.session_for(
            RunContextWrapper(context=self._context(self.key))
        )
        return result


class ProfiledAgentsSdk(AgentsSdk, ProfiledAgentsSdkDriver):
    def _make_skills(self, library: SkillLibrary, limits: Limits, policy: ToolPolicy) -> Any:
        profiles = _profiles(self, library, limits, policy)
        return ProfiledAgentSkills(profiles, skills=library, select=TENANT)

    def _context(self, key: str) -> Any:
        return {TENANT: SCENARIO_PROFILE, "conversation": key}


class Dispatcher(ChatDriver):
    def _make_skills(
        self, library: SkillLibrary, limits: Limits, policy: ToolPolicy, handlers: Any
    ) -> Any:
        config = _scenario(self, library, limits, policy)
        return OpenAISkills(skills=library, config=config, handlers=handlers)

    def framework_session(self) -> SkillSession:
        self.skills.save(self.key, self.session)
        result: SkillSession = self.skills.session_for(self.key)
        return result


class ProfiledDispatcher(Dispatcher):
    def _make_skills(
        self, library: SkillLibrary, limits: Limits, policy: ToolPolicy, handlers: Any
    ) -> Any:
        profiles = _profiles(self, library, limits, policy)
        self.profiled = ProfiledOpenAISkills(
            profiles, skills=library, select=TENANT, handlers=handlers
        )
        return self.profiled.for_context({TENANT: SCENARIO_PROFILE})

    def framework_session(self) -> SkillSession:
        self.skills.save(self.key, self.session)
        result: SkillSession = self.profiled.session_for(self.key, SCENARIO_PROFILE)
        return result


DRIVERS: dict[str, type[Any]] = {
    "langchain": LangChain,
    "langchain-profiled": ProfiledLangChain,
    "adk": Adk,
    "adk-profiled": ProfiledAdk,
    "agents-sdk": AgentsSdk,
    "agents-sdk-profiled": ProfiledAgentsSdk,
    "openai": Dispatcher,
    "openai-profiled": ProfiledDispatcher,
}


@pytest.mark.parametrize("check", [check_restrict_policy, check_limit_and_unload])
@pytest.mark.parametrize("adapter", list(DRIVERS))
def test_same_behaviour_under_each_name(adapter: str, check: Any, tmp_path: Path) -> None:
    """A conformance check passes through the adapter built with these names, without a
    warning; ``session_for`` of the framework's own context then gives the session the
    adapter saved."""
    driver = DRIVERS[adapter]()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", DeprecationWarning)
            check(driver, tmp_path)
            session = driver.framework_session()
        assert isinstance(session, SkillSession)
        assert sorted(session.loaded_names) == sorted(driver.loaded())
        assert session.loaded_names, "the check leaves skills loaded"
    finally:
        driver.close()


# -- old method, attribute and type names ----------------------------------------------------


def test_names_used_before_are_gone(tmp_path: Path) -> None:
    """The spellings used before the names were made the same are gone, each with a clear
    error rather than a silent second path."""
    import skillcore_openai
    import skillcore_openai.agents.adapter
    from skillcore_langchain import SkillsState

    path = str(tmp_path)
    assert not hasattr(SkillsMiddleware(path), "session")
    assert not hasattr(ProfiledSkillToolset({"a": path}, select=TENANT), "profile_key")
    for module in (skillcore_openai, skillcore_openai.agents.adapter):
        with pytest.raises(AttributeError):
            _ = module.SkillState
    assert SkillsState is not SkillConversation
    with pytest.raises(TypeError, match="only with backend="):
        SkillsMiddleware(sources=path)


def test_state_for_is_the_holder(tmp_path: Path) -> None:
    """The Agents SDK's ``state_for`` means something else than ``session_for`` (the holder
    a run carries, e.g. to set ``skill_load``), so it stays, without a warning."""
    skills = AgentSkills(str(tmp_path))
    ctx = RunContextWrapper(context=skills.conversation("c"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        holder = skills.state_for(ctx)
    assert isinstance(holder, SkillConversation)
    assert skills.session_for(ctx) == holder.session


@pytest.mark.parametrize(
    "build",
    [
        lambda p: SkillToolset(p, sources=p),
        lambda p: ProfiledSkillToolset({"a": p}, p, sources=p),
        lambda p: ProfiledSkillToolset({"a": p}, select="x", profile_key="y"),
        lambda p: ProfiledOpenAISkills({"a": p}, skills=p, sources=p),
        lambda p: ProfiledAgentSkills({"a": p}, skills=p, sources=p),
        lambda p: ProfiledSkillsMiddleware({"a": p}, skills=p, sources=p),
    ],
)
def test_old_keywords_are_refused(build: Callable[[str], Any], tmp_path: Path) -> None:
    with pytest.raises(TypeError, match=r"unexpected keyword|sources"):
        build(str(tmp_path))


def test_deepagents_spelling_does_not_warn(tmp_path: Path) -> None:
    """``SkillsMiddleware(backend=..., sources=[...])`` is deepagents' own spelling, which
    the middleware takes as a drop-in replacement: no warning there."""
    backends = pytest.importorskip("deepagents.backends")
    (tmp_path / "skills" / "demo").mkdir(parents=True)
    (tmp_path / "skills" / "demo" / "SKILL.md").write_text(
        "---\nname: demo\ndescription: A demo skill.\n---\nBody.\n"
    )
    backend = backends.FilesystemBackend(root_dir=str(tmp_path), virtual_mode=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mw = SkillsMiddleware(backend=backend, sources=["/skills/"])
    asyncio.run(mw.library.arefresh())
    assert mw.library.catalog.names == ("demo",)
