"""Hypothesis strategies for catalogs and sessions (shared by the property tests)."""

from __future__ import annotations

from hypothesis import strategies as st

from skillcore import Catalog, Limits, PolicyMode, SkillLocation, SkillMetadata, ToolPolicy

NAMES = [f"skill-{c}" for c in "abcdefghij"]
TOOLS = ["Read", "Write", "Bash", "Grep", "mcp__github__issues", "mcp__github__prs", "read"]
ENTRIES = ["Read", "Write", "Bash(git:*)", "mcp__github__*", "Grep", "Bash(ls *)"]

descriptions = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1, max_size=60
).filter(lambda s: s.strip() != "")


@st.composite
def skills(draw: st.DrawFn, name: str) -> SkillMetadata:
    allowed = draw(st.one_of(st.none(), st.lists(st.sampled_from(ENTRIES), max_size=3)))
    return SkillMetadata(
        name=name,
        description=" ".join(draw(descriptions).split()) or "x",
        location=SkillLocation("src", name, f"/skills/{name}"),
        allowed_tools=allowed,
        disable_model_invocation=draw(st.booleans().map(lambda b: b and draw(st.booleans()))),
        priority=draw(st.integers(-2, 2)),
    )


@st.composite
def catalogs(draw: st.DrawFn, min_size: int = 0) -> Catalog:
    names = draw(st.lists(st.sampled_from(NAMES), unique=True, min_size=min_size, max_size=8))
    return Catalog(tuple(draw(skills(n)) for n in names))


limits = st.builds(
    Limits,
    max_loaded=st.integers(0, 4),
    catalog_budget=st.integers(0, 2_000),
)
policies = st.builds(
    ToolPolicy,
    mode=st.sampled_from(list(PolicyMode)),
    always_allowed=st.frozensets(st.sampled_from(TOOLS), max_size=2),
)
