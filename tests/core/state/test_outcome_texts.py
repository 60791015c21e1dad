"""The text of every outcome a session returns, pinned word for word.

The session returns a code and the facts behind it; :mod:`skillcore.outcome_texts` words them. The
reference functions below are the wording the model has always read (written out here once,
independently of the code under test): every outcome code a transition can return is
produced through the real transitions and its message compared byte for byte, for many skill
names, paths, tool names and counts.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from skillcore import (
    Catalog,
    Limits,
    OutcomeCode,
    PolicyMode,
    SkillDocument,
    SkillLocation,
    SkillMetadata,
    SkillSession,
    ToolPolicy,
)
from skillcore._escaping import quoted_excerpt, single_line
from skillcore.names import ToolNames
from skillcore.paths import path_problem
from skillcore.state.outcomes import Outcome
from skillcore.state.schema import MAX_STATE_STRING
from skillcore.typos import close_names

# -- the reference wording ---------------------------------------------------------------------


def ref_not_found(catalog: Catalog, name: str, names: ToolNames) -> str:
    close = close_names(catalog, name)
    hint = f" Did you mean: {', '.join(close)}?" if close else ""
    return (
        f"No skill named {quoted_excerpt(name)}.{hint} Call {names.search} with "
        "keywords to find available skills."
    )


def ref_disabled(name: str) -> str:
    return f"Skill {name!r} can only be invoked by the user, not used by the model."


def ref_already_loaded(name: str) -> str:
    return (
        f"Skill {name!r} is already loaded; its instructions are earlier in this "
        "conversation. Follow them; there is no need to load it again."
    )


def ref_limit(name: str, loaded: tuple[str, ...], max_loaded: int, names: ToolNames) -> str:
    return (
        f"Cannot load {name!r}: {len(loaded)} of {max_loaded} skills "
        f"are already loaded ({', '.join(loaded)}). Call "
        f"{names.unload} for a skill you no longer need to free a slot, then try "
        "again."
    )


def ref_not_available(skill: str, missing: tuple[str, ...]) -> str:
    return (
        f"Cannot load {skill!r}: it needs tools this agent does not have "
        f"({', '.join(single_line(m) for m in missing)}), and while it is loaded only its "
        "allowed tools may run. Continue without it or choose another skill."
    )


def ref_redelivered(name: str) -> str:
    return f"Skill {name!r} was loaded earlier; its instructions are sent again."


def ref_loaded(name: str) -> str:
    return f"Loaded skill {name!r}."


def ref_pinned(name: str) -> str:
    return (
        f"Skill {name!r} is pinned: it stays loaded for the whole conversation and "
        "cannot be unloaded. Keep following its instructions."
    )


def ref_not_loaded_unload(name: str, loaded: tuple[str, ...]) -> str:
    shown = ", ".join(loaded) or "none"
    return f"Skill {name!r} is not loaded, so there is nothing to unload. Loaded skills: {shown}."


def ref_not_loaded_resource(name: str, names: ToolNames) -> str:
    return (
        f"Skill {name!r} is not loaded. Call {names.load} for it first; its "
        "reply lists the files you can read."
    )


def ref_unloaded(name: str, free: int, max_loaded: int, locked: tuple[str, ...]) -> str:
    again = f" Tools it unlocked are locked again: {', '.join(locked)}." if locked else ""
    return (
        f"Unloaded skill {name!r}; its instructions no longer apply. "
        f"{free} of {max_loaded} slots are free." + again
    )


def ref_path_rejected(path: str, name: str, problem: str) -> str:
    return (
        f"Cannot read {quoted_excerpt(path)} of skill {name!r}: {problem}. Do not retry "
        "this path; give one relative to the skill directory, as listed when the skill was "
        "loaded."
    )


def ref_load_failed(name: str, detail: str) -> str:
    return f"Could not load skill {name!r}: {detail}"


# -- the catalog -----------------------------------------------------------------------------


def meta(name: str, **kw: object) -> SkillMetadata:
    return SkillMetadata(name, f"{name} skill", SkillLocation("s", name, f"/s/{name}"), **kw)


CATALOG = Catalog(
    (
        meta("reader", allowed_tools=("Read",)),
        meta("shell-user", allowed_tools=("Read", "Bash(git:*)", "mcp__gh__*")),
        meta("open"),
        meta("deployer", metadata={"include_tools": "Deploy Rollback"}),
        meta("hidden", disable_model_invocation=True),
    )
)
RESTRICT = ToolPolicy(PolicyMode.RESTRICT, gated_tools=frozenset({"Deploy", "Rollback"}))


def doc(name: str) -> SkillDocument:
    found = CATALOG.get(name)
    assert found is not None
    return SkillDocument(found, "body")


def session_with(*loaded: str, max_loaded: int = 3, names: ToolNames | None = None) -> SkillSession:
    s = SkillSession(CATALOG, Limits(max_loaded=max_loaded), RESTRICT, names=names or ToolNames())
    for name in loaded:
        s, out = s.finish_load(doc(name))
        assert out.code is OutcomeCode.LOADED, out
    return s


def message(result: object) -> str:
    assert isinstance(result, Outcome), result
    return result.message


tool_names = st.builds(ToolNames.prefixed, st.text(alphabet="abcxyz_-", max_size=6)) | st.just(
    ToolNames()
)
any_text = st.text(max_size=60)
SETTINGS = settings(max_examples=60, deadline=None)

# -- every outcome code ------------------------------------------------------------------------


@SETTINGS
@given(name=any_text, names=tool_names)
def test_skill_not_found(name: str, names: ToolNames) -> None:
    if CATALOG.get(name) is not None:
        return
    s = session_with(names=names)
    want = ref_not_found(CATALOG, name, names)
    assert message(s.begin_load(name)) == want
    assert message(s.begin_resource(name, "a.md")) == want
    outcomes = s.ensure_loaded([name], {})[1]
    assert [o.code for o in outcomes] == [OutcomeCode.SKILL_NOT_FOUND]
    assert outcomes[0].message == want


def test_skill_not_found_with_a_close_name() -> None:
    out = message(session_with().begin_load("readers"))
    assert out == ref_not_found(CATALOG, "readers", ToolNames()) and "Did you mean" in out


def test_disabled() -> None:
    s = session_with()
    assert message(s.begin_load("hidden")) == ref_disabled("hidden")
    assert message(s.begin_resource("hidden", "a.md")) == ref_disabled("hidden")
    assert s.ensure_loaded(["hidden"], {})[1][0].message == ref_disabled("hidden")


def test_already_loaded() -> None:
    out = session_with("open").begin_load("open")
    assert message(out) == ref_already_loaded("open")


@SETTINGS
@given(names=tool_names, max_loaded=st.integers(1, 3))
def test_load_limit_reached(names: ToolNames, max_loaded: int) -> None:
    loaded = ("reader", "open", "deployer")[:max_loaded]
    out = session_with(*loaded, max_loaded=max_loaded, names=names).begin_load("shell-user")
    assert message(out) == ref_limit("shell-user", loaded, max_loaded, names)


def test_tool_not_available() -> None:
    out = session_with().begin_load("shell-user", available=["Read"])
    assert out.code is OutcomeCode.TOOL_NOT_AVAILABLE
    assert message(out) == ref_not_available("shell-user", ("Bash(git:*)", "mcp__gh__*"))


def test_loaded_and_redelivered() -> None:
    s, out = session_with().finish_load(doc("reader"))
    assert out.code is OutcomeCode.LOADED and out.message == ref_loaded("reader")
    again = s.finish_load(doc("reader"), redeliver=True, call_id="c1")[1]
    assert again.code is OutcomeCode.REDELIVERED and again.message == ref_redelivered("reader")
    # Without an id to record, the session is unchanged and the text the same.
    same = s.finish_load(doc("reader"), redeliver=True)[1]
    assert same.message == ref_redelivered("reader")


def test_pinned() -> None:
    out = session_with("reader").unload("reader", pinned=["reader"])[1]
    assert out.code is OutcomeCode.PINNED and out.message == ref_pinned("reader")


@SETTINGS
@given(loaded=st.lists(st.sampled_from(["reader", "open", "deployer"]), unique=True, max_size=3))
def test_not_loaded(loaded: list[str]) -> None:
    s = session_with(*loaded)
    out = s.unload("shell-user")[1]
    assert out.code is OutcomeCode.NOT_LOADED
    assert out.message == ref_not_loaded_unload("shell-user", tuple(loaded))


@SETTINGS
@given(names=tool_names)
def test_not_loaded_for_a_resource(names: ToolNames) -> None:
    out = session_with(names=names).begin_resource("open", "a.md")
    assert message(out) == ref_not_loaded_resource("open", names)


@SETTINGS
@given(
    others=st.lists(st.sampled_from(["reader", "open"]), unique=True), max_loaded=st.integers(3, 5)
)
def test_unloaded(others: list[str], max_loaded: int) -> None:
    s = session_with("deployer", *others, max_loaded=max_loaded)
    out = s.unload("deployer")[1]
    assert out.code is OutcomeCode.UNLOADED
    free = max_loaded - len(others)
    assert out.message == ref_unloaded("deployer", free, max_loaded, ("Deploy", "Rollback"))
    if others:
        plain = s.unload(others[0])[1]
        assert plain.message == ref_unloaded(others[0], free, max_loaded, ())


@SETTINGS
@given(path=st.sampled_from(["", " ", "../x", "/etc/passwd", "a/../../b", "x" * 5_000]) | any_text)
def test_path_rejected(path: str) -> None:
    problem = path_problem(path, max_chars=MAX_STATE_STRING)
    out = session_with("open").begin_resource("open", path)
    if problem is None:
        assert not isinstance(out, Outcome)
        return
    assert message(out) == ref_path_rejected(path, "open", problem.value)


@SETTINGS
@given(
    code=st.sampled_from(
        [OutcomeCode.READ_FAILED, OutcomeCode.TOO_LARGE, OutcomeCode.DECODE_ERROR]
    ),
    detail=any_text,
)
def test_load_failed(code: OutcomeCode, detail: str) -> None:
    out = session_with().fail_load("open", code, detail)
    assert out.code is code and out.message == ref_load_failed("open", detail)


def test_a_configured_skill_whose_document_was_not_read() -> None:
    out = session_with().ensure_loaded(["open"], {})[1]
    assert [o.code for o in out] == [OutcomeCode.READ_FAILED]
    assert out[0].message == ref_load_failed("open", "its document was not read")


def ref_paths_not_touched(name: str) -> str:
    return (
        f"Skill {name!r} is offered only while the work touches files it is for; it touches "
        "none of them now. Continue without it."
    )


def test_paths_not_touched() -> None:
    paths_skill = meta("ts-only", extra={"paths": "src/**/*.ts"})
    s = SkillSession(Catalog((paths_skill,)))
    assert message(s.begin_load("ts-only")) == ref_paths_not_touched("ts-only")


def test_every_outcome_code_a_transition_returns_is_pinned_here() -> None:
    """The codes above are all the session's transitions return (the others come from the
    toolkit's own replies): a new code must get its text pinned here too."""
    pinned = {
        OutcomeCode.SKILL_NOT_FOUND,
        OutcomeCode.DISABLED,
        OutcomeCode.ALREADY_LOADED,
        OutcomeCode.LOAD_LIMIT_REACHED,
        OutcomeCode.TOOL_NOT_AVAILABLE,
        OutcomeCode.PATHS_NOT_TOUCHED,
        OutcomeCode.LOADED,
        OutcomeCode.REDELIVERED,
        OutcomeCode.PINNED,
        OutcomeCode.NOT_LOADED,
        OutcomeCode.UNLOADED,
        OutcomeCode.PATH_REJECTED,
        OutcomeCode.READ_FAILED,
        OutcomeCode.TOO_LARGE,
        OutcomeCode.DECODE_ERROR,
        OutcomeCode.SCRIPT_UNTRUSTED,
        OutcomeCode.NOT_USER_INVOCABLE,
        OutcomeCode.ARGUMENTS_TOO_LONG,
    }
    toolkit_only = {
        OutcomeCode.SCRIPT_RAN,
        OutcomeCode.SCRIPT_NOT_RUNNABLE,
        OutcomeCode.SCRIPT_DECLINED,
        OutcomeCode.ISOLATION_UNAVAILABLE,
        OutcomeCode.RESOURCE_READ,
        OutcomeCode.SEARCH_RESULTS,
        OutcomeCode.BINARY_RESOURCE,
        OutcomeCode.RESOURCE_NOT_FOUND,
        OutcomeCode.INVALID_ARGUMENTS,
        OutcomeCode.UNKNOWN_TOOL,
        OutcomeCode.TOOL_BLOCKED,
        OutcomeCode.TOOL_LOCKED,
        OutcomeCode.TOOL_DISALLOWED,
        OutcomeCode.TOOL_DECLINED,
        OutcomeCode.TOOL_FAILED,
        OutcomeCode.TURN_CALL_IDS_REPEAT,
        OutcomeCode.TURN_TOO_LONG,
        OutcomeCode.HOOK_BLOCKED,
        # Forked skills: the toolkit's and the adapters' replies (skillcore.tools.forks).
        OutcomeCode.FORK,
        OutcomeCode.FORKED,
        OutcomeCode.SUBAGENT_UNKNOWN,
    }
    assert pinned | toolkit_only == set(OutcomeCode) and not pinned & toolkit_only


