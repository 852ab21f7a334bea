"""Per-sample conditionals: ``@pipeline_def(enable_conditionals=True)`` bodies whose ``if`` tests pipeline data.

Pipeline mode runs each branch of such an ``if`` on the samples whose condition holds and merges the values the
branches assign in sample order; ``and``/``or``/``not`` on DataNodes are per-sample logical operations. A
``Batch`` in dynamic mode has no truth value of its own (a Python ``if`` on one is always true), so the step
splits the batch itself, with the run-time helper ``SampleSplit`` (``dali_migrate/runtime/sample_split.py``)::

    if flip:                                     split = SampleSplit(flip)  # per-sample if: ...
        images = fn.flip(images, horizontal=1)   images_then = images_else = None
    else:                                        if split.then:
        images = fn.rotate(images, angle=10)         images_then = split.then_part(images)
                                         ->          images_then = ndd.flip(images_then, horizontal=1)
                                                 if split.orelse:
                                                     images_else = split.else_part(images)
                                                     images_else = ndd.rotate(images_else, angle=10)
                                                 images = split.merge(images_then, images_else)

Each branch runs on its part only (skipped when no sample takes it), reading the part of each pipeline value it
uses; an operator with no input gets ``batch_size=len(split.then)``, the part's size, so a random op draws for
the branch's samples only, as in pipeline mode (the values differ from pipeline mode anyway: DM202). A value read
after the ``if`` and assigned in a branch is merged (a branch that leaves it as it was gives its part of the value
from before). ``elif`` is an ``if`` inside the ``else`` part, nested ifs split their branch's part again, and
``a and b``, ``a or b``, ``not a`` on pipeline data become ``a & b``, ``a | b``, ``a == 0``, which pipeline mode
requires to be boolean scalars, where the bitwise forms give the same values (DALI's own error message says so).

What cannot be written that way keeps the pipeline in pipeline mode with a DM213 marker saying why: a branch that
returns, a per-sample ``if`` in a loop, ``with`` or ``try`` of the body, a reader or external source in a branch, a
branch that binds a plain Python value read after the ``if``, a helper function the pipeline calls that branches
on pipeline data itself (pipeline mode converted it too), pipeline data ``and``/``or`` a plain Python value.
(``flag and c`` with a plain ``flag`` is Python's own ``and`` in both modes: a false ``flag`` sends the whole batch
to the ``else`` branch, ``SampleSplit(flag and c, batch_size)``.) A test whose kind the flow model cannot tell (a
function of the module given pipeline data, that may return a plain value: ``is_gpu(images)``) stays too.

A body that tests pipeline data only runs with conditionals enabled (DALI raises TypeError on a DataNode's truth
value otherwise), so it is rewritten however they were enabled (the decorator, or the keyword where the pipeline
function is called). Plain Python in a branch that reads and binds nothing (a ``print``) runs once, before the
steps, as pipeline mode ran it when it traced the branch; tuples and dicts a branch assigns merge item by item.
"""

from __future__ import annotations

import re

import libcst as cst

from ...dataflow import DATANODE, DATANODES
from ...names import FN, MATH, NDD, OPS, TYPES
from ...walk import transform, walk
from . import rules
from .helper_classes import SAMPLE_SPLIT
from .model import (AssignedNames, CannotUnroll, NameReads, code_of, expr, fn_path, kwarg, ndd_path_of, op_entry,
                    ndd_entry, ops_fn_entry, stmt, with_kwarg)

CLASS_NAME = SAMPLE_SPLIT
SPLIT_COMMENT = "# per-sample if: each branch runs on its samples"
_DATANODE_METHODS = frozenset(("gpu", "cpu", "shape", "property", "source_info"))  # (DataNode's own, DALI 2.4.0)
_BUILTINS = frozenset(("len", "isinstance", "hasattr", "getattr", "callable", "type", "id", "str", "repr", "bool",
                       "print"))
