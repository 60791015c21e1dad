"""What every bridge to a host's sandbox shares (no framework here: each adapter's bridge
only moves bytes in and out of its framework's sandbox).

A bridge does not run the script itself: it sends :mod:`skillcore.runner.sandbox_program`
and a payload into the sandbox, and that program runs the script there (fresh folders, an
empty environment but an allow-list, resource limits, output cut, the wall clock, the process
group killed) and prints one result line with a nonce. :func:`parse` reads that line back;
anything else the sandbox printed is not trusted as a result.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import secrets
from pathlib import Path
from typing import Any

import attrs

from skillcore.limits import MAX_BRIDGE_PAYLOAD_BYTES, MAX_RUN_DISCARDED_BYTES
from skillcore.runner import confine, sandbox_program
from skillcore.runner.base import Isolation, IsolationUnavailable, ScriptRequest, ScriptResult

#: The interpreters a bridge can name in the sandbox, by the table's program names.
KINDS = ("python", "bash", "sh", "node")


@attrs.frozen
class Job:
    """One run ready to send: the program's source, the payload (JSON) and the nonce its
    result line carries."""

    source: str
    payload: bytes
    nonce: str

    def inline_code(self) -> str:
        """Python code that runs the job where only code (no file) can be sent."""
        encoded = base64.b64encode(self.payload).decode()
        return f"{self.source}\n\nstart({self.source!r}, {encoded!r})\n"

    def program_file(self) -> bytes:
        """The program as a file run with ``python3 -I <file> <payload file>``."""
        return (self.source + sandbox_program.ENTRY).encode()


def source() -> str:
    """The text of the program a bridge runs in the sandbox."""
    return Path(sandbox_program.__file__).read_text(encoding="utf-8")


def check(request: ScriptRequest, level: Isolation, what: str) -> None:
    """Raise :class:`IsolationUnavailable` (nothing run) when ``request`` requires more than
    ``level``."""
    if request.require > level:
        raise IsolationUnavailable(
            f"the run requires isolation {request.require.name}; {what} gives {level.name}; "
            "nothing was run"
        )


def kind(program: str) -> str | None:
    """The interpreter a table entry names (``/usr/bin/python3.11`` -> ``python``)."""
    name = os.path.basename(program)
    if name.startswith("python"):
        return "python"
    return name if name in KINDS else None


def prepare(
    request: ScriptRequest, kinds: tuple[str, ...] = KINDS, what: str = "this runner"
) -> Job | ScriptResult:
    """The job for ``request``, or a refusal result (nothing run) when its interpreter is not
    one ``kinds`` allows or the skill's files are too large to send."""
    interpreter = kind(request.argv[0]) if request.argv else None
    if interpreter is None or interpreter not in kinds:
        allowed = ", ".join(kinds)
        return refused(f"{what} runs only {allowed} scripts; not run.")
    root = str(request.skill_dir)
    argv: list[list[str]] = [["plain", interpreter]]
    for arg in request.argv[1:]:
        if arg.startswith(root + os.sep):
            argv.append(["skill", os.path.relpath(arg, root).replace(os.sep, "/")])
        else:
            argv.append(["plain", arg])
    files, size = [], 0
    for path in sorted(request.skill_dir.rglob("*")):
        if path.is_symlink() or not path.is_file():
            continue
        data = path.read_bytes()
        size += len(data)
        if size > MAX_BRIDGE_PAYLOAD_BYTES:
            return refused(
                f"the skill's files exceed {MAX_BRIDGE_PAYLOAD_BYTES} bytes, more than a "
                "bridge sends into a sandbox; not run."
            )
        rel = path.relative_to(request.skill_dir).as_posix()
        files.append([rel, base64.b64encode(data).decode()])
    nonce = secrets.token_hex(16)
    payload = {
        "nonce": nonce,
        "argv": argv,
        "files": files,
        "stdin": base64.b64encode(request.stdin).decode(),
        "env": {**confine.BASE_ENV, **request.env},
        "limits": attrs.asdict(request.limits),
        "max_discarded": MAX_RUN_DISCARDED_BYTES,
    }
    return Job(source(), json.dumps(payload).encode(), nonce)


def refused(message: str) -> ScriptResult:
    """A run the bridge would not start (exit code 126, the reason on stderr)."""
    return ScriptResult(126, b"", message.encode() + b"\n", 0.0, False, False, Isolation.PROCESS)


def parse(
    output: str | bytes,
    nonce: str,
    *,
    level: Isolation,
    mechanisms: tuple[str, ...],
    duration: float,
    output_bytes: int,
    sandbox_exit: int | None = None,
    sandbox_timed_out: bool = False,
) -> ScriptResult:
    """The result the program printed in ``output`` with ``nonce``; without one (the sandbox
    failed or was ended), what the sandbox said, cut at ``output_bytes``."""
    text = output.decode("utf-8", "replace") if isinstance(output, bytes) else output
    found: dict[str, Any] | None = None
    prefix = f"{sandbox_program.MARK} {nonce} "
    for line in text.splitlines():
        if line.startswith(prefix):
            try:
                found = json.loads(base64.b64decode(line[len(prefix) :], validate=True))
            except (ValueError, binascii.Error):
                found = None
    if found is None:
        raw = text.encode("utf-8", "replace")
        note = b"the sandbox ended without a result" + (b" (timeout)" if sandbox_timed_out else b"")
        return ScriptResult(
            exit_code=sandbox_exit,
            stdout=b"",
            stderr=(raw[: max(0, output_bytes - 80)] + b"\n" + note)[:output_bytes],
            duration_seconds=duration,
            truncated=len(raw) > output_bytes - 80,
            timed_out=sandbox_timed_out,
            isolation=level,
            killed="timeout" if sandbox_timed_out else "",
            mechanisms=mechanisms,
        )
    killed = str(found.get("killed") or "")
    return ScriptResult(
        exit_code=found.get("exit_code"),
        stdout=base64.b64decode(found.get("stdout", ""))[:output_bytes],
        stderr=base64.b64decode(found.get("stderr", ""))[:output_bytes],
        duration_seconds=duration,
        truncated=bool(found.get("truncated")),
        timed_out=killed == "timeout",
        isolation=level,
        killed=killed,
        mechanisms=mechanisms,
    )


#: What the program itself gives inside any sandbox (the sandbox may add more).
PROGRAM_MECHANISMS = ("process-group", "rlimits", "empty-environment", "fresh-workdir")
