"""Hostile scripts are contained by the local runners, at each level this machine gives: each
run returns a result (small wall-clock limits, no hang) and what it tried is stopped."""

from __future__ import annotations

import os
import socket
import sys
import threading
from pathlib import Path

import pytest

from skillcore.limits import MAX_RUN_DISCARDED_BYTES
from skillcore.runner import Isolation, LocalRunner

from .conftest import need, processes_with, run_script, settled

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux runner")

MIB = 1024 * 1024


def test_fork_bomb_is_capped_and_killed(runner: LocalRunner, skill_dir: Path, token: str) -> None:
    body = """
        import os, sys, time
        print("started", flush=True)
        while True:
            try:
                os.fork()
            except OSError:
                time.sleep(0.01)
    """
    result = run_script(runner, skill_dir, body, token, wall_seconds=2, processes=16)
    assert result.killed == "timeout" and result.timed_out
    assert result.stdout.startswith(b"started")
    assert settled(lambda: not processes_with(token))


def test_endless_output_is_cut_and_ended(runner: LocalRunner, skill_dir: Path) -> None:
    body = """
        import sys
        while True:
            sys.stdout.write("x" * 65536)
    """
    result = run_script(runner, skill_dir, body, wall_seconds=60, output_bytes=4096)
    assert result.killed == "output" and not result.timed_out
    assert result.truncated and result.stdout == b"x" * 4096


def test_chatty_script_that_stops_still_finishes(runner: LocalRunner, skill_dir: Path) -> None:
    body = f"""
        import sys
        sys.stdout.write("y" * {MAX_RUN_DISCARDED_BYTES // 2})
        sys.stderr.write("done")
    """
    result = run_script(runner, skill_dir, body, wall_seconds=60, output_bytes=100)
    assert result.exit_code == 0 and result.killed == ""
    assert result.truncated and result.stdout == b"y" * 100 and result.stderr == b"done"


def test_sleep_forever_is_killed_even_ignoring_sigterm(
    runner: LocalRunner, skill_dir: Path, token: str
) -> None:
    body = """
        import signal, time
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        print("sleeping", flush=True)
        time.sleep(10**6)
    """
    result = run_script(runner, skill_dir, body, token, wall_seconds=1)
    assert result.timed_out and result.killed == "timeout"
    assert result.exit_code is not None and result.exit_code != 0
    assert result.stdout == b"sleeping\n"
    assert settled(lambda: not processes_with(token))


def test_memory_hog_is_refused_its_memory(runner: LocalRunner, skill_dir: Path) -> None:
    body = """
        chunks = []
        while True:
            chunks.append(bytearray(8 * 1024 * 1024))
    """
    result = run_script(runner, skill_dir, body, wall_seconds=60, memory_bytes=128 * MIB)
    assert result.exit_code not in (0, None) and not result.timed_out
    assert b"MemoryError" in result.stderr or result.killed == "memory"
    if "cgroup-memory" in result.mechanisms:
        assert result.memory_peak_bytes is not None and result.memory_peak_bytes <= 128 * MIB


def test_memory_is_capped_for_the_whole_run(runner: LocalRunner, skill_dir: Path) -> None:
    if "cgroup-memory" not in runner.mechanisms():
        pytest.skip("no memory cgroup here: the memory limit is per process (RLIMIT_DATA)")
    body = """
        import os, time
        for _ in range(5):
            if os.fork() == 0:
                data = bytearray(60 * 1024 * 1024)
                for i in range(0, len(data), 4096):
                    data[i] = 1  # touch every page: resident, charged to the run
                time.sleep(3)
                os._exit(0)
        statuses = [os.wait()[1] for _ in range(5)]
        print(sum(1 for s in statuses if s != 0), "children failed", flush=True)
    """
    result = run_script(runner, skill_dir, body, wall_seconds=60, memory_bytes=128 * MIB)
    # 5 x 60 MiB, each within the per-process limit, does not fit the run's 128 MiB.
    assert result.memory_peak_bytes is not None and result.memory_peak_bytes <= 128 * MIB
    assert result.killed == "memory" or not result.stdout.startswith(b"0 ")


def test_host_secrets_are_not_in_the_environment(
    runner: LocalRunner, skill_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "fake-secret-value")
    monkeypatch.setenv("PYTHONPATH", "/host/path")
    body = """
        import os
        print(sorted(os.environ))
        print(os.path.expanduser("~"))
        print(os.path.exists(os.path.expanduser("~/.ssh")))
    """
    result = run_script(runner, skill_dir, body)
    assert result.exit_code == 0, result.stderr
    out = result.stdout.decode()
    assert "fake-secret-value" not in out and "AWS_SECRET" not in out and "PYTHONPATH" not in out
    _, home, ssh = out.splitlines()
    assert home != os.path.expanduser("~") and home.endswith("/home") and ssh == "False"
    assert not Path(home).exists()  # the working directory is gone after the run