_DALI_PREFIXES = (FN + ".", OPS + ".", NDD + ".", MATH + ".", f"{TYPES}.Constant")
_SOURCES = (f"{FN}.external_source", f"{OPS}.ExternalSource")


def enabled(config: dict) -> bool:
    """``enable_conditionals=`` is given and not a literal False."""
    value = config.get("enable_conditionals")
    return value is not None and not (isinstance(value, cst.Name) and value.value == "False")


def shown_test(env, statement: cst.If) -> str:
    """The test of ``statement`` as the file writes it (earlier passes may have rewritten the node: ``x.slice[0]``
    for ``x[0]``), for the messages; its code where the file's line does not hold it."""
    line = env.ctx.position(statement)[0]
    lines = env.ctx.source.splitlines()
    text = lines[line - 1].strip() if 0 < line <= len(lines) else ""
    for keyword in ("if ", "elif "):
        if text.startswith(keyword) and text.endswith(":"):
            return text[len(keyword):-1].strip()
    return _one_line(code_of(statement.test))


def cannot(why: str, node) -> CannotUnroll:
    return CannotUnroll(f"per-sample conditionals: {why}", node, rule=rules.CONDITIONALS.id)


class _Scope:
    """Where statements are rewritten: the whole step (no split), or one branch of a per-sample ``if``."""

    def __init__(self, parent: "_Scope | None", split: str | None = None, side: str = "", available=()):
        self.parent, self.split, self.side = parent, split, side
        self.path = side if parent is None or not parent.path else f"{parent.path}_{side}"
        self.names: dict[str, str] = {}  # a pipeline value's name -> the name that holds its part here
        self.available: set[str] = set(available)  # pipeline values bound before this point (here or outside)
        self.python: set[str] = set()  # plain Python names the branch binds
        self.batch_size = f"len({split}.{'then' if side == 'then' else 'orelse'})" if split else None

    def outer_name(self, name: str) -> str:
        """The name that holds ``name`` in the enclosing scope (where this branch takes its part from)."""
        return self.parent.current(name)

    def current(self, name: str) -> str:
        return self.names.get(name, name) if self.split else name


