"""One mapping of invocation controls, read from files in each runtime's own format: Claude
Code's frontmatter, Codex's ``agents/openai.yaml``, ADK's ``metadata`` keys."""

from __future__ import annotations

from pathlib import Path

from skillcore import SkillLibrary
from skillcore.parse import read_codex_interface
from skillcore.policy import skill_gated_tools
from skillcore.state import argument_names
from skillcore.state.invocation import injects_state, user_skills

CODEX_YAML = """\
interface:
  display_name: "Deploy"
  short_description: "Ship the app to an environment"
  icon_small: "./assets/icon.png"
  brand_color: "#3B82F6"
  default_prompt: "Deploy the web app to staging"
policy:
  allow_implicit_invocation: false
dependencies:
  tools:
    - type: "mcp"
      value: "github"
"""


def _skill(root: Path, name: str, frontmatter: str, files: dict[str, str] | None = None) -> None:
    d = root / name
    d.mkdir(parents=True)
    (d / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: {name} tasks.\n{frontmatter}---\n\nBody.\n"
    )
    for rel, text in (files or {}).items():
        (d / rel).parent.mkdir(parents=True, exist_ok=True)
        (d / rel).write_text(text)


def test_each_runtimes_controls_land_in_one_model(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    # Claude Code: the frontmatter fields.
    _skill(root, "claude-user-only", "disable-model-invocation: true\nargument-hint: <env>\n")
    _skill(root, "claude-model-only", "user-invocable: false\n")
    _skill(root, "claude-named", "arguments: issue branch\n")
    # Codex: agents/openai.yaml beside SKILL.md.
    _skill(root, "codex-explicit", "", {"agents/openai.yaml": CODEX_YAML})
    _skill(
        root,
        "codex-implicit",
        "",
        {"agents/openai.yaml": "policy:\n  allow_implicit_invocation: true\n"},
    )
    _skill(
        root,
        "codex-odd",
        "",
        {"agents/openai.yaml": "policy:\n  allow_implicit_invocation: maybe\n"},
    )
    # ADK: metadata keys.
    _skill(
        root,
        "adk",
        "metadata:\n  adk_inject_state: true\n  adk_additional_tools: [publish, notify]\n",
    )
    catalog = SkillLibrary([root]).catalog
    get = catalog.get

    def meta(name: str):  # type: ignore[no-untyped-def]
        m = get(name)
        assert m is not None, name
        return m

    assert meta("claude-user-only").disable_model_invocation
    assert meta("claude-user-only").argument_hint == "<env>"
    assert not meta("claude-model-only").user_invocable
    assert argument_names(meta("claude-named").extra.get("arguments")) == ("issue", "branch")
    explicit = meta("codex-explicit")
    assert explicit.disable_model_invocation and explicit.user_invocable
    assert explicit.metadata["display-name"] == "Deploy"
    assert explicit.metadata["short-description"] == "Ship the app to an environment"
    assert explicit.metadata["default-prompt"] == "Deploy the web app to staging"
    assert explicit.metadata["brand-color"] == "#3B82F6"
    assert not meta("codex-implicit").disable_model_invocation
    assert meta("codex-odd").disable_model_invocation, "unreadable policy fails closed"
    assert any("allow_implicit_invocation" in d.message for d in catalog.diagnostics)
    assert injects_state(meta("adk"))
    assert skill_gated_tools(meta("adk")) == ("publish", "notify")
    visible = {m.name for m in catalog.model_visible}
    assert "codex-explicit" not in visible and "claude-user-only" not in visible
    listed = {m.name for m in user_skills(catalog)}
    assert "codex-explicit" in listed and "claude-model-only" not in listed


def test_codex_file_reading_is_bounded_and_fails_closed() -> None:
    assert read_codex_interface(b"").model_invocable is None
    assert read_codex_interface(b"\xff\xfe").model_invocable is False
    assert read_codex_interface(b"x" * 20_000).model_invocable is False
    assert read_codex_interface(b"[" * 5_000).model_invocable is False
    assert read_codex_interface(b"policy: [1]\n").model_invocable is False
    assert read_codex_interface(b"interface: 3\n").metadata == {}
    bomb = b"a: &a [x,x,x,x,x,x,x,x,x]\n" + b"".join(
        f"{c}: &{c} [*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p}]\n".encode()
        for p, c in zip("abcdefgh", "bcdefghi")
    )
    assert read_codex_interface(bomb).model_invocable is False
    odd = read_codex_interface(b'interface:\n  display_name: "a\\nb\\u202e"\n')
    assert "\n" not in odd.metadata["display-name"]


def test_codex_mapping_survives_the_parse_cache(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    _skill(root, "codex-explicit", "", {"agents/openai.yaml": CODEX_YAML})
    cache = tmp_path / "cache"
    first = SkillLibrary([root], cache=str(cache)).catalog.get("codex-explicit")
    again = SkillLibrary([root], cache=str(cache)).catalog.get("codex-explicit")
    assert first is not None and again is not None
    assert again.disable_model_invocation and again.metadata == first.metadata
