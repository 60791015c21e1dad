"""A cheap shared signal for catalog changes: a marker every worker checks on each run makes
the next scan due at once, whatever the pacing says."""

from __future__ import annotations

from pathlib import Path

from skillcore import SkillLibrary
from skillcore.state.coordination import RefreshGate, file_marker
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
