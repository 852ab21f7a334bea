"""What one statement of a pipeline body holds, as the readers of a body ask it: DALI calls and the readers among
them, ``return``s, external sources (the one it assigns, and any nested deeper), and the names it reads, binds and
changes (``_StatementFacts``, gathered in one traversal; ``_reads_and_binds``, a rough but safe split for ordering).
Read by ``graph.build_graph`` and by the endings of a body (``outputs.py``).
"""

from __future__ import annotations

import libcst as cst

from ...walk import walk, walk_many
from ...names import FN, NDD, OPS
from . import sources
from .model import AssignedNames, ChangedNames, NameReads, op_entry


class _ContainsCall(cst.CSTVisitor):
    def __init__(self, imports, paths=("fn", "ops", "ndd"), flow=None):
        self.imports = imports
        self.flow = flow
        self.found = False
        self.readers: list[cst.Call] = []

    def visit_Call(self, node):
        qualname = self.imports.qualname(node.func)
        if qualname and (qualname.startswith(FN + ".") or qualname.startswith(OPS + ".")
                         or qualname.startswith(NDD + ".")):
            self.found = True
            if qualname.startswith(FN + "."):
                _, entry = op_entry(qualname[len(FN) + 1:])
                if entry and entry.get("kind") == "reader":
                    self.readers.append(node)
        elif not self.found and qualname is None and self.flow is not None and self.flow.ops_objects_in(node.func):
            self.found = True  # an ops object made outside the definitions (``coin()``): an operator of each step
        # self.attr() calls on the class's own op objects were turned into ndd calls before we get here.


class _Returns(cst.CSTVisitor):
    def __init__(self):
        self.found: list[cst.Return] = []

    def visit_Return(self, node):
        self.found.append(node)

    def visit_FunctionDef(self, node):
        return False  # nested functions have their own returns

    def visit_Lambda(self, node):
        return False


class _StatementFacts:
    """What ``build_graph`` asks of one statement of a pipeline body, gathered in one traversal."""

    def __init__(self, statement, imports, flow=None):
        self.direct_source = sources.external_source_statement(statement, imports)
        self.returns = _Returns()
        self.calls = _ContainsCall(imports, flow=flow)
        self.reads = NameReads()
        self.binds = AssignedNames()
        self.changes = ChangedNames()
        self.nested_sources = _NestedSources(imports, self.direct_source[1] if self.direct_source else None)
        walk_many(statement, [self.returns, self.calls, self.reads, self.binds, self.changes, self.nested_sources])


def _reads_and_binds(statement) -> tuple[set[str], set[str]]:
    """(names the statement mentions, names it assigns); a rough but safe split for ordering."""
    reads, binds = NameReads(), AssignedNames()
    walk(statement, reads)
    walk(statement, binds)
    return reads.names, binds.names


class _NestedSources(cst.CSTVisitor):
    def __init__(self, imports, allowed):
        self.imports = imports
        self.allowed = allowed
        self.found = None

    def visit_Call(self, node):
        if node is not self.allowed and self.found is None and sources.is_external_source(self.imports, node):
            self.found = node
