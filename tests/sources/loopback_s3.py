"""A real S3 server on loopback (moto) and an HTTP forwarder in front of it for faults.

Used by the source tests and by ``bench/bench_sources.py``. The forwarder passes requests
through unchanged (signatures stay valid) and can add latency, delay chosen requests, run a
hook before a request is forwarded, and stop serving after a number of requests (the server
going away in the middle of a discovery). It also records what it forwarded, so tests can
count requests instead of timing them.
"""

from __future__ import annotations

import contextlib
import http.client
import logging
import socket
import threading
import time
import uuid
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

CREDENTIALS = {"key": "testing", "secret": "testing"}


class MotoS3:
    """moto's S3 (and IAM) server in a thread on 127.0.0.1 with a free port."""

    def __init__(self) -> None:
        from moto.server import ThreadedMotoServer

        logging.getLogger("werkzeug").setLevel(logging.ERROR)
        self.server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
        self.server.start()
        host, port = self.server.get_host_and_port()
        self.endpoint = f"http://{host}:{port}"
        self.stopped = False
        self._clients: dict[tuple[str, ...], Any] = {}

    def client(self, service: str = "s3", **creds: str) -> Any:
        """A (cached) boto3 client of the server."""
        import boto3

        ident = (service, *sorted(creds.items()))  # type: ignore[arg-type]
        if ident in self._clients:
            return self._clients[ident]
        self._clients[ident] = boto3.client(
            service,
            endpoint_url=self.endpoint,
            aws_access_key_id=creds.get("key", CREDENTIALS["key"]),
            aws_secret_access_key=creds.get("secret", CREDENTIALS["secret"]),
            region_name="us-east-1",
        )
        return self._clients[ident]

    def new_bucket(self, prefix: str = "skills") -> str:
        name = f"{prefix}-{uuid.uuid4().hex[:12]}"  # moto's state is shared in-process
        self.client().create_bucket(Bucket=name)
        return name

    def upload_tree(self, bucket: str, prefix: str, root: Path) -> int:
        """Upload every file under ``root`` to ``bucket/prefix/...`` through the S3 API."""
        s3 = self.client()
        count = 0
        for path in sorted(root.rglob("*")):
            if path.is_file():
                key = "/".join(p for p in (prefix, path.relative_to(root).as_posix()) if p)
                s3.put_object(Bucket=bucket, Key=key, Body=path.read_bytes())
                count += 1
        return count

    def set_auth(self, enabled: bool) -> None:
        """Turn moto's IAM authentication and authorisation on or off (process-wide)."""
        import urllib.request

        req = urllib.request.Request(
            f"{self.endpoint}/moto-api/reset-auth",
            data=b"0" if enabled else b"inf",
            method="POST",
            headers={"Content-Type": "text/plain"},
        )
        urllib.request.urlopen(req, timeout=10).read()

    def stop(self) -> None:
        if not self.stopped:
            self.stopped = True
            self.server.stop()
            srv = getattr(self.server, "_server", None)
            if srv is not None:
                srv.server_close()  # refuse new connections instead of leaving them hanging


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def setup(self) -> None:
        super().setup()
        # Without TCP_NODELAY, Nagle + delayed ACKs add ~40 ms to every small response.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.server.proxy._track(self.connection, True)
        self._upstream: http.client.HTTPConnection | None = None

    def finish(self) -> None:
        self.server.proxy._track(self.connection, False)
        if self._upstream is not None:
            self._upstream.close()
        with contextlib.suppress(OSError):
            super().finish()

    def do_GET(self) -> None:
        self._forward()

    do_HEAD = do_PUT = do_POST = do_DELETE = do_GET

    def _drop(self) -> None:
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)

    def _ask_upstream(self, body: bytes | None) -> tuple[int, str, list[tuple[str, str]], bytes]:
        proxy = self.server.proxy
        if self._upstream is None:
            self._upstream = http.client.HTTPConnection(proxy.upstream, timeout=30)
            self._upstream.connect()
            self._upstream.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        headers = {k: v for k, v in self.headers.items() if k.lower() != "connection"}
        self._upstream.request(self.command, self.path, body, headers)
        resp = self._upstream.getresponse()
        return resp.status, resp.reason, resp.getheaders(), resp.read()

    def _forward(self) -> None:
        proxy = self.server.proxy
        if not proxy._admit(self.connection, self.command, self.path, dict(self.headers)):
            self._drop()
            return
        try:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else None
            delay = proxy.latency + (
                proxy.delay_for(self.command, self.path) if proxy.delay_for else 0
            )
            if delay:
                time.sleep(delay)
            if proxy.before is not None:
                proxy.before(self.command, self.path)
            ident = (self.path, self.headers.get("Range") or "")
            cached = proxy._replay.get(ident) if proxy.replay and self.command == "GET" else None
            if cached is None:
                status, reason, resp_headers, data = self._ask_upstream(body)
                if proxy.replay and self.command == "GET" and status < 300:
                    proxy._replay[ident] = (status, reason, resp_headers, data)
            else:
                status, reason, resp_headers, data = cached
            self.send_response(status, reason)
            for key, value in resp_headers:
                if key.lower() in ("transfer-encoding", "connection", "content-length", "date"):
                    continue
                self.send_header(key, value)
            if self.command == "HEAD":
                length = next((v for k, v in resp_headers if k.lower() == "content-length"), "0")
                self.send_header("Content-Length", length)
            else:
                self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)
        except OSError:
            self.close_connection = True
        finally:
            # A request admitted before a stop is answered; the connection closes after it.
            if proxy._leave(self.connection):
                self.close_connection = True


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False  # do not wait for a deliberately slow handler on close
    proxy: FaultProxy


