"""The lock commands: ``lock`` (write ``skills.lock``, or ``--check`` it for CI), ``outdated``
(what changed upstream since the lock) and ``update`` (re-lock some skills or all)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Iterable

from skillcore._escaping import single_line
from skillcore.apps.cli_common import (
    EXIT_OK,
    EXIT_SKILL_PROBLEMS,
    SkillsProblem,
    UsageError,
    open_library,
)
from skillcore.errors import MissingDependencyError
from skillcore.library import SkillLibrary
from skillcore.trust import (
    LOCK_FILE,
    Bounds,
    LockedSkill,
    LockError,
    LockFile,
    Snapshot,
    SnapshotError,
    compare,
    locked_skill,
    read_lock,
    read_signed_lock,
    write_lock,
    write_signature,
)
from skillcore.trust.signing import MAX_KEY_FILE_BYTES, KeyFileError, load_private_key

#: The help of ``--lock-key`` (every command that takes ``--lock``).
KEY_HELP = (
    "a public key the lock must be signed by (repeatable; default: SKILLCORE_LOCK_KEYS, else "
    "the settings' lock_keys): a lock whose .sig is missing or not by one of them is refused"
)


def lock_path(args: argparse.Namespace) -> str:
    """The lock file of a command: ``--lock``, else the settings' ``lock``, else
    ``skills.lock`` in the current directory."""
    if getattr(args, "lock", None):
        return str(args.lock)
    try:
        configured = args.settings.get("lock")
    except Exception as exc:  # ConfigError: a lock the settings file may not name
        raise UsageError(single_line(str(exc))) from exc
    return str(configured) if configured else LOCK_FILE


def lock_keys(args: argparse.Namespace) -> list[str]:
    """The public keys the lock must be signed by: ``--lock-key``, else the settings'."""
    if getattr(args, "lock_keys", None):
        return [str(k) for k in args.lock_keys]
    try:
        configured = args.settings.get("lock_keys")
    except Exception as exc:  # ConfigError: keys the settings file may not name
        raise UsageError(single_line(str(exc))) from exc
    return list(configured or [])


def build_lock(lib: SkillLibrary, names: Iterable[str] | None = None) -> LockFile:
    """A lock of the library's skills (or of ``names`` only), read now. Raises
    :class:`SkillsProblem` naming each skill that cannot be read within the bounds: a lock
    is written whole or not at all."""
    wanted = None if names is None else set(names)
    bounds = Bounds(max_files=lib.max_resources, max_file_bytes=lib.max_file_bytes)
    entries: list[LockedSkill] = []
    problems: list[str] = []
    for meta in lib.catalog.skills:
        if wanted is not None and meta.name not in wanted:
            continue
        try:
            entries.append(locked_skill(lib.reader(meta.location.source), meta, bounds))
        except (SnapshotError, OSError) as exc:
            problems.append(f"{meta.name}: {exc}")
    if problems:
        for problem in problems:
            print(single_line(f"cannot lock {problem}"), file=sys.stderr)
        raise SkillsProblem(f"{len(problems)} skill(s) cannot be locked; the lock is unchanged")
    return LockFile.of(entries)


def differences(old: LockFile, new: LockFile) -> list[str]:
    """Each way ``new`` (the skills as read now) differs from ``old`` (the lock), one line
    each, sorted by skill."""
    out: list[str] = []
    for name in sorted(set(old.skills) | set(new.skills)):
        was, now = old.get(name), new.get(name)
        if now is None:
            out.append(f"{name}: in the lock but not found")
            continue
        if was is None:
            out.append(f"{name}: not in the lock (tree {now.tree})")
            continue
        if was.source != now.source:
            out.append(f"{name}: source {was.source} -> {now.source}")
        if was.version != now.version:
            out.append(f"{name}: version {was.version or '-'} -> {now.version or '-'}")
        for key in sorted(set(was.resolved) | set(now.resolved)):
            if was.resolved.get(key) != now.resolved.get(key) and key != "mcp_digests":
                before, after = was.resolved.get(key, "-"), now.resolved.get(key, "-")
                out.append(f"{name}: {key} {before} -> {after}")
        snap = Snapshot(now.files)
        out.extend(f"{name}: {d.message}" for d in compare(was, now.directory, snap))
    return out


def _unverified(args: argparse.Namespace) -> SkillLibrary:
    """The library as the sources hold it now (no lock applied: it is what is compared)."""
    args.no_lock = True
    return open_library(args, need_skills=False)


def _existing(path: str, required: bool, keys: list[str] | None = None) -> LockFile:
    if not required and not os.path.exists(path):
        return LockFile()
    try:
        return read_signed_lock(path, keys) if keys else read_lock(path)
    except (LockError, MissingDependencyError) as exc:
        raise UsageError(single_line(str(exc))) from exc


def _signed(path: str, keys: list[str]) -> str | None:
    """Why the lock's signature is refused (None: signed by one of ``keys``)."""
    try:
        read_signed_lock(path, keys)
    except MissingDependencyError as exc:
        raise UsageError(str(exc)) from None
    except LockError as exc:
        return single_line(str(exc))
    return None


