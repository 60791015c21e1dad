"""Session state a client carries between stateless requests, signed so it cannot be forged.

Stateless transports (MCP over HTTP at protocol 2026-07-28: no connection outlives a request)
have nowhere to keep a conversation's :class:`~skillcore.SkillSession`. The server hands the
client its state after every call, as a token; the client sends it back with the next call.
Whatever comes back is hostile input: the token is checked against an HMAC-SHA256 of the
server's secret before anything in it is read, its size is capped before that, and the state
inside is restored with :func:`~skillcore.runtime.restore_session` over the current catalog (policy
inputs always come from the catalog, never from the token).

A token only ever holds what its own conversation had: a client that replays an older token
rolls back its own conversation, nothing else. Give every server process of a deployment the
same ``secret`` so a token minted by one is accepted by the others.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import secrets
from typing import Any

from skillcore.errors import StateError
from skillcore.state.transitions import SkillSession

#: The longest token accepted (bytes of its text): checked before the signature is computed.
MAX_STATE_TOKEN_BYTES = 1024 * 1024
#: Bytes of the random secret a signer makes for itself when none is given.
SECRET_BYTES = 32
#: A given secret: at least this many bytes (text counts as its UTF-8 bytes)...
MIN_SECRET_BYTES = 16
#: ...with at least this many different byte values (``"a" * 40`` signs nothing).
MIN_SECRET_DISTINCT = 8
#: What every token starts with (the format, so it can change without misreading old ones).
_PREFIX = "sc1."


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _key(secret: object) -> bytes:
    """``secret`` as HMAC key bytes; raises TypeError/ValueError (caller misuse) for a value
    that cannot be one or is too weak."""
    if isinstance(secret, str):
        key = secret.encode("utf-8", "surrogatepass")
    elif isinstance(secret, (bytes, bytearray, memoryview)):
        key = bytes(secret)
    else:
        raise TypeError(f"a state secret is bytes or text, got {type(secret).__name__}")
    if len(key) < MIN_SECRET_BYTES:
        raise ValueError(f"a state secret needs at least {MIN_SECRET_BYTES} bytes")
    if len(set(key)) < MIN_SECRET_DISTINCT:
        raise ValueError(
            f"a state secret needs at least {MIN_SECRET_DISTINCT} different byte values "
            "(use e.g. secrets.token_hex(32))"
        )
    return key


class StateSigner:
    """Turns a session's state into a signed token and back.

    ``secret``: bytes or text (used as its UTF-8 bytes) shared by every process that must
    accept the same tokens; None makes a random one (tokens then hold for this process only).
    A secret too weak to sign with is refused here, when the signer is built."""

    def __init__(self, secret: bytes | str | None = None) -> None:
        self._key = secrets.token_bytes(SECRET_BYTES) if secret is None else _key(secret)

    def _mac(self, payload: str) -> str:
        return _b64(hmac.new(self._key, payload.encode("ascii"), hashlib.sha256).digest())

    def seal(self, session: SkillSession) -> str:
        """The token of ``session``'s state (:meth:`SkillSession.to_state`)."""
        payload = _b64(json.dumps(session.to_state(), separators=(",", ":")).encode("utf-8"))
        return f"{_PREFIX}{payload}.{self._mac(payload)}"

    def open(self, token: Any) -> dict[str, Any]:
        """The state inside ``token``. Raises :class:`~skillcore.StateError` (a short message
        for people) for anything that is not a token this signer's key made."""
        if not isinstance(token, str):
            raise StateError(f"the state token must be a string, got {type(token).__name__}")
        if len(token) > MAX_STATE_TOKEN_BYTES:
            raise StateError(f"the state token is longer than {MAX_STATE_TOKEN_BYTES} bytes")
        if not token.startswith(_PREFIX) or token.count(".") != 2:
            raise StateError("the state token is not in the expected format")
        payload, _, mac = token[len(_PREFIX) :].partition(".")
        if not token.isascii() or not hmac.compare_digest(mac, self._mac(payload)):
            raise StateError("the state token was not signed by this server (or was altered)")
        try:
            state = json.loads(_unb64(payload))
        except (binascii.Error, ValueError) as exc:  # signed, so only a bug gets here
            raise StateError("the state token cannot be decoded") from exc
        if not isinstance(state, dict):
            raise StateError("the state token does not hold a session state")
        return state


__all__ = ["MAX_STATE_TOKEN_BYTES", "MIN_SECRET_BYTES", "MIN_SECRET_DISTINCT", "StateSigner"]
