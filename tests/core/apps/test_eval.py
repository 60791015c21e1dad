"""skillcore eval and lint-descriptions: query files, metrics, sub-libraries, CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillcore import Catalog, SkillLibrary, SkillLocation, SkillMetadata
from skillcore.apps.cli import main
from skillcore.apps.evaluate import (
    EvalCase,
    EvalFileError,
    confusable_pairs,
    evaluate,
    load_routing,
    load_trigger_evals,
    skill_for_file,
    sub_catalog,
)

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples" / "skills"
EVALS = ROOT / "examples" / "evals"


def meta(name: str, desc: str = "d", **kw) -> SkillMetadata:
    return SkillMetadata(name, desc, SkillLocation("s", name, f"/s/{name}"), **kw)


CAT = Catalog(
    (
        meta("pdf-extract", "Extract text and tables from PDF documents"),
        meta("k8s-deploy", "Deploy services to a Kubernetes cluster"),
        meta("sheet-edit", "Edit spreadsheet formulas and pivot tables"),
    )
)


def test_metrics_count_ranks_visibility_and_false_triggers() -> None:
    cases = [
        EvalCase("extract tables from a pdf", "pdf-extract"),
        EvalCase("pivot tables in my spreadsheet", "sheet-edit"),
        EvalCase("extract tables", "sheet-edit"),  # ranked 2nd: pdf-extract has both words
        EvalCase("kubernetes deploy", "pdf-extract", should_trigger=False),
        EvalCase("pdf", "pdf-extract", should_trigger=False),  # a false trigger
        EvalCase("anything", "no-such-skill"),
    ]
    report = evaluate(CAT, cases, ranker="bm25", budget=0)
    assert (report.positives, report.negatives, report.unknown) == (3, 2, ("no-such-skill",))
    assert report.recall[1] == pytest.approx(2 / 3)
    assert report.recall[5] == 1.0
    assert report.mrr == pytest.approx((1 + 1 + 0.5) / 3)
    assert report.visible == 0.0 and report.found_by_search == 1.0
    assert report.false_triggers == 0.5
    assert [m.expected for m in report.misses] == ["sheet-edit"]
    everything = evaluate(CAT, cases, ranker="bm25", budget=16_000)
    assert everything.visible == 1.0 and everything.visible_or_found == 1.0


def test_sub_catalog_keeps_targets_and_precedence_order() -> None:
    sub = sub_catalog(CAT, 2, keep=["sheet-edit"])
    assert sub.names == ("pdf-extract", "sheet-edit")
    assert sub_catalog(CAT, 10).names == CAT.names


def test_query_files_are_validated_with_precise_messages(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    for content, message in (
        ("{", "not valid JSON"),
        ('{"a": 1}', "expected a JSON list"),
        ("[1]", "entry 0: expected an object"),
        ('[{"query": ""}]', "entry 0: 'query' must be a non-empty string"),
        ('[{"query": "q", "should_trigger": "yes"}]', "'should_trigger' must be true or false"),
    ):
        bad.write_text(content)
        with pytest.raises(EvalFileError, match=message):
            load_trigger_evals(bad, "x")
    bad.write_text('[{"query": "q"}]')
    with pytest.raises(EvalFileError, match="'skill' must be a skill name"):
        load_routing(bad)
    with pytest.raises(EvalFileError, match="cannot read"):
        load_routing(tmp_path / "missing.json")


def test_trigger_file_skill_comes_from_folder_or_file_name(tmp_path: Path) -> None:
    names = ["csv-data-audit", "evals"]
    nested = tmp_path / "csv-data-audit" / "evals" / "triggers.json"
    assert skill_for_file(nested, ["csv-data-audit"]) == "csv-data-audit"
    assert skill_for_file(tmp_path / "x" / "csv-data-audit.json", names) == "csv-data-audit"
    assert skill_for_file(tmp_path / "other.json", ["csv-data-audit"]) is None


def test_example_query_files_route_to_the_example_skills() -> None:
    lib = SkillLibrary([EXAMPLES])
    lib.discover()
    cases = load_routing(EVALS / "routing.json")
    cases += load_trigger_evals(EVALS / "csv-data-audit.json", "csv-data-audit")
    report = evaluate(lib.catalog, cases, ranker="bm25")
    assert not report.unknown
    assert report.recall[5] == 1.0 and report.recall[1] >= 0.9


def test_confusable_pairs_rank_near_duplicates_first() -> None:
    cat = Catalog(
        (
            meta("pdf-a", "Extract text and tables from PDF documents"),
            meta("pdf-b", "Extract the tables and text of PDF files"),
            meta("k8s", "Deploy services to a Kubernetes cluster"),
            meta("sheet", "Edit spreadsheet formulas"),
        )
    )
    pairs = confusable_pairs(cat, top=3, method="tfidf")
    assert (pairs[0].first, pairs[0].second) == ("pdf-a", "pdf-b")
    assert pairs[0].score > 0.5 and "pdf" in pairs[0].shared
    assert all(p.score <= pairs[0].score for p in pairs)
    with pytest.raises(ValueError, match="unknown method"):
        confusable_pairs(cat, method="nope")


def test_cli_eval_table_json_and_sizes(capsys: pytest.CaptureFixture[str]) -> None:
    argv = [str(EXAMPLES), "--routing", str(EVALS / "routing.json"), "--ranker", "bm25"]
    assert main(["eval", *argv, "--trigger", str(EVALS / "csv-data-audit.json")]) == 0
    out = capsys.readouterr().out
    assert "| skills | queries | recall@1 |" in out and "| 5 | 19 |" in out
    assert main(["eval", *argv, "--json", "--sizes", "2,5"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [r["skills"] for r in data] == [2, 5]


def test_cli_eval_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", str(EXAMPLES)]) == 2
    assert "no queries" in capsys.readouterr().err
    stray = tmp_path / "stray.json"
    stray.write_text("[]")
    assert main(["eval", str(EXAMPLES), "--trigger", str(stray)]) == 2
    assert "use --trigger SKILL=" in capsys.readouterr().err
    stray.write_text("[{]")
    assert main(["eval", str(EXAMPLES), "--routing", str(stray)]) == 2
    assert "not valid JSON" in capsys.readouterr().err


def test_cli_lint_descriptions(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    for name, desc in (
        ("merge-pdfs", "Merge several PDF files into one document, keeping bookmarks."),
        ("pdf-merger", "Merges PDF files into a single document and keeps their bookmarks."),
        ("bake-bread", "Bake a sourdough loaf."),
    ):
        (tmp_path / name).mkdir()
        (tmp_path / name / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: {desc}\n---\nBody.\n", encoding="utf-8"
        )
    assert main(["lint-descriptions", str(tmp_path), "--method", "tfidf", "--top", "3"]) == 0
    out = capsys.readouterr().out
    assert "merge-pdfs  <->  pdf-merger" in out
    assert "bake-bread" not in out
    assert main(["lint-descriptions", str(EXAMPLES), "--method", "tfidf", "--json"]) == 0
    assert all({"first", "second", "score"} <= set(p) for p in json.loads(capsys.readouterr().out))


def test_semantic_linter_needs_the_extra_or_finds_paraphrases() -> None:
    from skillcore.catalog.semantic import semantic_available

    cat = Catalog(
        (
            meta("ship-k8s", "Roll out containers to a Kubernetes cluster"),
            meta("deploy-pods", "Deploy services onto k8s clusters"),
            meta("bake", "Bake sourdough bread"),
        )
    )
    if not semantic_available():
        with pytest.raises(ImportError, match=r"skillcore-agents\[semantic\]"):
            confusable_pairs(cat, method="semantic")
        return
    pairs = confusable_pairs(cat, top=1, method="semantic")
    assert {pairs[0].first, pairs[0].second} == {"ship-k8s", "deploy-pods"}


def test_confusable_pairs_name_the_shared_words_as_written() -> None:
    cat = Catalog(
        (
            meta("deploy-a", "Proposes deployments of services and rebasing of branches."),
            meta("deploy-b", "Proposes deployments of services and rebasing of the branches."),
            meta("bread", "Bake a loaf."),
        )
    )
    (pair,) = confusable_pairs(cat, top=1, method="tfidf")
    # Index terms ("propos", "rebas") are shown as the skills write them.
    assert {"proposes", "rebasing", "deploy"} <= set(pair.shared)  # "deploy": the name
