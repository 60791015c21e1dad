"""The ``run_skill_script`` calls of a toolkit: planning a run against the session (the rule
is :meth:`skillcore.SkillSession.begin_script`), whether to ask a framework's
human-in-the-loop, and carrying out an accepted run (the I/O is
:mod:`skillcore.tools.scripts`). A part of :class:`~skillcore.tools.toolkit.SkillToolkit`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from skillcore import events
from skillcore.codes import OutcomeCode
from skillcore.library import SkillLibrary
from skillcore.names import ToolNames
from skillcore.state.session import Outcome, ScriptRequestPlan, SkillSession
from skillcore.state.stores import SessionStore
from skillcore.tools import replies, scripts
from skillcore.tools.calls import Effect, ToolResult
from skillcore.tools.specs import ToolKind

#: Refusals of a script run that an earlier call of its turn may lift.
_TURN_DEPENDENT = frozenset(
    {OutcomeCode.NOT_LOADED, OutcomeCode.TOOL_BLOCKED, OutcomeCode.TOOL_LOCKED}
)


class ScriptCalls:
    """The script tool's calls (see the module docstring)."""

    if TYPE_CHECKING:
        # Set by the toolkit this is part of.
        library: SkillLibrary
        names: ToolNames
        confirm_scripts: bool
        script_settings: scripts.ScriptSettings | None
        _kinds: dict[str, ToolKind]

        def _plan(
            self,
            session: SkillSession,
            tool: str,
            arguments: Any,
            *,
            report: bool = True,
        ) -> Effect | ScriptRequestPlan | ToolResult: ...

    def _init_scripts(self, settings: scripts.ScriptSettings | None, confirm: bool) -> None:
        #: How ``run_skill_script`` runs scripts (see :class:`~skillcore.SkillConfig`'s
        #: ``script_*`` options); None without a runner: the tool is not offered at all.
        self.script_settings = settings
        #: Ask the framework's own human-in-the-loop before each script run
        #: (:meth:`needs_approval`).
        self.confirm_scripts = confirm

    def needs_approval(self, session: SkillSession, tool: str, arguments: Any) -> bool:
        """Whether an adapter asks its framework's human-in-the-loop (ADK tool
        confirmation, the Agents SDK's ``needs_approval``) before this call: only with
        ``confirm_scripts``, and not for a run refused whatever the turn's other calls do
        (bad arguments or path, untrusted source, unknown skill), which is replied to at
        once. A run refused only by ``session`` as it is now (not loaded, blocked) is asked
        for: an earlier call of the same turn (a load) may still change that, and the
        approval is asked before the turn's calls are applied."""
        if not self.confirm_scripts or self._kinds.get(tool) is not ToolKind.SCRIPT:
            return False
        step = self._plan(session, tool, arguments, report=False)
        if isinstance(step, ToolResult):
            return step.code in _TURN_DEPENDENT
        return True

    def runs_code(self, name: str, session: SkillSession) -> tuple[bool, str]:
        """Whether skill ``name``'s source is trusted to run code, and its label."""
        meta = session.catalog.get(name)
        if meta is None:
            return False, ""
        try:
            source = self.library.reader(meta.location.source).source
        except Exception:
            return False, meta.location.source
        return bool(source.runs_code), source.label

    def _plan_script(
        self, session: SkillSession, tool: str, args: dict[str, Any], report: bool
    ) -> ScriptRequestPlan | ToolResult:
        name, script = args["skill_name"], args["script"]
        trusted, label = self.runs_code(name, session)
        step = session.begin_script(
            name,
            script,
            trusted=trusted,
            source=label,
            args=args["args"],
            stdin=args["stdin"],
            tool=tool,
        )
        if isinstance(step, Outcome):
            if report:
                events.script_refused(None, name, script, step.code.value, "not-asked")
            return ToolResult(session, replies.refusal(step), step.code, tool)
        return step

    def _run_script(self, store: SessionStore, plan: ScriptRequestPlan) -> ToolResult:
        settings = self.script_settings
        assert settings is not None  # the tool exists only with settings
        session = store.read()
        with events.script_span(plan.name, plan.script) as span:
            ok, label = scripts.sync_approval(settings, plan)
            if not ok:
                return self._script_result(session, *scripts.declined_reply(plan, label, span))
            prepared = scripts.prepare(self.library, session, plan, settings)
            if isinstance(prepared, scripts.Refused):
                events.script_refused(span, plan.name, plan.script, prepared.code.value, label)
                return self._script_result(session, prepared.code, prepared.text)
            try:
                result = settings.runner.run(prepared.request)
            except Exception as exc:
                return self._script_result(
                    session, *scripts.runner_failed_reply(plan, exc, label, span)
                )
            finally:
                scripts.remove(prepared.folder)
            return self._script_result(session, *scripts.result_reply(plan, result, label, span))

    async def _arun_script(self, store: SessionStore, plan: ScriptRequestPlan) -> ToolResult:
        import anyio.to_thread

        settings = self.script_settings
        assert settings is not None  # the tool exists only with settings
        session = store.read()
        with events.script_span(plan.name, plan.script) as span:
            ok, label = await scripts.async_approval(settings, plan)
            if not ok:
                return self._script_result(session, *scripts.declined_reply(plan, label, span))
            prepared = await anyio.to_thread.run_sync(
                scripts.prepare, self.library, session, plan, settings
            )
            if isinstance(prepared, scripts.Refused):
                events.script_refused(span, plan.name, plan.script, prepared.code.value, label)
                return self._script_result(session, prepared.code, prepared.text)
            try:
                result = await settings.runner.arun(prepared.request)
            except Exception as exc:
                return self._script_result(
                    session, *scripts.runner_failed_reply(plan, exc, label, span)
                )
            finally:
                await anyio.to_thread.run_sync(scripts.remove, prepared.folder)
            return self._script_result(session, *scripts.result_reply(plan, result, label, span))

    def _script_result(self, session: SkillSession, code: OutcomeCode, text: str) -> ToolResult:
        return ToolResult(session, text, code, self.names.script)


__all__ = ["ScriptCalls"]
