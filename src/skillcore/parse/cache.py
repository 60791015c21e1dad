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
import stat as stat_mod
import sys
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from functools import cache, partial
from itertools import accumulate, chain, groupby, islice, repeat
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skillcore._frozen import FrozenDict, thaw, to_frozen

if TYPE_CHECKING:
    from skillcore.parse.frontmatter import ParseResult

try:  # the BLAKE2 module itself: ``hashlib`` would also load OpenSSL (ms of cold start)
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - other Python implementations
    from hashlib import blake2b

__all__ = ["CACHE_ENV_OFF", "ParseCache", "default_cache_dir"]

#: Set to ``1`` to disable the parse cache everywhere.
CACHE_ENV_OFF = "SKILLCORE_NO_CACHE"
_MAGIC = b"SKCPARSE3\n"
_FORMAT = 3
_DIGEST = 32
#: The file holding the checksum key, next to the cache files.
KEY_FILE = "key"
_KEY_BYTES = 32
_READ_FLAGS = (
    os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_CLOEXEC", 0)
)  # fmt: skip
#: Cache files larger than this are not read (about 300,000 skills).
MAX_CACHE_BYTES = 512 * 1024 * 1024
#: After its first write, a library rewrites its cache at most this often (seconds): a stale
#: entry only costs one parse of that file at the next cold start, while rewriting the file
#: of a 100,000-skill library after every edit would cost more than the edits.
SAVE_INTERVAL = 60.0

_new = object.__new__
#: Runs an iterator to its end, keeping nothing (a C-level loop over ``map``).
_drain: partial[deque[Any]] = partial(deque, maxlen=0)
#: The slots of a FrozenDict: the cache wraps the dicts it decoded instead of copying them.
_FROZEN_DATA = FrozenDict.__dict__["_data"].__set__
_FROZEN_HASH = FrozenDict.__dict__["_hash"].__set__


def _same(value: Any) -> Any:
    return value


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
    "parse/allowed_tools",
    "parse/build",
    "parse/capping",
    "parse/caps",
    "parse/context",
    "parse/document",
    "parse/fields",
    "parse/metadata",
    "parse/name_field",
    "parse/nesting",
    "parse/values",
    "parse/bounds",
    "parse/fast",
    "parse/yamlload",
    "model",
    "diagnostics",
    "_text",
    "_frozen",
)


def _rules() -> str:
    """What the cached results depend on besides the files: the parser and its caps."""
    from skillcore.parse import frontmatter as parsing

    parts = [f"format={_FORMAT}", f"py={sys.version_info[:2]}"]
    parts.append(f"version={getattr(sys.modules.get('skillcore'), '__version__', '?')}")
    for name in sorted(dir(parsing)):
        if name.startswith("MAX_") or name.endswith("_BYTES"):
            parts.append(f"{name}={getattr(parsing, name)!r}")
    # By file, not by loaded module: the YAML modules are imported only when a file is parsed,
    # and the key must not depend on whether that happened yet in this process.
    here = os.path.dirname(os.path.dirname(os.path.abspath(parsing.__file__)))
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


def _euid() -> int:
    return os.geteuid() if hasattr(os, "geteuid") else -1


def private_dir(directory: Path) -> bool:
    """True when ``directory`` is a directory owned by the effective user that neither
    group nor others can write (the mode bits and owner: this holds for root too)."""
    try:
        st = os.stat(directory)
    except OSError:
        return False
    return stat_mod.S_ISDIR(st.st_mode) and _private(st)


def _private(st: os.stat_result, secret: bool = False) -> bool:
    # Windows has no owners or POSIX modes to check: trust is that of the user's profile.
    if _euid() == -1:
        return True
    bits = 0o077 if secret else 0o022
    return st.st_uid == _euid() and not st.st_mode & bits


