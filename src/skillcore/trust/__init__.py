"""Trust in skills from elsewhere: detached Ed25519 signatures of files and tree digests."""

from __future__ import annotations

from typing import TYPE_CHECKING

from skillcore._faces import face

if TYPE_CHECKING:
    from skillcore.trust.signing import (
        SIGNATURE_SUFFIX,
        KeyFileError,
        Signature,
        SignatureError,
        SignatureProblem,
        generate_keypair,
        key_id,
        load_private_key,
        load_public_keys,
        sign_bytes,
        sign_tree_digest,
        verify_signature,
        verify_tree_digest,
    )

__getattr__, __dir__, __all__ = face(
    __name__,
    {
        "SIGNATURE_SUFFIX": "skillcore.trust.signing",
        "KeyFileError": "skillcore.trust.signing",
        "Signature": "skillcore.trust.signing",
        "SignatureError": "skillcore.trust.signing",
        "SignatureProblem": "skillcore.trust.signing",
        "generate_keypair": "skillcore.trust.signing",
        "key_id": "skillcore.trust.signing",
        "load_private_key": "skillcore.trust.signing",
        "load_public_keys": "skillcore.trust.signing",
        "sign_bytes": "skillcore.trust.signing",
        "sign_tree_digest": "skillcore.trust.signing",
        "verify_signature": "skillcore.trust.signing",
        "verify_tree_digest": "skillcore.trust.signing",
    },
)
