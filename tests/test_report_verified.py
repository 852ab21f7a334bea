"""The report with real verification: the bundled example repo's pipelines, all four styles, run by
the differential harness on generated JPEGs, are reported equal with their throughput."""

import json

import pytest

pytest.importorskip("nvidia.dali")
from dali_migrate.report import build_report, write_report  # noqa: E402
from runtime import make_images  # noqa: E402

STYLES = {"decorated_pipe": "@pipeline_def", "with_block_pipe": "with pipe:", "SubclassPipe": "subclass",
          "LegacyOpsPipe": "legacy ops"}


def test_example_repo_pipelines_verified_equal(tmp_path, monkeypatch):
    root = make_images(tmp_path / "images", count=10, classes=2)
    monkeypatch.chdir(tmp_path.parent)  # display paths stay relative to where the report runs
    args = {name: {"args": [str(root)]} for name in STYLES}
    from pathlib import Path

    repo = Path(__file__).resolve().parent.parent / "examples" / "repo"
    report = build_report([repo], args, progress=False)
    verdicts = {p.info.name: p.verification for p in report.pipelines}
    for name in STYLES:
        assert verdicts[name].status == "equal", (name, verdicts[name].reason)
        assert verdicts[name].throughput_original and verdicts[name].throughput_migrated
    # augment_pipe is saved with pipe.serialize(): marked, so it is not run, and the report says why.
    assert verdicts["augment_pipe"].status == "skipped" and "markers" in verdicts["augment_pipe"].reason

    write_report(report, tmp_path / "out", plots=False)
    data = json.loads((tmp_path / "out" / "report.json").read_text())
    assert data["verification"]["counts"]["equal"] == 4
