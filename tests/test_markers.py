"""Markers already in a file count (issue 14, DESIGN.md's marker contract).

A file that holds ``# dali-migrate: DMnnn ...`` comments (after ``migrate --write``, say) reports each
one as an open manual finding, exit 1, in ``migrate`` (every mode), ``review``, ``report``, ``lint``
and the MCP tools, until a person removes it; a marker the run writes again is counted once, and a
second run over a written tree changes nothing and reports the same markers.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import anyio
import nbformat
import pytest

from dali_migrate import migrate_source
from dali_migrate.cli import main
from dali_migrate.lint import lint_paths, lint_source
from dali_migrate.markers import EXISTING, find_markers
from dali_migrate.notebooks import migrate_notebook
from dali_migrate.report import build_report, to_markdown
from dali_migrate.review import build_review, migrate_for_review, to_markdown as review_markdown

ROOT = Path(__file__).resolve().parent.parent

# A pipeline the tool leaves in pipeline mode (readers in a comprehension: DM212) next to one it migrates.
SOURCE = '''from nvidia.dali import fn, pipeline_def


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def two_readers(r1, r2):
    a, b = [fn.readers.file(file_root=r)[0] for r in (r1, r2)]
    return a, b


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def one_reader(root):
    jpegs, labels = fn.readers.file(file_root=root)
    return jpegs, labels


pipe = two_readers("x", "y")
pipe.build()
out = pipe.run()
'''
MARKER = ("# dali-migrate: DM212 two_readers stays in pipeline mode: a reader that is not assigned directly in "
          "the pipeline body")


def _cli(*args, cwd):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "dali_migrate", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120)


@pytest.fixture
def written(tmp_path):
    """SOURCE after ``migrate --write``: migrated where it could be, one marker left."""
    path = tmp_path / "train.py"
    path.write_text(SOURCE)
    assert main(["migrate", "--write", str(path)]) == 1  # a person must finish it
    text = path.read_text()
    assert text.count("# dali-migrate: DM") == 1 and MARKER in text
    return path


def test_check_json_and_diff_modes_report_the_marker_and_exit_1(written, capsys):
    capsys.readouterr()
    assert main(["migrate", "--check", str(written)]) == 1
    captured = capsys.readouterr()
    assert "DM212 [manual] two_readers stays in pipeline mode" in captured.out
    assert "1 need a person" in captured.err
    assert main(["migrate", "--json", "--check", str(written)]) == 1
    payload = json.loads(capsys.readouterr().out)
    assert payload["summary"]["manual_findings"] == 1
    (finding,) = [f for f in payload["files"][0]["findings"] if not f["fixed"]]
    assert finding["rule"] == "DM212" and finding["fixed"] is False
    assert main(["migrate", str(written)]) == 1  # diff mode: nothing to change, the marker still open
    assert capsys.readouterr().out.count("DM212") == 1


def test_second_run_changes_nothing_and_reports_the_same_markers(written, capsys):
    text = written.read_text()
    first = migrate_source(SOURCE, "train.py")
    again = migrate_source(text, "train.py")
    assert not again.changed
    assert [(f.rule, f.message) for f in again.manual] == [(f.rule, f.message) for f in first.manual]
    assert main(["migrate", "--write", str(written)]) == 1
    assert written.read_text() == text


def test_a_marker_the_run_writes_again_is_counted_once(written):
    """The pass marks the same pipeline again on the written file: one finding, not two."""
    result = migrate_source(written.read_text(), "train.py")
    assert len(result.manual) == 1
    # A marker whose text differs (an older version of the tool wrote it) still stands for the same spot.
    edited = written.read_text().replace("write the loop by hand)", "write the loop by hand) (old text)")
    assert len(migrate_source(edited, "train.py").manual) == 1


def test_a_marker_with_nothing_left_behind_it_stays_open_until_removed(tmp_path):
    text = ("import nvidia.dali.experimental.dynamic as ndd\n\n"
            "# dali-migrate: DM214 feed_input has no dynamic-mode counterpart: pass the data to the ndd ops\n"
            "x = ndd.as_batch([1, 2])\n")
    result = migrate_source(text, "done.py")
    (finding,) = result.manual
    assert (finding.rule, finding.line, finding.column, finding.cell) == ("DM214", 3, 1, None)
    assert finding.message == "feed_input has no dynamic-mode counterpart: pass the data to the ndd ops"
    assert finding.extra[EXISTING] and result.status == "needs-attention"
    removed = text.replace(text.splitlines()[2] + "\n", "")
    assert migrate_source(removed, "done.py").manual == []


def test_only_comments_are_markers():
    text = ('import nvidia.dali.experimental.dynamic as ndd\n'
            's = "# dali-migrate: DM212 in a string"\n'
            'y = 1  # dali-migrate: ignore[DM305]\n'
            'z = 2  # dali-migrate: DM301 a trailing marker\n')
    assert [(m.rule, m.line, m.statement_line) for m in find_markers(text)] == [("DM301", 4, 4)]


def test_review_and_report_list_the_open_marker(written, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    review = build_review(migrate_for_review(["train.py"]))
    (file_review,) = review.files
    assert file_review.status == "needs-attention" and not file_review.hunks
    (marker,) = file_review.markers
    assert marker.finding.rule == "DM212" and marker.migrated_line == MARKER_LINE(written)
    assert "1 spot for a person." in review_markdown(review)
    report = build_report(["train.py"], verifier=None)
    assert report.file_counts()["migrated_with_markers"] == 1
    assert "### Spots for a person (1)" in to_markdown(report)
    assert _cli("review", "train.py", cwd=tmp_path).returncode == 1
    assert _cli("report", "train.py", "--out", "out", "--no-plots", cwd=tmp_path).returncode == 1


def MARKER_LINE(path: Path) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), 1) if line == MARKER)


def test_lint_reports_the_marker(written, capsys):
    result = lint_source(written.read_text(), "train.py")
    markers = [f for f in result.findings if f.extra.get(EXISTING)]
    assert [(f.rule, f.line) for f in markers] == [("DM212", MARKER_LINE(written))]
    capsys.readouterr()
    assert main(["lint", str(written)]) == 1
    assert f"{written}:{MARKER_LINE(written)}:1: DM212 two_readers stays" in capsys.readouterr().out


# -- notebooks -------------------------------------------------------------------------------------
def _notebook(path: Path, cells: list[str]) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# A notebook")] + [nbformat.v4.new_code_cell(c) for c in cells]
    nb.metadata["language_info"] = {"name": "python"}
    path.write_text(nbformat.writes(nb))
    return path


NB_CELLS = ["from nvidia.dali import fn, pipeline_def\n",
            SOURCE.split("\n\n\n", 1)[1].split("pipe = ")[0],
            "pipe = two_readers('x', 'y')\npipe.build()\nout = pipe.run()\n"]


def test_notebook_markers_count_per_cell(tmp_path, capsys):
    path = _notebook(tmp_path / "nb.ipynb", NB_CELLS)
    assert main(["migrate", "--write", str(path)]) == 1
    text = path.read_text()
    assert text.count("# dali-migrate: DM212") == 1
    again = migrate_notebook(text, "nb.ipynb")
    assert not again.changed
    (finding,) = again.manual
    # cell 3 (the markdown cell is cell 1): the marker's statement, counted within the cell.
    assert finding.rule == "DM212" and finding.cell == 3
    capsys.readouterr()
    assert main(["migrate", "--check", str(path)]) == 1
    assert f"{path}:cell[3]:" in capsys.readouterr().out
    run = lint_paths([path])
    (marker,) = [f for f in run.findings if f.extra.get(EXISTING)]
    assert (marker.cell, marker.line) == (3, 1)  # the marker is the cell's first line
    assert run.exit_code() == 1


# -- the MCP tools, through the SDK's in-memory client ---------------------------------------------
def test_mcp_tools_report_the_marker(written):
    pytest.importorskip("mcp")
    from mcp import Client

    from dali_migrate.mcp_server import build_server

    server = build_server(written.parent)
    text = written.read_text()

    async def go():
        async with Client(server) as client:
            return {name: (await client.call_tool(name, arguments)).structured_content for name, arguments in [
                ("migrate_code", {"source": text, "filename": "train.py"}),
                ("migrate_paths", {"paths": ["train.py"]}),
                ("lint_code", {"source": text, "filename": "train.py"}),
                ("lint_paths", {"paths": ["train.py"]}),
                ("review", {"paths": ["train.py"]}),
            ]}

    out = anyio.run(go)
    assert out["migrate_code"]["status"] == "needs-attention"
    assert [f["rule"] for f in out["migrate_code"]["findings"] if not f["fixed"]] == ["DM212"]
    assert out["migrate_paths"]["exit_code"] == 1
    assert [f["rule"] for f in out["lint_code"]["findings"]] == ["DM212"]
    assert out["lint_paths"]["exit_code"] == 1
    (reviewed,) = out["review"]["files"]
    assert [m["rule"] for m in reviewed["markers"]] == ["DM212"]