def _read_private(path: Path, cap: int, secret: bool = False) -> bytes | None:
    """The bytes of a private regular file (at most ``cap`` + 1), or None when it is not
    one: missing, a symlink, a FIFO or device (opened non-blocking, never waited on),
    someone else's, or writable (``secret``: readable) by group or others. (Only the user
    can add a link to the private directory, so link counts need no check.)"""
    try:
        fd = os.open(path, _READ_FLAGS)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not (stat_mod.S_ISREG(st.st_mode) and _private(st, secret)):
            return None
        chunks: list[bytes] = []
        total = 0
        while total <= cap:
            chunk = os.read(fd, min(cap + 1 - total, 1 << 24))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        return chunks[0] if len(chunks) == 1 else b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


def _key(directory: Path, create: bool) -> bytes | None:
    """The checksum key of ``directory`` (created when missing and ``create``), or None."""
    path = directory / KEY_FILE
    key = _read_private(path, _KEY_BYTES, secret=True)
    if key is not None or not create:
        return key if key is not None and len(key) == _KEY_BYTES else None
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags, 0o600)
    except FileExistsError:  # another process made it first: use theirs
        key = _read_private(path, _KEY_BYTES, secret=True)
        return key if key is not None and len(key) == _KEY_BYTES else None
    except OSError:
        return None
    try:
        key = os.urandom(_KEY_BYTES)
        os.write(fd, key)
    except OSError:
        return None
    finally:
        os.close(fd)
    return key


def seal(directory: Path, payload: bytes) -> bytes | None:
    """The bytes of a cache file holding ``payload``, checksummed with ``directory``'s key
    (None when the directory is not private or has no key)."""
    key = _key(directory, create=False) if private_dir(directory) else None
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
        key = _key(directory, create=False)
        if key is None:  # nothing to check a checksum with: nothing is trusted
            return None
        data = _read_private(self.path, MAX_CACHE_BYTES)
        if data is None or len(data) > MAX_CACHE_BYTES or not data.startswith(_MAGIC):
            return None
        digest = data[len(_MAGIC) : len(_MAGIC) + _DIGEST]
        # A view, not a slice: a copy of tens of MB costs as much as decoding it.
        payload = memoryview(data)[len(_MAGIC) + _DIGEST :]
        if blake2b(payload, digest_size=_DIGEST, key=key).digest() != digest:
            return None
        text = str(payload, "utf-8", "surrogatepass")
        del payload, data  # the bytes are not needed while the text is decoded
        return _decode(json.loads(text), self.key(), self.source, url_for)

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
                _encode(self.key(), keep, parsed),
                ensure_ascii=False,
                separators=(",", ":"),
                check_circular=False,
            ).encode("utf-8", "surrogatepass")
            directory = self.path.parent
            _make_private(directory)
            key = _key(directory, create=True) if private_dir(directory) else None
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


def _make_private(directory: Path) -> None:
    """Create ``directory`` (and missing parents) readable and writable by the user only,
    whatever the umask; an existing directory is left as it is (and then trusted or not)."""
    missing: list[Path] = []
    here = directory
    while not here.exists() and here != here.parent:
        missing.append(here)
        here = here.parent
    for path in reversed(missing):
        try:
            os.mkdir(path, 0o700)
            os.chmod(path, 0o700)  # mkdir's mode is filtered by the umask
        except FileExistsError:
            pass


class _suppress:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> bool:
        return True


class _Bad(Exception):
    """A cache file whose payload does not have the expected shape."""


# -- the payload ---------------------------------------------------------------------------
#
# One JSON object of columns, so that JSON decodes a few tokens per entry and every check and
# constructor runs over a whole column in C (``map``, ``set``, ``min``), not per entry:
#
#   key          the rules key
#   dirs         [directory] * n          stamps  [stamp] * n          offsets  [body offset] * n
#   parsed       m: entries 0..m-1 have metadata, the others were skipped (metadata None)
#   name         [name] * m               description  [description] * m
#   <field>      the other metadata fields, only for the entries whose value is not the
#                default: [steps, [number in table], table of distinct values] for text and
#                lists of text, [steps, [value]] for ``priority``, ``metadata`` and ``extra``
#   <flag>       steps: the entries whose flag is not the default
#   diagnostics  [entry steps, [severity], [code], [message], [source], [path],
#                 [steps, [number in table], table]] (the last: the fields that are set)
#
# Entries are listed by steps from the previous one, the first from -1: [1, 1, 1] is entries
# 0, 1, 2 and [3, 2] entries 2, 4. Steps of at least 1 summing to at most m are exactly the
# strictly increasing numbers in 0..m-1 (``min`` and ``sum`` check them); m steps are every
# entry in order. The diagnostics' steps start from 0 and may be 0 (one entry, several).
#
# A value of any other type anywhere rejects the whole file. No position accepts two types
# (no ``null`` for "not set": unset is "not listed"), so a value whose type was changed can
# never pass as another valid one; and a restriction (``allowed-tools``) cannot be dropped by
# changing one value.