class Rewriter:
    """Rewrites one pipeline body (``rewrite``)."""

    def __init__(self, env, statements):
        self.env = env
        self.imports = env.ctx.imports
        self.flow = env.ctx.facts.get("flow")
        self.reserved = set(re.findall(r"[A-Za-z_]\w*", env.ctx.source))
        self.allocated: dict[tuple[str, str], str] = {}
        self.used = False
        self.forced: list = []  # statements that belong to each step whatever they read (build_graph)
        self.hoisted: list = []  # plain Python of the branches that runs once (_runs_once)
        self.data = self._data_names(statements)

    # -- what holds pipeline data ------------------------------------------------------------------------------
    def _data_names(self, statements) -> set[str]:
        """The names the body binds to pipeline values (a DALI call's result, or a value computed from one), to
        a fixpoint."""
        data: set[str] = set()
        assignments = []
        for statement in statements:
            finder = _Assignments()
            walk(statement, finder)
            assignments += finder.found
        grown = True
        while grown:
            grown = False
            for targets, value in assignments:
                if not set(targets) <= data and self.is_data(value, data):
                    data |= set(targets)
                    grown = True
        return data

    def is_data(self, node, data=None) -> bool:
        """``node`` (an expression) evaluates to pipeline data (a DataNode): a DALI operator's result, a name bound
        to one (the body's own, or what the flow model says is a DataNode), arithmetic, a comparison or
        ``and``/``or``/``not`` with one, an index into one, a method of one (``x.gpu()``), or a function of the
        module given one. Not ``x is None``, ``x in ...``, an attribute (``x.device``) or a builtin's result
        (``len``, ``isinstance``): those are plain Python values, tested as such in both modes."""
        data = self.data if data is None else data
        if isinstance(node, cst.Name):
            return node.value in data or self.flow_says_data(node)
        if isinstance(node, cst.Call):
            if self.is_dali_call(node):
                return True
            if isinstance(node.func, cst.Attribute) and node.func.attr.value in _DATANODE_METHODS:
                return self.is_data(node.func.value, data)  # a DataNode's method: x.gpu(), x.shape()
            if isinstance(node.func, cst.Attribute) and self.is_data(node.func.value, data):
                return False  # another object's method (debug mode's x.get().is_dense_tensor()): plain Python
            if isinstance(node.func, cst.Name) and node.func.value in _BUILTINS:
                return False
            return self.flow_says_data(node)  # a function of the module that returns pipeline data
        if isinstance(node, (cst.BinaryOperation, cst.BooleanOperation)):
            return self.is_data(node.left, data) or self.is_data(node.right, data)
        if isinstance(node, cst.UnaryOperation):
            return self.is_data(node.expression, data)
        if isinstance(node, cst.Comparison):
            if any(isinstance(c.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)) for c in node.comparisons):
                return False
            return self.is_data(node.left, data) or any(self.is_data(c.comparator, data) for c in node.comparisons)
        if isinstance(node, cst.Subscript):
            return self.is_data(node.value, data)
        if isinstance(node, cst.Attribute) and node.attr.value == "slice":  # x[0] as an earlier pass writes it
            return self.is_data(node.value, data)
        if isinstance(node, cst.IfExp):
            return self.is_data(node.body, data) or self.is_data(node.orelse, data)
        if isinstance(node, (cst.Tuple, cst.List)):
            return any(self.is_data(e.value, data) for e in node.elements)
        if isinstance(node, cst.Dict):
            return any(isinstance(e, cst.DictElement) and self.is_data(e.value, data) for e in node.elements)
        if isinstance(node, cst.NamedExpr):
            return self.is_data(node.value, data)
        return False

    def unknown(self, node) -> bool:
        """``node`` calls a function given pipeline data whose result the flow model cannot tell (a DataNode, or a
        plain value such as ``x.device == "gpu"``): pipeline mode decided which when it ran."""
        found = _Calls()
        walk(cst.Expr(node), found)
        return any(not self.is_data(call) and not self.is_dali_call(call) and any(
            self.is_data(a.value) for a in call.args) and not (
            isinstance(call.func, cst.Name) and call.func.value in _BUILTINS) for call in found.found)

    def is_dali_call(self, call: cst.Call) -> bool:
        qualname = self.imports.qualname(call.func)
        if qualname is not None and qualname.startswith(_DALI_PREFIXES):
            return True
        return qualname is None and self.flow is not None and bool(self._ops_objects(call))

    def _ops_objects(self, call):
        try:
            return self.flow.ops_objects_in(call.func)
        except Exception:  # a node the flow model never saw (rewritten by an earlier pass)
            return []

    def flow_says_data(self, node) -> bool:
        if self.flow is None:
            return False
        try:
            return self.flow.is_dali(node, DATANODE, DATANODES)
        except Exception:
            return False

    def per_sample(self, statement) -> bool:
        return isinstance(statement, cst.If) and self.is_data(statement.test)

    # -- the body -----------------------------------------------------------------------------------------------
    def block(self, statements, scope: _Scope, live_after: set[str]) -> list:
        out = []
        for k, statement in enumerate(statements):
            later = live_after | _reads(statements[k + 1:])
            if self.per_sample(statement):
                out += self.per_sample_if(statement, scope, later)
            elif isinstance(statement, cst.If) and self.unknown(statement.test):
                raise cannot(f"whether `if {shown_test(self.env, statement)}` tests pipeline data (then pipeline mode "
                             f"split the batch) or a plain Python value is not known before it runs", statement)
            elif isinstance(statement, cst.If) and self._holds_per_sample(statement):
                out += self.plain_if(statement, scope, later)
            elif scope.split and self._runs_once(statement):
                self.hoisted.append(statement)  # pipeline mode ran it once, tracing the branch
            else:
                self._check_plain(statement, scope)
                out += self.takes(statement, scope)
                self.allocate(statement, scope)
                out.append(self.rewritten(statement, scope))
                binds = _binds(statement)
                scope.available |= binds & self.data
                scope.python |= binds - self.data
                if scope.split:
                    self._branch_bound.update(binds)
        return out

    def _runs_once(self, statement) -> bool:
        """A statement of a branch that neither reads nor binds anything (``print("...")``, a log call): pipeline mode
        ran it once, when it traced the branch; it goes before the steps' split, where the generator runs it once
        too (before the loop, as the rest of the body's plain Python)."""
        if not isinstance(statement, cst.SimpleStatementLine) or any(
                isinstance(s, (cst.Pass, cst.Return, cst.Raise, cst.Assert)) for s in statement.body):
            return False
        reads = NameReads()
        walk(statement, reads)
        return not _binds(statement) and not (reads.names & (self.data | self._branch_bound)) and not any(
            self.flow_says_data(n) for n in reads.nodes)

    @property
    def _branch_bound(self) -> set[str]:
        return self.__dict__.setdefault("_bound_in_branches", set())

    def _holds_per_sample(self, statement) -> bool:
        found = _PerSampleIfs(self)
        walk(statement, found)
        return bool(found.found)

    def plain_if(self, statement: cst.If, scope: _Scope, live_after: set[str]) -> list:
        """An ``if`` on a plain Python value with per-sample ``if``s inside: its blocks rewritten in place."""
        out = self.takes(cst.Expr(statement.test), scope)
        test = self.rewritten_expr(statement.test, scope)
        body = self.block(list(statement.body.body), scope, live_after)
        orelse = statement.orelse
        if isinstance(orelse, cst.If):
            inner = self.block([orelse], scope, live_after)
            orelse = inner[0] if len(inner) == 1 and isinstance(inner[0], cst.If) else cst.Else(
                cst.IndentedBlock(inner))
        elif isinstance(orelse, cst.Else):
            orelse = orelse.with_changes(body=orelse.body.with_changes(
                body=self.block(list(orelse.body.body), scope, live_after)))
        out.append(statement.with_changes(test=test, body=statement.body.with_changes(body=body), orelse=orelse))
        return out

    def per_sample_if(self, statement: cst.If, scope: _Scope, live_after: set[str]) -> list:
        self._check_if(statement)
        shown = shown_test(self.env, statement)
        takes = self.takes(statement, scope)  # (what the branches read, taken here first where this is a branch)
        split = self._name("split", scope.path or "", split=True)
        test = self.rewritten_expr(statement.test, scope)
        self.used = True
        size = ""
        if isinstance(statement.test, cst.BooleanOperation) and not self.is_data(statement.test.left):
            # `flag and c`: flag when it is false, a plain Python value: the whole batch takes one branch
            size = f", {scope.batch_size or self.env.batch_size}"
        first = stmt(f"{split} = {CLASS_NAME}({code_of(test)}{size})  {SPLIT_COMMENT}\n")
        first = first.with_changes(leading_lines=statement.leading_lines)
        out = [first]
        self.forced.append(first)
        then_scope = _Scope(scope, split, "then", scope.available)
        else_scope = _Scope(scope, split, "else", scope.available)
        orelse = statement.orelse
        else_block = [orelse] if isinstance(orelse, cst.If) else list(orelse.body.body) if orelse else []
        then_statements = self.block(list(statement.body.body), then_scope, live_after)
        else_statements = self.block(else_block, else_scope, live_after)
        bound_then = _binds_in(statement.body.body) & self.data
        bound_else = _binds_in(else_block) & self.data
        merged = [n for n in _order(statement, self.data) if n in (bound_then | bound_else) & live_after]
        for name in merged:
            for side, bound, branch_scope, statements in (("if", bound_then, then_scope, then_statements),
                                                          ("else", bound_else, else_scope, else_statements)):
                if name not in bound:
                    if name not in scope.available:
                        raise cannot(f"{name} is assigned in only one branch of `if {shown}` and read after it; "
                                     f"pipeline mode needs it in every branch (or assigned before)", statement)
                    takes += self.takes(cst.Expr(cst.Name(name)), scope)
                    statements += self.takes(cst.Expr(cst.Name(name)), branch_scope)  # its part, as it was
        python = (then_scope.python | else_scope.python) & (live_after | _reads(else_block))
        if python:
            raise cannot(f"a branch of `if {shown}` binds {', '.join(sorted(python))}, a plain Python value read "
                         f"after it (pipeline mode made it a constant batch, merged per sample)", statement)
        if merged:
            parts = [then_scope.names[n] for n in merged] + [else_scope.names[n] for n in merged]
            out.append(stmt(" = ".join(parts) + " = None\n"))  # (what a branch no sample takes leaves)
            self.forced.append(out[-1])
        if then_statements:
            out.append(cst.If(test=expr(f"{split}.then"), body=cst.IndentedBlock(then_statements)))
        if else_statements:
            out.append(cst.If(test=expr(f"{split}.orelse"), body=cst.IndentedBlock(else_statements)))
        for name in merged:
            target = self.bind(name, scope)
            out.append(stmt(f"{target} = {split}.merge({then_scope.names[name]}, {else_scope.names[name]})\n"))
        scope.available |= set(merged)
        hoisted = []
        if not scope.split:  # the outermost split: its branches' plain Python before it
            hoisted, self.hoisted = self.hoisted, []
        return hoisted + takes + out

    # -- names --------------------------------------------------------------------------------------------------
    def _name(self, base: str, path: str, split=False) -> str:
        key = (path, "<split>" if split else base)
        if key not in self.allocated:
            wanted = base if split and not path else f"{base}_{path}"
            taken = self.reserved | set(self.allocated.values())
            name, n = wanted, 1
            while name in taken:
                n += 1
                name = f"{wanted}_{n}"
            self.allocated[key] = name
        return self.allocated[key]

    def bind(self, name: str, scope: _Scope) -> str:
        """The name ``name`` is bound to in ``scope`` (itself outside the branches)."""
        if not scope.split:
            return name
        if name not in scope.names:
            scope.names[name] = self._name(name, scope.path)
        return scope.names[name]

    def takes(self, node, scope: _Scope) -> list:
        """``x_then = split.then_part(x)`` for each pipeline value bound outside the branch that ``node`` reads
        (before its first use in the branch)."""
        if not scope.split:
            return []
        out = []
        reads = NameReads()
        walk(node, reads)
        for name in dict.fromkeys(n.value for n in reads.nodes):
            if name in self.data and name in scope.available and name not in scope.names:
                outer = scope.outer_name(name)
                local = self.bind(name, scope)
                part = "then_part" if scope.side == "then" else "else_part"
                out.append(stmt(f"{local} = {scope.split}.{part}({outer})\n"))
        return out

    def allocate(self, statement, scope: _Scope) -> None:
        for name in _binds(statement) & self.data:
            self.bind(name, scope)

    # -- statements ---------------------------------------------------------------------------------------------
    def rewritten(self, statement, scope: _Scope):
        changer = _Rewrite(self, scope)
        result = transform(statement, changer, layout=False)
        return result

    def rewritten_expr(self, node, scope: _Scope):
        return transform(cst.Expr(node), _Rewrite(self, scope), layout=False).value

    def _check_if(self, statement: cst.If) -> None:
        shown = shown_test(self.env, statement)
        found = _Returns()
        walk(statement, found)
        if found.found:
            raise cannot(f"a branch of `if {shown}` returns (pipeline mode merged the returned values per sample)",
                         found.found[0])

    def _check_plain(self, statement, scope: _Scope) -> None:
        """A statement that is not an ``if``: no per-sample ``if`` inside it (a loop, ``with``, ``try``), no
        conditional expression or ``while`` on pipeline data."""
        found = _PerSampleIfs(self)
        walk(statement, found)
        if found.found:
            kind = type(statement).__name__.lower()
            raise cannot(f"`{found.found[0]}` on pipeline data inside a `{kind}` of the pipeline body", statement)
        if scope.split:
            stores = AssignedNames()
            walk(statement, stores)
            if stores.stored:
                raise cannot(f"a branch stores into {', '.join(sorted(stores.stored))} (pipeline mode merged only "
                             f"the variables a branch assigns)", statement)
            if isinstance(statement, (cst.FunctionDef, cst.ClassDef)) or isinstance(
                    statement, cst.SimpleStatementLine) and any(
                    isinstance(s, (cst.Global, cst.Nonlocal, cst.Import, cst.ImportFrom)) for s in statement.body):
                raise cannot("a definition, import or global declaration in a per-sample branch", statement)


