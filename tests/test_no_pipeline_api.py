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
    return [pytest.param(p, id=str(p.relative_to(GOLDEN))) for p in sorted(GOLDEN.rglob("*.expected.py"))]


@pytest.mark.parametrize("path", _expected_files())
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
