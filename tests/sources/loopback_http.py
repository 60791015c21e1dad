"""A small HTTP server on 127.0.0.1 that serves what a test puts in it (the well-known source's
tests): bodies by path, with a status, headers, a delay or no Content-Length per path."""

from __future__ import annotations

import hashlib
import io
import ipaddress
import json
import ssl
import tarfile
import threading
import time
import zipfile
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import attrs

SCHEMA = "https://schemas.agentskills.io/discovery/0.2.0/schema.json"
INDEX = "/.well-known/agent-skills/index.json"


@attrs.define
class Reply:
    body: bytes = b""
    status: int = 200
    headers: dict[str, str] = attrs.Factory(dict)
    #: Seconds to wait before answering.
    delay: float = 0.0
    #: Send no Content-Length (the body ends when the connection closes).
    unsized: bool = False


class LoopbackHTTP:
    """``server.put(path, body)`` then GET ``server.url + path``; ``hits`` counts requests."""

    def __init__(self, tls: ssl.SSLContext | None = None) -> None:
        self.replies: dict[str, Reply] = {}
        self.hits: dict[str, int] = {}
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"

            def do_GET(self) -> None:
                owner.hits[self.path] = owner.hits.get(self.path, 0) + 1
                reply = owner.replies.get(self.path, Reply(b"not found", 404))
                if reply.delay:
                    time.sleep(reply.delay)
                try:
                    self.send_response(reply.status)
                    for key, value in reply.headers.items():
                        self.send_header(key, value)
                    if not reply.unsized:
                        self.send_header("Content-Length", str(len(reply.body)))
                    self.end_headers()
                    self.wfile.write(reply.body)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        if tls is not None:
            self.server.socket = tls.wrap_socket(self.server.socket, server_side=True)
        self.port = self.server.server_address[1]
        self.url = f"{'https' if tls else 'http'}://127.0.0.1:{self.port}"
        self.source = f"wellknown+{self.url}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self._thread.start()

    def put(self, path: str, body: bytes | str, **kwargs: Any) -> None:
        data = body.encode() if isinstance(body, str) else body
        self.replies[path] = Reply(data, **kwargs)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def skill_md(name: str, body: str = "") -> bytes:
    text = (
        f"---\nname: {name}\ndescription: The {name} skill.\n---\n\n{body or f'Body of {name}.'}\n"
    )
    return text.encode()


def tar_gz(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def zip_bytes(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buf.getvalue()


def entry(name: str, kind: str, url: str, data: bytes, **extra: Any) -> dict[str, Any]:
    return {
        "name": name,
        "type": kind,
        "description": f"The {name} skill.",
        "url": url,
        "digest": digest(data),
        **extra,
    }


def index(*entries: dict[str, Any], schema: str | None = SCHEMA) -> bytes:
    doc: dict[str, Any] = {"skills": list(entries)}
    if schema is not None:
        doc["$schema"] = schema
    return json.dumps(doc).encode()


def publish(server: LoopbackHTTP, skills: dict[str, bytes | dict[str, bytes]]) -> None:
    """Serve an index of ``skills``: bytes are a ``skill-md`` SKILL.md, a dict the members of a
    ``.tar.gz`` archive."""
    entries = []
    for name, what in skills.items():
        if isinstance(what, dict):
            data, path = tar_gz(what), f"/.well-known/agent-skills/{name}.tar.gz"
            entries.append(entry(name, "archive", path, data))
        else:
            data, path = what, f"/.well-known/agent-skills/{name}/SKILL.md"
            entries.append(entry(name, "skill-md", path, data))
        server.put(path, data)
    server.put(INDEX, index(*entries))


def serving() -> Iterator[LoopbackHTTP]:
    server = LoopbackHTTP()
    try:
        yield server
    finally:
        server.close()


def self_signed(folder: Path) -> tuple[Path, ssl.SSLContext]:
    """A certificate for 127.0.0.1 (written to ``folder/cert.pem``) and a server context."""
    import datetime

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_path, key_path)
    return cert_path, context
