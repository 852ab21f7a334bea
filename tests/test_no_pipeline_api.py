"""Migrated code contains no pipeline-mode API outside a marker (issue 3).

Every reference to ``nvidia.dali.fn``, ``nvidia.dali.ops``, ``Pipeline``/``pipeline_def`` or the
pipeline-mode framework plugins in a golden ``*.expected.py`` must sit in a statement that carries a
``# dali-migrate: DMnnn`` marker, or inside one (a pipeline kept in pipeline mode is marked once,
on its definition).
"""

import libcst as cst
import pytest

from conftest import GOLDEN
from dali_migrate.findings import MARKER_PREFIX
from dali_migrate.names import ImportTable, dotted
from dali_migrate.transforms.leftovers import is_pipeline_mode as _is_pipeline_mode


class _Unmarked(cst.CSTVisitor):
    def __init__(self, imports: ImportTable):
        self.imports = imports
        self.marked_depth = 0
        self.stack: list[bool] = []
        self.unmarked: list[str] = []

    def _enter(self, node) -> None:
        marked = any(line.comment is not None and line.comment.value.startswith(MARKER_PREFIX)
                     for line in getattr(node, "leading_lines", ()))
        self.stack.append(marked)
        self.marked_depth += marked

    def _leave(self) -> None:
        self.marked_depth -= self.stack.pop()

    def on_visit(self, node):
        if isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            self._enter(node)
        if isinstance(node, (cst.Import, cst.ImportFrom)):
            return False  # an import alone computes nothing; unused ones are pruned elsewhere
        if isinstance(node, (cst.Attribute, cst.Name)):
            name = dotted(node)
            qualname = self.imports.qualname(node) if name else None
            if qualname and _is_pipeline_mode(qualname) and not self.marked_depth:
                self.unmarked.append(f"{name} -> {qualname}")
            return qualname is None
        return True

    def on_leave(self, node):
        if isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            self._leave()


def _expected_files():
    return sorted(GOLDEN.rglob("*.expected.py"))


@pytest.mark.parametrize("path", _expected_files(), ids=lambda p: str(p.relative_to(GOLDEN)))
def test_no_pipeline_mode_api_outside_a_marker(path):
    module = cst.parse_module(path.read_text())
    visitor = _Unmarked(ImportTable.from_module(module))
    module.visit(visitor)
    assert visitor.unmarked == []


def test_the_check_catches_unmarked_pipeline_api():
    source = ("import nvidia.dali.fn as fn\nfrom nvidia.dali import pipeline_def\n\n"
              "@pipeline_def\ndef p():\n    return fn.random.uniform()\n\n"
              "# dali-migrate: DM103 kept\nx = fn.python_function(1)\n")
    module = cst.parse_module(source)
    visitor = _Unmarked(ImportTable.from_module(module))
    module.visit(visitor)
    assert visitor.unmarked == ["pipeline_def -> nvidia.dali.pipeline_def", "fn.random.uniform -> nvidia.dali.fn.random.uniform"]


def test_unknown_shapes_get_the_safety_net_marker():
    """ops objects kept in a list are a shape no pass migrates: the file must not look finished."""
    from dali_migrate import migrate_source

    source = ("import nvidia.dali.ops as ops\nfrom nvidia.dali.pipeline import Pipeline\n\n\n"
              "class Coins(Pipeline):\n    def __init__(self):\n"
              "        super().__init__(batch_size=2, num_threads=1, device_id=None)\n"
              "        self.coins = [ops.random.CoinFlip(probability=0.5) for _ in range(2)]\n\n"
              "    def define_graph(self):\n        c = [coin() for coin in self.coins]\n        return c[0], c[1]\n")
    result = migrate_source(source, "coins.py")
    # The marker keeps the class's unit in pipeline mode (DM230 on the class says why).
    assert [f.rule for f in result.manual] == ["DM230", "DM105"]
    assert "# dali-migrate: DM105 ops.random.CoinFlip is pipeline-mode API" in result.migrated
    assert "# dali-migrate: DM230 Coins stays in pipeline mode" in result.migrated
    again = migrate_source(result.migrated, "coins.py")
    assert again.migrated == result.migrated and [f.rule for f in again.manual] == ["DM230", "DM105"]


