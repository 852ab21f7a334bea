"""The lint engine: parse once, build the dataflow, run every check, apply fixes.

A check is a function ``check(ctx)`` registered with ``@check``; it reads the indexed nodes
(``ctx.nodes_of(cst.Call)``), asks ``ctx.kind(expr)`` what a value is, and calls
``ctx.report(rule, node, message, fix=...)``. A fix is a function from the (updated) node to its
replacement; it is applied only when its rule declares ``fix="safe"`` (or ``"unsafe"`` with
``unsafe_fixes=True``), through one libcst transform, and the file is linted again.
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass, field
from typing import Callable

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from ..findings import RULES, Finding
from ..names import NDD, ImportTable
from ..dataflow import TOP, DataFlow, is_literal
from ..transforms.unroll.helpers import is_tool_written_class

CHECKS: list[Callable[["LintContext"], None]] = []  # filled by the modules of rules/, which lint/__init__ imports
_NOWHERE = (0, 0, 0, 0)  # a node without a position (built by a fix)

# `# dali-migrate: ignore` or `# dali-migrate: ignore[DM305, DM306]`
_SUPPRESS = re.compile(r"#\s*dali-migrate:\s*ignore\b(?:\[([A-Za-z0-9_,\s]*)\])?")


def check(func):
    """Register a lint check (run in registration order)."""
    CHECKS.append(func)
    return func


@dataclass
class Fix:
    node: cst.CSTNode  # the node in the parsed tree to replace
    replace: Callable[[cst.CSTNode], object]  # updated node -> node | RemoveFromParent()
    safety: str = "safe"


@dataclass
class LintResult:
    path: str
    source: str
    findings: list[Finding] = field(default_factory=list)
    fixed_source: str | None = None  # after --fix (None when not asked or nothing applied)
    fixed: list[Finding] = field(default_factory=list)  # the findings the fixes removed
    error: str | None = None

    @property
    def text(self) -> str:
        return self.fixed_source if self.fixed_source is not None else self.source

    @property
    def changed(self) -> bool:
        return self.fixed_source is not None and self.fixed_source != self.source

    def to_dict(self) -> dict:
        return {"path": self.path, "error": self.error, "changed": self.changed,
                "findings": [f.to_dict() for f in self.findings],
                "fixed": [f.to_dict() for f in self.fixed]}


class LintContext:
    def __init__(self, path: str, source: str, module: cst.Module, imports: ImportTable) -> None:
        self.path = path
        self.source = source
        self.module = module
        self.imports = imports
        wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
        # node -> (line, column, end line, end column), 1-based; the end column is just past the node.
        self.positions = {n: (r.start.line, r.start.column + 1, r.end.line, r.end.column + 1)
                          for n, r in wrapper.resolve(PositionProvider).items()}
        indexer = _Index()
        module.visit(indexer)
        self.nodes = indexer.nodes
        self.flow = DataFlow(module, imports)  # the one model of values, shared with the migration
        self._by_type: dict[type, list] = {}
        for node in self.nodes:
            self._by_type.setdefault(type(node), []).append(node)
        self.findings: list[Finding] = []
        self.fixes: dict[int, Fix] = {}  # id(finding) -> fix
        self.parents: dict[cst.CSTNode, cst.CSTNode] = {}
        for node in self.nodes:
            for child in node.children:
                self.parents[child] = node
        for child in module.children:
            self.parents[child] = module

    # -- queries -------------------------------------------------------------------------------
    def nodes_of(self, *types) -> list:
        out = []
        for t in types:
            out.extend(self._by_type.get(t, ()))
        if len(types) > 1:
            out.sort(key=self.sort_key)
        return out

    def sort_key(self, node):
        line, col, _, _ = self.positions.get(node, _NOWHERE)
        return (line, col)

    def line(self, node) -> int:
        return self.positions.get(node, _NOWHERE)[0]

    def end_line(self, node) -> int:
        return self.positions.get(node, _NOWHERE)[2]

    def kind(self, expr, at=None):
        """The kind of ``expr`` (see dali_migrate/dataflow.py; None when unknown)."""
        kind = self.flow.kind_of(expr)
        return None if kind == TOP else kind

    def ndd_path(self, expr) -> str | None:
        """``"readers.File"`` for an expression naming ``ndd.readers.File``, else None."""
        qualname = self.imports.qualname(expr)
        if qualname and qualname.startswith(NDD + "."):
            return qualname[len(NDD) + 1:]
        return None

    def ndd_alias(self) -> str | None:
        """The local name bound to the ndd module (for fixes that must spell ``ndd.x``)."""
        for local, q in self.imports.aliases.items():
            if q == NDD:
                return local
        return None

    def parent(self, node):
        return self.parents.get(node)

    def enclosing(self, node, types):
        node = self.parent(node)
        while node is not None and not isinstance(node, types):
            node = self.parent(node)
        return node

    def statement(self, node):
        return self.enclosing(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement))

    def tool_written(self, node) -> bool:
        """``node`` is inside a class dali-migrate wrote (EpochIterator, ReaderStream, Prefetch, ...): those take
        pipelines of either kind and ask at run time what they hold (``hasattr(pipeline, "reset")``)."""
        cls = self.enclosing(node, cst.ClassDef)
        while cls is not None:
            if is_tool_written_class(cls):
                return True
            cls = self.enclosing(cls, cst.ClassDef)
        return False

    # -- results -------------------------------------------------------------------------------
    def report(self, rule_id: str, node, message: str, fix: Callable | None = None,
               fix_node=None) -> Finding:
        line, col, end_line, end_col = self.positions.get(node, _NOWHERE)
        finding = Finding(rule=rule_id, message=message, path=self.path, line=line, column=col,
                          end_line=end_line, end_column=end_col, fixed=False)
        rule = RULES[rule_id]
        if fix is not None and rule.fix in ("safe", "unsafe"):
            self.fixes[id(finding)] = Fix(fix_node if fix_node is not None else node, fix, rule.fix)
            finding.extra["fix"] = rule.fix
        self.findings.append(finding)
        return finding


def suppressions(source: str) -> dict[int, set[str] | None]:
    """Line -> rule IDs suppressed there (None: every rule), from ``# dali-migrate: ignore``."""
    out: dict[int, set[str] | None] = {}
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return out
    for tok in tokens:
        if tok.type != tokenize.COMMENT:
            continue
        m = _SUPPRESS.search(tok.string)
        if not m:
            continue
        line = tok.start[0]
        if m.group(1) is None:
            out[line] = None
        elif out.get(line, set()) is not None:
            ids = {p.strip().upper() for p in m.group(1).split(",") if p.strip()}
            out[line] = out.get(line, set()) | ids
    return out


