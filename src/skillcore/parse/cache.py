"""An on-disk parse cache for local sources: a cold start stats files instead of parsing them.

One file per local source (keyed by its root, label, validation mode and head size) under
the user cache directory (``platformdirs`` when installed, else ``$XDG_CACHE_HOME`` or
``~/.cache``, then ``skillcore/parse``). It maps each skill directory to the stamp of its
``SKILL.md`` (size and ``mtime_ns``) and the parse result; the library uses an entry only when
the file's stamp still matches, exactly as a refresh in the same process would.

The cache is an optimisation, never an authority:

- it is trusted only if the current user alone can write it: the cache directory, the cache
  file and the key file must be owned by the effective user and not writable by group or
  others (the key file not readable by them either), regular files opened without following
  a symlink and without blocking (a FIFO at the path is a miss, not a hang); otherwise the
  cache is neither read nor written. Directories and files are created private (0700/0600);
- the checksum is keyed: BLAKE2b with a random 32-byte key kept in the cache directory's
  private ``key`` file, so content written by anyone who cannot read that file (any other
  user; a file copied in from elsewhere) is a miss, never an entry with changed
  ``allowed-tools``, ``disable-model-invocation`` or gated tools. Whoever can read the key
  (the user, root) is the user;
- any problem (missing, unreadable, truncated, wrong magic, checksum, format, parser rules,
  type) is a cache miss and never an exception;
- the key covers the parser's rules (package version, caps, and the size and ``mtime_ns`` of
  the modules that parse), so changed rules invalidate every entry;
- entries are stored as JSON columns (one list per field, the rarely set fields only for the
  entries that set them; layout below) and rebuilt column by column after a strict type
  check of every value (``allowed-tools`` must be a list of strings, and a listed one: any
  other value rejects the whole file, so a damaged entry cannot lift a restriction), bound to
  the source label, skill directory and display path they were written for;
- writers write a temporary file in the same directory and ``os.replace`` it, so concurrent
  processes never see a half-written file (the last writer wins).

Opt out with ``SkillLibrary(cache=False)`` or ``SKILLCORE_NO_CACHE=1``.
"""

from __future__ import annotations

import gc
import json
import os
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skillcore.parse.cache_columns import _BadPayload, build_objects, decode, encode
from skillcore.parse.private_files import (
    KEY_BYTES,
    KEY_FILE,
    make_private,
    private_dir,
    read_key,
    read_private,
)

if TYPE_CHECKING:
    from skillcore.parse.context import ParseResult

try:  # the BLAKE2 module itself: ``hashlib`` would also load OpenSSL (ms of cold start)
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - other Python implementations
    from hashlib import blake2b

__all__ = ["CACHE_ENV_OFF", "KEY_FILE", "ParseCache", "default_cache_dir", "private_dir"]

#: Former names, kept for one release.
_Bad = _BadPayload
_KEY_BYTES = KEY_BYTES
_build = build_objects

#: Set to ``1`` to disable the parse cache everywhere.
CACHE_ENV_OFF = "SKILLCORE_NO_CACHE"
_MAGIC = b"SKCPARSE3\n"
_FORMAT = 5
_DIGEST = 32
#: Cache files larger than this are not read (about 300,000 skills).
MAX_CACHE_BYTES = 512 * 1024 * 1024
#: After its first write, a library rewrites its cache at most this often (seconds): a stale
#: entry only costs one parse of that file at the next cold start, while rewriting the file
#: of a 100,000-skill library after every edit would cost more than the edits.
SAVE_INTERVAL = 60.0


def cache_disabled() -> bool:
    """True when ``SKILLCORE_NO_CACHE`` is set to a true value."""
    return os.environ.get(CACHE_ENV_OFF, "").strip().lower() in ("1", "true", "yes", "on")


def default_cache_dir() -> Path:
    """The user cache directory of skillcore's parse cache."""
    try:
        from platformdirs import user_cache_dir
    except ImportError:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        return Path(base) / "skillcore" / "parse"
    return Path(user_cache_dir("skillcore", appauthor=False)) / "parse"


#: The modules whose code decides a parse result (their file stamps are part of the key).
#: The files whose rules decide a parse, relative to the ``skillcore`` package.
_RULE_MODULES = (
    "parse/frontmatter",
    "parse/headings",
    "parse/length",
    "limits",
    "parse/allowed_tools",
    "parse/build",
    "parse/truncation",
    "parse/frontmatter_caps",
    "parse/context",
    "parse/document",
    "parse/fields",
    "parse/metadata",
    "parse/name_field",
    "parse/hooks",
    "parse/nesting",
    "parse/values",
    "parse/reader_common",
    "parse/fast",
    "parse/yamlload",
    "model",
    "diagnostics",
    "_escaping",
    "_frozen",
)


