"""The read-only walk gives visitors exactly what libcst's rebuilding visit gives them."""

from __future__ import annotations

import sys
from pathlib import Path

import libcst as cst
import pytest

from dali_migrate.engine import MigrationContext
from dali_migrate.names import ImportTable
from dali_migrate.transforms import dataflow, imports, walk as walk_module
from dali_migrate.transforms.unroll.unroll import Discovery

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
from speed_corpus import generate_scripts  # noqa: E402

SOURCES = [p.read_text() for p in sorted(ROOT.glob("golden/*/*.py")) if not p.name.endswith(".expected.py")]
SOURCES += generate_scripts(6)


def _visit(node, visitor):
    node.visit(visitor)


@pytest.mark.parametrize("index", range(len(SOURCES)))
def test_walk_matches_visit(index, monkeypatch):
    module = cst.parse_module(SOURCES[index])
    table = ImportTable.from_module(module)

    def discovery(walker):
        found = Discovery(MigrationContext(path="x.py", source="", imports=table))
        walker(module, found)
        return {k: v for k, v in vars(found).items() if k != "ctx"}

    assert discovery(walk_module.walk) == discovery(_visit)

    def uses(walker):
        monkeypatch.setattr(imports, "walk", walker)
        found = imports._Uses()
        walker(module, found)
        return found.names, found.uses

    assert uses(walk_module.walk) == uses(_visit)

    def kinds(walker):
        monkeypatch.setattr(dataflow, "walk", walker)
        flow = dataflow.DataFlow(module, table)
        return ({(n, flow.kind_of(n), flow.is_builtin(n)) for n in flow.name_scope}, flow.calls_dali,
                flow.graph_functions)

    assert kinds(walk_module.walk) == kinds(_visit)