def _suppressed(finding: Finding, table, statement_lines) -> bool:
    lines = statement_lines.get(finding.line, (finding.line,))
    for line in lines:
        if line in table:
            ids = table[line]
            if ids is None or finding.rule in ids:
                return True
    return False


def _keep(ctx: LintContext, kept: list[Finding]) -> None:
    """Keep only ``kept`` findings, and only their fixes (a suppressed finding is never fixed)."""
    keys = {id(f) for f in kept}
    ctx.fixes = {k: fix for k, fix in ctx.fixes.items() if k in keys}
    ctx.findings = kept


_PIPELINE_DEF = "nvidia.dali.pipeline_def"
_PIPELINE = "nvidia.dali.Pipeline"


def _pipeline_mode_lines(ctx: LintContext) -> set[int]:
    """Lines of pipeline-mode definitions (``@pipeline_def`` functions, ``Pipeline`` subclasses):
    their values are DataNodes, not Batches, so the dynamic-mode rules do not apply there."""
    lines: set[int] = set()
    for node in ctx.nodes_of(cst.FunctionDef, cst.ClassDef):
        if isinstance(node, cst.FunctionDef):
            hit = any(ctx.imports.qualname(d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator)
                      == _PIPELINE_DEF for d in node.decorators)
        else:
            hit = any(ctx.imports.qualname(b.value) == _PIPELINE for b in node.bases)
        if hit:
            lines.update(range(ctx.line(node), ctx.end_line(node) + 1))
    return lines


class _ApplyFixes(cst.CSTTransformer):
    def __init__(self, fixes: dict[int, Fix]) -> None:
        super().__init__()
        self.by_node = {}
        for f in fixes.values():
            self.by_node.setdefault(id(f.node), f)

    def on_leave(self, original_node, updated_node):
        fix = self.by_node.get(id(original_node))
        if fix is not None:
            return fix.replace(updated_node)
        return updated_node