def _rules() -> str:
    """What the cached results depend on besides the files: the parser and its caps."""
    from skillcore.parse import frontmatter_caps, reader_common

    parts = [f"format={_FORMAT}", f"py={sys.version_info[:2]}"]
    parts.append(f"version={getattr(sys.modules.get('skillcore'), '__version__', '?')}")
    for caps in (frontmatter_caps, reader_common):  # where the caps are defined
        for name in sorted(dir(caps)):
            if name.startswith("MAX_") or name.endswith("_BYTES"):
                parts.append(f"{name}={getattr(caps, name)!r}")
    # By file, not by loaded module: the YAML modules are imported only when a file is parsed,
    # and the key must not depend on whether that happened yet in this process.
    here = os.path.dirname(os.path.dirname(os.path.abspath(frontmatter_caps.__file__)))
    for module in _RULE_MODULES:
        try:
            st = os.stat(os.path.join(here, f"{module}.py"))
        except OSError:
            st = None
        parts.append(f"{module}={st.st_size}:{st.st_mtime_ns}" if st else f"{module}=?")
    return "\n".join(parts)


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector for an allocation-heavy loop.

    Rebuilding a catalog allocates a few objects per skill and none of them form cycles, yet
    each allocation burst runs collections that walk everything still alive: at 10,000 skills
    they cost about as much as the work. Restored afterwards (only by whoever paused it).
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def seal(directory: Path, payload: bytes) -> bytes | None:
    """The bytes of a cache file holding ``payload``, checksummed with ``directory``'s key
    (None when the directory is not private or has no key)."""
    key = read_key(directory, create=False) if private_dir(directory) else None
    if key is None:
        return None
    return _MAGIC + blake2b(payload, digest_size=_DIGEST, key=key).digest() + payload


class ParseCache:
    """The parse cache of one local source (see the module docstring)."""

    def __init__(self, directory: Path, source: str, root: str, mode: str, head_bytes: int) -> None:
        self.source = source
        ident = "\x00".join((source, root, mode, str(head_bytes)))
        name = blake2b(ident.encode("utf-8", "surrogatepass"), digest_size=16)
        self.path = directory / f"{name.hexdigest()}.json"
        self._ident = ident
        self._key: str | None = None
        #: Stamps of the last file read or written (to skip writing an unchanged cache).
        self.saved: dict[str, str] | None = None
        self._written_at: float | None = None

    def key(self) -> str:
        """The rules key (computed once per cache object)."""
        if self._key is None:
            self._key = self._ident + "\x00" + _rules()
        return self._key

    # -- reading -------------------------------------------------------------------------

    def load(self, url_for: Callable[[str], str]) -> tuple[dict[str, str], dict[str, ParseResult]]:
        """``({directory: stamp}, {directory: result})`` from disk; both empty on any problem.

        Split the way a scan uses them (the stamps it may skip, the results by directory):
        no loop per entry, nor a tuple per entry.
        """
        with gc_paused():
            dirs, stamps, results = self._entries(url_for)
            return dict(zip(dirs, stamps)), dict(zip(dirs, results))

    def _entries(self, url_for: Callable[[str], str]) -> tuple[list[str], list[str], list[Any]]:
        """``(directories, stamps, results)``; all empty on any problem (with the GC paused:
        the rebuilt entries allocate a few objects each, and none of them form cycles)."""
        try:
            found = self._read(url_for)
        except Exception:  # a cache never breaks discovery: anything odd is a miss
            found = None
        if found is None:
            return [], [], []
        saved = dict(zip(found[0], found[1]))
        if len(saved) != len(found[0]):  # a directory listed twice
            return [], [], []
        self.saved = saved
        return found

    def _read(self, url_for: Callable[[str], str]) -> tuple[list[str], list[str], list[Any]] | None:
        """The entries of the file, or None when it is not this cache's; raises when odd."""
        directory = self.path.parent
        if not private_dir(directory):
            return None
        key = read_key(directory, create=False)
        if key is None:  # nothing to check a checksum with: nothing is trusted
            return None
        data = read_private(self.path, MAX_CACHE_BYTES)
        if data is None or len(data) > MAX_CACHE_BYTES or not data.startswith(_MAGIC):
            return None
        digest = data[len(_MAGIC) : len(_MAGIC) + _DIGEST]
        # A view, not a slice: a copy of tens of MB costs as much as decoding it.
        payload = memoryview(data)[len(_MAGIC) + _DIGEST :]
        if blake2b(payload, digest_size=_DIGEST, key=key).digest() != digest:
            return None
        text = str(payload, "utf-8", "surrogatepass")
        del payload, data  # the bytes are not needed while the text is decoded
        return decode(json.loads(text), self.key(), self.source, url_for)

    # -- writing -------------------------------------------------------------------------

    def save(self, stamps: Mapping[str, str], parsed: Mapping[str, ParseResult]) -> bool:
        """Write the entries whose stamp is known; True when written. Never raises."""
        keep = {d: s for d, s in stamps.items() if s and d in parsed}
        if keep == self.saved:
            return False
        now = time.monotonic()
        if self._written_at is not None and now - self._written_at < SAVE_INTERVAL:
            return False
        self._written_at = now  # also after a failure: an unwritable directory costs one try
        try:
            payload = json.dumps(
                encode(self.key(), keep, parsed),
                ensure_ascii=False,
                separators=(",", ":"),
                check_circular=False,
            ).encode("utf-8", "surrogatepass")
            directory = self.path.parent
            make_private(directory)
            key = read_key(directory, create=True) if private_dir(directory) else None
            if key is None:  # a directory others can write is never written to
                return False
            digest = blake2b(payload, digest_size=_DIGEST, key=key).digest()
            import tempfile

            fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=self.path.parent)
            try:
                with os.fdopen(fd, "wb") as fh:
                    fh.write(_MAGIC + digest + payload)
                os.replace(tmp, self.path)
            except BaseException:
                with _suppress():
                    os.unlink(tmp)
                raise
        except Exception:
            return False
        self.saved = keep
        return True


class _suppress:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> bool:
        return True
