"""The prompt mode (stable / dynamic catalog) and ``system_prompt=`` templates, in the core."""

from __future__ import annotations

import string
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.core.strategies import catalogs, descriptions

from skillcore import (
    Catalog,
    CatalogFormat,
    Limits,
    Outcome,
    PromptMode,
    PromptTemplate,
    SkillConfig,
    SkillDocument,
    SkillLibrary,
    SkillSession,
    SkillToolkit,
    catalog_view,
)
from skillcore.catalog.prompt import PLACEHOLDERS, resolve_prompt_mode

PROFILE = settings(settings.get_profile("skillcore"))


def _loaded(session: SkillSession, names: list[str]) -> SkillSession:
    for name in names:
        meta = session.catalog.get(name)
        assert meta is not None
        if isinstance(session.begin_load(name), Outcome):  # refused: loaded, full, hidden
            continue
        session, outcome = session.finish_load(SkillDocument(meta, f"body of {name}"))
        assert outcome.ok, outcome
    return session


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> SkillLibrary:
    return SkillLibrary([tmp_path_factory.mktemp("empty")])


# -- stable mode -----------------------------------------------------------------------------


@PROFILE
@given(
    catalogs(min_size=1),
    st.data(),
    st.sampled_from(list(CatalogFormat)),
    st.integers(0, 2_000),
)
def test_stable_text_ignores_load_state_and_keeps_the_budget(
    tmp_path_factory: pytest.TempPathFactory,
    catalog: Catalog,
    data: st.DataObject,
    fmt: CatalogFormat,
    budget: int,
) -> None:
    toolkit = SkillToolkit(SkillLibrary([]), catalog_format=fmt)
    assert toolkit.prompt_mode is PromptMode.STABLE  # the default
    empty = SkillSession(catalog, limits=Limits(max_loaded=4, catalog_budget=budget))
    names = data.draw(st.lists(st.sampled_from([s.name for s in catalog.skills]), max_size=4))
    session = _loaded(empty, names)
    text = toolkit.instructions(session)
    assert text == toolkit.instructions(empty)  # byte-identical whatever is loaded
    view = catalog_view(empty, fmt, budget)
    assert text == view.text and view.unloaded_chars <= budget  # the budget holds
    # No loaded marker, unless a skill's own text happens to hold one.
    written = " ".join(f"{s.name} {s.description}" for s in catalog.skills)
    assert all(m not in text or m in written for m in ("[Loaded]", "<loaded>"))
    dynamic = SkillToolkit(SkillLibrary([]), catalog_format=fmt, prompt_mode="dynamic")
    assert dynamic.instructions(session) == catalog_view(session, fmt, budget).text


def test_prompt_mode_resolution() -> None:
    assert resolve_prompt_mode(None) is PromptMode.STABLE
    assert resolve_prompt_mode(None, "relevance") is PromptMode.DYNAMIC
    assert resolve_prompt_mode("dynamic", "relevance") is PromptMode.DYNAMIC
    with pytest.raises(ValueError, match="catalog_order='relevance' re-ranks"):
        resolve_prompt_mode("stable", "relevance")
    with pytest.raises(ValueError, match="catalog_order='relevance' re-ranks"):
        SkillConfig(prompt_mode="stable", catalog_order="relevance")
    with pytest.raises(ValueError, match="catalog_order='relevance' re-ranks"):
        SkillToolkit(SkillLibrary([]), prompt_mode="stable", catalog_order="relevance")
    with pytest.raises(ValueError):
        SkillConfig(prompt_mode="sometimes")
    assert SkillConfig(prompt_mode="dynamic").toolkit(SkillLibrary([])).prompt_mode == "dynamic"