_TEXT, _STRS, _INT, _MAP, _JSON, _FLAG = range(6)
#: The kinds stored as a table of distinct values (licenses, versions, tool lists repeat).
_TABLED = (_TEXT, _STRS)

#: The ``SkillMetadata`` fields stored sparsely, with their kind and default. The others are
#: ``name`` and ``description`` (dense), and ``location`` and ``stamp`` (from the entry).
_SPARSE: tuple[tuple[str, int, Any], ...] = (
    ("license", _TEXT, None),
    ("compatibility", _TEXT, None),
    ("metadata", _MAP, FrozenDict()),
    ("allowed_tools", _STRS, None),
    ("version", _TEXT, None),
    ("triggers", _STRS, ()),
    ("file_patterns", _STRS, ()),
    ("priority", _INT, 0),
    ("dependencies", _STRS, ()),
    ("disable_model_invocation", _FLAG, False),
    ("user_invocable", _FLAG, True),
    ("argument_hint", _TEXT, None),
    ("extra", _JSON, FrozenDict()),
)

_DUMP: dict[int, Callable[[Any], Any]] = {
    _TEXT: _same, _STRS: list, _INT: _same, _MAP: dict, _JSON: thaw,
}  # fmt: skip


def _encode(key: str, stamps: Mapping[str, str], parsed: Mapping[str, ParseResult]) -> Any:
    """The payload object of these entries (see the layout above)."""
    rows = sorted(stamps.items(), key=lambda row: parsed[row[0]].metadata is None)  # stable
    results = [parsed[d] for d, _ in rows]
    metas = [r.metadata for r in results if r.metadata is not None]
    doc: dict[str, Any] = {
        "key": key,
        "dirs": [d for d, _ in rows],
        "stamps": [s for _, s in rows],
        "offsets": [r.body_offset for r in results],
        "parsed": len(metas),
        "name": [m.name for m in metas],
        "description": [m.description for m in metas],
    }
    for field, kind, default in _SPARSE:
        values = [getattr(m, field) for m in metas]
        at = [i for i, v in enumerate(values) if v != default]
        doc[field] = _sparse_dump(at, [values[i] for i in at], kind)
    entry: list[int] = []
    cols: tuple[list[str], ...] = ([], [], [], [], [])
    field_at: list[int] = []
    fields: list[str] = []
    for i, r in enumerate(results):
        for d in r.diagnostics:
            if d.field is not None:
                field_at.append(len(entry))
                fields.append(d.field)
            entry.append(i)
            texts = (d.severity.value, d.code.value, d.message, d.source, d.path)
            for col, text in zip(cols, texts):
                col.append(text)
    entry_steps = [b - a for a, b in zip([0, *entry], entry)]
    doc["diagnostics"] = [entry_steps, *cols, _sparse_dump(field_at, fields, _TEXT)]
    return doc


def _sparse_dump(at: list[int], values: list[Any], kind: int) -> Any:
    """One sparse field (see the layout above)."""
    steps = [b - a for a, b in zip([-1, *at], at)]
    if kind == _FLAG:
        return steps
    dump = _DUMP[kind]
    if kind not in _TABLED:
        return [steps, [dump(v) for v in values]]
    table: dict[Any, int] = {}  # text or tuples of text: equal values are identical values
    numbers = [table.setdefault(v, len(table)) for v in values]
    return [steps, numbers, [dump(v) for v in table]]