def test_a_lambda_graph_helper_stays_with_its_kept_unit():
    """``aug = lambda x: fn.flip(x)`` builds part of a pipeline that stays in pipeline mode: the lambda's
    statement is part of that unit and keeps ``fn.flip`` (renamed to ndd.flip it fails on a DataNode); the
    kept helper once crashed the marker writer (a lambda has no name)."""
    from dali_migrate import migrate_source

    source = (
        "import nvidia.dali.fn as fn\nfrom nvidia.dali import pipeline_def\n\n"
        "aug = lambda x: fn.flip(x, horizontal=1)\n\n\n"
        "@pipeline_def(batch_size=2, num_threads=1, device_id=None)\ndef pipe(root):\n"
        "    jpegs, labels = fn.readers.file(file_root=root)\n    return aug(fn.decoders.image(jpegs)), labels\n\n\n"
        "p = pipe('x')\np.build()\nout = p.run()\nprint(out)\n")
    result = migrate_source(source, "lam.py")
    # the pipeline, the lambda's line (it names fn.flip, which stays with the unit), the escape that keeps them
    assert [f.rule for f in result.manual] == ["DM230", "DM230", "DM231"], [f.message for f in result.findings]
    assert "aug = lambda x: fn.flip(x, horizontal=1)" in result.migrated and "ndd" not in result.migrated
    migrated = migrate_source(source.replace("print(out)", "print(out[1].at(0))"), "lam.py").migrated
    assert "aug = lambda x: ndd.flip(x, horizontal=1)" in migrated and "@pipeline_def" not in migrated


def test_graph_code_outside_with_pipe_stays_as_it_was():
    """Operators called around ``pipe.set_outputs(...)`` without ``with pipe:`` (DALI's own tests do it)
    belong to no pipeline the flow model knows: the post-check's failure there keeps that top-level
    statement as it was, marked, instead of failing the whole file."""
    from dali_migrate import migrate_source

    source = (
        "import numpy as np\nimport nvidia.dali as dali\nimport nvidia.dali.fn as fn\n\n\n"
        "def test_slice():\n    pipe = dali.pipeline.Pipeline(1, 1, None)\n"
        "    src = fn.external_source([[np.arange(9, dtype=np.float32).reshape(3, 3)]])\n"
        "    out = fn.slice(src, np.array([1, 1]), np.array([2, 1]), axes=[0, 1])\n"
        "    pipe.set_outputs(out)\n    (o,) = pipe.run()\n    print(o.at(0).tolist())\n\n\n"
        "test_slice()\n")
    result = migrate_source(source, "t.py")
    assert not [f for f in result.findings if f.rule == "DM002"], [f.message for f in result.findings]
    body = result.migrated[result.migrated.index("def test_slice"):]
    code = "\n".join(line for line in body.splitlines() if not line.lstrip().startswith("#"))
    # (the operators belong to the Pipeline(...) made in the function since issue 32's kept-operator change: the
    # pipeline, kept, is marked where it is made)
    assert "fn.slice(src" in code and "ndd." not in code and "# dali-migrate: DM105" in body
    import subprocess
    import sys
    runs = [subprocess.run([sys.executable, "-c", text], capture_output=True, text=True, timeout=120)
            for text in (source, result.migrated)]
    assert runs[0].returncode == 0 and runs[1].stdout == runs[0].stdout, runs


def test_a_lambda_helper_beside_a_drawing_helper():
    """A module with a lambda graph helper and a function helper that draws: the function's random op gets
    its data's batch size (the lookup of graph helpers by name once failed on the lambda, which has none)."""
    from dali_migrate import migrate_source

    source = (
        "import nvidia.dali.fn as fn\nfrom nvidia.dali import pipeline_def\n\n"
        "aug = lambda x: fn.flip(x, horizontal=1)\n\n\n"
        "def jitter(images):\n    return fn.hsv(images, hue=fn.random.uniform(range=(-10, 10)))\n\n\n"
        "@pipeline_def(batch_size=2, num_threads=1, device_id=None, seed=1)\ndef pipe(root):\n"
        "    jpegs, labels = fn.readers.file(file_root=root)\n"
        "    return jitter(aug(fn.decoders.image(jpegs))), labels\n")
    result = migrate_source(source, "l.py")
    assert not [f for f in result.findings if f.rule == "DM002"], [f.message for f in result.findings]
    assert "ndd.random.uniform(range=(-10, 10), batch_size=images.batch_size)" in result.migrated
