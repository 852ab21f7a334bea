"""Resolve names through imports and aliases, so passes match ``fn.resize`` whatever ``fn`` is called.

This is a light, import-only resolver (no scope analysis): libcst's QualifiedNameProvider costs about
4x a bare parse, and DALI code imports its modules at the top of the file in a handful of ways.
"""

from __future__ import annotations

import libcst as cst

DALI = "nvidia.dali"
FN = "nvidia.dali.fn"
OPS = "nvidia.dali.ops"
MATH = "nvidia.dali.math"
TYPES = "nvidia.dali.types"
NDD = "nvidia.dali.experimental.dynamic"
_PIPELINE_NAMES = ("nvidia.dali.Pipeline", "nvidia.dali.pipeline.Pipeline")

# Public re-exports: the same object under several module paths.
_CANONICAL = {
    "nvidia.dali.pipeline.Pipeline": "nvidia.dali.Pipeline",
    "nvidia.dali.pipeline.pipeline_def": "nvidia.dali.pipeline_def",
    "nvidia.dali.pipeline.experimental.pipeline_def": "nvidia.dali.pipeline_def",
    "nvidia.dali.plugin.pytorch.DALIGenericIterator": "nvidia.dali.plugin.pytorch.DALIGenericIterator",
}


_DOTTED_PART: dict[type, int] = {}  # node type -> 1 a Name, 2 an Attribute, 0 neither (``isinstance`` once per type)


def dotted(expr: cst.BaseExpression) -> str | None:
    """``a.b.c`` as a string, or None when the expression is not a plain dotted name."""
    part = _DOTTED_PART.get(type(expr))
    if part is None:  # libcst's node classes are ABCs: isinstance against them is slow, and asked of every node
        part = _DOTTED_PART[type(expr)] = 1 if isinstance(expr, cst.Name) else 2 if isinstance(expr, cst.Attribute) \
            else 0
    if part == 1:
        return expr.value
    if part == 2:
        base = dotted(expr.value)
        return None if base is None else f"{base}.{expr.attr.value}"
    return None


def import_bindings(node) -> list[str]:
    """The local names an ``import`` or ``from ... import`` statement binds (``import a.b`` binds ``a``)."""
    if isinstance(node, cst.ImportFrom) and isinstance(node.names, cst.ImportStar):
        return []
    found = []
    for alias in node.names:
        local = alias.asname.name if alias.asname else alias.name
        while isinstance(local, cst.Attribute):
            local = local.value
        if isinstance(local, cst.Name):
            found.append(local.value)
    return found


def free_name(base: str, taken: set[str]) -> str:
    """``base``, or ``base_2``, ``base_3``, ... the first that is not in ``taken``."""
    name, n = base, 1
    while name in taken:
        n += 1
        name = f"{base}_{n}"
    return name


def module_name(node: cst.BaseExpression) -> str:
    return dotted(node) or ""


class ImportTable:
    """Local name -> fully qualified name, collected from every import in a module."""

    def __init__(self) -> None:
        self.aliases: dict[str, str] = {}
        self.plain_imports: set[str] = set()  # `import a.b.c` without `as`: binds `a`, recorded here

    @classmethod
    def from_module(cls, module: cst.Module) -> "ImportTable":
        table = cls()
        collector = _ImportCollector(table.aliases, table.plain_imports)
        # A plain walk over statement bodies: libcst's visit rebuilds every node it passes, so a
        # visitor costs about a parse even when it only looks at imports.
        for small in _small_statements(module.body):
            if isinstance(small, cst.Import):
                collector.visit_Import(small)
            elif isinstance(small, cst.ImportFrom):
                collector.visit_ImportFrom(small)
        return table

    def copy(self) -> "ImportTable":
        table = ImportTable()
        table.aliases, table.plain_imports = dict(self.aliases), set(self.plain_imports)
        return table

    def qualname(self, expr: cst.BaseExpression) -> str | None:
        """Fully qualified name of a dotted expression, or None when its root is not imported."""
        name = dotted(expr)
        if name is None:
            return None
        root, _, rest = name.partition(".")
        target = self.aliases.get(root)
        if target is None:
            return None
        full = f"{target}.{rest}" if rest else target
        return _CANONICAL.get(full, full)

    def local_names_for(self, qualified_prefix: str) -> list[str]:
        return [n for n, q in self.aliases.items() if q == qualified_prefix or q.startswith(qualified_prefix + ".")]

    def dali_locals(self) -> set[str]:
        """Local names that imports bind to DALI (``fn``, ``types``, ``nvidia`` for ``import
        nvidia.dali.fn``, ``ndd``...): every reference that resolves to DALI starts with one."""
        return {n for n, q in self.aliases.items() if q == "nvidia" or q.startswith("nvidia.")}

    def uses_dali(self) -> bool:
        return any(q == DALI or q.startswith(DALI + ".") for q in (*self.aliases.values(), *self.plain_imports))


def _small_statements(body):
    """Every small statement (``import x``, ``y = 1`` ...) in a statement list, at any depth, in order."""
    for stmt in body:
        if isinstance(stmt, cst.SimpleStatementLine):
            yield from stmt.body
        elif isinstance(stmt, cst.BaseCompoundStatement):
            yield from _suite_statements(stmt)


def _suite_statements(node):
    for attr in ("body", "orelse", "handlers", "finalbody", "cases"):
        child = getattr(node, attr, None)
        if child is None:
            continue
        if isinstance(child, (list, tuple)):  # handlers, cases
            for item in child:
                yield from _suite_statements(item)
        elif isinstance(child, cst.IndentedBlock):
            yield from _small_statements(child.body)
        elif isinstance(child, cst.SimpleStatementSuite):
            yield from child.body
        elif isinstance(child, cst.CSTNode) and not isinstance(child, cst.BaseExpression):
            yield from _suite_statements(child)  # Else, Finally, an elif's If


class _ImportCollector(cst.CSTVisitor):
    def __init__(self, aliases: dict[str, str], plain_imports: set[str]) -> None:
        self.aliases = aliases
        self.plain_imports = plain_imports

    def on_visit(self, node: cst.CSTNode) -> bool:
        # Imports are statements: never walk into expressions (most of a tree), it triples the cost.
        if isinstance(node, cst.BaseExpression):
            return False
        return super().on_visit(node)

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            full = module_name(alias.name)
            if alias.asname is not None:
                self.aliases[alias.asname.name.value] = full
            else:
                # `import nvidia.dali.fn` binds `nvidia`, which resolves `nvidia.dali.fn.x` to itself.
                root = full.split(".")[0]
                self.aliases.setdefault(root, root)
                self.plain_imports.add(full)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if node.relative or node.module is None or isinstance(node.names, cst.ImportStar):
            return
        base = module_name(node.module)
        for alias in node.names:
            name = alias.name.value if isinstance(alias.name, cst.Name) else module_name(alias.name)
            local = alias.asname.name.value if alias.asname is not None else name
            self.aliases[local] = f"{base}.{name}"

# A graph helper of another module that a pipeline calls through its objects (an augmentation made in __init__ and
# called in define_graph): ``augment.Standardize.__call__`` in ``Project.graph_helpers``, ``Standardize.__call__`` in
# the helper module's own list (its methods build that pipeline's graph, not its constructor alone).
CALLED_SUFFIX = ".__call__"
