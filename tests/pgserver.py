"""A throwaway PostgreSQL cluster for tests: initdb in a temporary directory, a server on a
free loopback port, stopped and removed afterwards. PostgreSQL refuses to run as root, so as
root the cluster belongs to the unprivileged ``nobody`` user (``runuser``).

The server goes away with the process that started it, however that process ends: a small
watcher process stops it once its owner is gone, and each start also stops the servers
whose owner died (their folder records the owner's pid)."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BIN_DIRS = ("/usr/local/bin", "/usr/lib/postgresql/15/bin", "/usr/lib/postgresql/16/bin")


def binaries() -> dict[str, str] | None:
    """Paths of initdb, pg_ctl and postgres (None when any is missing)."""
    found = {}
    for name in ("initdb", "pg_ctl", "postgres"):
        path = shutil.which(name) or next(
            (f"{d}/{name}" for d in BIN_DIRS if os.access(f"{d}/{name}", os.X_OK)), None
        )
        if path is None:
            return None
        found[name] = path
    return found


PREFIX = "skillcore-pg-"

#: Run by the watcher: wait for the owner to die (or the folder to go: stopped normally),
#: then stop the server and remove its folder.
_WATCH = """
import os, shutil, subprocess, sys, time
owner, root, cmd = int(sys.argv[1]), sys.argv[2], __import__("json").loads(sys.argv[3])
while os.path.isdir(root):
    try:
        os.kill(owner, 0)
    except ProcessLookupError:
        subprocess.run(cmd, capture_output=True, timeout=60)
        shutil.rmtree(root, ignore_errors=True)
        break
    time.sleep(0.5)
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def reap() -> None:
    """Stop the servers of earlier runs whose owner died (killed before cleaning up)."""
    for root in Path(tempfile.gettempdir()).glob(f"{PREFIX}*"):
        try:
            owner = int((root / "owner").read_text())
        except (OSError, ValueError):
            continue  # starting right now, or not ours
        if not _alive(owner):
            bins = binaries()
            if bins is not None and (root / "data").is_dir():
                cmd = [bins["pg_ctl"], "-D", str(root / "data"), "-m", "immediate", "stop"]
                if os.geteuid() == 0:
                    cmd = ["runuser", "-u", "nobody", "--", *cmd]
                with contextlib.suppress(subprocess.SubprocessError, OSError):
                    subprocess.run(cmd, capture_output=True, timeout=60)
            shutil.rmtree(root, ignore_errors=True)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PgServer:
    """``with PgServer() as pg: pg.url`` -- a running cluster with a ``skillcore`` database."""

    def __init__(self) -> None:
        bins = binaries()
        if bins is None:
            raise RuntimeError("PostgreSQL binaries (initdb, pg_ctl, postgres) not found")
        self.bins = bins
        self.root = Path(tempfile.mkdtemp(prefix=PREFIX))
        self.data = self.root / "data"
        self.port = _free_port()
        self.user = "skillcore"
        self.url = f"postgresql://{self.user}@127.0.0.1:{self.port}/skillcore"

    def _cmd(self, *args: str) -> list[str]:
        cmd = list(args)
        if os.geteuid() == 0:  # postgres will not run as root
            cmd = ["runuser", "-u", "nobody", "--", *cmd]
        return cmd

    def _run(self, *args: str) -> None:
        subprocess.run(self._cmd(*args), check=True, capture_output=True, timeout=120)

    def _watch(self) -> None:
        """Record the owner and start the watcher that stops the server if it dies."""
        (self.root / "owner").write_text(str(os.getpid()))
        stop = self._cmd(self.bins["pg_ctl"], "-D", str(self.data), "-m", "immediate", "stop")
        subprocess.Popen(
            [sys.executable, "-c", _WATCH, str(os.getpid()), str(self.root), json.dumps(stop)],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True,  # outlives a kill of the owner's process group
        )  # fmt: skip

    def start(self) -> PgServer:
        reap()
        os.chmod(self.root, 0o755)
        if os.geteuid() == 0:
            shutil.chown(self.root, "nobody")
        self._run(
            self.bins["initdb"], "-D", str(self.data), "-U", self.user, "-A", "trust",
            "--no-sync", "-E", "UTF8",
        )  # fmt: skip
        opts = (
            f"-p {self.port} -h 127.0.0.1 -k {self.root} -c fsync=off "
            "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
        )
        self._run(
            self.bins["pg_ctl"], "-D", str(self.data), "-o", opts, "-l",
            str(self.root / "log"), "-w", "-t", "60", "start",
        )  # fmt: skip
        self._watch()
        import psycopg

        deadline = time.monotonic() + 30
        while True:
            try:
                with psycopg.connect(
                    f"postgresql://{self.user}@127.0.0.1:{self.port}/postgres", autocommit=True
                ) as conn:
                    conn.execute("CREATE DATABASE skillcore")
                break
            except psycopg.OperationalError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        return self

    def restart(self) -> None:
        """Restart the server (same port and data): every open connection is cut."""
        self._run(
            self.bins["pg_ctl"], "-D", str(self.data), "-m", "fast", "-l",
            str(self.root / "log"), "-w", "-t", "60", "restart",
        )  # fmt: skip

    def stop(self) -> None:
        with contextlib.suppress(subprocess.SubprocessError, OSError):
            self._run(self.bins["pg_ctl"], "-D", str(self.data), "-m", "immediate", "stop")
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> PgServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
