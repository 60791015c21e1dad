"""Shapes of ``SKILL.md`` seen in published skill repositories, rebuilt from synthetic text.

Each test pins behaviour that a real-world file exercised: Windows line endings, a byte-order
mark, unquoted colons, YAML flow lists and odd directory names.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from skillcore import Code, Severity, SkillLibrary, SkillToolkit
from skillcore.apps.cli import main
from skillcore.parse.document import body_of

BODY = "# Title\n\nFirst step.\n\n```\ncode\n```\n"
LF = f"---\nname: crlf-skill\ndescription: Written on Windows.\n---\n\n{BODY}"
CRLF = LF.replace("\n", "\r\n")


def write(root: Path, directory: str, data: bytes) -> None:
    (root / directory).mkdir(parents=True, exist_ok=True)
    (root / directory / "SKILL.md").write_bytes(data)


def test_crlf_body_has_no_stray_carriage_returns_at_its_edges() -> None:
    # Before the fix the CRLF body began with "\r\n" and ended with "\r".
    assert body_of(LF) == BODY.strip("\n")
    assert body_of(CRLF) == BODY.strip("\n").replace("\n", "\r\n")


@pytest.mark.parametrize("bom", [b"", b"\xef\xbb\xbf"])
def test_crlf_skill_loads_like_its_lf_twin(tmp_path: Path, bom: bytes) -> None:
    write(tmp_path / "lf", "crlf-skill", LF.encode())
    write(tmp_path / "crlf", "crlf-skill", bom + CRLF.encode())
    replies = []
    for src in ("lf", "crlf"):
        lib = SkillLibrary([tmp_path / src])
        assert lib.discover().diagnostics == ()
        toolkit = SkillToolkit(lib)
        result = toolkit.call(lib.session(), "load_skill", {"skill_name": "crlf-skill"})
        assert result.ok
        replies.append(result.text.split("</skill_content>")[0])
    lf_reply, crlf_reply = replies
    assert crlf_reply.startswith('<skill_content name="crlf-skill">\n# Title')
    assert crlf_reply.replace("\r\n", "\n") == lf_reply


def test_crlf_with_unquoted_colon_uses_the_fallback(tmp_path: Path) -> None:
    text = "---\r\nname: colon\r\ndescription: Docs - 3 stages: plan, write, test\r\n---\r\nB\r\n"
    write(tmp_path, "colon", text.encode())
    lib = SkillLibrary([tmp_path])
    cat = lib.discover()
    assert cat.get("colon").description == "Docs - 3 stages: plan, write, test"
    assert [d.code for d in cat.diagnostics] == [Code.YAML_FALLBACK]
    assert lib.read_document("colon").body == "B"


def test_real_world_frontmatter_variants_in_lenient_mode(tmp_path: Path) -> None:
    write(tmp_path, " lead-space", b"---\nname: lead-space\ndescription: D.\n---\nB\n")
    flow = b"---\nname: ns:cmd\ndescription: D.\nallowed-tools: [A, 'B(*)']\n---\n"
    write(tmp_path, "ns-cmd", flow)
    write(tmp_path, "no-name", b'---\ndescription: "D."\nallowed-tools: A, Bash(cat *)\n---\n')
    write(tmp_path, "Spaced", b"---\nname: Spaced Name\ndescription: D.\n---\n")
    cat = SkillLibrary([tmp_path]).discover()
    assert set(cat.names) == {"lead-space", "ns:cmd", "no-name"}
    assert cat.get("ns:cmd").allowed_tools == ("A", "B(*)")
    assert cat.get("no-name").allowed_tools == ("A", "Bash(cat *)")
    codes = {(d.path.split("/")[0], d.code, d.severity) for d in cat.diagnostics}
    assert codes == {
        (" lead-space", Code.NAME_MISMATCH, Severity.WARNING),
        ("ns-cmd", Code.INVALID_NAME, Severity.WARNING),
        ("ns-cmd", Code.NAME_MISMATCH, Severity.WARNING),
        ("no-name", Code.MISSING_FIELD, Severity.WARNING),
        ("Spaced", Code.INVALID_NAME, Severity.ERROR),
    }


def test_cli_show_body_of_a_crlf_skill(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path, "crlf-skill", CRLF.encode())
    assert main(["show", "crlf-skill", str(tmp_path), "--body"]) == 0
    out = capsys.readouterr().out
    body = out.split("resources:")[1].split("\n", 2)[2]
    assert body.startswith("# Title")
