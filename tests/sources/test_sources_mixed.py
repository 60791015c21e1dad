"""S3, Git and local sources in one library, and the CLI on remote and packaged sources."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from loopback_s3 import FaultProxy, MotoS3
from source_helpers import git, s3_options, write_skill

from skillcore import Code, SkillLibrary, SkillSource, SkillToolkit
from skillcore.apps.cli import main


def test_one_catalog_from_s3_git_and_local(moto_s3: MotoS3, tmp_path: Path) -> None:
    bucket = moto_s3.new_bucket()
    s3_tree = tmp_path / "s3"
    write_skill(s3_tree, "from-s3", files={"references/s3.md": "read from S3\n"})
    write_skill(s3_tree, "shared", "Shared, S3 version.")
    moto_s3.upload_tree(bucket, "skills", s3_tree)

    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    write_skill(repo / "skills", "from-git", files={"scripts/run.sh": "echo git\n"})
    write_skill(repo / "skills", "shared", "Shared, Git version.")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "v1")
    git(repo, "tag", "v1")
    write_skill(repo / "skills", "from-git", "Changed after v1.")  # not committed at v1

    local = tmp_path / "local"
    write_skill(local, "from-local", files={"assets/t.txt": "local asset\n"})
    write_skill(local, "shared", "Shared, local version.")

    lib = SkillLibrary(
        [
            SkillSource(f"s3://{bucket}/skills", storage_options=s3_options(moto_s3.endpoint)),
            f"git://{repo}@v1/skills",
            str(local),
        ]
    )
    catalog = lib.discover()
    assert set(catalog.names) == {"from-s3", "from-git", "from-local", "shared"}
    assert catalog.get("shared").description == "Shared, local version."  # last one wins
    shadowed = [d for d in catalog.diagnostics if d.code is Code.SHADOWED]
    assert len(shadowed) == 2 and len(catalog.diagnostics) == 2
    assert catalog.get("from-git").description == "Use from-git when the user needs from git."

    toolkit = SkillToolkit(lib)
    session = lib.session()
    reads = {
        "from-s3": ("references/s3.md", "read from S3\n"),
        "from-git": ("scripts/run.sh", "echo git\n"),
        "from-local": ("assets/t.txt", "local asset\n"),
    }
    for name, (path, text) in reads.items():
        loaded = toolkit.call(session, "load_skill", {"skill_name": name})
        assert loaded.ok, loaded.text
        assert path in loaded.text  # the resource listing is part of what the model sees
        session = loaded.session
        resource = toolkit.call(session, "load_skill_resource", {"skill_name": name, "path": path})
        assert resource.ok and text in resource.text
    assert set(session.loaded_names) == set(reads)
    assert lib.refresh() is catalog


def test_zip_bundle_stored_in_s3(moto_s3: MotoS3, proxy: FaultProxy, tmp_path: Path) -> None:
    bucket = moto_s3.new_bucket()
    buf = tmp_path / "bundle.zip"
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("pkg/one/SKILL.md", "---\nname: one\ndescription: One.\n---\nBody.\n")
        zf.writestr("pkg/one/references/r.md", "from a zip in S3\n")
    moto_s3.client().put_object(Bucket=bucket, Key="bundles/v1.zip", Body=buf.read_bytes())
    source = SkillSource(
        f"zip://pkg::s3://{bucket}/bundles/v1.zip",
        storage_options=s3_options(proxy.endpoint, skip_instance_cache=True),
    )
    lib = SkillLibrary([source])
    assert lib.discover().names == ("one",)
    assert lib.read_resource("one", "references/r.md").text == "from a zip in S3\n"
    proxy.reset_log()
    assert lib.refresh() is lib.catalog
    # The archive's ETag did not change: it is checked, not downloaded again.
    assert [r[0] for r in proxy.requests()] == ["HEAD"]


@pytest.fixture
def git_and_zip(tmp_path: Path) -> tuple[str, str]:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    write_skill(repo / "skills", "git-skill", files={"references/r.md": "r\n"})
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "one")
    git(repo, "tag", "v1")
    bundle = tmp_path / "bundle.zip"
    with zipfile.ZipFile(bundle, "w") as zf:
        zf.writestr("zip-skill/SKILL.md", "---\nname: zip-skill\ndescription: From a zip.\n---\n")
        zf.writestr("../evil/SKILL.md", "---\nname: evil\ndescription: x\n---\n")
    return f"git://{repo}@v1/skills", str(bundle)


def test_cli_lists_git_and_zip_sources(
    git_and_zip: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    git_url, bundle = git_and_zip
    assert main(["list", git_url, bundle, "--json"]) == 1  # listed; the zip-slip entry: 1
    listed = json.loads(capsys.readouterr().out)
    assert [(s["name"], s["source"]) for s in listed] == [
        ("zip-skill", bundle),
        ("git-skill", git_url),
    ]
    assert main(["show", "git-skill", git_url]) == 0
    out = capsys.readouterr().out
    assert f"{git_url}/git-skill" in out  # the location, with the ref
    assert "references/r.md (reference, 2 bytes)" in out
    assert main(["validate", bundle]) == 1  # the zip-slip entry is an error
    out = capsys.readouterr().out
    assert "error   UNSAFE_PATH " in out
    assert "/../evil/SKILL.md: archive entry rejected: the name contains '..'" in out


def test_cli_reads_s3_with_the_standard_aws_environment(moto_s3: MotoS3, tmp_path: Path) -> None:
    bucket = moto_s3.new_bucket()
    write_skill(tmp_path, "cli-s3")
    moto_s3.upload_tree(bucket, "skills", tmp_path)
    env = {
        **os.environ,
        "AWS_ENDPOINT_URL": moto_s3.endpoint,
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
    }
    proc = subprocess.run(
        [sys.executable, "-m", "skillcore.apps.cli", "list", f"s3://{bucket}/skills", "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert [s["name"] for s in json.loads(proc.stdout)] == ["cli-s3"]
