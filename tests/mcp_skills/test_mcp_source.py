"""MCP skill servers as a source: listing, verified lazy reads, names, a server that is down."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from skillcore import Code, OutcomeCode, SkillLibrary, SkillToolkit
from skillcore.apps.mcp_server import SkillMCPServer
from skillcore.model import SkillMetadata
from skillcore.sources.mcp import InvalidEntry, McpReader, mcp_source, parse_entry

from .conftest import HttpServer, write_skill


class CountingServer(SkillMCPServer):
    """Counts file reads and can lie about one file (a tampered or stale listing)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.reads: list[str] = []
        self.lie: dict[str, Any] = {}

    async def _read_resource(self, ctx: Any, params: Any) -> Any:
        self.reads.append(str(params.uri))
        return await super()._read_resource(ctx, params)

    def skill_entry(self, meta: SkillMetadata) -> dict[str, Any]:
        entry = super().skill_entry(meta)
        if meta.name in self.lie:
            self.lie[meta.name](entry)
        return entry


def _library(server: SkillMCPServer, **options: Any) -> SkillLibrary:
    return SkillLibrary([mcp_source(server.server, label="remote", **options)])


def test_catalog_from_listing_and_lazy_verified_reads(skills_dir: Path) -> None:
    server = CountingServer(SkillLibrary(str(skills_dir)))
    lib = _library(server)
    assert set(lib.catalog.names) == set(server.library.catalog.names)
    assert server.reads == []  # discovery fetches no file
    toolkit = SkillToolkit(lib)
    result = toolkit.call(lib.session(), "load_skill", {"skill_name": "csv-data-audit"})
    assert result.code is OutcomeCode.LOADED
    body = (skills_dir / "csv-data-audit" / "SKILL.md").read_text().split("---", 2)[2]
    assert body.strip()[:40] in result.text
    assert server.reads == ["skill://csv-data-audit/SKILL.md"]
    path = result.session.loaded[0].resources[0].path
    res = toolkit.call(
        result.session, "load_skill_resource", {"skill_name": "csv-data-audit", "path": path}
    )
    assert res.code is OutcomeCode.RESOURCE_READ
    assert (skills_dir / "csv-data-audit" / path).read_text()[:30] in res.text
    unlisted = toolkit.call(
        result.session,
        "load_skill_resource",
        {"skill_name": "csv-data-audit", "path": "not/listed.md"},
    )
    assert unlisted.code is OutcomeCode.RESOURCE_NOT_FOUND
    assert len(server.reads) == 2  # the unlisted file was never requested


def _wrong_digest(entry: dict[str, Any]) -> None:
    entry["resources"][0]["digest"] = "sha256:" + hashlib.sha256(b"other").hexdigest()


def _wrong_size(entry: dict[str, Any]) -> None:
    entry["resources"][0]["size"] += 1


def _other_frontmatter(entry: dict[str, Any]) -> None:
    entry["frontmatter"]["description"] = "Something else entirely."


def test_content_that_does_not_verify_is_refused(skills_dir: Path) -> None:
    server = CountingServer(SkillLibrary(str(skills_dir)))
    server.lie = {
        "csv-data-audit": _wrong_digest,
        "release-notes": _wrong_size,
        "python-testing": _other_frontmatter,
    }
    lib = _library(server)
    toolkit = SkillToolkit(lib)
    for name, words in [
        ("csv-data-audit", "digest"),
        ("release-notes", "digest and size"),
        ("python-testing", "frontmatter"),
    ]:
        session = lib.session()
        result = toolkit.call(session, "load_skill", {"skill_name": name})
        assert result.code is OutcomeCode.READ_FAILED, name
        assert words in result.text and "refused" in result.text
        assert result.session == session  # nothing lost
    # The rest of the catalog still loads.
    ok = toolkit.call(lib.session(), "load_skill", {"skill_name": "git-commit-hygiene"})
    assert ok.code is OutcomeCode.LOADED


def test_invalid_entries_are_left_out_with_a_diagnostic(skills_dir: Path) -> None:
    server = CountingServer(SkillLibrary(str(skills_dir)))

    def outside(entry: dict[str, Any]) -> None:
        entry["resources"].append(
            {"uri": "skill://elsewhere/x.md", "digest": "sha256:" + "0" * 64, "size": 1}
        )

    def no_files(entry: dict[str, Any]) -> None:
        del entry["resources"]

    server.lie = {"csv-data-audit": outside, "release-notes": no_files}
    lib = _library(server)
    assert "csv-data-audit" not in lib.catalog and "release-notes" not in lib.catalog
    assert "python-testing" in lib.catalog
    messages = [d.message for d in lib.catalog.diagnostics if d.code is Code.INVALID_TYPE]
    assert any("outside the skill" in m for m in messages)
    assert any("resources must be" in m for m in messages)


