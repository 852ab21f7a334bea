"""Notebooks: code cells migrate as one module; everything but cell sources is kept byte for byte."""

import copy
import json
import re

import nbformat
import pytest

from dali_migrate import notebooks, transforms
from dali_migrate.api import migrate_file, migrate_paths
from dali_migrate.cli import main
from dali_migrate.findings import MARKER_PREFIX
from dali_migrate.notebooks import migrate_notebook, split_lines
from dali_migrate.transforms.base import Pass


def make_notebook(*cells, indent=None, language="python"):
    """cells: ("code", source) / ("markdown", source); code cells get outputs and execution counts."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "language": language, "display_name": "Python 3"}
    nb.metadata["language_info"] = {"name": language}
    nb.metadata["custom"] = {"keep": "me ✓"}
    for n, (kind, source) in enumerate(cells, 1):
        if kind == "code":
            cell = nbformat.v4.new_code_cell(source, execution_count=n)
            cell.outputs = [nbformat.v4.new_output("stream", text=f"output {n}\n")]
            cell.metadata["tags"] = [f"t{n}"]
        else:
            cell = nbformat.v4.new_markdown_cell(source)
        cell["id"] = f"cell-{n}"
        nb.cells.append(cell)
    text = nbformat.writes(nb) + "\n"
    if indent is not None:
        text = json.dumps(json.loads(text), indent=indent)
    return text


def sources(text):
    return ["".join(c["source"]) if isinstance(c["source"], list) else c["source"] for c in json.loads(text)["cells"]]


def without_sources(text):
    data = json.loads(text)
    for cell in data["cells"]:
        cell["source"] = None
    return data


CROSS_CELL = make_notebook(
    ("markdown", "# Augmentation with DALI\nUses `fn.flip`."),
    ("code", "%matplotlib inline\nimport numpy as np\nimport nvidia.dali.fn as fn"),
    ("code", "def augment(images, flip):\n    return fn.flip(images, horizontal=flip)"),
    ("code", "!echo preparing data\nfiles = !ls /\nbatch = make_batch()\n%time out = augment(batch, 1)"),
)


def test_cross_cell_migration_changes_only_cell_sources():
    result = migrate_notebook(CROSS_CELL, "aug.ipynb")
    assert result.error is None and result.changed
    assert without_sources(result.migrated) == without_sources(CROSS_CELL)  # outputs, counts, metadata, ids
    nbformat.validate(nbformat.reads(result.migrated, as_version=nbformat.NO_CONVERT))
    before, after = sources(CROSS_CELL), sources(result.migrated)
    assert after[0] == before[0] and after[3] == before[3]  # markdown and the consumer cell untouched
    # The import in cell 2 is replaced because cell 3 (another cell) used it.
    assert after[1] == "%matplotlib inline\nimport numpy as np\nimport nvidia.dali.experimental.dynamic as ndd"
    assert after[2] == "def augment(images, flip):\n    return ndd.flip(images, horizontal=flip)"
    # Jupyter's layout is kept: a line list per cell, the last line without "\n".
    cell = json.loads(result.migrated)["cells"][2]
    assert cell["source"] == ["def augment(images, flip):\n", "    return ndd.flip(images, horizontal=flip)"]


def test_findings_and_diff_use_cell_numbers():
    result = migrate_notebook(CROSS_CELL, "aug.ipynb")
    flip = next(f for f in result.findings if f.rule == "DM101")
    assert (flip.cell, flip.line) == (3, 2)
    assert flip.format().startswith("aug.ipynb:cell[3]:2:")
    diff = result.diff()
    assert re.findall(r"^--- (\S+)", diff, re.M) == ["a/aug.ipynb:cell[2]", "a/aug.ipynb:cell[3]"]
    assert "+    return ndd.flip(images, horizontal=flip)\n" in diff


def test_second_run_is_a_no_op_and_unchanged_notebooks_are_not_rewritten():
    once = migrate_notebook(CROSS_CELL, "aug.ipynb")
    twice = migrate_notebook(once.migrated, "aug.ipynb")
    assert twice.error is None and not twice.changed and twice.migrated == once.migrated
    plain = make_notebook(("markdown", "About nvidia.dali"), ("code", "import numpy as np\nx = np.zeros(3) % 2"))
    result = migrate_notebook(plain, "plain.ipynb")
    assert not result.changed and result.migrated is plain and result.status == "no-dali"


def test_magics_are_restored_and_code_magics_migrated_around():
    text = make_notebook(("code", (
        "%%time\n"
        "import nvidia.dali.fn as fn\n"
        "!pip install nvidia-dali-cuda120 \\\n"
        "    --quiet\n"
        "listing = !ls -la\n"
        "total = (3\n"
        "% 2)\n"  # a modulo continuing the line above, not a magic
        "doc = '''\n"
        "!not a shell escape inside a string\n"
        "'''\n"
        "for i in range(2):\n"
        "    %time y = fn.flip(x, horizontal=i)\n"
        "fn.flip?"
    )))
    result = migrate_notebook(text, "m.ipynb")
    assert result.error is None, result.error
    assert sources(result.migrated)[0] == (
        "%%time\n"
        "import nvidia.dali.experimental.dynamic as ndd\n"
        "!pip install nvidia-dali-cuda120 \\\n"
        "    --quiet\n"
        "listing = !ls -la\n"
        "total = (3\n"
        "% 2)\n"
        "doc = '''\n"
        "!not a shell escape inside a string\n"
        "'''\n"
        "for i in range(2):\n"
        "    %time y = ndd.flip(x, horizontal=i)\n"
        "# dali-migrate: DM502 `fn.flip?` runs code the tool cannot migrate and it names what the migration "
        "changed: rewrite it by hand\n"
        "fn.flip?"
    )


def test_cell_magic_with_code_on_its_line_gets_the_marker_below_it():
    text = make_notebook(("code", "import nvidia.dali.fn as fn"),
                         ("code", "\n%%timeit -n 2 fn.flip(images)\nout = fn.flip(images)"))
    result = migrate_notebook(text, "h.ipynb")
    lines = sources(result.migrated)[1].splitlines()
    assert lines[:2] == ["", "%%timeit -n 2 fn.flip(images)"]
    assert lines[2].startswith(f"{MARKER_PREFIX} DM502 ") and lines[3] == "out = ndd.flip(images)"
    assert [(f.rule, f.cell, f.line) for f in result.findings if f.cell == 2] == [("DM502", 2, 2), ("DM101", 2, 3)]
    assert not migrate_notebook(result.migrated, "h.ipynb").changed


def test_magic_with_options_is_marked_and_the_marker_contract_holds():
    text = make_notebook(("code", "import nvidia.dali.fn as fn\nimages = load()"),
                         ("code", "%timeit -n 3 fn.flip(images, horizontal=1)\nout = fn.flip(images, horizontal=1)"))
    result = migrate_notebook(text, "t.ipynb")
    manual = [f for f in result.findings if not f.fixed]
    assert [(f.rule, f.cell, f.line) for f in manual] == [("DM502", 2, 1)]
    cell = sources(result.migrated)[1]
    assert cell.splitlines()[0].startswith(f"{MARKER_PREFIX} DM502 ")
    assert cell.splitlines()[1] == "%timeit -n 3 fn.flip(images, horizontal=1)"
    again = migrate_notebook(result.migrated, "t.ipynb")
    assert not again.changed
    assert [f.rule for f in again.findings if not f.fixed] == ["DM502"]  # still reported, marker not stacked


def test_other_cell_magics_are_left_alone_with_a_finding():
    bash = "%%bash\necho fn.flip from nvidia.dali"
    writefile = "%%writefile pipe.py\nimport nvidia.dali.fn as fn\nout = fn.flip(x)\n"
    text = make_notebook(("code", "import nvidia.dali.fn as fn"), ("code", bash), ("code", writefile),
                         ("code", "%%html\n<b>hello</b>"), ("code", "y = fn.flip(x)"))
    result = migrate_notebook(text, "c.ipynb")
    after = sources(result.migrated)
    assert after[1] == bash and after[2] == writefile and after[4] == "y = ndd.flip(x)"
    skipped = [(f.rule, f.cell) for f in result.findings if f.rule == "DM501"]
    assert skipped == [("DM501", 2), ("DM501", 3)]  # the %%html cell does not mention DALI
    assert result.status == "needs-attention"


def test_a_pass_that_moves_code_across_cells_leaves_the_notebook_untouched(monkeypatch):
    class Reverse(Pass):
        name = "reverse"

        def run(self, module, ctx):
            ctx.facts["migrated"] = True
            return module.with_changes(body=list(reversed(module.body)))

    monkeypatch.setattr(transforms, "PASSES", [Reverse(), *transforms.PASSES])
    result = migrate_notebook(CROSS_CELL, "aug.ipynb")
    assert result.error and not result.changed and result.migrated == CROSS_CELL
    # (the post-check also sees the reversed code read names before they are bound: DM232)
    assert [f.rule for f in result.findings if not f.fixed and f.rule != "DM232"] == ["DM504"]


@pytest.mark.parametrize("text, why", [
    ("{not json, dali", "JSONDecodeError"),
    (json.dumps({"nbformat": 3, "nbformat_minor": 0, "metadata": {}, "worksheets": [
        {"cells": [{"cell_type": "code", "input": "import nvidia.dali.fn as fn", "outputs": [],
                    "language": "python"}]}]}), "nbformat 3"),
])
def test_unreadable_notebooks_are_errors(text, why):
    result = migrate_notebook(text, "bad.ipynb")
    assert result.error and why in result.error and not result.changed
    assert result.findings[0].rule == "DM503"


def test_a_cell_that_does_not_parse_is_reported_with_its_cell():
    text = make_notebook(("code", "import nvidia.dali.fn as fn"), ("markdown", "x"), ("code", "y = (fn.flip(x)"))
    result = migrate_notebook(text, "e.ipynb")
    assert result.error and "cell[3]" in result.error and not result.changed


def test_the_file_keeps_its_own_json_layout():
    two = make_notebook(("code", "import nvidia.dali.fn as fn\ny = fn.flip(x)"), indent=2)  # no final newline
    result = migrate_notebook(two, "two.ipynb")
    expected = json.loads(two)
    expected["cells"][0]["source"] = ["import nvidia.dali.experimental.dynamic as ndd\n", "y = ndd.flip(x)"]
    assert result.migrated == json.dumps(expected, indent=2)
    assert not any(f.rule == "DM505" for f in result.findings)
    # A layout no json.dumps setting reproduces: Jupyter's standard one, said so.
    odd = two.replace('{\n  "cells"', '{  "cells"', 1)
    relaid = migrate_notebook(odd, "odd.ipynb")
    assert relaid.changed and "DM505" in [f.rule for f in relaid.findings]
    assert relaid.migrated.startswith('{\n "cells"') and "ndd.flip" in relaid.migrated


def test_notebooks_in_other_languages_are_skipped():
    r_kernel = make_notebook(("code", "library(nvidia.dali)"), language="R")
    assert migrate_notebook(r_kernel, "r.ipynb").status == "no-dali"


def test_api_and_cli_take_notebooks(tmp_path, capsys):
    path = tmp_path / "aug.ipynb"
    path.write_text(CROSS_CELL, encoding="utf-8")
    assert migrate_file(path).changed
    run = migrate_paths([tmp_path], jobs=1)
    assert [f.path for f in run.files] == [str(path)] and run.files[0].changed
    assert main(["migrate", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert f"--- {path}:cell[2]" in out  # an absolute path: no a/ prefix, as for .py files
    assert main(["migrate", "--write", str(tmp_path)]) == 0
    assert main(["migrate", "--check", str(tmp_path)]) == 0
    assert "ndd.flip" in path.read_text(encoding="utf-8")


def test_migrated_notebook_code_runs_on_real_dali():
    """Run the migrated cells (magics dropped, as IPython would run them apart from the magics)
    with DALI 2.4.0 on CPU and check the flipped data."""
    np = pytest.importorskip("numpy")
    pytest.importorskip("nvidia.dali.experimental.dynamic")
    text = make_notebook(
        ("code", "%matplotlib inline\nimport numpy as np\nimport nvidia.dali.fn as fn"),
        ("code", "def augment(images):\n    return fn.flip(images, horizontal=1)"),
        ("code", "data = [np.arange(12, dtype=np.uint8).reshape(2, 2, 3)] * 2\n"
                 "%time out = augment(ndd.as_batch(data))"),
    )
    result = migrate_notebook(text, "run.ipynb")
    assert result.error is None
    namespace = {}
    for source in sources(result.migrated):
        code = "\n".join(line.replace("%time ", "", 1) if line.startswith("%time ") else line
                         for line in source.splitlines() if not line.startswith("%matplotlib"))
        exec(compile(code, "cell", "exec"), namespace)
    flipped = np.asarray(namespace["out"].tensors[1])
    assert flipped.tolist() == np.arange(12, dtype=np.uint8).reshape(2, 2, 3)[:, ::-1].tolist()


def test_rules_are_documented():
    from dali_migrate.findings import RULES

    for rule_id in ("DM501", "DM502", "DM503", "DM504", "DM505"):
        assert RULES[rule_id].summary and RULES[rule_id].why
    assert notebooks.CODE_CELL_MAGICS >= {"time", "timeit", "capture"}
    assert copy.deepcopy(notebooks.CELL_MAGIC_SKIPPED) == notebooks.CELL_MAGIC_SKIPPED


def test_the_ndd_import_goes_above_its_first_use():
    """The DALI imports of the first cell are all pruned; the last import of the notebook sits in a later
    cell (matplotlib). The ndd import must land above the pipeline's cell, not after that last import
    (NameError when the notebook runs top to bottom)."""
    text = make_notebook(
        ("code", "import os\nfrom nvidia.dali import pipeline_def\nimport nvidia.dali.fn as fn\n"),
        ("code", "@pipeline_def(batch_size=2, num_threads=1, device_id=None)\ndef pipe(root):\n"
                 "    jpegs, labels = fn.readers.file(file_root=root)\n    return jpegs, labels\n"),
        ("code", "p = pipe('x')\np.build()\nout = p.run()\n"),
        ("code", "from matplotlib import pyplot as plt\n"))
    result = migrate_notebook(text, "nb.ipynb")
    cells = sources(result.migrated)
    assert "import nvidia.dali.experimental.dynamic as ndd" in cells[0], cells
    assert "ndd" not in cells[3]
    assert not result.manual, [f.format() for f in result.manual]