# -- templates -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("template", "message"),
    [
        ("{skills}", r"unknown placeholder\(s\) \{skills\}"),
        ("{skills_list} {}", r"\{\} \(a positional field\)"),
        ("{skills_list} {0}", r"unknown placeholder\(s\) \{0\}"),
        ("{skills_list.upper}", r"unknown placeholder\(s\) \{skills_list.upper\}"),
        ("{skills_list[0]}", r"unknown placeholder\(s\) \{skills_list\[0\]\}"),
        ("{skills_list!r}", "takes no conversion or format spec"),
        ("{skills_list:>40}", "takes no conversion or format spec"),
        ("{skills_list} }", "not a valid template"),
        ("{skills_list} {", "not a valid template"),
        ("Skills: {load_tool}", r"must contain \{skills_list\} or \{catalog\}"),
        ("", r"must contain \{skills_list\} or \{catalog\}"),
    ],
)
def test_bad_templates_are_refused_when_built(template: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        PromptTemplate(template)
    with pytest.raises(ValueError, match=message):
        SkillConfig(system_prompt=template)


def test_template_must_be_text() -> None:
    with pytest.raises(TypeError, match="must be a str"):
        PromptTemplate(42)  # type: ignore[arg-type]


def test_resource_tool_placeholder_needs_the_resource_tool() -> None:
    with pytest.raises(ValueError, match="include_resource_tool is False"):
        SkillToolkit(
            SkillLibrary([]), include_resource_tool=False, system_prompt="{resource_tool}{catalog}"
        )


def test_every_placeholder_is_filled(tmp_path: Path) -> None:
    from skillcore.testing import write_skill

    root = tmp_path / "skills"
    write_skill(root, "alpha", "Alpha does {things}.")
    (root / "broken").mkdir()
    (root / "broken" / "SKILL.md").write_text("---\nname: broken\n---\nno description\n")
    template = "|".join("{" + p + "}" for p in PLACEHOLDERS)
    library = SkillLibrary([root])
    toolkit = SkillConfig(tool_name_prefix="x_", system_prompt=template).toolkit(library)
    session = library.session(Limits(max_loaded=3))
    text = toolkit.instructions(session)
    values = dict(zip(PLACEHOLDERS, text.split("|"), strict=False))
    assert values["skills_list"].startswith("- **alpha**: Alpha does {things}.")
    assert values["catalog"].startswith("## Skills") and values["catalog"].endswith(
        values["skills_list"]
    )
    assert values["skills_locations"] == f"- {root}\n"
    assert (
        values["skills_load_warnings"] == "\n1 skill file(s) could not be read and are not listed."
    )
    assert [values[k] for k in ("load_tool", "unload_tool", "resource_tool", "search_tool")] == [
        "x_load_skill",
        "x_unload_skill",
        "x_load_skill_resource",
        "x_search_skills",
    ]
    assert values["max_loaded"] == "3"
    assert toolkit.instructions(session) is text  # memoised: the next model call


def test_no_skills_no_text(library: SkillLibrary) -> None:
    toolkit = SkillToolkit(library, system_prompt="Skills:\n{skills_list}")
    assert toolkit.instructions(library.session()) == ""


literal_text = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=40
)


@PROFILE
@given(
    st.lists(
        st.tuples(literal_text, st.sampled_from(sorted(PLACEHOLDERS))), min_size=1, max_size=5
    ),
    literal_text,
    st.dictionaries(
        st.sampled_from(sorted(PLACEHOLDERS)), descriptions, min_size=len(PLACEHOLDERS)
    ),
)
def test_render_substitutes_verbatim(
    pieces: list[tuple[str, str]], tail: str, values: dict[str, str]
) -> None:
    """Literal braces are written doubled; values (skill text, with any braces) are never
    parsed: the result is the literal text and the values, in order."""
    pieces = [*pieces, ("", "catalog")]
    escape = lambda s: s.replace("{", "{{").replace("}", "}}")  # noqa: E731
    source = "".join(escape(lit) + "{" + name + "}" for lit, name in pieces) + escape(tail)
    template = PromptTemplate(source)
    values = {k: values.get(k, "{" + k + "}") for k in PLACEHOLDERS}
    expected = "".join(lit + values[name] for lit, name in pieces) + tail
    assert template.render(values) == expected
    assert template.placeholders == {name for _, name in pieces}
    # The same text through str.format agrees whenever the values hold no braces.
    if not any(c in v for v in values.values() for c in "{}"):
        assert string.Formatter().vformat(source, (), values) == expected


def test_deepagents_default_template_is_accepted(library: SkillLibrary) -> None:
    """deepagents' own ``SKILLS_SYSTEM_PROMPT`` (its three placeholders) works as is."""
    skills = pytest.importorskip("deepagents.middleware.skills")
    template = PromptTemplate(skills.SKILLS_SYSTEM_PROMPT)
    assert template.placeholders == {"skills_locations", "skills_load_warnings", "skills_list"}