def test_dynamic_skills_are_refused_unless_allowed(skills_dir: Path) -> None:
    server = CountingServer(SkillLibrary(str(skills_dir)))
    server.lie = {"release-notes": lambda e: e.__setitem__("resources", "dynamic")}
    strict = _library(server)
    refused = SkillToolkit(strict).call(
        strict.session(), "load_skill", {"skill_name": "release-notes"}
    )
    assert refused.code is OutcomeCode.READ_FAILED and "dynamic" in refused.text
    allowed = _library(server, allow_dynamic=True)
    loaded = SkillToolkit(allowed).call(
        allowed.session(), "load_skill", {"skill_name": "release-notes"}
    )
    assert loaded.code is OutcomeCode.LOADED


def _entry(path: str, name: str) -> dict[str, Any]:
    uri = f"skill://{path}/SKILL.md"
    return {
        "uri": uri,
        "frontmatter": {"name": name, "description": "d"},
        "resources": [{"uri": uri, "digest": "sha256:" + "a" * 64, "size": 10}],
    }


def test_colliding_names_are_disambiguated_and_namespaced() -> None:
    reader = McpReader(mcp_source(None, label="x", namespace="team"), None)
    entries = [parse_entry(_entry(p, "refunds")) for p in ("acme/billing/refunds", "refunds")]
    diags: list[Any] = []
    names = sorted(e.local_name for e in reader._names(entries, diags))
    assert names == ["team-acme-billing-refunds", "team-refunds"]
    assert [d.code for d in diags] == [Code.DUPLICATE_NAME, Code.DUPLICATE_NAME]


def test_namespace_keeps_two_servers_apart(tmp_path: Path) -> None:
    write_skill(tmp_path / "a", "shared", "From server A.")
    write_skill(tmp_path / "b", "shared", "From server B.")
    a = SkillMCPServer(SkillLibrary(str(tmp_path / "a")))
    b = SkillMCPServer(SkillLibrary(str(tmp_path / "b")))
    lib = SkillLibrary(
        [
            mcp_source(a.server, label="a", namespace="a"),
            mcp_source(b.server, label="b", namespace="b"),
        ]
    )
    assert sorted(lib.catalog.names) == ["a-shared", "b-shared"]
    result = SkillToolkit(lib).call(lib.session(), "load_skill", {"skill_name": "b-shared"})
    assert result.code is OutcomeCode.LOADED


@settings(max_examples=60)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=20),
        lambda inner: (
            st.lists(inner, max_size=4)
            | st.dictionaries(
                st.sampled_from(["uri", "frontmatter", "resources", "name", "digest", "size"]),
                inner,
                max_size=5,
            )
        ),
        max_leaves=20,
    )
)
def test_parse_entry_never_fails_with_anything_but_invalid_entry(raw: Any) -> None:
    try:
        entry = parse_entry(raw)
    except InvalidEntry:
        return
    assert entry.uri.endswith("/SKILL.md")


def test_stdio_url_source(skills_dir: Path) -> None:
    url = f"mcp+stdio://{sys.executable} -m skillcore mcp {skills_dir}"
    import os

    from .conftest import server_env

    lib = SkillLibrary(
        [__import__("skillcore").SkillSource(url, storage_options={"env": server_env()})]
    )
    try:
        assert "csv-data-audit" in lib.catalog
        result = SkillToolkit(lib).call(
            lib.session(), "load_skill", {"skill_name": "csv-data-audit"}
        )
        assert result.code is OutcomeCode.LOADED
    finally:
        lib.reader(lib.sources[0]).close()  # type: ignore[attr-defined]
    assert os.path.isdir(skills_dir)


def test_http_source_keeps_last_good_catalog_when_down(skills_dir: Path) -> None:
    server = HttpServer(str(skills_dir))
    try:
        url = "mcp+http" + server.url[len("http") :]
        lib = SkillLibrary([url])
        names = lib.catalog.names
        assert "release-notes" in names
        assert not [d for d in lib.catalog.diagnostics if d.code is Code.SOURCE_STALE]
    finally:
        server.stop()
    catalog = lib.refresh()
    assert catalog.names == names
    stale = [d for d in catalog.diagnostics if d.code is Code.SOURCE_STALE]
    assert stale and "keeping" in stale[0].message
    failed = SkillToolkit(lib).call(lib.session(), "load_skill", {"skill_name": "release-notes"})
    assert failed.code is OutcomeCode.READ_FAILED
    lib.reader(lib.sources[0]).close()  # type: ignore[attr-defined]
