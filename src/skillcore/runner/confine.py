"""What the OS offers to confine a run, and the pieces a run is built from: the reduced
environment, the resource limits set in the child, and the wrappers (``unshare``,
``bubblewrap``) that put it in namespaces of its own.

Each facility is probed once per process by running it (a binary being installed is not
enough: containers often forbid namespaces).
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import subprocess
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

from skillcore.runner.base import RunLimits

#: Seconds a probe of a facility may take.
PROBE_SECONDS = 10.0
#: The PATH of a run (the host's PATH may name the user's own folders).
RUN_PATH = "/usr/local/bin:/usr/bin:/bin"
#: The environment variables of a run besides the ones the request sets; the host's own
#: environment is never passed on.
BASE_ENV: Mapping[str, str] = {"PATH": RUN_PATH, "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}
#: System folders a bubblewrap sandbox sees, read-only (those missing here are skipped).
SANDBOX_SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt")
#: The few files of /etc a program needs (the rest of /etc, with its secrets, is not there).
SANDBOX_ETC = (
    "/etc/alternatives",
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/localtime",
    "/etc/ssl",
    "/etc/ca-certificates",
    "/etc/mime.types",
)


def run_env(request_env: Mapping[str, str], work: Path) -> dict[str, str]:
    """The environment of a run: the base allow-list, what the request sets, and a fresh
    HOME and TMPDIR inside the working directory (set last: a request cannot move them)."""
    env = {**BASE_ENV, **request_env}
    env["HOME"] = str(work / "home")
    env["TMPDIR"] = str(work / "tmp")
    return env


def setup_prefix(
    limits: RunLimits, cgroup_procs: tuple[str, ...], cap_processes: bool
) -> list[str]:
    r"""The argv prefix that sets a run up before it starts: a POSIX shell joins the run's
    cgroups (writing its pid into each of ``cgroup_procs``), sets the resource limits with
    ``ulimit`` and ``exec``\ s the rest of the command line (so the run keeps its pid).

    A shell rather than a ``preexec_fn``: Python code in the child forces a full ``fork`` of
    the host process and costs more than the shell does. ``ulimit -d`` (``RLIMIT_DATA``:
    heap and private mappings) bounds memory rather than ``-v``: node reserves gigabytes of
    address space it never uses and cannot start under an address-space cap.
    ``RLIMIT_NPROC`` counts all of a user's processes and does not bind root; it is set only
    when no cgroup caps the run and the user is not root (``cap_processes``), at the user's
    current count plus the run's allowance. The CPU limit's soft value sends SIGXCPU, its hard
    value a second later SIGKILL. A limit is never raised past the host's own hard limit.
    """
    import resource  # POSIX only; imported where used

    def fit(which: int, value: int) -> int:
        hard = resource.getrlimit(which)[1]
        return value if hard == resource.RLIM_INFINITY else max(0, min(value, hard))

    cpu = fit(resource.RLIMIT_CPU, max(1, int(limits.cpu_seconds)))
    steps = [
        f"ulimit -S -t {cpu}",
        f"ulimit -H -t {fit(resource.RLIMIT_CPU, cpu + 1)}",
        f"ulimit -d {fit(resource.RLIMIT_DATA, int(limits.memory_bytes)) // 1024}",
        f"ulimit -f {max(1, fit(resource.RLIMIT_FSIZE, int(limits.file_bytes)) // 512)}",
        f"ulimit -n {fit(resource.RLIMIT_NOFILE, int(limits.open_files))}",
        "ulimit -c 0",
    ]
    if cap_processes:
        nproc = user_process_count() + int(limits.processes)
        steps.append(f"ulimit -p {fit(resource.RLIMIT_NPROC, nproc)}")
    joins = [f'echo $$ > "${n + 1}"' for n in range(len(cgroup_procs))]
    script = " && ".join([*joins, *steps]) + f' || exit 125; shift {len(cgroup_procs)}; exec "$@"'
    shell = shutil.which("sh", path=RUN_PATH) or "/bin/sh"
    return [shell, "-c", script, "skillcore-run", *cgroup_procs]


def user_process_count() -> int:
    """How many processes the current user has (what ``RLIMIT_NPROC`` counts)."""
    uid, count = os.getuid(), 0
    with os.scandir("/proc") as entries:
        for entry in entries:
            if entry.name.isdigit():
                with contextlib.suppress(OSError):
                    count += entry.stat().st_uid == uid
    return count


def _works(argv: list[str]) -> bool:
    try:
        done = subprocess.run(
            argv, capture_output=True, timeout=PROBE_SECONDS, env=dict(BASE_ENV), check=False
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


@functools.cache
def unshare_prefix(network: bool) -> tuple[str, ...] | None:
    """The ``unshare`` argv prefix that puts a run in a PID namespace of its own (and a
    network namespace with ``network``), or None when namespaces are not available here.

    The run is the namespace's first process: when it ends, or ``unshare`` is killed
    (``--kill-child``), the kernel kills every process left in the namespace, including any
    that left the process group. Unprivileged users get a user namespace too
    (``--map-root-user``).
    """
    if not sys.platform.startswith("linux"):
        return None
    found = shutil.which("unshare", path=RUN_PATH)
    if found is None:
        return None
    prefix = [found, "--pid", "--fork", "--kill-child"]
    if network:
        prefix.append("--net")
    if os.geteuid() != 0:
        prefix.append("--map-root-user")
    # A shell is the namespace's first process and runs the script as its child: the script
    # keeps ordinary signal handling (a namespace's first process ignores SIGTERM), and a
    # script killed by a signal is reported as 128 + the signal (unshare 2.38 loses it).
    shell = shutil.which("sh", path=RUN_PATH) or "/bin/sh"
    prefix += ["--", shell, "-c", '"$@"; exit $?', "skillcore-run"]
    true = shutil.which("true", path=RUN_PATH) or "/bin/true"
    return tuple(prefix) if _works([*prefix, true]) else None


@functools.cache
def bwrap_path() -> str | None:
    """The ``bwrap`` binary when it is installed and can make a sandbox here."""
    if not sys.platform.startswith("linux"):
        return None
    found = shutil.which("bwrap", path=RUN_PATH)
    if found is None:
        return None
    true = shutil.which("true", path=RUN_PATH) or "/bin/true"
    probe = bwrap_argv(found, (), Path("/"), None, ())
    return found if _works([*probe, true]) else None


def _prefix_dirs(program: str) -> Iterable[str]:
    """The installation prefixes of ``program`` and of each link on its way to the real
    file (``/venv/bin/python`` -> ``/venv`` and the base Python's prefix)."""
    path, seen = Path(program), 0
    while seen < 40:
        if path.parent.name == "bin":
            yield str(path.parent.parent)
        else:
            yield str(path.parent)
        if not path.is_symlink():
            break
        path = path.parent / os.readlink(path)
        seen += 1
    yield str(path.resolve().parent.parent)


def bwrap_argv(
    bwrap: str,
    argv: tuple[str, ...],
    skill_dir: Path,
    work: Path | None,
    extra_ro: tuple[str, ...],
) -> list[str]:
    """The bubblewrap command line of one run (the run's own argv at the end).

    Read-only: the system folders, a few files of /etc, the interpreter's installation and
    the skill folder. Writable: only the run's working directory (its HOME and TMPDIR are
    inside) and a fresh /tmp. Every namespace is new (no network), the sandbox dies with its
    parent and runs in a new session (no terminal to inject input into).
    """
    # The fresh /tmp first: a bind mounted before it under /tmp (a virtual environment made
    # with mktemp, the skill folder) would be hidden by it.
    out = [bwrap, "--unshare-all", "--die-with-parent", "--new-session"]
    out += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
    ro = [*SANDBOX_SYSTEM_DIRS, *SANDBOX_ETC, *extra_ro]
    if argv:
        ro.extend(_prefix_dirs(argv[0]))
    seen: set[str] = set()
    for path in ro:
        if path not in seen and path not in ("/", "") and os.path.exists(path):
            seen.add(path)
            if path in SANDBOX_SYSTEM_DIRS and os.path.islink(path):
                out += ["--symlink", os.readlink(path), path]  # /bin -> usr/bin, as here
            else:
                out += ["--ro-bind", path, path]
    if str(skill_dir) != "/":
        out += ["--ro-bind", str(skill_dir), str(skill_dir)]
    if work is not None:
        out += ["--bind", str(work), str(work), "--chdir", str(work)]
    return [*out, "--", *argv]
