"""Configuration without code: environment variables and a settings file.

One rule, used by every adapter (through :meth:`skillcore.SkillConfig.build` and
:meth:`skillcore.SkillConfig.library`) and by the CLI: **explicit arguments win**, then the
environment (``SKILLCORE_*``), then the settings file, then the built-in defaults.

The settings file is the one ``SKILLCORE_CONFIG`` names, else ``skills.yaml`` in the current
directory, else the ``[tool.skillcore]`` table of ``pyproject.toml`` there. Its keys are the
names in :data:`SETTINGS` (``sources``, ``enabled``, ``refresh``, ...); an unknown key or a bad
value is a :class:`ConfigError` naming the file and the key (or the variable).

A settings file found through the current directory (``skills.yaml``, ``pyproject.toml``, a
relative ``SKILLCORE_CONFIG``) is not trusted: a checkout may carry one. Its ``sources`` may
name only folders inside its own folder (never a URL, which may start a program or reach a
network, nor a path that leads outside) unless the user trusts it: ``SKILLCORE_TRUST_SETTINGS``
(folders or files, or ``*``), the CLI's ``--trust-settings``, or an absolute
``SKILLCORE_CONFIG``. The file is read bounded (size, nesting, no YAML aliases, numbers).
"""

from __future__ import annotations

import difflib
import json
import os
import re
import reprlib
import stat
import sys
import warnings
from collections.abc import Callable, Mapping, Sequence
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

import attrs

from skillcore.errors import SkillcoreError
from skillcore.parse import MAX_INT_CHARS, MAX_NESTING
from skillcore.trust.lockfile import LOCK_ENV, LOCK_KEYS_ENV

#: The file looked for in the current directory, and the table of ``pyproject.toml``.
SETTINGS_FILE = "skills.yaml"
PYPROJECT_TABLE = ("tool", "skillcore")
#: The variable naming a settings file explicitly.
CONFIG_ENV = "SKILLCORE_CONFIG"
#: The variable naming the settings files (or their folders) the user trusts, or ``*``.
TRUST_ENV = "SKILLCORE_TRUST_SETTINGS"
#: The largest settings file read (bytes; a larger ``pyproject.toml`` is read no further).
MAX_SETTINGS_BYTES = 256 * 1024
#: URL schemes of sources that start a program (named in the refusal).
PROGRAM_SCHEMES = frozenset({"mcp+stdio"})


class ConfigError(SkillcoreError, ValueError):
    """A setting from the environment or a settings file has a bad value; the message names
    the variable or the file and key."""


class ConfigWarning(UserWarning):
    """A setting that is ignored: an unknown ``SKILLCORE_*`` variable, ``enabled`` off beside
    explicit sources, a ``pyproject.toml`` too large to read."""


_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def _bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise ValueError("expected one of 1/0, true/false, yes/no, on/off")


_JSON_LIST = 'expected a JSON list of names such as ["a", "b"] (or names separated by commas)'


def _names(value: Any) -> tuple[str, ...]:
    """A list, a JSON list in text (``["a", "b"]``), or text separated by commas."""
    if isinstance(value, str) and value.lstrip().startswith("["):
        # A list written in the environment: never taken as one path.
        try:
            items = json.loads(value)
        except (ValueError, RecursionError):
            raise ValueError(_JSON_LIST) from None
        if not isinstance(items, list) or not items or not all(isinstance(v, str) for v in items):
            raise ValueError(_JSON_LIST)
        value = items
    items = value.split(",") if isinstance(value, str) else value
    if not isinstance(items, (list, tuple)):
        raise ValueError("expected a list, or names separated by commas")
    out = tuple(str(v).strip() for v in items if not isinstance(v, (dict, list)))
    if len(out) != len(items) or any(not v for v in out):
        raise ValueError("expected non-empty names")
    return out


