"""A throwaway PostgreSQL cluster for tests: initdb in a temporary directory, a server on a
free loopback port, stopped and removed afterwards. PostgreSQL refuses to run as root, so as
root the cluster belongs to the unprivileged ``nobody`` user (``runuser``)."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
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
        self.root = Path(tempfile.mkdtemp(prefix="skillcore-pg-"))
        self.data = self.root / "data"
        self.port = _free_port()
        self.user = "skillcore"
        self.url = f"postgresql://{self.user}@127.0.0.1:{self.port}/skillcore"

    def _run(self, *args: str) -> None:
        cmd = list(args)
        if os.geteuid() == 0:  # postgres will not run as root
            cmd = ["runuser", "-u", "nobody", "--", *cmd]
        subprocess.run(cmd, check=True, capture_output=True, timeout=120)

    def start(self) -> PgServer:
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