def _decode(
    doc: Any, key: str, source: str, url_for: Callable[[str], str]
) -> tuple[list[str], list[str], list[ParseResult]] | None:
    """``(directories, stamps, results)`` of a payload; None when it is not this cache's;
    raises (``_Bad``, ``KeyError``, ...) when anything is odd."""
    from skillcore.model import SkillLocation, SkillMetadata
    from skillcore.parse.frontmatter import ParseResult

    if type(doc) is not dict or doc.get("key") != key:
        return None
    dirs = _column(doc["dirs"], str)
    n = len(dirs)
    stamps = _column(doc["stamps"], str, n)
    offsets = _column(doc["offsets"], int, n)
    m = doc["parsed"]
    if not all(stamps) or (offsets and min(offsets) < 0) or type(m) is not int or not 0 <= m <= n:
        raise _Bad
    here = dirs if m == n else dirs[:m]
    location: dict[str, list[Any] | repeat[Any]] = {
        "source": repeat(source),
        "directory": here,
        "url": list(map(url_for, here)),
    }
    columns: dict[str, Any] = {
        "name": _column(doc["name"], str, m),
        "description": _column(doc["description"], str, m),
        "location": _build(SkillLocation, m, location),
        "stamp": stamps if m == n else stamps[:m],
    }
    for field, kind, default in _SPARSE:
        columns[field] = _sparse(doc[field], kind, default, m)
    metas: list[Any] = _build(SkillMetadata, m, columns)
    if m < n:
        metas += [None] * (n - m)
    result = {
        "metadata": metas,
        "diagnostics": _diagnostics(doc["diagnostics"], n),
        "need_more": repeat(False),
        "body_offset": offsets,
    }
    return dirs, stamps, _build(ParseResult, n, result)


def _column(value: Any, of: type, length: int | None = None) -> list[Any]:
    """``value`` when it is a list of ``of`` (of ``length`` items); else raises ``_Bad``."""
    # ``type`` is exact: ``True`` is not an int here, nor a str subclass a str.
    if type(value) is not list or not set(map(type, value)) <= {of}:
        raise _Bad
    if length is not None and len(value) != length:
        raise _Bad
    return value


def _positions(value: Any, m: int) -> list[int]:
    """The steps of strictly increasing entry numbers in ``0..m-1`` (see the layout above)."""
    steps = _column(value, int)
    if steps and (min(steps) < 1 or sum(steps) > m):
        raise _Bad
    return steps


def _sparse(raw: Any, kind: int, default: Any, m: int) -> list[Any] | repeat[Any]:
    """The column of ``m`` values of one sparse field (see the layout above)."""
    if kind == _FLAG:
        steps = _positions(raw, m)
        values: Any = repeat(not default)
    elif kind in _TABLED:
        if type(raw) is not list or len(raw) != 3:
            raise _Bad
        steps = _positions(raw[0], m)
        numbers = _column(raw[1], int, len(steps))
        table = _VALUES[kind](raw[2])  # checked and converted once per distinct value
        if numbers and (min(numbers) < 0 or max(numbers) >= len(table)):
            raise _Bad
        values = list(map(table.__getitem__, numbers))
    else:
        if type(raw) is not list or len(raw) != 2:
            raise _Bad
        steps = _positions(raw[0], m)
        values = _VALUES[kind](_column(raw[1], _TYPE[kind], len(steps)))
    if not steps:
        return repeat(default)
    if len(steps) == m:  # every entry, in order
        return values if type(values) is list else list(islice(values, m))
    column = [default] * (m + 1)  # accumulated steps are the entry numbers + 1
    _drain(map(column.__setitem__, accumulate(steps), values))
    del column[0]
    return column


def _texts(raw: Any) -> list[str]:
    return _column(raw, str)


def _str_lists(raw: Any) -> list[tuple[str, ...]]:
    # Fail closed: allowed-tools that is not a list of strings rejects the file, so a damaged
    # entry can never lift a restriction.
    if not set(map(type, chain.from_iterable(_column(raw, list)))) <= {str}:
        raise _Bad
    return list(map(tuple, raw))