def run_checks(path: str, source: str, module: cst.Module, imports: ImportTable) -> LintContext:
    ctx = LintContext(path, source, module, imports)
    for chk in CHECKS:
        chk(ctx)
    pipeline_lines = _pipeline_mode_lines(ctx)
    if pipeline_lines:
        _keep(ctx, [f for f in ctx.findings if f.line not in pipeline_lines])
    table = suppressions(source)
    if table:
        # A suppression comment on any line of a simple statement (one that spans several lines)
        # covers the findings on each of its lines.
        statement_lines = {}
        for stmt in ctx.nodes_of(cst.SimpleStatementLine):
            first, last = ctx.line(stmt), ctx.end_line(stmt)
            for line in range(first, last + 1):
                statement_lines.setdefault(line, (line, *range(first, last + 1)))
        _keep(ctx, [f for f in ctx.findings if not _suppressed(f, table, statement_lines)])
    ctx.findings.sort(key=lambda f: (f.line, f.column, f.rule))
    return ctx


# -- declaring rules -------------------------------------------------------------------------
# The line of the ``before`` example each rule must report (default: the first line where
# ``before`` and ``after`` differ). tests/test_lint_rules.py checks it.
EXAMPLE_LINES: dict[str, int] = {}

HEADER = "import nvidia.dali.experimental.dynamic as ndd\n"


def lint_rule(id: str, name: str, severity: str, summary: str, why: str, *, before: str, after: str,
              fix: str, suggestion: str = "", line: int | None = None):
    """Declare a DM3xx rule (``findings.rule``) whose examples are complete modules."""
    from ..findings import rule

    if line is not None:
        EXAMPLE_LINES[id] = line
    return rule(id, name, severity, summary, why, before=before, after=after, fix=fix, suggestion=suggestion)


def example_line(rule_id: str) -> int:
    r = RULES[rule_id]
    if rule_id in EXAMPLE_LINES:
        return EXAMPLE_LINES[rule_id]
    for i, (a, b) in enumerate(zip(r.before.splitlines(), r.after.splitlines()), start=1):
        if a != b:
            return i
    return min(len(r.before.splitlines()), len(r.after.splitlines())) + 1


class _Index(cst.CSTVisitor):
    """Every node of the module below it, in source order (the checks look nodes up by type)."""

    def __init__(self) -> None:
        super().__init__()
        self.nodes: list[cst.CSTNode] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        if not isinstance(node, cst.Module):
            self.nodes.append(node)
        return True


# -- helpers the checks share ----------------------------------------------------------------
_EMPTY = cst.Module(body=[])


def code(node) -> str:
    return _EMPTY.code_for_node(node)


def method_call(node, name: str | None = None):
    """(receiver, method name) when ``node`` is ``receiver.method(...)``, else (None, None)."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        if name is None or node.func.attr.value == name:
            return node.func.value, node.func.attr.value
    return None, None


def single_binding(ctx: "LintContext", name: cst.Name, at=None):
    """The value expression of the only binding of ``name`` (a plain ``name = value``), or None."""
    return ctx.flow.single_value(name)


def is_constant(ctx: "LintContext", expr) -> bool:
    """A literal, or a name bound only to literals."""
    if is_literal(expr):
        return True
    return isinstance(expr, cst.Name) and ctx.flow.bound_to_literals(expr)


def same_variable(ctx: "LintContext", a, b) -> bool:
    """``a`` and ``b`` are the same plain name resolved to the same scope."""
    if not (isinstance(a, cst.Name) and isinstance(b, cst.Name) and a.value == b.value):
        return False
    scope = ctx.flow.binding_scope(a)
    return scope is not None and scope is ctx.flow.binding_scope(b)


def is_op_call_or_data(ctx, expr) -> bool:
    """``expr`` is an ndd operator call, or a value the dataflow knows is a Batch/Tensor."""
    from ..dataflow import DATA_KINDS, op_path

    if isinstance(expr, cst.Call):
        path = ctx.ndd_path(expr.func)
        if path is not None and op_path(path) is not None:
            return True
    return ctx.kind(expr) in DATA_KINDS


def function_scope_node(ctx: "LintContext", node):
    """The def / lambda / module that ``node`` runs in."""
    return ctx.enclosing(node, (cst.FunctionDef, cst.Lambda, cst.Module)) or ctx.module
