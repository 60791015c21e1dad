"""Bounded HTTP GET for the well-known source: HTTPS (plain HTTP to loopback only), a byte cap
and a deadline per request, and redirects followed only where the caller allows.

The standard library's ``http.client`` is used directly: ``urllib`` follows redirects to any
host and picks up proxies from the environment, neither of which this source wants.
"""

from __future__ import annotations

import http.client
import ipaddress
import socket
import ssl
import time
from collections.abc import Callable
from urllib.parse import urljoin, urlsplit

from skillcore._escaping import quoted_excerpt
from skillcore.errors import SkillcoreError

_REDIRECTS = (301, 302, 303, 307, 308)
#: Redirects followed at most for one request.
MAX_REDIRECTS = 5
_CHUNK = 64 * 1024


class FetchError(SkillcoreError):
    """A GET failed; the message says why, naming the URL."""

    def __init__(self, message: str, *, too_large: bool = False) -> None:
        super().__init__(message)
        self.too_large = too_large


def loopback(host: str) -> bool:
    """True for ``localhost`` and loopback addresses (the only hosts plain HTTP may reach)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def url_problem(url: str) -> str | None:
    """Why ``url`` may not be fetched at all (characters, scheme, host), or None."""
    if not url.isascii() or not url.isprintable() or " " in url:
        return "not an ASCII URL without spaces or control characters"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 (raises ValueError on a bad port)
    except ValueError as exc:
        return f"not a valid URL ({exc})"
    if parts.scheme not in ("https", "http") or not parts.hostname:
        return "not an https:// URL"
    if parts.username is not None or parts.password is not None:
        return "credentials in a URL are not accepted"
    if parts.scheme == "http" and not loopback(parts.hostname):
        return "plain http:// is accepted for loopback hosts only; use https://"
    return None


def origin(url: str) -> tuple[str, str, int]:
    """``(scheme, host, port)`` of an http(s) URL (the default port filled in)."""
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return parts.scheme, (parts.hostname or "").lower(), port


def fetch(
    url: str,
    *,
    max_bytes: int,
    timeout: float,
    may_follow: Callable[[str, str], str | None],
    max_redirects: int = MAX_REDIRECTS,
) -> tuple[bytes, str]:
    """The body of a 200 answer to ``GET url`` (at most ``max_bytes``) and the URL that gave
    it (after redirects: the base of relative references in it). Raises FetchError.

    ``may_follow(from_url, to_url)`` returns why a redirect may not be followed, or None.
    ``timeout`` bounds the whole request (connecting, redirects and reading together).
    """
    deadline = time.monotonic() + timeout
    current = url
    for _ in range(max_redirects + 1):
        problem = url_problem(current)
        if problem is not None:
            raise FetchError(f"{quoted_excerpt(current, 200)}: {problem}")
        status, location, body = _get(current, max_bytes, deadline)
        if status == 200:
            return body, current
        if status not in _REDIRECTS or location is None:
            raise FetchError(
                f"{current}: HTTP {status}" + (" (not found)" if status == 404 else "")
            )
        target = urljoin(current, location)
        refused = url_problem(target) or may_follow(current, target)
        if refused is not None:
            shown = quoted_excerpt(target, 200)
            raise FetchError(f"{current}: redirect to {shown} refused: {refused}")
        current = target
    raise FetchError(f"{url}: more than {max_redirects} redirects")


def _get(url: str, max_bytes: int, deadline: float) -> tuple[int, str | None, bytes]:
    parts = urlsplit(url)
    host, port = parts.hostname or "", parts.port
    left = deadline - time.monotonic()
    if left <= 0:
        raise FetchError(f"{url}: no answer in time")
    conn: http.client.HTTPConnection
    if parts.scheme == "https":
        context = ssl.create_default_context()
        conn = http.client.HTTPSConnection(host, port, timeout=left, context=context)
    else:
        conn = http.client.HTTPConnection(host, port, timeout=left)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    try:
        # identity: the digest is of the artifact's bytes, not of a transfer encoding of them.
        conn.connect()
        # Kept: the connection drops its reference once the response owns the socket.
        sock = conn.sock
        conn.request("GET", target, headers={"Accept-Encoding": "identity"})
        resp = conn.getresponse()
        if resp.status != 200:
            return resp.status, resp.getheader("Location"), b""
        encoding = (resp.getheader("Content-Encoding") or "identity").strip().lower()
        if encoding != "identity":
            raise FetchError(f"{url}: the server sent a {encoding!r}-encoded body")
        declared = resp.getheader("Content-Length")
        if declared is not None and declared.isdigit() and int(declared) > max_bytes:
            raise FetchError(
                f"{url}: {declared} bytes, over the limit of {max_bytes}", too_large=True
            )
        return 200, None, _read(sock, resp, url, max_bytes, deadline)
    except FetchError:
        raise
    except (TimeoutError, ssl.SSLError, OSError, http.client.HTTPException) as exc:
        raise FetchError(f"{url}: {_why(exc)}") from exc
    finally:
        conn.close()


def _read(
    sock: socket.socket | None,
    resp: http.client.HTTPResponse,
    url: str,
    max_bytes: int,
    deadline: float,
) -> bytes:
    """The body, read in pieces so neither a huge body nor a slow drip gets past the bounds."""
    chunks: list[bytes] = []
    size = 0
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise FetchError(f"{url}: no complete answer in time")
        if sock is not None:
            sock.settimeout(left)
        chunk = resp.read1(_CHUNK)
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > max_bytes:
            raise FetchError(f"{url}: more than {max_bytes} bytes", too_large=True)
        chunks.append(chunk)


def _why(exc: BaseException) -> str:
    if isinstance(exc, TimeoutError):
        return "no answer in time"
    if isinstance(exc, ssl.SSLCertVerificationError):
        return f"TLS certificate not accepted ({exc.verify_message})"
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused (is the host up?)"
    return f"{type(exc).__name__}: {exc}"