class _Rewrite(cst.CSTTransformer):
    """One statement of a scope: its pipeline values renamed to their parts, ``and``/``or``/``not`` on pipeline
    data as per-sample logical operations, ``batch_size=`` for operators with no input in a branch."""

    def __init__(self, rewriter: Rewriter, scope: _Scope):
        super().__init__()
        self.r, self.scope = rewriter, scope
        self._skip: set[int] = set()

    def visit_Attribute(self, node):
        self._skip.add(id(node.attr))

    def visit_Arg(self, node):
        if node.keyword is not None:
            self._skip.add(id(node.keyword))

    def leave_Name(self, original_node, updated_node):
        if id(original_node) in self._skip or original_node.value not in self.r.data:
            return updated_node
        renamed = self.scope.current(original_node.value)
        return updated_node if renamed == original_node.value else updated_node.with_changes(value=renamed)

    def leave_IfExp(self, original_node, updated_node):
        if self.r.is_data(original_node.test):
            raise cannot(f"a conditional expression on pipeline data (`{code_of(original_node)}`) raises in "
                         f"pipeline mode too", original_node)
        return updated_node

    def leave_While(self, original_node, updated_node):
        if self.r.is_data(original_node.test):
            raise cannot(f"`while {code_of(original_node.test)}:` loops on pipeline data", original_node)
        return updated_node

    def leave_BooleanOperation(self, original_node, updated_node):
        left, right = self.r.is_data(original_node.left), self.r.is_data(original_node.right)
        if not left:
            return updated_node  # `factor or fn.random.uniform(...)`: Python's own `or` in both modes
        if not right:
            raise cannot(f"`{_one_line(code_of(original_node))}`: pipeline data `"
                         f"{'and' if isinstance(original_node.operator, cst.And) else 'or'}` a plain Python value "
                         f"(pipeline mode checked the right side per sample)", original_node)
        operator = cst.BitAnd() if isinstance(original_node.operator, cst.And) else cst.BitOr()
        return cst.BinaryOperation(_operand(updated_node.left), operator, _operand(updated_node.right),
                                   lpar=updated_node.lpar, rpar=updated_node.rpar)

    def leave_UnaryOperation(self, original_node, updated_node):
        if not isinstance(original_node.operator, cst.Not) or not self.r.is_data(original_node.expression):
            return updated_node
        inner = updated_node.expression
        if isinstance(inner, cst.Comparison) and len(inner.comparisons) == 1 and isinstance(
                inner.comparisons[0].operator, (cst.Equal, cst.NotEqual)):  # not a == b: a != b
            target = inner.comparisons[0]
            flipped = cst.NotEqual() if isinstance(target.operator, cst.Equal) else cst.Equal()
            return inner.with_changes(comparisons=[target.with_changes(operator=flipped)], lpar=updated_node.lpar,
                                      rpar=updated_node.rpar)
        return cst.Comparison(_operand(inner), [cst.ComparisonTarget(cst.Equal(), cst.Integer("0"))],
                              lpar=updated_node.lpar, rpar=updated_node.rpar)

    def leave_Call(self, original_node, updated_node):
        if not self.scope.split or not self.r.is_dali_call(original_node):
            return updated_node
        qualname = self.r.imports.qualname(original_node.func) or ""
        entry = self._entry(original_node)
        if qualname.startswith(_SOURCES) or entry and entry.get("kind") == "reader":
            raise cannot(f"{code_of(original_node.func)} in a per-sample branch: the migration creates readers and "
                         f"sources once and steps them whole, not per branch", original_node)
        positional = [a for a in updated_node.args if a.keyword is None]
        if entry and entry.get("input_less") and not positional and kwarg(updated_node, "batch_size") is None:
            size = self.scope.batch_size
            updated_node = with_kwarg(updated_node, "batch_size", expr(size))
            random = " draws for the branch's samples only, as in pipeline mode (the values differ from pipeline " \
                     "mode: DM202)" if entry.get("random") else ""
            self.r.env.report(rules.RANDOM_BATCH_SIZE.id, f"{code_of(original_node.func)} in a per-sample branch "
                              f"gets batch_size={size}, the branch's samples:{random or ' one value per sample'}",
                              original_node)
            if entry.get("random"):
                self.r.env.report(rules.RANDOM_VALUES.id, f"{code_of(original_node.func)} in a per-sample branch "
                                  f"draws for the branch's samples only in both modes; random values differ from "
                                  f"pipeline mode", original_node)
        return updated_node

    def _entry(self, call: cst.Call):
        path = fn_path(self.r.imports, call.func)
        if path is not None:
            return op_entry(path)[1]
        path = ndd_path_of(self.r.imports, call.func)
        if path is not None:
            return ndd_entry(path)[1]
        made = self.r._ops_objects(call) if self.r.flow is not None else []
        entries = [ops_fn_entry(self.r.imports.qualname(c.func)[len(OPS) + 1:])[1] for c in made]
        return entries[0] if entries and all(e is entries[0] for e in entries) else None


