"""The environment variables that name a library's lock file and its signing keys: a module
of their own, so a library reads them without importing the lock file's code."""

from __future__ import annotations

#: The variable naming the lock file a library verifies against (see ``SkillLibrary``).
LOCK_ENV = "SKILLCORE_LOCK"
#: The variable listing the public key files the lock must be signed by (comma separated).
LOCK_KEYS_ENV = "SKILLCORE_LOCK_KEYS"
