"""Methods of a Pipeline subclass that call its reader objects (``def load(self): return self.input(name="Reader")``):
which ones only define_graph calls, their reads moved into define_graph (the steps iterate the reader where
define_graph called the method), and the method rewritten to take the reader's outputs as parameters."""

from __future__ import annotations

import libcst as cst

from ...walk import transform, walk
from ...names import free_name
from .class_common import _AttrUses, _methods, _normalise_commas, _self_attr
from .class_hierarchy import _imports_of
from .class_ops_objects import _OpsCollector, _reader_makers
from .model import AssignedNames, CannotUnroll, NameReads, code_of

class _ReaderCallsIn(cst.CSTVisitor):
    def __init__(self, readers):
        self.readers, self.found = readers, None

    def visit_Call(self, node):
        if self.found is None and _self_attr(node.func) in self.readers:
            self.found = node


class _ReaderRead:
    """A statement of a helper method that reads a reader object: ``jpegs, labels = self.input(name="Reader")``
    (``target`` the names it binds) or ``return self.input(name="Reader")`` (``target`` None); ``params`` the
    names the migrated helper takes the reader's outputs by, in place of the call."""

    def __init__(self, index: int, attr: str, call: cst.Call, target, params: list[str]):
        self.index, self.attr, self.call, self.target, self.params = index, attr, call, target, params


def _helper_reads(method: cst.FunctionDef, readers: set[str]) -> list[_ReaderRead]:
    """The reader reads of a helper method (``_reader_helpers``), or CannotUnroll saying why they cannot move to
    the steps: each a statement of the helper's own body, ``names = self.R(name=...)`` or ``return self.R(...)``,
    the reader called once, its arguments keywords that read nothing of the helper's."""
    name = method.name.value
    body = list(method.body.body) if isinstance(method.body, cst.IndentedBlock) else []
    params = method.params
    if not params.params or params.params[0].name.value != "self" or method.decorators or params.posonly_params:
        raise CannotUnroll(f"{name}() calls a reader object, and is not a plain method of self", method)
    local, found = AssignedNames(), []
    walk(method, local)
    own = {p.name.value for p in [*params.params, *params.kwonly_params]} | local.names
    for index, statement in enumerate(body):
        small = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 \
            else None
        call = getattr(small, "value", None)
        attr = _self_attr(call.func) if isinstance(call, cst.Call) else None
        if attr in readers and (isinstance(small, cst.Return) or isinstance(small, cst.Assign)
                                and len(small.targets) == 1):
            target = small.targets[0].target if isinstance(small, cst.Assign) else None
            names = [target] if isinstance(target, cst.Name) else [
                e.value for e in target.elements] if isinstance(target, (cst.Tuple, cst.List)) else None
            if target is not None and (names is None or not all(isinstance(n, cst.Name) for n in names)):
                raise CannotUnroll(f"{name}(): {code_of(small)}: the reader's outputs are not bound to plain names",
                                   statement)
            reads = NameReads()
            walk(cst.Expr(call), reads)
            if any(a.keyword is None or a.star for a in call.args) or (reads.names - {"self"}) & own:
                raise CannotUnroll(f"{name}(): {code_of(call)}: a reader called with positional arguments or with "
                                   f"values the helper computes (its call moves to the steps)", statement)
            if target is None:
                names = [cst.Name(free_name(f"{attr}_outputs", own))]
            before = NameReads()
            for earlier in body[:index]:
                walk(earlier, before)
            taken = {n.value for n in names} & (before.names | {p.name.value for p in
                                                                 [*params.params, *params.kwonly_params]})
            if taken:
                raise CannotUnroll(f"{name}(): {', '.join(sorted(taken))} is used before the reader binds it", statement)
            found.append(_ReaderRead(index, attr, call, target, [n.value for n in names]))
            continue
        calls = _ReaderCallsIn(readers)
        walk(statement, calls)
        if calls.found is not None:
            raise CannotUnroll(f"{code_of(calls.found)}: a reader object called in {name}() other than by a statement "
                               f"of its own (`x = self.R(...)` or `return self.R(...)`)", statement)
    attrs = [read.attr for read in found]
    if len(set(attrs)) != len(attrs):
        raise CannotUnroll(f"{name}() calls the reader self.{attrs[0]} twice", method)
    for attr in attrs:
        if _AttrUses.count_in(method, attr) != 1:
            raise CannotUnroll(f"{name}() uses the reader self.{attr} other than by calling it", method)
    return found