def _operand(node):
    """``node`` as an operand of ``&``/``|``: parenthesized unless it binds tighter."""
    if isinstance(node, (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float)) or node.lpar:
        return node
    return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _one_line(text: str) -> str:
    return " ".join(text.split())


class _Assignments(cst.CSTVisitor):
    """(names, value) of each assignment of a block (not inside nested functions)."""

    def __init__(self):
        self.found: list[tuple[list[str], cst.BaseExpression]] = []

    def visit_Assign(self, node):
        for target in node.targets:
            self.found.append((_target_names(target.target), node.value))

    def visit_AugAssign(self, node):
        self.found.append((_target_names(node.target), cst.BinaryOperation(node.target, cst.Add(), node.value)))

    def visit_AnnAssign(self, node):
        if node.value is not None:
            self.found.append((_target_names(node.target), node.value))

    def visit_NamedExpr(self, node):
        self.found.append((_target_names(node.target), node.value))

    def visit_For(self, node):
        self.found.append((_target_names(node.target), node.iter))

    def visit_FunctionDef(self, node):
        return False

    def visit_Lambda(self, node):
        return False


def _target_names(target) -> list[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for e in target.elements for n in _target_names(e.value)]
    if isinstance(target, cst.StarredElement):
        return _target_names(target.value)
    return []


