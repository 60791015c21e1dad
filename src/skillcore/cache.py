"""An on-disk parse cache for local sources: a cold start stats files instead of parsing them.

One file per local source (keyed by its root, label, validation mode and head size) under
the user cache directory (``platformdirs`` when installed, else ``$XDG_CACHE_HOME`` or
``~/.cache``, then ``skillcore/parse``). It maps each skill directory to the stamp of its
``SKILL.md`` (size and ``mtime_ns``) and the parse result; the library uses an entry only when
the file's stamp still matches, exactly as a refresh in the same process would.

The cache is an optimisation, never an authority:

- any problem (missing, unreadable, truncated, wrong magic, checksum, format, parser rules,
  type) is a cache miss and never an exception;
- the key covers the parser's rules (package version, caps, and the size and ``mtime_ns`` of
  the modules that parse), so changed rules invalidate every entry;
- entries are stored as JSON-native data and rebuilt through the normal constructors after a
  strict type check of every field (``allowed-tools`` must be None or a list of strings: a
  value that is neither rejects the whole file, so a damaged entry cannot lift a
  restriction), bound to the source label, skill directory and display path they were
  written for;
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
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from skillcore.parsing import ParseResult

try:  # the BLAKE2 module itself: ``hashlib`` would also load OpenSSL (ms of cold start)
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - other Python implementations
    from hashlib import blake2b

__all__ = ["CACHE_ENV_OFF", "ParseCache", "default_cache_dir"]

#: Set to ``1`` to disable the parse cache everywhere.
CACHE_ENV_OFF = "SKILLCORE_NO_CACHE"
_MAGIC = b"SKCPARSE1\n"
_FORMAT = 1
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
_RULE_MODULES = ("parsing", "_fastfront", "_yamlload", "model", "diagnostics", "_text", "_frozen")


def _rules() -> str:
    """What the cached results depend on besides the files: the parser and its caps."""
    from skillcore import parsing

    parts = [f"format={_FORMAT}", f"py={sys.version_info[:2]}"]
    parts.append(f"version={getattr(sys.modules.get('skillcore'), '__version__', '?')}")
    for name in sorted(dir(parsing)):
        if name.startswith("MAX_") or name.endswith("_BYTES"):
            parts.append(f"{name}={getattr(parsing, name)!r}")
    # By file, not by loaded module: the YAML modules are imported only when a file is parsed,
    # and the key must not depend on whether that happened yet in this process.
    here = os.path.dirname(os.path.abspath(parsing.__file__))
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

    def load(self, url_for: Any) -> dict[str, tuple[str, ParseResult]]:
        """``{directory: (stamp, result)}`` from disk; empty on any problem."""
        try:
            with gc_paused():
                out = self._read(url_for)
        except Exception:  # a cache never breaks discovery: anything odd is a miss
            return {}
        self.saved = {d: stamp for d, (stamp, _) in out.items()}
        return out

    def _read(self, url_for: Any) -> dict[str, tuple[str, ParseResult]]:
        """The entries of the file, or {} when it is not this cache's; raises when odd."""
        with open(self.path, "rb") as fh:
            data = fh.read(MAX_CACHE_BYTES + 1)
        if len(data) > MAX_CACHE_BYTES or not data.startswith(_MAGIC):
            return {}
        digest = data[len(_MAGIC) : len(_MAGIC) + _DIGEST]
        payload = data[len(_MAGIC) + _DIGEST :]
        if blake2b(payload, digest_size=_DIGEST).digest() != digest:
            return {}
        doc = json.loads(payload)
        if type(doc) is not dict or doc.get("key") != self.key():
            return {}
        entries = doc.get("entries")
        if type(entries) is not dict:
            return {}
        types = _types()
        return {d: _entry(d, e, self.source, url_for, types) for d, e in entries.items()}

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
            entries = {d: _dump(s, parsed[d]) for d, s in keep.items()}
            payload = json.dumps(
                {"key": self.key(), "entries": entries},
                ensure_ascii=False,
                separators=(",", ":"),
                check_circular=False,
            ).encode("utf-8", "surrogatepass")
            digest = blake2b(payload, digest_size=_DIGEST).digest()
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
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


class _Bad(Exception):
    """A cache entry that does not have the expected shape."""


def _types() -> tuple[Any, ...]:
    from skillcore._frozen import FrozenDict, to_frozen
    from skillcore.diagnostics import Code, Diagnostic, Severity
    from skillcore.model import SkillLocation, trusted_metadata
    from skillcore.parsing import ParseResult

    return (
        Code, Diagnostic, Severity, SkillLocation, trusted_metadata, ParseResult, FrozenDict,
        to_frozen, FrozenDict(),
    )  # fmt: skip