def _hierarchy_readers(unroller, classes) -> set[str]:
    """The attributes any ``__init__`` of the hierarchy puts an ops reader object in (a reader maker's too)."""
    found = set()
    for cls in classes:
        imports, methods = _imports_of(unroller, cls), _methods(cls)
        collector = _OpsCollector(imports, _reader_makers(imports, methods))
        try:
            walk(methods.get("__init__", cst.Pass()), collector)
        except CannotUnroll:  # (that class's own description says why)
            continue
        found |= {attr for attr, obj in collector.found.items() if obj.is_reader}
    return found


def _reader_helpers(classes, readers: set[str]) -> dict[str, list[_ReaderRead]]:
    """The helper methods that read reader objects (``def load(self): return self.input(name="Reader")``) and that
    only define_graph calls, by a call of its own statement (``images, labels = self.load()``): {name: its reads}.
    In the steps the reader is iterated where define_graph called the helper (``_graph_with_reader_reads``), and
    the helper takes the reader's outputs as parameters (``_helper_taking_outputs``). Any other shape:
    CannotUnroll with the reason."""
    if not readers:
        return {}
    helpers = {}
    for cls in classes:
        for name, method in _methods(cls).items():
            if name in ("__init__", "define_graph"):
                continue
            calls = _ReaderCallsIn(readers)
            walk(method, calls)
            if calls.found is not None:
                helpers[method] = _helper_reads(method, readers)
    names = {method.name.value for method in helpers}
    for cls in classes:  # (sibling classes may each have their own)
        for name in names:
            defining = [c for c in _chain_of(cls, classes) if name in _methods(c)]
            if len(defining) > 1:
                raise CannotUnroll(f"{name}() reads a reader object and is defined by {defining[0].name.value} and by "
                                   f"its base {defining[1].name.value}", _methods(defining[0])[name])
    for cls in classes:
        for name, method in _methods(cls).items():
            for helper in names:
                uses = _HelperUses(helper)
                walk(method, uses)
                if not uses.count:
                    continue
                if name != "define_graph":
                    raise CannotUnroll(f"{helper}() reads a reader object and is used by {name}(), not only by "
                                       f"define_graph", method)
                sites = [statement for statement in method.body.body if _helper_call(statement, helper) is not None]
                if len(sites) != 1 or uses.count != 1:
                    raise CannotUnroll(f"{helper}() reads a reader object and define_graph does not call it once, by "
                                       f"a call in a statement of its own body", method)
    return helpers


class _HelperUses(cst.CSTVisitor):
    """``self.H``, ``super().H``, ``C.H``: the uses of a method by name."""

    def __init__(self, name: str):
        self.name, self.count, self.calls = name, 0, []

    def visit_Attribute(self, node):
        if node.attr.value == self.name:
            self.count += 1

    def visit_Call(self, node):
        if isinstance(node.func, cst.Attribute) and node.func.attr.value == self.name:
            self.calls.append(node)


def _chain_of(cls: cst.ClassDef, classes) -> list[cst.ClassDef]:
    """``cls`` and its bases among ``classes`` (a hierarchy), nearest first."""
    by_name = {c.name.value: c for c in classes}
    chain = [cls]
    while True:
        parent = next((by_name[b.value.value] for b in chain[-1].bases if isinstance(b.value, cst.Name)
                       and b.value.value in by_name and by_name[b.value.value] not in chain), None)
        if parent is None:
            return chain
        chain.append(parent)