class _PerSampleIfs(cst.CSTVisitor):
    def __init__(self, rewriter: Rewriter):
        self.r = rewriter
        self.found: list[str] = []

    def visit_If(self, node):
        if self.r.is_data(node.test):
            self.found.append(f"if {shown_test(self.r.env, node)}")

    def visit_FunctionDef(self, node):
        return False


class _Returns(cst.CSTVisitor):
    def __init__(self):
        self.found: list = []

    def visit_Return(self, node):
        self.found.append(node)

    def visit_FunctionDef(self, node):
        return False

    def visit_Lambda(self, node):
        return False


def _reads(statements) -> set[str]:
    reads = NameReads()
    for statement in statements:
        walk(statement, reads)
    return reads.names


def _binds(statement) -> set[str]:
    bound = AssignedNames()
    walk(statement, bound)
    return bound.names


def _binds_in(statements) -> set[str]:
    return set().union(*(_binds(s) for s in statements)) if statements else set()


def _order(statement, names: set[str]) -> list[str]:
    """``names`` in the order the statement first binds them."""
    found = _Assignments()
    walk(statement, found)
    return list(dict.fromkeys(n for targets, _ in found.found for n in targets if n in names))


def branches_on_data(rewriter: Rewriter, function: cst.FunctionDef) -> str | None:
    """The first ``if``/``and``/``or``/``not`` of ``function`` on a value the flow model says is pipeline data."""
    found = _LogicOnData(rewriter)
    walk(function.body, found)
    return found.found


