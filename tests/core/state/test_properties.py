"""Hypothesis properties for the session invariants of DESIGN §3 (1-7)."""

from __future__ import annotations

import copy
import json
import random

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)
from tests.core.strategies import NAMES, TOOLS, catalogs, limits, policies

from skillcore import (
    CatalogFormat,
    Limits,
    Outcome,
    OutcomeCode,
    PolicyMode,
    SkillDocument,
    SkillSession,
    ToolPolicy,
    UnrestrictedSkills,
    catalog_view,
    render_catalog,
)
from skillcore.runtime import LoadRequest, ToolPattern, TurnCalls, TurnStore, merge_states

settings.register_profile("ci", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci")


def doc(session: SkillSession, name: str) -> SkillDocument:
    meta = session.catalog.get(name)
    assert meta is not None
    return SkillDocument(meta, f"body of {name}")


def load(session: SkillSession, name: str) -> tuple[SkillSession, Outcome]:
    """The two-phase load as the shell runs it, with an in-memory document."""
    first = session.begin_load(name)
    if isinstance(first, Outcome):
        return session, first
    return session.finish_load(doc(session, name))


Op = tuple[str, str]
ops_strategy = st.lists(
    st.tuples(st.sampled_from(["load", "unload"]), st.sampled_from(NAMES)), max_size=12
)


def apply(session: SkillSession, op: Op) -> tuple[SkillSession, Outcome]:
    kind, name = op
    return load(session, name) if kind == "load" else session.unload(name)


def check_invariant_1(s: SkillSession) -> None:
    names = s.loaded_names
    assert set(names) <= set(s.catalog.names)
    assert len(set(names)) == len(names)
    assert len(names) <= s.limits.max_loaded


sessions = st.builds(SkillSession, catalogs(), limits, policies).flatmap(
    lambda s: ops_strategy.map(lambda ops: _run(s, ops))
)
#: Busier sessions: big catalogs, room to load, mostly RESTRICT (finds policy and merge bugs).
busy_sessions = st.builds(
    SkillSession,
    catalogs(min_size=6),
    st.builds(Limits, max_loaded=st.integers(1, 4)),
    st.builds(
        ToolPolicy,
        mode=st.sampled_from([PolicyMode.RESTRICT, PolicyMode.RESTRICT, PolicyMode.RECOMMEND]),
        always_allowed=st.frozensets(st.sampled_from(TOOLS), max_size=1),
        unrestricted_skills=st.sampled_from(list(UnrestrictedSkills)),
    ),
).flatmap(lambda s: ops_strategy.map(lambda ops: _run(s, ops)))


def _run(session: SkillSession, ops: list[Op]) -> SkillSession:
    for op in ops:
        session, _ = apply(session, op)
    return session


# -- 1 and 2 --------------------------------------------------------------------------------


@given(sessions, ops_strategy)
def test_inv1_and_inv2_every_transition(session: SkillSession, ops: list[Op]) -> None:
    """Loaded stays a bounded, duplicate-free subset; refusals return the same session."""
    for op in ops:
        new, outcome = apply(session, op)
        check_invariant_1(new)
        if not outcome.ok:
            assert new is session
            assert new == session
        else:
            assert new != session
        session = new


@given(sessions, st.sampled_from(NAMES))
def test_refusal_codes_are_exact(session: SkillSession, name: str) -> None:
    res = session.begin_load(name)
    meta = session.catalog.get(name)
    if meta is None:
        assert isinstance(res, Outcome) and res.code is OutcomeCode.SKILL_NOT_FOUND
    elif meta.disable_model_invocation:
        assert isinstance(res, Outcome) and res.code is OutcomeCode.DISABLED
    elif session.is_loaded(name):
        assert isinstance(res, Outcome) and res.code is OutcomeCode.ALREADY_LOADED
    elif session.slots_left == 0:
        assert isinstance(res, Outcome) and res.code is OutcomeCode.LOAD_LIMIT_REACHED
        assert session.names.unload in res.message
    else:
        assert res == LoadRequest(name)


# -- 3 ---------------------------------------------------------------------------------------


@given(sessions, st.sampled_from(NAMES))
def test_inv3_unload_undoes_load_and_load_is_idempotent(session: SkillSession, name: str) -> None:
    loaded, outcome = load(session, name)
    if outcome.code is OutcomeCode.LOADED:
        again, second = load(loaded, name)
        assert second.code is OutcomeCode.ALREADY_LOADED and again is loaded
        back, out = loaded.unload(name)
        assert out.code is OutcomeCode.UNLOADED
        assert back.loaded_names == session.loaded_names
        assert back == session


# -- 4 ---------------------------------------------------------------------------------------


@given(sessions, st.integers(0, 3_000), st.sampled_from(list(CatalogFormat)))
def test_inv4_rendering_budget(session: SkillSession, budget: int, fmt: CatalogFormat) -> None:
    view = catalog_view(session, fmt, budget)
    visible = [s.name for s in session.catalog.by_priority]
    if not visible:
        assert view.text == ""
        return
    for name in session.loaded_names:
        assert name in view.loaded
        assert name in view.text
    assert view.unloaded_chars <= budget
    unloaded_visible = [n for n in visible if not session.is_loaded(n)]
    assert view.omitted == len(unloaded_visible) - len(view.shown)
    assert list(view.shown) == unloaded_visible[: len(view.shown)]  # priority order prefix
    if view.omitted:
        assert f"{view.omitted} more" in view.text
    else:
        assert "more skill" not in view.text
    assert catalog_view(session, fmt, budget).text == view.text  # deterministic
    hidden = [s.name for s in session.catalog if s.disable_model_invocation]
    for name in hidden:
        assert f"**{name}**" not in view.text and f"<name>{name}</name>" not in view.text


# -- 5 ---------------------------------------------------------------------------------------


def reference_decision(session: SkillSession, tool: str) -> bool:
    """Naive statement of DESIGN §3.5: RECOMMEND never blocks, APPROVE asks instead of
    blocking (:func:`reference_approval`), RESTRICT blocks what :func:`restrict_allows` does
    not allow."""
    if session.policy.mode is not PolicyMode.RESTRICT:
        return True
    return restrict_allows(session, tool)


def reference_approval(session: SkillSession, tool: str) -> bool:
    """APPROVE asks the user about exactly the calls RESTRICT would block."""
    return session.policy.mode is PolicyMode.APPROVE and not restrict_allows(session, tool)


def restrict_allows(session: SkillSession, tool: str) -> bool:
    """The RESTRICT rule."""
    if tool in session.policy.always_allowed or tool in session.names.all():
        return True
    if not session.loaded:
        return True
    # Policy inputs come from the catalog's metadata (invariant 10), never from stored state.
    declared = [session.catalog.get(s.name).allowed_tools for s in session.loaded]
    # A skill without allowed-tools adds nothing and lifts nothing (the lenient "lift"
    # opt-in: it lifts the restriction); with none declaring the field nothing is blocked.
    lift = session.policy.unrestricted_skills is UnrestrictedSkills.LIFT
    if lift and any(tools is None for tools in declared):
        return True
    declared = [tools for tools in declared if tools is not None]
    if not declared:
        return True
    entries = [ToolPattern.parse(e) for tools in declared for e in tools or ()]
    for p in entries:
        if "*" in p.tool:
            prefix = p.tool.split("*")[0]
            if tool.startswith(prefix) and p.tool.endswith("*") and p.tool.count("*") == 1:
                return True
        elif p.tool == tool:
            return True
    return False


@settings(max_examples=300)
@given(st.one_of(sessions, busy_sessions), st.sampled_from([*TOOLS, "load_skill", "Read ", "Reаd"]))
def test_inv5_policy(session: SkillSession, tool: str) -> None:
    decision = session.check_tool(tool)
    assert decision.allowed == reference_decision(session, tool)
    assert decision.needs_approval == reference_approval(session, tool)
    if not decision.allowed:
        assert session.names.unload in decision.reason


@given(sessions)
def test_inv5_recommend_never_blocks(session: SkillSession) -> None:
    s = attrs.evolve(session, policy=attrs.evolve(session.policy, mode=PolicyMode.RECOMMEND))
    assert all(s.check_tool(t).allowed for t in TOOLS)


# -- 6 ---------------------------------------------------------------------------------------


@given(sessions, ops_strategy)
def test_inv6_no_mutation_and_round_trip(session: SkillSession, ops: list[Op]) -> None:
    snapshot = copy.deepcopy(session)
    state = session.to_state()
    frozen_state = json.dumps(state, sort_keys=True)
    for op in ops:
        apply(session, op)
        session.check_tool("Write")
        render_catalog(session)
    assert session == snapshot
    assert json.dumps(session.to_state(), sort_keys=True) == frozen_state
    text = json.dumps(state)  # JSON-native
    restored = SkillSession.from_state(
        json.loads(text), session.catalog, session.limits, session.policy, session.names
    )
    assert restored == session


# -- 7 ---------------------------------------------------------------------------------------


@settings(max_examples=150)
@given(
    busy_sessions,
    st.lists(
        st.one_of(
            st.tuples(st.sampled_from(["load", "unload"]), st.sampled_from(NAMES)),
            st.tuples(st.just("check"), st.sampled_from(TOOLS)),
        ),
        min_size=1,
        max_size=5,
    ),
    st.randoms(use_true_random=False),
)
def test_inv7_parallel_calls_merged_in_any_order(
    session: SkillSession, calls: list[Op], rnd: random.Random
) -> None:
    """Parallel calls of one turn (skill calls and plain tool checks), run through a TurnStore
    in any schedule it allows, with their state writes merged in any other order, end in the
    state of running the calls sequentially in call order, and every outcome and policy
    decision is the sequential one (invariants 7, 8)."""
    store = TurnStore()
    ids = [str(i) for i in range(len(calls))]
    skill_ids = [i for i, op in zip(ids, calls) if op[0] != "check"]
    turn = TurnCalls("conversation", "turn-1", ids, skill_ids)
    outcomes: dict[int, Outcome | bool] = {}
    writes: list[dict] = []

    def run(i: int) -> None:
        with store.enter(turn, ids[i], session) as view:
            assert not view.timed_out
            current = view.read()
            if calls[i][0] == "check":  # a plain tool call: decided as the calls before left it
                outcomes[i] = current.check_tool(calls[i][1]).allowed
                return
            new, outcomes[i] = apply(current, calls[i])
            if new is not current:
                view.write(new)
                writes.append(new.to_state(turn="turn-1", seq=view.seq))

    # Any schedule the store allows: a call runs once the skill calls listed before it are
    # done, so later calls (skill or plain) may well finish before earlier plain ones.
    pending = list(range(len(calls)))
    while pending:
        ready = [
            i for i in pending if all(j not in pending for j in range(i) if ids[j] in turn.skill)
        ]
        i = rnd.choice(ready)
        pending.remove(i)
        run(i)
    rnd.shuffle(writes)
    merged = session.to_state()
    for w in writes:
        merged = merge_states(merged, w)
    restored = SkillSession.from_state(merged, session.catalog, session.limits, session.policy)
    check_invariant_1(restored)
    replay = session
    for i, op in enumerate(calls):
        if op[0] == "check":
            assert replay.check_tool(op[1]).allowed is outcomes[i], (i, op)
            continue
        replay, outcome = apply(replay, op)
        assert outcome.code is outcomes[i].code  # type: ignore[union-attr]
    assert restored == replay
    assert len(store) == 0  # a finished turn is forgotten


# -- stateful: the session against a naive model -----------------------------------------------


class SessionMachine(RuleBasedStateMachine):
    """Random load/unload/check sequences against a list-and-set model."""

    names = Bundle("names")

    @initialize(catalog=catalogs(min_size=1), lim=limits, policy=policies)
    def setup(self, catalog, lim, policy) -> None:
        self.session = SkillSession(catalog, lim, policy)
        self.model: list[str] = []

    @rule(name=st.sampled_from(NAMES))
    def do_load(self, name: str) -> None:
        before = self.session
        meta = before.catalog.get(name)
        new, outcome = load(before, name)
        expected_ok = (
            meta is not None
            and not meta.disable_model_invocation
            and name not in self.model
            and len(self.model) < before.limits.max_loaded
        )
        assert outcome.ok == expected_ok, outcome
        if expected_ok:
            self.model.append(name)
        else:
            assert new is before
        self.session = new

    @rule(name=st.sampled_from(NAMES))
    def do_unload(self, name: str) -> None:
        new, outcome = self.session.unload(name)
        if name in self.model:
            assert outcome.code is OutcomeCode.UNLOADED
            self.model.remove(name)
        else:
            assert outcome.code is OutcomeCode.NOT_LOADED and new is self.session
        self.session = new

    @rule()
    def round_trip(self) -> None:
        state = json.loads(json.dumps(self.session.to_state()))
        s = self.session
        assert SkillSession.from_state(state, s.catalog, s.limits, s.policy) == s

    @rule(tool=st.sampled_from(TOOLS))
    def check(self, tool: str) -> None:
        decision = self.session.check_tool(tool)
        assert decision.allowed == reference_decision(self.session, tool)
        assert decision.needs_approval == reference_approval(self.session, tool)

    @precondition(lambda self: hasattr(self, "session"))
    @invariant()
    def matches_model(self) -> None:
        assert list(self.session.loaded_names) == self.model
        check_invariant_1(self.session)


TestSessionMachine = SessionMachine.TestCase
TestSessionMachine.settings = settings(max_examples=60, stateful_step_count=25, deadline=None)


# -- validators re-run on evolve ---------------------------------------------------------------


def test_evolve_rechecks_invariants() -> None:
    from skillcore import Catalog, Limits, SkillLocation, SkillMetadata
    from skillcore.runtime import LoadedSkill

    meta = SkillMetadata("a", "d", SkillLocation("s", "a", "/a"))
    s = SkillSession(Catalog((meta,)), Limits(max_loaded=1))
    with pytest.raises(ValueError, match="not loadable from the catalog"):
        attrs.evolve(s, loaded=(LoadedSkill("zzz"),))
    with pytest.raises(ValueError, match="duplicate"):
        attrs.evolve(s, limits=Limits(max_loaded=3), loaded=(LoadedSkill("a"), LoadedSkill("a")))
    with pytest.raises(ValueError, match="exceed"):
        attrs.evolve(s, limits=Limits(max_loaded=0), loaded=(LoadedSkill("a"),))
    with pytest.raises(ValueError, match="non-negative"):
        Limits(max_loaded=-1)


@given(sessions, st.integers(0, 400))
def test_inv4_budget_in_tokens(session: SkillSession, budget: int) -> None:
    """With a token counter the budget holds in tokens, and counts stay exact."""

    def words(text: str) -> int:
        return len(text.split())

    view = catalog_view(session, CatalogFormat.MARKDOWN, budget, words)
    if not session.catalog.model_visible:
        assert view.text == ""
        return
    assert view.unloaded_chars <= budget
    shown_tokens = sum(
        words(f"- **{n}**: {session.catalog.get(n).description}\n") for n in view.shown
    )
    assert shown_tokens == view.unloaded_chars
    unloaded_visible = [
        s.name for s in session.catalog.model_visible if not session.is_loaded(s.name)
    ]
    assert view.omitted == len(unloaded_visible) - len(view.shown)