def _helper_call(statement, helper: str) -> cst.Call | None:
    """The ``self.H(...)`` call of a simple statement of define_graph (``x = self.H()``, ``return self.H()``), when
    its arguments are plain (no ``*``/``**``); None otherwise."""
    if not isinstance(statement, cst.SimpleStatementLine):
        return None
    uses = _HelperUses(helper)
    walk(statement, uses)
    if len(uses.calls) != 1 or uses.count != 1 or _self_attr(uses.calls[0].func) != helper \
            or any(a.star for a in uses.calls[0].args):
        return None
    return uses.calls[0]


def _graph_with_reader_reads(statements: list, helpers: dict[str, list[_ReaderRead]], taken: set[str]) -> list:
    """define_graph's statements with each call of a reader helper preceded by its reads, as statements of
    define_graph's own (``jpegs, labels = self.input(name="Reader")``, under names define_graph does not use), and
    given their outputs first: ``images, labels = self.load(jpegs, labels)``. The graph is then migrated as one
    that called the reader itself (pipeline mode built the same graph: where an operator is called in
    define_graph does not change what it computes)."""
    out = []
    for statement in statements:
        helper, call = next(((h, c) for h in helpers if (c := _helper_call(statement, h)) is not None),
                            (None, None))
        if helper is None:
            out.append(statement)
            continue
        passed, reads = [], []
        for read in helpers[helper]:
            names = [free_name(param, taken) for param in read.params]
            taken |= set(names)
            passed += names
            if read.target is None or isinstance(read.target, cst.Name):
                target = cst.Name(names[0])
            else:
                target = cst.Tuple([cst.Element(cst.Name(n)) for n in names], lpar=[], rpar=[])
            reads.append(cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(target)], read.call)]))
        args = [cst.Arg(cst.Name(n)) for n in passed] + list(call.args)
        new = transform(statement, _ReplaceNode(call, _normalise_commas(call.with_changes(args=args))), layout=False)
        if reads:  # (the statement's comments stay above the first of them)
            reads[0] = reads[0].with_changes(leading_lines=statement.leading_lines)
            new = new.with_changes(leading_lines=[])
        out += [*reads, new]
    return out


class _ReplaceNode(cst.CSTTransformer):
    def __init__(self, old, new):
        super().__init__()
        self.old, self.new = old, new

    def on_leave(self, original_node, updated_node):
        return self.new if original_node is self.old else updated_node


def _helper_taking_outputs(method: cst.FunctionDef, readers: set[str]) -> cst.FunctionDef:
    """A reader helper (``_reader_helpers``) as the steps call it: its reads gone, the reader's outputs its first
    parameters after self (``def load(self, jpegs, labels)``; ``return self.input()`` -> ``return input_outputs``)."""
    reads = _helper_reads(method, readers)
    body = list(method.body.body)
    for read in reversed(reads):
        if read.target is None:
            returned = body[read.index].body[0]
            body[read.index] = body[read.index].with_changes(body=[returned.with_changes(value=cst.Name(
                read.params[0]))])
        else:
            statement = body.pop(read.index)
            if read.index < len(body) and statement.leading_lines:
                body[read.index] = body[read.index].with_changes(leading_lines=statement.leading_lines)
    if not body:
        body = [cst.SimpleStatementLine([cst.Pass()])]
    params = method.params
    added = [cst.Param(cst.Name(name)) for read in reads for name in read.params]
    new_params = _normalise_params([params.params[0], *added, *params.params[1:]])
    return method.with_changes(params=params.with_changes(params=new_params),
                               body=method.body.with_changes(body=body))


def _normalise_params(params: list) -> list:
    fixed = []
    for i, p in enumerate(params):
        if i < len(params) - 1 and not isinstance(p.comma, cst.Comma):
            p = p.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        fixed.append(p)
    return fixed
