"""S3 sources against a real S3 server (moto) on loopback, read through s3fs and botocore.

Faults are real: a server that stops, an object deleted between listing and reading, an IAM
policy that denies one key, unknown credentials, a missing bucket, slow responses. A small
forwarding proxy in front of the server counts requests, adds delay and stops on cue.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from loopback_s3 import FaultProxy, MotoS3
from source_helpers import make_tree, s3_options, write_skill

from skillcore import (
    Code,
    MissingDependencyError,
    OutcomeCode,
    ReadError,
    Severity,
    SkillLibrary,
    SkillSource,
    SkillToolkit,
)
from skillcore.sources.registry import open_reader


def _s3_source(bucket: str, endpoint: str, prefix: str = "skills", **opts: object) -> SkillSource:
    url = f"s3://{bucket}/{prefix}" if prefix else f"s3://{bucket}"
    return SkillSource(url, storage_options=s3_options(endpoint, **opts))


def _codes(catalog: object, code: Code) -> list:
    return [d for d in catalog.diagnostics if d.code is code]  # type: ignore[attr-defined]


@pytest.fixture
def library_bucket(moto_s3: MotoS3, tmp_path: Path) -> str:
    bucket = moto_s3.new_bucket()
    make_tree(tmp_path / "tree", 12)
    moto_s3.upload_tree(bucket, "skills", tmp_path / "tree")
    return bucket


def test_discovery_lists_once_and_fetches_heads_concurrently(
    library_bucket: str, proxy: FaultProxy
) -> None:
    proxy.latency = 0.05  # every request waits, so overlapping requests are observable
    lib = SkillLibrary([_s3_source(library_bucket, proxy.endpoint, max_concurrency=4)])
    catalog = lib.discover()
    assert catalog.names == tuple(f"skill-{i:03d}" for i in range(12))
    assert catalog.diagnostics == ()
    lists = [r for r in proxy.requests() if "list-type=2" in r[1]]
    gets = [r for r in proxy.requests() if "list-type=2" not in r[1]]
    assert len(lists) == 1  # the prefix is listed once, not per directory
    assert len(gets) == 12 and all(r[0] == "GET" for r in gets)  # no HEAD requests
    assert all(r[2].get("Range") == "bytes=0-16383" for r in gets)  # heads only
    assert 1 < proxy.max_in_flight <= 4  # concurrent, and bounded by max_concurrency
    assert catalog.get("skill-007").location.url == f"s3://{library_bucket}/skills/skill-007"


def test_async_discovery(library_bucket: str, moto_s3: MotoS3) -> None:
    lib = SkillLibrary([_s3_source(library_bucket, moto_s3.endpoint)])

    async def run() -> tuple[int, str]:
        # s3fs runs on its own loop thread; the caller's loop only awaits one thread hop.
        catalog = await lib.adiscover()
        doc = await lib.aread_document("skill-004")
        res = await lib.aread_resource("skill-004", "references/guide.md")
        return len(catalog), f"{doc.name}:{res.text}"

    assert anyio.run(run) == (12, "skill-004:guide 4\n")


def test_documents_and_resources(moto_s3: MotoS3, tmp_path: Path) -> None:
    bucket = moto_s3.new_bucket()
    write_skill(
        tmp_path,
        "pdf-tools",
        body="Run scripts/fill.py.\n",
        files={
            "scripts/fill.py": "print('fill')\n",
            "assets/logo.png": b"\x89PNG\x00\x00binary",
            "references/big.md": "x" * 5000,
            "references/empty.md": "",
        },
    )
    (tmp_path / "empty-skill").mkdir()
    (tmp_path / "empty-skill" / "SKILL.md").write_bytes(b"")
    moto_s3.upload_tree(bucket, "team/skills", tmp_path)
    lib = SkillLibrary([_s3_source(bucket, moto_s3.endpoint, "team/skills")])
    catalog = lib.discover()
    assert catalog.names == ("pdf-tools",)
    assert [d.code for d in catalog.diagnostics] == [Code.EMPTY_FILE]  # not a read error
    doc = lib.read_document("pdf-tools")
    assert doc.body.strip() == "Run scripts/fill.py."
    assert [r.path for r in doc.resources] == [
        "assets/logo.png",
        "references/big.md",
        "references/empty.md",
        "scripts/fill.py",
    ]
    assert lib.read_resource("pdf-tools", "scripts/fill.py").text == "print('fill')\n"
    assert lib.read_resource("pdf-tools", "assets/logo.png").binary
    assert lib.read_resource("pdf-tools", "references/empty.md").text == ""
    with pytest.raises(ReadError) as too_large:
        lib.read_resource("pdf-tools", "references/big.md", max_bytes=1000)
    assert too_large.value.code is OutcomeCode.TOO_LARGE
    with pytest.raises(ReadError) as missing:
        lib.read_resource("pdf-tools", "scripts/nope.py")
    assert missing.value.code is OutcomeCode.RESOURCE_NOT_FOUND
    with pytest.raises(ReadError) as escape:
        lib.read_resource("pdf-tools", "../../other/secret.txt")
    assert escape.value.code is OutcomeCode.PATH_REJECTED


def test_refresh_rereads_only_what_changed(
    library_bucket: str, moto_s3: MotoS3, proxy: FaultProxy
) -> None:
    lib = SkillLibrary([_s3_source(library_bucket, proxy.endpoint)])
    first = lib.discover()
    proxy.reset_log()
    assert lib.refresh() is first  # nothing changed: the very same catalog
    assert len(proxy.requests()) == 1  # one listing, no GET

    s3 = moto_s3.client()
    key = "skills/skill-005/SKILL.md"
    s3.put_object(
        Bucket=library_bucket,
        Key=key,
        Body=b"---\nname: skill-005\ndescription: Rewritten description.\n---\nNew body\n",
    )
    s3.delete_object(Bucket=library_bucket, Key="skills/skill-006/SKILL.md")
    s3.put_object(
        Bucket=library_bucket,
        Key="skills/fresh/SKILL.md",
        Body=b"---\nname: fresh\ndescription: A new skill.\n---\n",
    )
    proxy.reset_log()
    second = lib.refresh()
    gets = sorted(
        r[1].rsplit("/skills/", 1)[-1] for r in proxy.requests() if "list-type" not in r[1]
    )
    assert gets == ["fresh/SKILL.md", "skill-005/SKILL.md"]  # only the changed heads
    assert second is not first
    assert second.get("skill-005").description == "Rewritten description."
    assert "skill-006" not in second and "fresh" in second
    assert second.get("skill-010") is first.get("skill-010")  # unchanged skills are reused


def test_server_stopped_in_the_middle_of_discovery(tmp_path: Path, moto_s3: MotoS3) -> None:
    server = MotoS3()  # a server of our own to stop (moto's state is shared in-process)
    bucket = server.new_bucket()
    make_tree(tmp_path, 16)
    server.upload_tree(bucket, "skills", tmp_path)
    proxy = FaultProxy(server.endpoint)
    proxy.stop_after = 6  # the listing and 5 GETs are answered, then the server is gone
    proxy.on_stop = server.stop
    try:
        lib = SkillLibrary([_s3_source(bucket, proxy.endpoint, max_concurrency=4, max_attempts=1)])
        catalog = lib.discover()
        assert len(catalog) == 5  # everything that could be read is usable
        failed = _codes(catalog, Code.READ_FAILED)
        assert len(failed) == 11
        assert all("endpoint could not be reached" in d.message for d in failed)
        assert {d.path for d in failed} | {f"{m.location.directory}/SKILL.md" for m in catalog} == {
            f"skill-{i:03d}/SKILL.md" for i in range(16)
        }
        loaded = catalog.names[0]
        # A later refresh with the server still down keeps the last good skills.
        again = lib.refresh()
        assert again.names == catalog.names
        (stale,) = _codes(again, Code.SOURCE_STALE)
        assert "keeping its 5 skill files" in stale.message
        assert "could not be reached" in stale.message
        with pytest.raises(ReadError) as exc:
            lib.read_resource(loaded, "references/guide.md")
        assert exc.value.code is OutcomeCode.READ_FAILED
    finally:
        proxy.close()
        server.stop()


def test_nothing_loaded_is_lost_when_the_server_goes_away(
    library_bucket: str, moto_s3: MotoS3
) -> None:
    proxy = FaultProxy(moto_s3.endpoint)
    try:
        lib = SkillLibrary([_s3_source(library_bucket, proxy.endpoint, max_attempts=1)])
        toolkit = SkillToolkit(lib)
        session = lib.session()
        result = toolkit.call(session, "load_skill", {"skill_name": "skill-003"})
        assert result.ok
        session = result.session
        proxy.stop()
        catalog = lib.refresh()
        assert _codes(catalog, Code.SOURCE_STALE)
        restored = lib.restore(session.to_state())
        assert restored.loaded_names == ("skill-003",)
        assert "skill-003" in catalog and len(catalog) == 12
        failed = toolkit.call(
            restored,
            "load_skill_resource",
            {"skill_name": "skill-003", "path": "references/guide.md"},
        )
        assert failed.code is OutcomeCode.READ_FAILED
        assert failed.session.loaded_names == ("skill-003",)
    finally:
        proxy.close()


def test_listed_object_gone_when_read_404(
    library_bucket: str, moto_s3: MotoS3, proxy: FaultProxy
) -> None:
    s3 = moto_s3.client()

    def delete_first(method: str, path: str) -> None:
        if path.endswith("/skills/skill-003/SKILL.md"):
            # Deleted on the real server after the listing, just before the GET.
            s3.delete_object(Bucket=library_bucket, Key="skills/skill-003/SKILL.md")

    proxy.before = delete_first
    catalog = SkillLibrary([_s3_source(library_bucket, proxy.endpoint)]).discover()
    assert len(catalog) == 11 and "skill-003" not in catalog
    (diag,) = catalog.diagnostics
    assert diag.code is Code.READ_FAILED and diag.severity is Severity.ERROR
    assert diag.path == "skill-003/SKILL.md"
    assert "listed, but gone when read" in diag.message


def _iam_user(moto_s3: MotoS3, bucket: str) -> dict[str, str]:
    iam = moto_s3.client("iam")
    user = f"reader-{bucket}"
    iam.create_user(UserName=user)
    policy = {
        "Version": "2012-10-17",
        "Statement": [
            {"Effect": "Allow", "Action": "s3:*", "Resource": "*"},
            {
                "Effect": "Deny",
                "Action": "s3:GetObject",
                "Resource": f"arn:aws:s3:::{bucket}/locked/*",
            },
        ],
    }
    iam.put_user_policy(UserName=user, PolicyName="read", PolicyDocument=json.dumps(policy))
    key = iam.create_access_key(UserName=user)["AccessKey"]
    return {"key": key["AccessKeyId"], "secret": key["SecretAccessKey"]}


@pytest.fixture
def auth_bucket(moto_s3: MotoS3, tmp_path: Path) -> tuple[str, dict[str, str]]:
    bucket = moto_s3.new_bucket("auth")
    for name in ("open-one", "open-two", "locked"):
        write_skill(tmp_path, name)
    # Skills at the bucket root: moto's signature check mis-handles listings with a prefix.
    moto_s3.upload_tree(bucket, "", tmp_path)
    creds = _iam_user(moto_s3, bucket)
    moto_s3.set_auth(True)
    yield bucket, creds
    moto_s3.set_auth(False)


def test_one_object_access_denied_403(
    auth_bucket: tuple[str, dict[str, str]], moto_s3: MotoS3
) -> None:
    bucket, creds = auth_bucket
    source = SkillSource(
        f"s3://{bucket}", storage_options={"endpoint_url": moto_s3.endpoint, **creds}
    )
    catalog = SkillLibrary([source]).discover()
    assert catalog.names == ("open-one", "open-two")
    (diag,) = catalog.diagnostics
    assert diag.code is Code.READ_FAILED and diag.path == "locked/SKILL.md"
    assert "access denied" in diag.message


@pytest.mark.parametrize(
    ("creds", "expected"),
    [
        ({"key": "AKIAUNKNOWNKEY000000", "secret": "whatever"}, "InvalidAccessKeyId"),
        (None, "SignatureDoesNotMatch"),  # a real key with the wrong secret
    ],
)
def test_wrong_credentials(
    auth_bucket: tuple[str, dict[str, str]],
    moto_s3: MotoS3,
    creds: dict[str, str] | None,
    expected: str,
) -> None:
    bucket, good = auth_bucket
    creds = creds or {"key": good["key"], "secret": "wrong-secret"}
    source = SkillSource(
        f"s3://{bucket}", storage_options={"endpoint_url": moto_s3.endpoint, **creds}
    )
    catalog = SkillLibrary([source]).discover()
    assert len(catalog) == 0
    (diag,) = catalog.diagnostics
    assert diag.code is Code.SOURCE_UNREACHABLE and diag.severity is Severity.ERROR
    assert f"cannot list s3://{bucket}: access denied" in diag.message
    assert expected in diag.message and "check the credentials" in diag.message


def test_bucket_does_not_exist(moto_s3: MotoS3) -> None:
    catalog = SkillLibrary([_s3_source("no-such-bucket-here", moto_s3.endpoint)]).discover()
    (diag,) = catalog.diagnostics
    assert diag.code is Code.SOURCE_UNREACHABLE
    assert "bucket 'no-such-bucket-here' does not exist" in diag.message


def test_empty_prefix_is_reported(library_bucket: str, moto_s3: MotoS3) -> None:
    catalog = SkillLibrary([_s3_source(library_bucket, moto_s3.endpoint, "typo")]).discover()
    (diag,) = catalog.diagnostics
    assert diag.code is Code.SOURCE_UNREACHABLE and "no objects under" in diag.message


def test_dead_endpoint_fails_with_a_diagnostic(library_bucket: str) -> None:
    import socket

    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    catalog = SkillLibrary(
        [_s3_source(library_bucket, f"http://127.0.0.1:{port}", max_attempts=1)]
    ).discover()
    (diag,) = catalog.diagnostics
    assert diag.code is Code.SOURCE_UNREACHABLE
    assert "the endpoint could not be reached (EndpointConnectionError" in diag.message


def test_slow_response_times_out_and_the_rest_is_read(
    library_bucket: str, proxy: FaultProxy
) -> None:
    proxy.delay_for = lambda method, path: 8.0 if path.endswith("skill-002/SKILL.md") else 0.0
    lib = SkillLibrary(
        [_s3_source(library_bucket, proxy.endpoint, read_timeout=1.5, max_attempts=1)]
    )
    catalog = lib.discover()
    assert len(catalog) == 11 and "skill-002" not in catalog
    (diag,) = catalog.diagnostics
    assert diag.code is Code.READ_FAILED and diag.path == "skill-002/SKILL.md"
    assert "did not answer in time" in diag.message


def test_refresh_keeps_a_skill_whose_new_version_cannot_be_read(
    library_bucket: str, moto_s3: MotoS3, proxy: FaultProxy
) -> None:
    lib = SkillLibrary(
        [_s3_source(library_bucket, proxy.endpoint, read_timeout=1.5, max_attempts=1)]
    )
    before = lib.discover().get("skill-009")
    moto_s3.client().put_object(
        Bucket=library_bucket,
        Key="skills/skill-009/SKILL.md",
        Body=b"---\nname: skill-009\ndescription: Changed.\n---\n",
    )
    proxy.delay_for = lambda method, path: 8.0 if path.endswith("skill-009/SKILL.md") else 0.0
    catalog = lib.refresh()
    assert catalog.get("skill-009") == before  # the last good version, not a hole
    (diag,) = catalog.diagnostics
    assert diag.code is Code.SKILL_STALE and diag.severity is Severity.WARNING
    assert diag.path == "skill-009/SKILL.md" and "keeping the last good version" in diag.message
    proxy.delay_for = None
    assert lib.refresh().get("skill-009").description == "Changed."


def test_fsspec_cache_chain_still_works(library_bucket: str, moto_s3: MotoS3) -> None:
    source = SkillSource(
        f"simplecache::s3://{library_bucket}/skills",
        storage_options={"s3": s3_options(moto_s3.endpoint, skip_instance_cache=True)},
    )
    lib = SkillLibrary([source])
    assert len(lib.discover()) == 12
    assert lib.read_resource("skill-001", "references/guide.md").text == "guide 1\n"


def test_missing_s3fs_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "s3fs", None)  # as if it were not installed
    with pytest.raises(ImportError, match=r'pip install "skillcore-agents\[s3\]"') as exc:
        open_reader(SkillSource("s3://bucket/skills"))
    assert isinstance(exc.value, MissingDependencyError)
    # Where the user names the source: refused at once, not a library without skills.
    with pytest.raises(MissingDependencyError, match=r'pip install "skillcore-agents\[s3\]"'):
        SkillLibrary(["s3://bucket/skills"])


def test_import_skillcore_loads_no_backend() -> None:
    code = (
        "import sys, skillcore\n"
        "heavy = [m for m in sys.modules if m.split('.')[0] in "
        "('s3fs', 'botocore', 'aiobotocore', 'pygit2') or m.startswith('skillcore.sources')]\n"
        "print(heavy)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


@pytest.mark.parametrize("chain", [False, True], ids=["s3", "simplecache-chain"])
def test_nested_storage_options_reach_s3fs_as_plain_values(
    library_bucket: str, moto_s3: MotoS3, chain: bool
) -> None:
    """``client_kwargs`` / ``config_kwargs`` are dicts: s3fs copies and updates them, so they
    must arrive as plain dicts, not the frozen mappings a SkillSource keeps."""
    nested = {
        "client_kwargs": {"region_name": "us-east-1"},
        "config_kwargs": {"s3": {"addressing_style": "path"}},
    }
    if chain:
        opts = {"s3": s3_options(moto_s3.endpoint, skip_instance_cache=True, **nested)}
        source = SkillSource(f"simplecache::s3://{library_bucket}/skills", storage_options=opts)
    else:
        source = _s3_source(library_bucket, moto_s3.endpoint, **nested)
    lib = SkillLibrary([source])
    catalog = lib.discover()
    assert len(catalog) == 12, catalog.diagnostics
    assert lib.read_resource("skill-001", "references/guide.md").text == "guide 1\n"
    plain = source.fsspec_options()
    inner = plain["s3"] if chain else plain
    assert type(inner["client_kwargs"]) is dict and inner["client_kwargs"]["region_name"]
    inner["client_kwargs"]["region_name"] = "changed"  # a copy: the source is unchanged
    assert "changed" not in str(source.storage_options)