def _ints(raw: list[int]) -> list[int]:
    return raw


def _str_maps(maps: list[dict[str, Any]]) -> list[FrozenDict[str, str]]:
    # The keys of a decoded JSON object are always strings: only the values need a check.
    if not set(map(type, chain.from_iterable(map(dict.values, maps)))) <= {str}:
        raise _Bad
    # Flat str -> str: no deep freeze needed, and each dict is ours (no copy needed).
    made = list(map(_new, repeat(FrozenDict, len(maps))))
    _drain(map(_FROZEN_DATA, made, maps))
    _drain(map(_FROZEN_HASH, made, repeat(None)))
    return made


def _json_maps(maps: list[dict[str, Any]]) -> list[FrozenDict[str, Any]]:
    for value in maps:
        _json_native(value)
    return list(map(to_frozen, maps))


_VALUES: dict[int, Callable[[Any], list[Any]]] = {
    _TEXT: _texts, _STRS: _str_lists, _INT: _ints, _MAP: _str_maps, _JSON: _json_maps,
}  # fmt: skip
#: The JSON type of each value of the kinds stored without a table.
_TYPE: dict[int, type] = {_INT: int, _MAP: dict, _JSON: dict}


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


def _diagnostics(raw: Any, n: int) -> list[tuple[Any, ...]] | repeat[tuple[Any, ...]]:
    """The column of ``n`` diagnostics tuples."""
    from skillcore.diagnostics import Code, Diagnostic, Severity

    if type(raw) is not list or len(raw) != 7:
        raise _Bad
    steps = _column(raw[0], int)
    k = len(steps)
    if not k:
        return repeat(())
    if min(steps) < 0 or sum(steps) >= n:  # non-decreasing entry numbers in 0..n-1
        raise _Bad
    entry = accumulate(steps)
    severities = map(_members(Severity).__getitem__, _column(raw[1], str, k))
    codes = map(_members(Code).__getitem__, _column(raw[2], str, k))
    texts = [_column(raw[i], str, k) for i in (3, 4, 5)]
    fields = _sparse(raw[6], _TEXT, None, k)  # the field of each diagnostic, or None
    made = list(map(Diagnostic, severities, codes, *texts, fields))
    column: list[tuple[Any, ...]] = [()] * n
    start = 0
    for i, group in groupby(entry):
        end = start + sum(1 for _ in group)
        column[i] = tuple(made[start:end])
        start = end
    return column


@cache
def _members(enum: type) -> dict[str, Any]:
    """An enum's members by value (an unknown value is a ``KeyError``: a miss)."""
    return {member.value: member for member in enum}  # type: ignore[attr-defined]


@cache
def _setters(cls: type) -> tuple[tuple[str, Callable[[Any, Any], None]], ...]:
    """The slot setters of an attrs class, every field in order, then its cached hash."""
    import attrs

    found = [(a.name, cls.__dict__[a.name].__set__) for a in attrs.fields(cls)]
    if "_attrs_cached_hash" in cls.__dict__:
        found.append(("", cls.__dict__["_attrs_cached_hash"].__set__))
    return tuple(found)


def _build(cls: type, n: int, columns: Mapping[str, list[Any] | repeat[Any]]) -> list[Any]:
    """``n`` instances of a slotted attrs class from one column per field, set slot by slot.

    Only for values that already have the exact types the converters produce (checked
    above): it skips ``__init__``, converters and validators, and sets each field of every
    instance in one C-level pass, a third of the cost of a constructor call per instance.
    ``tests/core/parse/test_cache_format.py`` holds the instances equal to ``__init__``'s.
    """
    made: list[Any] = list(map(_new, repeat(cls, n)))
    for name, set_slot in _setters(cls):
        column = columns[name] if name else repeat(None)  # "" is the cached hash: not computed
        if type(column) is list:
            if len(column) != n:  # a short column would leave slots unset
                raise _Bad
        elif type(column) is not repeat:
            raise TypeError(f"column {name!r} is a {type(column).__name__}")
        _drain(map(set_slot, made, column))
    return made