class FaultProxy:
    """Forward loopback HTTP to ``upstream`` (``host:port``) with latency and faults."""

    def __init__(self, upstream_url: str, latency: float = 0.0) -> None:
        self.upstream = upstream_url.split("://", 1)[-1].rstrip("/")
        self.latency = latency
        #: (method, path) -> extra seconds before forwarding.
        self.delay_for: Callable[[str, str], float] | None = None
        #: Called before a request is forwarded (e.g. to delete the object it asks for).
        self.before: Callable[[str, str], None] | None = None
        #: Serve this many requests, then stop as a crashed server would.
        self.stop_after: int | None = None
        #: Answer repeated GETs (same path and Range) from memory, without the server; for
        #: benchmarks that model a store with ample parallel capacity (moto is CPU-bound).
        self.replay = False
        self._replay: dict[tuple[str, str], tuple[int, str, list[tuple[str, str]], bytes]] = {}
        #: Also called when the proxy stops (e.g. to stop the real server behind it).
        self.on_stop: Callable[[], None] | None = None
        self.log: list[tuple[str, str, dict[str, str]]] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.stopped = False
        self._lock = threading.Condition()
        self._conns: dict[socket.socket, bool] = {}  # connection -> busy
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.proxy = self
        self.endpoint = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def _track(self, conn: socket.socket, add: bool) -> None:
        with self._lock:
            if add:
                self._conns[conn] = False
            else:
                self._conns.pop(conn, None)

    def _admit(self, conn: socket.socket, method: str, path: str, headers: dict[str, str]) -> bool:
        with self._lock:
            if self.stopped:
                return False
            if self.stop_after is not None and len(self.log) >= self.stop_after:
                self.stopped = True
                threading.Thread(target=self.stop, daemon=True).start()
                return False
            self.log.append((method, path, headers))
            self._conns[conn] = True
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            return True

    def _leave(self, conn: socket.socket) -> bool:
        """Mark a request done; True when the proxy has stopped meanwhile."""
        with self._lock:
            self.in_flight -= 1
            self._lock.notify_all()
            if conn in self._conns:
                self._conns[conn] = False
            return self.stopped

    def reset_log(self) -> None:
        with self._lock:
            self.log.clear()
            self.max_in_flight = 0

    def requests(self, method: str | None = None) -> list[tuple[str, str, dict[str, str]]]:
        with self._lock:
            return [r for r in self.log if method is None or r[0] == method]

    def stop(self) -> None:
        """Stop serving: close the listening socket and every open connection."""
        with self._lock:
            self.stopped = True
            idle = [c for c, busy in self._conns.items() if not busy]
        self._server.shutdown()
        self._server.server_close()
        for conn in idle:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        if self.on_stop is not None:
            with self._lock:  # requests admitted before the stop still reach the server
                self._lock.wait_for(lambda: self.in_flight == 0, timeout=30)
            self.on_stop()

    def close(self) -> None:
        if not self.stopped:
            self.stop()