class _LogicOnData(cst.CSTVisitor):
    def __init__(self, rewriter: Rewriter):
        self.r = rewriter
        self.found: str | None = None

    data: frozenset = frozenset()  # the names known to hold pipeline data beside what the flow model says

    def _flow(self, node) -> bool:
        return self.r.is_data(node, set(self.data))

    def visit_If(self, node):
        if self.found is None and self._flow(node.test):
            self.found = f"if {_one_line(code_of(node.test))}"

    def visit_BooleanOperation(self, node):
        if self.found is None and self._flow(node.left):  # (a plain left operand: Python's own and/or)
            self.found = _one_line(code_of(node))

    def visit_UnaryOperation(self, node):
        if self.found is None and isinstance(node.operator, cst.Not) and self._flow(node.expression):
            self.found = _one_line(code_of(node))


def rewrite(statements, env) -> tuple[list, list]:
    """The body's statements with each per-sample ``if`` written as a split, its branches and the merges, and the
    statements build_graph must keep in each step (``forced``); CannotUnroll (DM213) where that is not faithful."""
    rewriter = Rewriter(env, statements)
    out = rewriter.block(list(statements), _Scope(None), set())
    return out, rewriter.forced, rewriter.used


def check_returns(statements, env) -> None:
    """Before the closing returns are normalized: a per-sample ``if`` whose branch returns stays (DM213)."""
    rewriter = Rewriter(env, statements)
    for statement in statements:
        found = _PerSampleIfs(rewriter)
        walk(statement, found)
        if found.found:
            returns = _Returns()
            walk(statement, returns)
            if returns.found:
                raise cannot(f"a branch of `{found.found[0]}` returns (pipeline mode merged the returned values per "
                             f"sample)", returns.found[0])