def test_host_ssh_folder_is_unreadable_in_the_sandbox(skill_dir: Path, tmp_path: Path) -> None:
    from skillcore.runner import BubblewrapRunner

    runner = BubblewrapRunner()
    need(runner, Isolation.SANDBOX)
    ssh = tmp_path / "host-home" / ".ssh"
    ssh.mkdir(parents=True)
    (ssh / "id_ed25519").write_text("PRIVATE KEY")
    body = """
        import sys
        for path in sys.argv[1:]:
            try:
                print(open(path).read())
            except OSError as exc:
                print("blocked", type(exc).__name__)
    """
    result = run_script(runner, skill_dir, body, str(ssh / "id_ed25519"), "/etc/shadow")
    assert result.exit_code == 0, result.stderr
    assert b"PRIVATE KEY" not in result.stdout and result.stdout.count(b"blocked") == 2


@pytest.mark.parametrize("kind", ["namespaces", "bubblewrap"])
def test_no_network(kind: str, skill_dir: Path) -> None:
    from .conftest import RUNNERS

    runner = RUNNERS[kind]()
    need(runner, Isolation.NO_NETWORK)
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.2)
    accepted: list[object] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                accepted.append(server.accept())
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    body = """
        import socket, sys
        for host in ("127.0.0.1", "1.1.1.1"):
            try:
                socket.create_connection((host, int(sys.argv[1])), timeout=2).close()
                print("connected", host)
            except OSError as exc:
                print("blocked", host, type(exc).__name__)
    """
    try:
        result = run_script(runner, skill_dir, body, str(server.getsockname()[1]))
    finally:
        stop.set()
        thread.join(5)
        server.close()
    assert result.exit_code == 0, result.stderr
    assert b"connected" not in result.stdout and not accepted


def test_writes_outside_the_working_directory_fail_in_the_sandbox(
    skill_dir: Path, tmp_path: Path
) -> None:
    from skillcore.runner import BubblewrapRunner

    runner = BubblewrapRunner()
    need(runner, Isolation.SANDBOX)
    outside = tmp_path / "outside.txt"
    body = """
        import os, sys
        for path in (*sys.argv[1:], "here.txt", os.path.expanduser("~/note")):
            try:
                with open(path, "w") as handle:
                    handle.write("x")
                print("wrote", path)
            except OSError as exc:
                print("blocked", path, type(exc).__name__)
    """
    skill_file = skill_dir / "scripts" / "evil.txt"
    result = run_script(runner, skill_dir, body, str(skill_file), str(outside), "/usr/evil")
    assert result.exit_code == 0, result.stderr
    out = result.stdout.decode()
    assert f"blocked {skill_file}" in out and "blocked /usr/evil" in out
    assert "wrote here.txt" in out and "/home/note" in out
    # A host path outside the skill is not there: at most the sandbox's own /tmp gets it.
    assert not skill_file.exists() and not outside.exists() and not Path("/usr/evil").exists()


def test_daemon_does_not_outlive_the_run(runner: LocalRunner, skill_dir: Path, token: str) -> None:
    body = """
        import os, time
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                os.closerange(0, 3)
                time.sleep(10**6)
            os._exit(0)
        time.sleep(0.5)
        print("parent done", flush=True)
    """
    result = run_script(runner, skill_dir, body, token, wall_seconds=30)
    assert result.exit_code == 0 and not result.timed_out, result.stderr
    assert settled(lambda: not processes_with(token))


def test_file_size_and_cpu_limits(runner: LocalRunner, skill_dir: Path) -> None:
    body = """
        with open("big", "wb") as handle:
            handle.write(b"x" * (2 * 1024 * 1024))
    """
    result = run_script(runner, skill_dir, body, file_bytes=MIB)
    # Python ignores SIGXFSZ, so the write fails (EFBIG) instead of the process being killed.
    assert result.exit_code != 0 and b"File too large" in result.stderr
    spin = "while True:\n    pass\n"
    result = run_script(runner, skill_dir, spin, wall_seconds=120, cpu_seconds=1)
    assert result.exit_code is not None and result.exit_code < 0 and not result.timed_out


@pytest.mark.parametrize("cgroups", [False, True])
def test_a_pid_namespace_alone_ends_a_daemon(cgroups: bool, skill_dir: Path, token: str) -> None:
    runner = LocalRunner(cgroups=cgroups)
    if "pid-namespace" not in runner.mechanisms():
        pytest.skip("no PID namespace here")
    body = """
        import os, time
        if os.fork() == 0:
            os.setsid()
            os.closerange(0, 3)
            time.sleep(10**6)
        print("parent done", flush=True)
    """
    result = run_script(runner, skill_dir, body, token)
    assert result.exit_code == 0 and "pid-namespace" in result.mechanisms
    assert settled(lambda: not processes_with(token))


def test_root_without_a_cgroup_is_not_reported_as_limits() -> None:
    runner = LocalRunner(cgroups=False, namespaces=False)
    if os.geteuid() == 0:
        # RLIMIT_NPROC does not bind root: without a pids cgroup there is no process cap.
        assert runner.isolation() == Isolation.PROCESS
    else:
        assert runner.isolation() == Isolation.LIMITS
