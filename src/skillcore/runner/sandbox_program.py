"""The program a bridge runs inside a host's sandbox (standard library only; its source is
shipped as text, never imported there).

Given a payload (the skill's files, the command, stdin, the environment, the limits and a
nonce), it re-executes itself with an empty environment (so neither it nor the script holds
the sandbox's own variables, not even in ``/proc/<pid>/environ``), writes the skill's files
read-only into a fresh folder, runs the command in a fresh working directory in its own
session with resource limits, keeps the first ``output_bytes`` of stdout and of stderr,
ends the run at its wall clock (or when it writes far too much), kills the process group,
removes its folders and prints one line: the nonce and the result, as base64 JSON.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from typing import Any

MARK = "SKILLCORE-BRIDGE-RESULT"
#: What makes this source a program run as ``python -I <file> <payload file> [<result file>]``.
ENTRY = "\nif __name__ == '__main__':\n    main(*sys.argv[:3])\n"
#: The PATH of this program before it reads its payload (which sets the script's).
PATH = "/usr/local/bin:/usr/bin:/bin"


def start(source: str, payload: str) -> None:
    """Entry for executors that run code, not files: write this program and its payload
    (base64 JSON) to a fresh folder, then run :func:`main` on them."""
    base = tempfile.mkdtemp(prefix="skillcore-bridge-")
    program = os.path.join(base, "run.py")
    with open(program, "w", encoding="utf-8") as out:
        out.write(source + ENTRY)
    with open(os.path.join(base, "payload"), "wb") as raw:
        raw.write(base64.b64decode(payload))
    main(program, os.path.join(base, "payload"))


def main(program: str, payload_path: str, result_path: str = "") -> None:
    """Run the payload at ``payload_path`` (in its own folder, removed at the end); the
    result line also goes to ``result_path`` when given (for sandboxes that cut output)."""
    if os.environ.get("SKILLCORE_BRIDGE") != "1":
        sys.stdout.flush()
        env = {"SKILLCORE_BRIDGE": "1", "PATH": PATH, "LANG": "C.UTF-8"}
        # Without a PATH (some sandboxes run commands with no environment) Python may not
        # know its own path.
        exe = sys.executable or shutil.which("python3", path=PATH) or "/usr/bin/python3"
        argv = [exe, "-I", program, payload_path, result_path]
        os.execve(exe, argv[: 5 if result_path else 4], env)
    with open(payload_path, "rb") as raw:
        job = json.loads(raw.read())
    # The nonce is not left for the script to read; the program is read already.
    for used in (payload_path, program):
        os.unlink(used)
    folder = os.path.dirname(os.path.abspath(program))
    if os.path.basename(folder).startswith("skillcore-bridge-"):  # made by start()
        os.rmdir(folder)
    base = tempfile.mkdtemp(prefix="skillcore-run-")
    try:
        result = _run(job, base)
    finally:
        _remove(base)
    line = base64.b64encode(json.dumps(result).encode()).decode()
    text = f"\n{MARK} {job['nonce']} {line}\n"
    if result_path:
        with open(result_path, "w", encoding="ascii") as out:
            out.write(text)
    sys.stdout.write(text)
    sys.stdout.flush()


def _run(job: dict[str, Any], base: str) -> dict[str, Any]:
    skill, work = os.path.join(base, "skill"), os.path.join(base, "work")
    for name in (skill, work, os.path.join(work, "home"), os.path.join(work, "tmp")):
        os.makedirs(name, exist_ok=True)
    for rel, data in job["files"]:
        parts = rel.split("/")
        if rel.startswith("/") or ".." in parts:
            continue
        target = os.path.join(skill, *parts)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as out:
            out.write(base64.b64decode(data))
        os.chmod(target, 0o444)
    for dirpath, _dirs, _files in os.walk(skill):
        os.chmod(dirpath, 0o555)
    argv = [os.path.join(skill, value) if kind == "skill" else value for kind, value in job["argv"]]
    path = job["env"].get("PATH", PATH)
    program = sys.executable if argv[0] == "python" else shutil.which(argv[0], path=path)
    if program is None:
        return _result(127, b"", f"{argv[0]} is not installed in the sandbox\n".encode())
    stdin_path = os.path.join(base, "stdin")
    with open(stdin_path, "wb") as raw:
        raw.write(base64.b64decode(job["stdin"]))
    env = {**job["env"], "HOME": os.path.join(work, "home"), "TMPDIR": os.path.join(work, "tmp")}
    limits = job["limits"]
    started = time.monotonic()
    with open(stdin_path, "rb") as stdin:
        try:
            proc = subprocess.Popen(
                [program, *argv[1:]],
                stdin=stdin,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=work,
                env=env,
                start_new_session=True,
                preexec_fn=lambda: _limit(limits),
            )
        except OSError as exc:
            return _result(127, b"", f"could not start {argv[0]}: {exc}\n".encode())
    outcome = _pump(proc, limits, int(job["max_discarded"]))
    outcome["duration"] = time.monotonic() - started
    return outcome


def _remove(base: str) -> None:
    """Remove a run's folders (the skill's made writable first: removing needs it)."""
    for dirpath, dirs, _files in os.walk(base):
        for name in dirs:
            with contextlib.suppress(OSError):
                os.chmod(os.path.join(dirpath, name), 0o700)
    shutil.rmtree(base, ignore_errors=True)


def _limit(limits: dict[str, Any]) -> None:
    """Resource limits in the child before it runs the command (never above the hard ones)."""
    import resource

    def cap(which: int, value: int) -> None:
        hard = resource.getrlimit(which)[1]
        value = value if hard == resource.RLIM_INFINITY else min(value, hard)
        with contextlib.suppress(OSError, ValueError):
            resource.setrlimit(which, (value, hard if which == resource.RLIMIT_CPU else value))

    cap(resource.RLIMIT_CPU, int(limits["cpu_seconds"]))
    cap(resource.RLIMIT_DATA, int(limits["memory_bytes"]))
    cap(resource.RLIMIT_FSIZE, int(limits["file_bytes"]))
    cap(resource.RLIMIT_NOFILE, int(limits["open_files"]))
    cap(resource.RLIMIT_CORE, 0)


def _pump(
    proc: subprocess.Popen[bytes], limits: dict[str, Any], max_discarded: int
) -> dict[str, Any]:
    """Read stdout and stderr up to the cap until the end or the wall clock, then kill the
    whole process group."""
    assert proc.stdout is not None and proc.stderr is not None
    cap, out, truncated, discarded, killed = int(limits["output_bytes"]), [b"", b""], False, 0, ""
    sel = selectors.DefaultSelector()
    for index, pipe in enumerate((proc.stdout, proc.stderr)):
        sel.register(pipe, selectors.EVENT_READ, index)
    deadline = time.monotonic() + float(limits["wall_seconds"])
    exited_at = None
    while sel.get_map():
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            killed = "timeout"
            break
        for key, _ in sel.select(timeout=min(remaining, 0.05)):
            chunk = os.read(key.fd, 65536)
            if not chunk:
                sel.unregister(key.fileobj)
                continue
            room = max(0, cap - len(out[key.data]))
            out[key.data] += chunk[:room]
            if len(chunk) > room:
                truncated, discarded = True, discarded + len(chunk) - room
        if discarded > max_discarded:
            killed = "output"
            break
        if proc.poll() is not None:
            # A process the script left behind may hold the pipes open: not for long.
            exited_at = exited_at or time.monotonic()
            if time.monotonic() - exited_at > 0.5:
                break
    with contextlib.suppress(OSError):
        os.killpg(proc.pid, signal.SIGKILL)
    sel.close()
    code = proc.wait()
    return _result(code, out[0], out[1], truncated, killed)


def _result(
    code: int | None, stdout: bytes, stderr: bytes, truncated: bool = False, killed: str = ""
) -> dict[str, Any]:
    return {
        "exit_code": code,
        "stdout": base64.b64encode(stdout).decode(),
        "stderr": base64.b64encode(stderr).decode(),
        "truncated": truncated,
        "killed": killed,
        "duration": 0.0,
    }