def cmd_lock(args: argparse.Namespace) -> int:
    """Write the lock of the sources' skills (and its signature with ``--sign``), or with
    ``--check`` compare it (exit 1 on drift or, with lock keys, a refused signature)."""
    path = lock_path(args)
    keys = lock_keys(args) if args.check else []
    if args.check and keys:
        refused = _signed(path, keys)
        if refused is not None:
            print(refused)
            print(f"{path}: its signature is refused", file=sys.stderr)
            return EXIT_SKILL_PROBLEMS
    old = _existing(path, required=args.check)
    lib = _unverified(args)
    fresh = build_lock(lib)
    if args.check:
        found = differences(old, fresh)
        if not found and old.render() != fresh.render():
            found = [f"{path}: not as skillcore lock writes it (run skillcore lock)"]
        for line in found:
            print(single_line(line))
        if found:
            print(f"{path}: {len(found)} difference(s)", file=sys.stderr)
            return EXIT_SKILL_PROBLEMS
        print(f"{path}: {len(fresh.skills)} skill(s) match the lock", file=sys.stderr)
        return EXIT_OK
    key = _private_key(args.sign) if args.sign else None
    write_lock(path, fresh)
    print(f"{path}: locked {len(fresh.skills)} skill(s)", file=sys.stderr)
    if key is not None:
        try:
            sig, signer = write_signature(path, key)
        except (LockError, MissingDependencyError) as exc:
            raise UsageError(single_line(str(exc))) from None
        print(f"{path}: signed by {signer}: {sig}", file=sys.stderr)
    return EXIT_OK


def _private_key(path: str) -> bytes:
    """The private key file's bytes, read before the lock is written (a bad path changes
    nothing)."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_KEY_FILE_BYTES + 1)
    except OSError as exc:
        raise UsageError(f"cannot read the private key {path}: {exc.strerror or exc}") from None
    if len(data) > MAX_KEY_FILE_BYTES:
        raise UsageError(f"the private key {path} is over {MAX_KEY_FILE_BYTES} bytes")
    try:
        load_private_key(data)
    except (KeyFileError, MissingDependencyError) as exc:
        raise UsageError(f"{path}: {exc}") from None
    return data


def cmd_outdated(args: argparse.Namespace) -> int:
    """Show what changed in the sources since the lock (versions, references, files)."""
    path = lock_path(args)
    old = _existing(path, required=True, keys=lock_keys(args))
    fresh = build_lock(_unverified(args))
    found = differences(old, fresh)
    for line in found:
        print(single_line(line))
    changed = len({line.split(":", 1)[0] for line in found})
    print(f"{path}: {changed} skill(s) changed since the lock", file=sys.stderr)
    return EXIT_OK


def cmd_update(args: argparse.Namespace) -> int:
    """Re-lock the named skills (all without names): their entries are rewritten from the
    sources, a named skill no longer found is removed; the other entries are kept."""
    path = lock_path(args)
    old = _existing(path, required=False, keys=lock_keys(args))
    lib = _unverified(args)
    names = list(args.names or [])
    unknown = [n for n in names if n not in lib.catalog and old.get(n) is None]
    if unknown:
        raise UsageError(f"no skill named {', '.join(map(repr, unknown))} in the sources or lock")
    if not names:
        fresh = build_lock(lib)
    else:
        updated = build_lock(lib, names)
        kept = {n: s for n, s in old.skills.items() if n not in names}
        fresh = LockFile({**kept, **updated.skills})
    for line in differences(old, fresh):
        print(single_line(line))
    write_lock(path, fresh)
    print(f"{path}: {len(fresh.skills)} skill(s) locked", file=sys.stderr)
    return EXIT_OK


def add_lock_commands(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
    add_command: Callable[..., argparse.ArgumentParser],
) -> None:
    """lock, outdated, update (``add_command`` is the CLI's parser factory: the same source
    options on every command)."""
    p = add_command(sub, "lock", "write skills.lock: every skill's files and source, digested")
    p.add_argument(
        "--check",
        action="store_true",
        help="compare the skills with the lock instead of writing it; exit 1 on any difference "
        "(with --lock-key, also on a signature that is missing or refused)",
    )
    p.add_argument(
        "--sign",
        metavar="PRIVATE_KEY",
        help="also write the lock's signature (LOCK.sig) with this private key",
    )
    p.set_defaults(func=cmd_lock)
    p = add_command(sub, "outdated", "show what changed in the sources since the lock")
    p.set_defaults(func=cmd_outdated)
    p = add_command(sub, "update", "re-lock the named skills (all without names)", sources=False)
    p.add_argument("names", nargs="*", help="skills to re-lock (default: all)")
    p.add_argument(
        "--source",
        dest="sources",
        action="append",
        default=[],
        help="a skill source, path or URL (repeatable; default: the configured sources)",
    )
    p.add_argument("--lock", help="the lock file (default: the settings' lock, else skills.lock)")
    p.add_argument("--lock-key", dest="lock_keys", action="append", metavar="PUB", help=KEY_HELP)
    p.add_argument("--trust-settings", action="store_true", help="trust the settings file here")
    p.set_defaults(func=cmd_update, mode=None, recursive=False, max_depth=4)


__all__ = [
    "KEY_HELP",
    "add_lock_commands",
    "build_lock",
    "cmd_lock",
    "cmd_outdated",
    "cmd_update",
    "lock_keys",
]
