"""Remote-source benchmark: S3 (moto server on loopback, with and without ~20 ms of latency
per request) and Git, on the synthetic library.

Run from the repository root::

    python bench/bench_sources.py                # N = 1,000
    python bench/bench_sources.py --n 300 --latency-ms 20 --json /tmp/sources.json

S3 compares skillcore's discovery (one listing, ranged GETs of the SKILL.md heads with bounded
concurrency, parsing included) with a serial loop that lists once and then reads each head one
object after another (no parsing). The latency run puts a forwarding proxy in front of the
server that waits ``--latency-ms`` before each request, which is closer to real S3 than
loopback. moto itself costs several milliseconds of CPU per request and serves requests one at
a time (one process, one GIL), which caps any client's speed-up; real S3 serves requests in
parallel. The "replayed" run models that: the proxy answers each GET from a copy of moto's
earlier answer, after the same latency, so only the latency and the client's own work remain.
moto and the proxies run in a child process, apart from the measured client.

Git compares skillcore's reader (and the whole discovery, with parsing) with a direct pygit2
tree walk that reads the same blobs (and the same walk followed by the same parser), plus
fsspec's ``git://`` filesystem for reference.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests" / "sources"))  # the moto server and the latency proxy

from loopback_s3 import CREDENTIALS, FaultProxy, MotoS3  # noqa: E402
from synth import make_library  # noqa: E402
from timing import measure, print_table  # noqa: E402

from skillcore import SkillLibrary, SkillLocation, SkillSource  # noqa: E402
from skillcore.parse.frontmatter import parse_skill_file  # noqa: E402
from skillcore.sources.registry import open_reader  # noqa: E402
from skillcore.sources.source import SKILL_FILE  # noqa: E402

HEAD = 16 * 1024


def _ratio(slow: float, fast: float) -> str:
    return f"{slow / fast:.1f}x"


def _serve(latency_ms: float) -> None:
    """Child process: the moto server and a latency proxy, until stdin closes.

    They run apart from the measured client so they do not compete with it for the GIL.
    """
    moto = MotoS3()
    proxy = FaultProxy(moto.endpoint, latency=latency_ms / 1000)
    replay = FaultProxy(moto.endpoint, latency=latency_ms / 1000)
    replay.replay = True
    endpoints = {"moto": moto.endpoint, "proxy": proxy.endpoint, "replay": replay.endpoint}
    print(json.dumps(endpoints), flush=True)
    sys.stdin.read()
    proxy.close()
    replay.close()
    moto.stop()


def _upload(endpoint: str, bucket: str, root: Path) -> int:
    import boto3

    s3 = boto3.client(
        "s3",
        endpoint_url=endpoint,
        aws_access_key_id=CREDENTIALS["key"],
        aws_secret_access_key=CREDENTIALS["secret"],
        region_name="us-east-1",
    )
    s3.create_bucket(Bucket=bucket)
    files = [p for p in sorted(root.rglob("*")) if p.is_file() and not p.name.startswith(".")]

    def put(path: Path) -> None:
        key = "skills/" + path.relative_to(root).as_posix()
        s3.put_object(Bucket=bucket, Key=key, Body=path.read_bytes())

    with ThreadPoolExecutor(16) as pool:
        list(pool.map(put, files))
    return len(files)


def _serial_s3(endpoint: str, bucket: str) -> int:
    """List once, then read each SKILL.md head one object after another."""
    import fsspec

    fs = fsspec.filesystem("s3", skip_instance_cache=True, endpoint_url=endpoint, **CREDENTIALS)
    keys = [k for k in fs.find(f"{bucket}/skills") if k.endswith("/" + SKILL_FILE)]
    total = 0
    for key in keys:
        total += len(fs.cat_file(key, start=0, end=HEAD))
    return len(keys)


def _skillcore_s3(endpoint: str, bucket: str, concurrency: int) -> int:
    source = SkillSource(
        f"s3://{bucket}/skills",
        storage_options={"endpoint_url": endpoint, "max_concurrency": concurrency, **CREDENTIALS},
    )
    catalog = SkillLibrary([source]).discover()
    assert not catalog.errors, catalog.errors[:3]
    return len(catalog)


def bench_s3(root: Path, n: int, latency_ms: float, concurrency: int) -> list[dict[str, Any]]:
    server = subprocess.Popen(
        [sys.executable, __file__, "--serve", str(latency_ms)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        endpoints = json.loads(server.stdout.readline())
        bucket = "bench-skills"
        t0 = time.perf_counter()
        count = _upload(endpoints["moto"], bucket, root)
        print(f"uploaded {count} objects in {time.perf_counter() - t0:.1f} s", flush=True)
        rows: list[dict[str, Any]] = []
        runs = (
            ("0 ms (moto alone)", endpoints["moto"]),
            (f"{latency_ms:.0f} ms + moto", endpoints["proxy"]),
            (f"{latency_ms:.0f} ms, replayed", endpoints["replay"]),
        )
        for label, endpoint in runs:
            if endpoint == endpoints["replay"]:
                _skillcore_s3(endpoint, bucket, concurrency)  # fill the replay cache
            serial = measure(lambda e=endpoint: _serial_s3(e, bucket), repeat=1, warmup=0)
            ours = measure(
                lambda e=endpoint: _skillcore_s3(e, bucket, concurrency), repeat=3, warmup=1
            )
            assert serial["result"] == ours["result"] == n, (serial["result"], ours["result"])
            rows.append(
                {
                    "S3 latency/request": label,
                    "serial loop (list + GET each head)": f"{serial['median']:.2f} s",
                    f"skillcore discover (concurrency {concurrency})": f"{ours['median']:.2f} s",
                    "speed-up": _ratio(serial["median"], ours["median"]),
                }
            )
        return rows
    finally:
        if server.stdin is not None:
            server.stdin.close()
        server.wait(timeout=30)


def _git_repo(root: Path, work: Path) -> Path:
    repo = work / "repo"
    if (repo / ".git").is_dir():
        return repo
    repo.mkdir(parents=True)
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "bench",
        "GIT_AUTHOR_EMAIL": "bench@example.com",
        "GIT_COMMITTER_NAME": "bench",
        "GIT_COMMITTER_EMAIL": "bench@example.com",
    }

    def run(*args: str) -> None:
        subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)

    run("init", "-q", "-b", "main")
    subprocess.run(["cp", "-r", str(root), str(repo / "skills")], check=True)
    run("add", "-A")
    run("commit", "-qm", "skills")
    run("tag", "v1")
    run("gc", "-q")  # packed objects, as in a cloned repository
    return repo


def _pygit2_walk(repo_path: Path, parse: bool) -> int:
    """What a hand-written pygit2 reader does: resolve, walk, read each SKILL.md blob."""
    import pygit2

    repo = pygit2.Repository(str(repo_path))
    tree = repo[repo.revparse_single("v1").peel(pygit2.Commit).tree["skills"].id]
    count = 0
    for child in tree:
        if child.type_str != "tree":
            continue
        sub = repo[child.id]
        if SKILL_FILE not in sub:
            continue
        data = repo[sub[SKILL_FILE].id].data
        if parse:
            parse_skill_file(
                data[:HEAD],
                directory_name=child.name,
                location=SkillLocation("bench", child.name, child.name),
                path=f"{child.name}/{SKILL_FILE}",
                complete=len(data) <= HEAD,
            )
        count += 1
    return count


def _fsspec_git(repo_path: Path) -> int:
    import fsspec

    fs = fsspec.filesystem("git", path=str(repo_path), ref="v1", skip_instance_cache=True)
    count = 0
    for info in fs.ls("skills", detail=True):
        if info["type"] != "directory":
            continue
        path = f"{info['name']}/{SKILL_FILE}"
        if fs.exists(path):
            fs.cat_file(path, start=0, end=HEAD)
            count += 1
    return count


def bench_git(root: Path, work: Path, n: int) -> list[dict[str, Any]]:
    repo = _git_repo(root, work)
    url = f"git://{repo}@v1/skills"

    def scan_only() -> int:
        return len(open_reader(SkillSource(url)).scan(HEAD, {}).entries)

    def discover() -> int:
        return len(SkillLibrary([url]).discover())

    systems: list[tuple[str, Callable[[], int], int]] = [
        ("pygit2 tree walk, read blobs (hand-written)", lambda: _pygit2_walk(repo, False), 7),
        ("skillcore GitReader.scan (same work)", scan_only, 7),
        ("pygit2 tree walk + parse_skill_file", lambda: _pygit2_walk(repo, True), 7),
        ("skillcore SkillLibrary.discover", discover, 7),
        ("fsspec git:// ls + exists + cat", lambda: _fsspec_git(repo), 3),
    ]
    results = {}
    for name, fn, repeat in systems:
        m = measure(fn, repeat=repeat, warmup=1)
        assert m["result"] == n, (name, m["result"])
        results[name] = m["median"]
    walk = results[systems[0][0]]
    walk_parse = results[systems[2][0]]
    rows = []
    for name, median in results.items():
        base = walk_parse if "parse" in name or "discover" in name else walk
        rows.append(
            {
                f"Git (N = {n})": name,
                "median": f"{median * 1000:.0f} ms",
                "vs the matching pygit2 walk": f"{median / base:.2f}x",
            }
        )
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--latency-ms", type=float, default=20.0)
    parser.add_argument("--concurrency", type=int, default=32)
    default_cache = Path(tempfile.gettempdir()) / "skillcore-bench"
    parser.add_argument("--cache", type=Path, default=default_cache)
    parser.add_argument("--skip-s3", action="store_true")
    parser.add_argument("--skip-git", action="store_true")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--serve", type=float, help=argparse.SUPPRESS)  # internal: server child
    args = parser.parse_args(argv)
    if args.serve is not None:
        _serve(args.serve)
        return
    root = make_library(args.cache / f"synth-{args.n}", args.n)
    out: dict[str, Any] = {"n": args.n}
    if not args.skip_s3:
        rows = bench_s3(root, args.n, args.latency_ms, args.concurrency)
        print_table(rows)
        out["s3"] = rows
    if not args.skip_git:
        rows = bench_git(root, args.cache / f"git-{args.n}", args.n)
        print()
        print_table(rows)
        out["git"] = rows
    if args.json:
        args.json.write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