def _dump(stamp: str, result: ParseResult) -> list[Any]:
    from skillcore._frozen import thaw

    diags = [
        [d.severity.value, d.code.value, d.message, d.source, d.path, d.field]
        for d in result.diagnostics
    ]
    meta = result.metadata
    if meta is None:
        return [stamp, None, diags, result.body_offset]
    # Positional (the order of _entry below): about half the size of named fields.
    m = [
        meta.name,
        meta.description,
        meta.license,
        meta.compatibility,
        dict(meta.metadata),
        None if meta.allowed_tools is None else list(meta.allowed_tools),
        meta.version,
        list(meta.triggers),
        list(meta.file_patterns),
        meta.priority,
        list(meta.dependencies),
        meta.disable_model_invocation,
        meta.user_invocable,
        meta.argument_hint,
        thaw(meta.extra) if meta.extra else None,
    ]
    return [stamp, m, diags, result.body_offset]


def _strs(value: Any) -> tuple[str, ...]:
    if type(value) is not list:
        raise _Bad
    if value:
        for v in value:
            if type(v) is not str:
                raise _Bad
        return tuple(value)
    return ()


def _opt(value: Any) -> str | None:
    if value is not None and type(value) is not str:
        raise _Bad
    return value  # type: ignore[no-any-return]


def _json_native(value: Any, depth: int = 0) -> None:
    if depth > 64:
        raise _Bad
    t = type(value)
    if t is dict:
        for k, v in value.items():
            if type(k) is not str:
                raise _Bad
            _json_native(v, depth + 1)
    elif t is list:
        for v in value:
            _json_native(v, depth + 1)
    elif value is not None and t not in (str, int, float, bool):
        raise _Bad


_FIELDS = 15


def _entry(
    directory: Any, raw: Any, source: str, url_for: Any, types: Any
) -> tuple[str, ParseResult]:
    """One cached entry, type-checked field by field, then built without re-running the
    converters (every field already has the exact type they would produce)."""
    (Code, Diagnostic, Severity, SkillLocation, trusted_metadata, ParseResult, FrozenDict,
     to_frozen, empty) = types  # fmt: skip
    if type(directory) is not str or type(raw) is not list or len(raw) != 4:
        raise _Bad
    stamp, m, diags, offset = raw
    if type(stamp) is not str or not stamp or type(diags) is not list or type(offset) is not int:
        raise _Bad
    diagnostics: tuple[Any, ...] = ()
    if diags:
        found = []
        for d in diags:
            if type(d) is not list or len(d) != 6 or any(type(x) is not str for x in d[:5]):
                raise _Bad
            sev, code, message, dsource, path, field = d
            diag = Diagnostic(Severity(sev), Code(code), message, dsource, path, _opt(field))
            found.append(diag)
        diagnostics = tuple(found)
    if m is None:
        return stamp, ParseResult(None, diagnostics, body_offset=offset)
    if type(m) is not list or len(m) != _FIELDS:
        raise _Bad
    (name, description, license_, compat, metadata, allowed, version, triggers, patterns,
     priority, deps, disable, invocable, hint, extra) = m  # fmt: skip
    if type(name) is not str or type(description) is not str or type(metadata) is not dict:
        raise _Bad
    if metadata:
        for k, v in metadata.items():
            if type(k) is not str or type(v) is not str:
                raise _Bad
    if type(priority) is not int or type(disable) is not bool or type(invocable) is not bool:
        raise _Bad
    if extra is not None:
        if type(extra) is not dict or not extra:
            raise _Bad
        _json_native(extra)
        extra = to_frozen(extra)
    else:
        extra = empty
    for text in (license_, compat, version, hint):
        if text is not None and type(text) is not str:
            raise _Bad
    meta = trusted_metadata(
        name,
        description,
        SkillLocation(source, directory, url_for(directory)),
        license_,
        compat,
        FrozenDict(metadata) if metadata else empty,  # flat str -> str: no deep freeze needed
        # Fail closed: anything but None or a list of strings rejects the cache file.
        None if allowed is None else _strs(allowed),
        version,
        _strs(triggers),
        _strs(patterns),
        priority,
        _strs(deps),
        disable,
        invocable,
        hint,
        extra,
        stamp,
    )
    return stamp, ParseResult(meta, diagnostics, body_offset=offset)