def _path(value: Any) -> str:
    """One path (of a file)."""
    if not isinstance(value, str) or not value.strip():
        raise ValueError("expected a path")
    return value.strip()


def _count(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise ValueError("expected a whole number")
    text = str(value).strip()
    if len(text) > MAX_INT_CHARS:
        raise ValueError(f"a number of {len(text)} digits (at most {MAX_INT_CHARS})")
    if not text.isdigit():
        raise ValueError("expected a whole number (1 or more)")
    number = int(text)
    if number < 1:
        raise ValueError("expected 1 or more")
    return number


def _seconds(value: Any) -> bool | float:
    """Seconds between re-scans; ``true``/``on``: every run; ``false``/``off``: never."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE - {"1"} or text in _FALSE - {"0"}:
        return text in _TRUE
    number = float(text)
    if not number >= 0 or number == float("inf"):  # NaN too
        raise ValueError("expected seconds (0 or more), or on/off")
    return number


def _choice(*allowed: str) -> Callable[[Any], str]:
    def parse(value: Any) -> str:
        text = str(value).strip().lower()
        if text not in allowed:
            raise ValueError(f"expected one of: {', '.join(allowed)}")
        return text

    return parse


@attrs.frozen
class Setting:
    """One setting: its key in the file, its environment variable, and its parser."""

    key: str
    env: str
    parse: Callable[[Any], Any]
    help: str


#: Every setting, by key.
SETTINGS: Mapping[str, Setting] = {
    s.key: s
    for s in (
        Setting("sources", "SKILLCORE_SOURCES", _names, "skill sources (paths or URLs)"),
        Setting("enabled", "SKILLCORE_ENABLED", _bool, "off: the agent gets no skills"),
        Setting("refresh", "SKILLCORE_REFRESH", _seconds, "seconds between re-scans"),
        Setting("cache", "SKILLCORE_CACHE", _bool, "the parse cache of local sources"),
        Setting("default_skills", "SKILLCORE_DEFAULT_SKILLS", _names, "skills loaded at start"),
        Setting("max_loaded", "SKILLCORE_MAX_LOADED", _count, "skills loaded at once at most"),
        Setting("catalog_budget", "SKILLCORE_CATALOG_BUDGET", _count, "catalog characters"),
        Setting("policy", "SKILLCORE_POLICY", _choice("recommend", "restrict"), "tool policy"),
        Setting(
            "validation_mode",
            "SKILLCORE_VALIDATION_MODE",
            _choice("lenient", "strict"),
            "validation mode",
        ),
        # Lock verification (see skillcore.trust and lock_policy below).
        Setting("lock", LOCK_ENV, _path, "the lock file skills are verified against"),
        Setting("frozen", "SKILLCORE_FROZEN", _bool, "refuse skills the lock does not name"),
        Setting("lock_keys", LOCK_KEYS_ENV, _names, "public keys the lock must be signed by"),
    )
}

#: SkillConfig field -> settings key, for the settings that are adapter options.
CONFIG_FIELDS = {
    "max_loaded_skills": "max_loaded",
    "max_description_budget": "catalog_budget",
    "allowed_tools_policy": "policy",
    "default_skills": "default_skills",
}


@attrs.frozen
class Settings:
    """The settings found (only those set), and where each came from."""

    values: Mapping[str, Any] = attrs.field(factory=dict)
    origin: Mapping[str, str] = attrs.field(factory=dict)
    #: Keys an untrusted settings file set to a value it may not set: key -> why.
    refused: Mapping[str, str] = attrs.field(factory=dict)
    #: Keys whose value comes from a settings file the user does not trust.
    untrusted: frozenset[str] = frozenset()

    def get(self, key: str, default: Any = None) -> Any:
        """The value of ``key`` (see :data:`SETTINGS`), or ``default`` when not set. Raises
        :class:`ConfigError` for a key the settings file may not set (see :data:`TRUST_ENV`):
        only when the value is asked for, so explicit arguments still work."""
        if key in self.refused:
            raise ConfigError(self.refused[key])
        return self.values.get(key, default)

    def config_options(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """``given`` (adapter keyword options) completed with the settings it does not set
        itself: explicit arguments win."""
        options = dict(given)
        for field, key in CONFIG_FIELDS.items():
            if field not in options and key in self.values:
                options[field] = self.values[key]
        return options


def _parse(key: str, raw: Any, where: str) -> Any:
    try:
        return SETTINGS[key].parse(raw)
    except (ValueError, TypeError) as exc:
        # reprlib: a nested value is shown bounded, never expanded whole.
        shown = raw if isinstance(raw, str) else reprlib.repr(raw)
        raise ConfigError(f"{where}: bad value {shown[:80]!r}: {exc}") from None


def _read_bounded(path: Path) -> bytes:
    """At most ``MAX_SETTINGS_BYTES + 1`` bytes of the regular file ``path`` (a FIFO or a
    device is refused without blocking)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise ConfigError(f"cannot read the settings file {path}: {exc.strerror or exc}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ConfigError(f"{path}: not a regular file")
        chunks: list[bytes] = []
        left = MAX_SETTINGS_BYTES + 1
        while left > 0:
            chunk = os.read(fd, left)
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    except OSError as exc:
        raise ConfigError(f"cannot read the settings file {path}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)


def _text(path: Path, data: bytes) -> str:
    if len(data) > MAX_SETTINGS_BYTES:
        raise ConfigError(f"{path}: larger than {MAX_SETTINGS_BYTES} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text") from None


@cache
def _yaml_loader() -> type:
    """The safe loader (libyaml's when present) keeping an over-long integer as its text, so
    the setting's own parser refuses it naming the key."""
    import yaml

    base: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    class SettingsLoader(base):  # type: ignore[misc]  # a base picked at run time is untyped
        pass

    def construct_int(loader: Any, node: Any) -> Any:
        if len(node.value) > MAX_INT_CHARS:
            return str(node.value)
        return yaml.SafeLoader.construct_yaml_int(loader, node)

    SettingsLoader.add_constructor("tag:yaml.org,2002:int", construct_int)
    return SettingsLoader


def _yaml_table(path: Path, text: str) -> Any:
    """The YAML of a settings file, bounded before it is built as a ``SKILL.md`` frontmatter
    is: at most ``MAX_NESTING`` levels, and no aliases (a settings file needs none, and they
    can expand without bound)."""
    import yaml

    from skillcore.parse import too_deep

    if too_deep(text):
        raise ConfigError(f"{path}: nests more than {MAX_NESTING} levels deep; refused")
    loader = _yaml_loader()
    try:
        # The event stream builds nothing and stops at the first alias.
        for event in yaml.parse(text, Loader=loader):
            if isinstance(event, yaml.AliasEvent):
                raise ConfigError(
                    f"{path}: YAML aliases (*{str(event.anchor)[:40]}) are not allowed in a "
                    "settings file"
                )
        return yaml.load(text, Loader=loader)
    except (yaml.YAMLError, RecursionError) as exc:
        raise ConfigError(f"{path}: not valid YAML ({str(exc).splitlines()[0]})") from None


def _read_yaml(path: Path, text: str) -> dict[str, Any]:
    data = _yaml_table(path, text)
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping of settings, got {type(data).__name__}")
    return data


def _toml_loads(path: Path, text: str) -> Any:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # Python 3.10
        try:
            import tomli as tomllib
        except ImportError:
            raise ConfigError(
                f"{path}: reading [tool.skillcore] needs Python 3.11 or the tomli package; "
                f"or use {SETTINGS_FILE}"
            ) from None
    try:
        return _parsed_toml(text, tomllib.loads)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc})") from None
    except RecursionError:
        raise ConfigError(f"{path}: not valid TOML (nested too deep)") from None
    except ValueError:
        # The parser's int() refuses numbers of ~4,300 digits and more: name the key.
        raise ConfigError(f"{path}: {_long_number(text)}") from None


@lru_cache(maxsize=4)
def _parsed_toml(text: str, loads: Callable[[str], Any]) -> Any:
    # Adapters read the settings a few times while they are built: parse a file once.
    return loads(text)


_LONG_NUMBER = re.compile(
    rf"^[ \t]*([^=\n]{{1,80}}?)[ \t]*=[ \t]*[+-]?([0-9_]{{{MAX_INT_CHARS + 1},}})", re.M
)


def _long_number(text: str) -> str:
    found = _LONG_NUMBER.search(text)
    if found is None:
        return "not valid TOML (a number too long to read)"
    line = text.count("\n", 0, found.start()) + 1
    return (
        f"{found.group(1).strip()} (line {line}): bad value: a number of "
        f"{len(found.group(2))} digits (at most {MAX_INT_CHARS})"
    )


def _pyproject_table(path: Path, data: Any) -> dict[str, Any] | None:
    """The ``[tool.skillcore]`` table (however the TOML spells it), or None without one."""
    for part in PYPROJECT_TABLE:
        if not isinstance(data, dict) or part not in data:
            return None
        data = data[part]
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: [tool.skillcore] must be a table")
    # TOML keys are often written with dashes.
    return {str(k).replace("-", "_"): v for k, v in data.items()}


#: A ``pyproject.toml`` naming skillcore as a word (``[tool.skillcore]`` however spelt or
#: broken, not the ``skillcore-agents`` of a dependency list) is read as a settings file.
_MENTION = re.compile(rb"(?<![\w-])skillcore(?![\w-])", re.I)


@attrs.frozen
class _File:
    """The settings file in effect: its path, the name messages give it, its table, and
    whether the user named it (an absolute ``SKILLCORE_CONFIG``)."""

    path: Path
    shown: str
    table: dict[str, Any]
    named: bool


def _find(environ: Mapping[str, str], cwd: Path) -> _File | None:
    """``SKILLCORE_CONFIG``, else ``skills.yaml``, else a ``pyproject.toml`` with a
    ``[tool.skillcore]`` table (in ``cwd``), else None."""
    named = environ.get(CONFIG_ENV, "").strip()
    if named:
        path = cwd / Path(named).expanduser()
        if not path.is_file():
            raise ConfigError(f"{CONFIG_ENV}: no such settings file {named!r}")
        text = _text(path, _read_bounded(path))
        absolute = Path(named).expanduser().is_absolute()
        if path.name == "pyproject.toml":
            table = _pyproject_table(path, _toml_loads(path, text)) or {}
            return _File(path, f"{path} [tool.skillcore]", table, absolute)
        return _File(path, str(path), _read_yaml(path, text), absolute)
    path = cwd / SETTINGS_FILE
    if os.path.lexists(path):
        return _File(path, str(path), _read_yaml(path, _text(path, _read_bounded(path))), False)
    path = cwd / "pyproject.toml"
    if not os.path.lexists(path):
        return None
    data = _read_bounded(path)
    if _MENTION.search(data) is None:
        if len(data) > MAX_SETTINGS_BYTES:
            warnings.warn(
                ConfigWarning(
                    f"{path}: not read: larger than {MAX_SETTINGS_BYTES} bytes (settings in it "
                    f"are ignored; use {SETTINGS_FILE})"
                ),
                stacklevel=3,
            )
        return None
    # It mentions skillcore: a file that cannot be read is an error, never "no settings".
    found = _pyproject_table(path, _toml_loads(path, _text(path, data)))
    return None if found is None else _File(path, f"{path} [tool.skillcore]", found, False)


def _trust_list(environ: Mapping[str, str]) -> tuple[str, ...]:
    raw = environ.get(TRUST_ENV, "")
    if not raw.strip():
        return ()
    names = _parse("sources", raw, TRUST_ENV)  # the same list syntax as the sources
    for name in names:
        if name != "*" and not os.path.isabs(os.path.expanduser(name)):
            raise ConfigError(
                f"{TRUST_ENV}: {name[:80]!r} is not an absolute path (name settings files or "
                "their folders, or * for any)"
            )
    return tuple(names)


def _trusted(found: _File, trust: bool, trusted: tuple[str, ...]) -> bool:
    if trust or found.named or "*" in trusted:
        return True
    own = {os.path.realpath(found.path), os.path.realpath(found.path.parent)}
    return any(os.path.realpath(os.path.expanduser(t)) in own for t in trusted)


def _untrusted_source(source: str, folder: Path) -> str | None:
    """Why an untrusted settings file may not name ``source``, or None when it may."""
    if "://" in source or "::" in source:
        scheme = re.split(r"://|::", source, maxsplit=1)[0].lower()
        if scheme in PROGRAM_SCHEMES:
            return "starts a program"
        return "is a URL (only folders inside the file's folder are allowed)"
    root = os.path.realpath(folder)
    real = os.path.realpath(folder / os.path.expanduser(source))
    if real != root and not real.startswith(root.rstrip(os.sep) + os.sep):
        return f"leads outside {folder} (only folders inside it are allowed)"
    return None


def _refusal(found: _File, key: str, value: str, why: str) -> str:
    folder = os.path.abspath(found.path.parent)
    return (
        f"{found.shown}: {key}: {value[:120]!r} {why}. A settings file found in the current "
        "directory is not trusted; if you trust this one, run with --trust-settings or set "
        f"{TRUST_ENV}={folder} (or pass the sources explicitly)"
    )


def _warn_unknown(environ: Mapping[str, str]) -> None:
    """Warn about each ``SKILLCORE_*`` variable that is no setting (a typo is ignored
    otherwise), suggesting the closest known name."""
    from skillcore.parse import CACHE_ENV_OFF

    known = [s.env for s in SETTINGS.values()] + [CONFIG_ENV, TRUST_ENV, CACHE_ENV_OFF]
    for name in environ:
        if not name.startswith("SKILLCORE_") or name in known or name.startswith(_TOOLING):
            continue
        close = difflib.get_close_matches(name, known, n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        warnings.warn(
            ConfigWarning(f"{name[:80]} is not a skillcore setting and is ignored{hint}"),
            stacklevel=3,
        )


#: Variables of skillcore's own test and benchmark scripts, not settings.
_TOOLING = ("SKILLCORE_TEST_", "SKILLCORE_BENCH_", "SKILLCORE_REQUIRE_TEST_TOOLS")


def load_settings(
    environ: Mapping[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    *,
    trust: bool = False,
) -> Settings:
    """The settings from the environment (``SKILLCORE_*``) over those of the settings file.
    Raises :class:`ConfigError` naming the variable or key of a bad value. ``trust``: the
    user trusts the settings file found in ``cwd`` (the CLI's ``--trust-settings``); else
    :data:`TRUST_ENV` decides."""
    env = os.environ if environ is None else environ
    base = Path.cwd() if cwd is None else Path(cwd)
    _warn_unknown(env)
    trusted = _trust_list(env)
    values: dict[str, Any] = {}
    origin: dict[str, str] = {}
    refused: dict[str, str] = {}
    found = _find(env, base)
    if found is not None:
        for key, raw in found.table.items():
            if key not in SETTINGS:
                raise ConfigError(
                    f"{found.shown}: unknown setting {str(key)[:60]!r} "
                    f"(known: {', '.join(SETTINGS)})"
                )
            values[key] = _parse(key, raw, f"{found.shown}: {key}")
            origin[key] = f"{found.shown}: {key}"
        if "sources" in values:
            # Relative paths in a file are relative to the file, not to wherever it runs.
            folder = found.path.parent
            values["sources"] = tuple(_beside(s, folder) for s in values["sources"])
            if not _trusted(found, trust, trusted):
                for source in values["sources"]:
                    why = _untrusted_source(source, folder)
                    if why is not None:
                        refused["sources"] = _refusal(found, "sources", source, why)
                        del values["sources"], origin["sources"]
                        break
        _file_lock(found, values, origin, refused, _trusted(found, trust, trusted))
        file_keys = set(values) if not _trusted(found, trust, trusted) else set()
    else:
        file_keys = set()
    for key, setting in SETTINGS.items():
        raw = env.get(setting.env)
        if raw is not None and raw.strip():
            values[key] = _parse(key, raw, setting.env)
            origin[key] = setting.env
            refused.pop(key, None)  # the environment is the user's: it replaces the file
            file_keys.discard(key)
    return Settings(values, origin, refused, frozenset(file_keys))


def _file_lock(
    found: _File, values: dict[str, Any], origin: dict[str, str], refused: dict[str, str], ok: bool
) -> None:
    """The settings file's ``lock`` and ``lock_keys``, relative to its folder; unless the
    file is trusted (``ok``), a lock outside its folder and any lock keys are refused."""
    if "lock" in values:
        values["lock"] = _beside(values["lock"], found.path.parent)
        # It may add verification (a lock beside it), never grant a tier: a lock it names
        # verifies skills but pins none (see lock_policy).
        why = None if ok else _untrusted_source(values["lock"], found.path.parent)
        if why is not None:
            refused["lock"] = _refusal(found, "lock", values["lock"], why)
            del values["lock"], origin["lock"]
    if "lock_keys" in values:
        values["lock_keys"] = tuple(_beside(k, found.path.parent) for k in values["lock_keys"])
        if not ok:  # whoever holds the keys decides what is pinned: only the user names them
            shown = ", ".join(values["lock_keys"])
            refused["lock_keys"] = _refusal(found, "lock_keys", shown, "names signing keys")
            del values["lock_keys"], origin["lock_keys"]


def _beside(source: str, folder: Path) -> str:
    if "://" in source or "::" in source or os.path.isabs(os.path.expanduser(source)):
        return source
    return str(folder / source)


def lock_policy(
    found: Settings,
    lock: str | None = None,
    frozen: bool | None = None,
    keys: Sequence[str] | None = None,
) -> Any:
    """The :class:`~skillcore.trust.LockPolicy` of explicit ``lock``/``frozen``/``keys`` over
    the settings (None: no lock). A lock that cannot be read, or that is not signed by one of
    the lock keys when keys are set, is a :class:`ConfigError`, never "no lock". A lock named
    only by an untrusted settings file verifies but pins nothing, and such a file cannot turn
    ``frozen`` off nor name lock keys."""
    from skillcore.trust import LOCK_FILE, LockError, LockPolicy, read_lock
    from skillcore.trust.signed_lock import read_signed_lock

    path = lock if lock is not None else found.get("lock")
    wanted = bool(frozen) if frozen is not None else bool(found.get("frozen", False))
    if path is None and not wanted:
        return None
    path = LOCK_FILE if path is None else path
    pins = lock is not None or "lock" not in found.untrusted
    signers = list(keys) if keys else found.get("lock_keys")
    try:
        parsed = read_signed_lock(path, signers) if signers else read_lock(path)
        return LockPolicy(parsed, wanted, pins)
    except LockError as exc:
        raise ConfigError(str(exc)) from None


def current() -> Settings:
    """:func:`load_settings` for this process's environment and directory."""
    return load_settings()


__all__ = [
    "CONFIG_ENV",
    "SETTINGS",
    "SETTINGS_FILE",
    "TRUST_ENV",
    "ConfigError",
    "ConfigWarning",
    "Setting",
    "Settings",
    "load_settings",
    "lock_policy",
]
