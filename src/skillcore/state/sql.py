"""Small helpers the SQL-backed stores share: creating a table when several workers start
at once, a few reusable connections, and which text a database can store as it is."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from typing import Any


def storable(text: str) -> bool:
    """True when both databases store ``text`` as it is: PostgreSQL refuses a NUL in text,
    and a lone surrogate is not UTF-8 (neither driver sends it)."""
    if "\x00" in text:
        return False
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def rollback(execute: Callable[[str], Any]) -> None:
    """Roll back after an error, keeping that error the one raised: SQLite has already
    rolled back after some (a full disk: "database or disk is full"), and a failed ROLLBACK
    ("no transaction is active") would hide the cause. The connection is then discarded."""
    with contextlib.suppress(Exception):  # the transaction is gone; the first error says why
        execute("ROLLBACK")


def create_once(create: Callable[[], None]) -> None:
    """Run a ``CREATE TABLE IF NOT EXISTS``; PostgreSQL lets two workers starting at once
    both try to create it and one fails (a unique violation on its catalog): try again, the
    table then exists."""
    try:
        create()
    except Exception:
        time.sleep(0.05)
        create()


class Connections:
    """A few reusable database connections (threads come and go in a framework's pool: one
    connection per thread would leak them)."""

    def __init__(self, connect: Callable[[], Any], keep: int = 8) -> None:
        self._connect, self._keep = connect, keep
        self._idle: list[Any] = []
        self._lock = threading.Lock()

    def acquire(self) -> Any:
        """An idle connection, or a new one."""
        with self._lock:
            conn = self._idle.pop() if self._idle else None
        if conn is None or getattr(conn, "closed", False):
            conn = self._connect()
        return conn

    def begin(self, start: Callable[[Any], Any]) -> tuple[Any, Any]:
        """A connection on which ``start(conn)`` (the first statement) succeeded, and what it
        returned. An idle connection that fails it is stale (the server restarted since):
        it is discarded with the other idle ones and ``start`` tried once on a new one."""
        with self._lock:
            conn = self._idle.pop() if self._idle else None
        if conn is not None and not getattr(conn, "closed", False):
            try:
                return conn, start(conn)
            except Exception:
                self.release(conn, False)
                self.close()  # connected before the same restart: as stale
        conn = self._connect()
        try:
            return conn, start(conn)
        except BaseException:
            self.release(conn, False)
            raise

    def release(self, conn: Any, ok: bool = True) -> None:
        """Give ``conn`` back (closed when it failed or enough are idle)."""
        with self._lock:
            if ok and len(self._idle) < self._keep:
                self._idle.append(conn)
                return
        conn.close()

    def close(self) -> None:
        """Close the idle connections."""
        with self._lock:
            idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()