def test_script_refusals_of_the_session() -> None:
    s = session_with()
    out = s.begin_script("open", "scripts/x.py", trusted=True)
    assert isinstance(out, Outcome) and out.code is OutcomeCode.NOT_LOADED
    assert out.message == (
        "Skill 'open' is not loaded. Call load_skill for it first; its reply lists the "
        "scripts you can run."
    )
    loaded = s.finish_load(doc("open"))[0]
    out = loaded.begin_script("open", "scripts/x.py", trusted=False, source="s3://b")
    assert isinstance(out, Outcome) and out.code is OutcomeCode.SCRIPT_UNTRUSTED
    assert out.message == (
        "Scripts of skill 'open' cannot run: its source (s3://b) is not trusted to run code. "
        "Do not retry; follow the skill's instructions without its scripts, or tell the user."
    )


# -- the user's own invocation (``/name args``): replies written for the user ------------------


def test_user_invocation_refusals() -> None:
    from skillcore.limits import MAX_INVOCATION_ARGUMENTS
    from skillcore.state import Invocation, begin_invoke

    meta = SkillMetadata(
        "bg", "Background.", SkillLocation("s", "bg", "/s/bg"), user_invocable=False
    )
    hidden = SkillMetadata(
        "off",
        "Off.",
        SkillLocation("s", "off", "/s/off"),
        disable_model_invocation=True,
        user_invocable=False,
    )
    s = SkillSession(Catalog((meta, hidden)))
    assert message(s.begin_load("bg", by_user=True)) == (
        f"Skill {quoted_excerpt('bg')} cannot be invoked by the user: the assistant uses it "
        "when a request needs it. Describe the task instead."
    )
    for name in ("off", "nope"):
        assert message(s.begin_load(name, by_user=True)) == (
            f"No skill named {quoted_excerpt(name)} can be invoked here."
        )
    n = MAX_INVOCATION_ARGUMENTS + 1
    assert message(begin_invoke(s, Invocation("bg", "x" * n))) == (
        f"The arguments of skill {quoted_excerpt('bg')} are too long ({n:,} characters; at "
        f"most {MAX_INVOCATION_ARGUMENTS:,}). Nothing was loaded; shorten them and invoke it "
        "again."
    )
