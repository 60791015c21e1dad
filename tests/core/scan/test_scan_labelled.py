"""The labelled set (tests/core/scan/labelled.py): precision and recall of every rule class and
overall stay above a floor. Deterministic: the set is built by the test."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.core.scan.labelled import MALICIOUS, measure, scores

FLOOR = 0.9


@pytest.fixture(scope="module")
def measured(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    labels, found = measure(tmp_path_factory.mktemp("labelled"))
    return {"labels": labels, "found": found, "scores": scores(labels, found)}


def test_every_class_has_hostile_variations() -> None:
    from skillcore.scan import RuleClass

    for cls in RuleClass:
        assert sum(1 for classes, _ in MALICIOUS.values() if cls in classes) >= 3, cls


@pytest.mark.parametrize(
    "name",
    ["overall", *(c.value for c in __import__("skillcore.scan", fromlist=["RuleClass"]).RuleClass)],
)
def test_precision_and_recall_floor(measured: dict[str, object], name: str) -> None:
    score = measured["scores"][name]  # type: ignore[index]
    assert score.precision >= FLOOR and score.recall >= FLOOR, (name, score)


def test_benign_set_is_large_and_includes_the_examples(measured: dict[str, object]) -> None:
    labels = measured["labels"]
    benign = [s for s, c in labels.items() if not c]  # type: ignore[attr-defined]
    assert len(benign) >= 400
    assert "git-commit-hygiene" in benign and "security-review" in benign
    assert Path(__file__).with_name("labelled.py").is_file()
