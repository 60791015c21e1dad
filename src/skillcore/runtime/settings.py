"""Configuration without code: environment variables and a settings file.

One rule, used by every adapter (through :meth:`skillcore.SkillConfig.build` and
:meth:`skillcore.SkillConfig.library`) and by the CLI: **explicit arguments win**, then the
environment (``SKILLCORE_*``), then the settings file, then the built-in defaults.

The settings file is the one ``SKILLCORE_CONFIG`` names, else ``skills.yaml`` in the current
directory, else the ``[tool.skillcore]`` table of ``pyproject.toml`` there. Its keys are the
names in :data:`SETTINGS` (``sources``, ``enabled``, ``refresh``, ...); an unknown key or a bad
value is a :class:`ConfigError` naming the file and the key (or the variable).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import attrs

from skillcore.errors import SkillcoreError

#: The file looked for in the current directory, and the table of ``pyproject.toml``.
SETTINGS_FILE = "skills.yaml"
PYPROJECT_TABLE = ("tool", "skillcore")
#: The variable naming a settings file explicitly.
CONFIG_ENV = "SKILLCORE_CONFIG"
#: The largest settings file read (bytes): it is YAML, parsed with the safe loader.
MAX_SETTINGS_BYTES = 256 * 1024


class ConfigError(SkillcoreError, ValueError):
    """A setting from the environment or a settings file has a bad value; the message names
    the variable or the file and key."""


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


def _names(value: Any) -> tuple[str, ...]:
    """A list, or text separated by commas."""
    items = value.split(",") if isinstance(value, str) else value
    if not isinstance(items, (list, tuple)):
        raise ValueError("expected a list, or names separated by commas")
    out = tuple(str(v).strip() for v in items if not isinstance(v, (dict, list)))
    if len(out) != len(items) or any(not v for v in out):
        raise ValueError("expected non-empty names")
    return out


def _count(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise ValueError("expected a whole number")
    text = str(value).strip()
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

    def get(self, key: str, default: Any = None) -> Any:
        """The value of ``key`` (see :data:`SETTINGS`), or ``default`` when not set."""
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
        raise ConfigError(f"{where}: bad value {str(raw)[:80]!r}: {exc}") from None


def _read_file(path: Path) -> tuple[dict[str, Any], str]:
    """The settings table of ``path`` (YAML, or a ``pyproject.toml``) and its display name."""
    try:
        if path.stat().st_size > MAX_SETTINGS_BYTES:
            raise ConfigError(f"{path}: larger than {MAX_SETTINGS_BYTES} bytes")
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read the settings file {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text") from None
    if path.name == "pyproject.toml":
        return _pyproject_table(path, text), f"{path} [tool.skillcore]"
    import yaml

    try:
        data = yaml.safe_load(text)
    except (yaml.YAMLError, RecursionError) as exc:
        raise ConfigError(f"{path}: not valid YAML ({str(exc).splitlines()[0]})") from None
    if data is None:
        return {}, str(path)
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping of settings, got {type(data).__name__}")
    return data, str(path)


def _pyproject_table(path: Path, text: str) -> dict[str, Any]:
    if "skillcore" not in text:
        return {}
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
        data: Any = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc})") from None
    for part in PYPROJECT_TABLE:
        data = data.get(part, {}) if isinstance(data, dict) else {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: [tool.skillcore] must be a table")
    # TOML keys are often written with dashes.
    return {str(k).replace("-", "_"): v for k, v in data.items()}


def settings_file(environ: Mapping[str, str], cwd: Path) -> Path | None:
    """The settings file in effect: ``SKILLCORE_CONFIG``, else ``skills.yaml``, else a
    ``pyproject.toml`` with a ``[tool.skillcore]`` table (in ``cwd``), else None."""
    named = environ.get(CONFIG_ENV, "").strip()
    if named:
        path = (cwd / named).expanduser()
        if not path.is_file():
            raise ConfigError(f"{CONFIG_ENV}: no such settings file {named!r}")
        return path
    for candidate in (cwd / SETTINGS_FILE, cwd / "pyproject.toml"):
        if candidate.is_file():
            if candidate.name == SETTINGS_FILE:
                return candidate
            try:
                head = candidate.read_text(encoding="utf-8", errors="replace")
            except OSError:
                return None
            return candidate if "[tool.skillcore]" in head else None
    return None


def load_settings(
    environ: Mapping[str, str] | None = None, cwd: str | os.PathLike[str] | None = None
) -> Settings:
    """The settings from the environment (``SKILLCORE_*``) over those of the settings file.
    Raises :class:`ConfigError` naming the variable or key of a bad value."""
    env = os.environ if environ is None else environ
    base = Path.cwd() if cwd is None else Path(cwd)
    values: dict[str, Any] = {}
    origin: dict[str, str] = {}
    path = settings_file(env, base)
    if path is not None:
        table, shown = _read_file(path)
        for key, raw in table.items():
            if key not in SETTINGS:
                raise ConfigError(
                    f"{shown}: unknown setting {str(key)[:60]!r} (known: {', '.join(SETTINGS)})"
                )
            values[key] = _parse(key, raw, f"{shown}: {key}")
            origin[key] = f"{shown}: {key}"
    for key, setting in SETTINGS.items():
        raw = env.get(setting.env)
        if raw is not None and raw.strip():
            values[key] = _parse(key, raw, setting.env)
            origin[key] = setting.env
    if "sources" in values and path is not None and origin["sources"] != "SKILLCORE_SOURCES":
        # Relative paths in a file are relative to the file, not to wherever the program runs.
        values["sources"] = tuple(_beside(s, path.parent) for s in values["sources"])
    return Settings(values, origin)


def _beside(source: str, folder: Path) -> str:
    if "://" in source or "::" in source or os.path.isabs(os.path.expanduser(source)):
        return source
    return str(folder / source)


def current() -> Settings:
    """:func:`load_settings` for this process's environment and directory."""
    return load_settings()


__all__ = [
    "CONFIG_ENV",
    "SETTINGS",
    "SETTINGS_FILE",
    "ConfigError",
    "Setting",
    "Settings",
    "load_settings",
]
