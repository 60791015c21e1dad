"""A cheap shared signal for catalog changes: a marker every worker checks on each run makes
the next scan due at once, whatever the pacing says."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from skillcore import SkillLibrary
from skillcore.state.refresh import MAX_MARKER_BYTES, RefreshGate, file_marker
from skillcore.testing import write_skill


def test_a_changed_marker_makes_the_next_check_due(tmp_path: Path) -> None:
    marker = tmp_path / ".version"
    gate = RefreshGate(False, marker=file_marker(marker))  # otherwise: one scan per process
    assert gate.due()
    assert not gate.due() and not gate.due()
    marker.write_text("2")  # appears: a change
    assert gate.due()
    assert not gate.due()
    marker.write_text("3")
    assert gate.due()
    marker.unlink()
    assert gate.due() and not gate.due()


def test_every_worker_sees_an_edit_on_its_next_run(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write_skill(root, "alpha", "Old.", "Body.")
    marker = root / ".version"
    marker.write_text("1")
    workers = []
    for _ in range(3):  # each worker paced to one scan an hour, as a huge library would be
        library = SkillLibrary([root])
        library.discover()
        gate = RefreshGate(3600.0, library, marker=file_marker(marker))
        assert gate.due()
        workers.append((library, gate))
    write_skill(root, "alpha", "New.", "Body.")
    for _, gate in workers:  # without the marker: nothing is due for an hour
        assert not gate.due()
    marker.write_text("2")
    for library, gate in workers:
        assert gate.due()
        assert library.refresh().get("alpha").description == "New."


def test_a_failing_marker_leaves_the_pacing_alone() -> None:
    def broken() -> object:
        raise RuntimeError("unreachable")

    gate = RefreshGate(3600.0, marker=broken)
    assert gate.due() and not gate.due()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX only")
def test_a_fifo_marker_never_blocks_a_check(tmp_path: Path) -> None:
    marker = tmp_path / ".version"
    os.mkfifo(marker)  # a planted named pipe: a blocking open waits for a writer forever
    gate = RefreshGate(False, marker=file_marker(marker))
    results: list[object] = []
    worker = threading.Thread(target=lambda: results.append(gate.due()), daemon=True)
    worker.start()
    worker.join(5)
    blocked = worker.is_alive()
    if blocked:  # release the stuck reader so the process can go on
        os.close(os.open(marker, os.O_WRONLY | os.O_NONBLOCK))
        worker.join(5)
    assert not blocked, "the check blocked on the FIFO"
    assert results == [True]
    assert file_marker(marker)() is None  # read as missing, like any file that is not regular
    assert not gate.due()


def test_a_marker_is_read_as_skill_files_are(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.write_text("1")
    link = tmp_path / ".version"
    link.symlink_to(real)
    assert file_marker(link)() is None  # the last component is never followed
    big = tmp_path / "big"
    big.write_bytes(b"x" * (MAX_MARKER_BYTES + 10))
    assert file_marker(big)() == b"x" * MAX_MARKER_BYTES  # a bounded read
    real.write_text("2")
    assert file_marker(real)() == b"2"
