"""Session state a client carries between stateless requests, signed so it cannot be forged.

Stateless transports (MCP over HTTP at protocol 2026-07-28: no connection outlives a request)
have nowhere to keep a conversation's :class:`~skillcore.SkillSession`. The server hands the
client its state after every call, as a token; the client sends it back with the next call.
Whatever comes back is hostile input: the token is checked against an HMAC-SHA256 of the
server's secret before anything in it is read, its size is capped before that, and the state
inside is restored with :func:`~skillcore.restore_session` over the current catalog (policy
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
from skillcore.state.session import SkillSession

#: The longest token accepted (bytes of its text): checked before the signature is computed.
MAX_STATE_TOKEN_BYTES = 1024 * 1024
#: Bytes of the random secret a signer makes for itself when none is given.
SECRET_BYTES = 32
#: What every token starts with (the format, so it can change without misreading old ones).
_PREFIX = "sc1."


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class StateSigner:
    """Turns a session's state into a signed token and back.

    ``secret``: bytes shared by every process that must accept the same tokens; None makes a
    random one (tokens then hold for this process only)."""

    def __init__(self, secret: bytes | None = None) -> None:
        if secret is not None and len(secret) < 16:
            raise ValueError("a state secret needs at least 16 bytes")
        self._key = secret if secret is not None else secrets.token_bytes(SECRET_BYTES)

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


__all__ = ["MAX_STATE_TOKEN_BYTES", "StateSigner"]