def check_helpers(statements, env) -> None:
    """A function of the module that the pipeline calls (or one it calls) and that branches on pipeline data itself
    (``if``, ``and``/``or``/``not``): pipeline mode converted it per sample too; the pipeline stays (DM213)."""
    flow = env.ctx.facts.get("flow")
    if flow is None:
        return
    rewriter = Rewriter(env, statements)
    calls = _Calls()
    for statement in statements:
        walk(statement, calls)
    seen, todo = set(), list(calls.found)
    while todo:
        call = todo.pop()
        reached = flow.call_targets.get(call)
        function = getattr(reached[0], "node", None) if reached else None
        if not isinstance(function, cst.FunctionDef) or function in seen:
            continue
        seen.add(function)
        found = branches_on_data(rewriter, function)
        if found is not None:
            raise cannot(f"{function.name.value}(), which the pipeline calls, branches on pipeline data itself "
                         f"(`{found}`): pipeline mode ran it per sample too", call)
        inner = _Calls()
        walk(function.body, inner)
        todo += inner.found


class _Calls(cst.CSTVisitor):
    def __init__(self):
        self.found: list[cst.Call] = []

    def visit_Call(self, node):
        self.found.append(node)


def used(statements, env) -> bool:
    """The body tests pipeline data (``if``, ``and``/``or``/``not``): it only runs with conditionals enabled (without
    them DALI raises TypeError on the DataNode's truth value), so however it enabled them (the decorator, or
    ``enable_conditionals=True`` where it is called, here or in another module), its ifs are per sample."""
    rewriter = Rewriter(env, statements)
    found = _LogicOnData(rewriter)
    found.data = rewriter.data
    for statement in statements:
        walk(statement, found)
    return found.found is not None
