"""Which bindings of a name a read can see: the flow model's order within one function or module.

The flow model (``dataflow``) joins every binding of a name in a scope. That is wrong in the most common
shape of real code, a name rebound to a converted value::

    images, labels = pipe.run()                    # binding 0: a TensorList
    images = images.as_cpu().as_array()            # binding 1: a numpy array (reads binding 0)
    plt.imshow(images[0])                          # reads binding 1 only

``Reaching.bindings(read)`` answers the binding indices that can reach a read, by walking back over the
statements before it: an assignment in straight-line code hides the earlier ones; an ``if`` joins its
branches (and what came before, without ``else``); a loop joins what its body ends with and what came
before it (it may not run). Anything it does not model exactly (a read at the top of a loop body, which
the previous iteration's bindings reach; ``try``; ``break``/``continue``; one-line suites; ``global``)
answers None: every binding, as before.
"""
from __future__ import annotations

import libcst as cst

# ``store`` (``x[i] = v``) and ``append`` (``x.append(v)``) change the object a name holds, not the
# name: a container's content is everything put into it, before or after a read, so a name that is
# ever mutated keeps the join of all its bindings.
_MUTATIONS = ("store", "append")
_LOOPS = (cst.For, cst.While)


class Reaching:
    """Built from the collector's record: each binding's enclosing statements, each read's statement."""

    def __init__(self, binding_chain: dict, read_statement: dict, unordered: set):
        self._chain = binding_chain  # (scope id, name, index) -> statements enclosing it, outermost first
        self._read_statement = read_statement  # Name -> innermost statement around it
        self._unordered = unordered  # (scope id, name): bound from another scope (global, nonlocal)
        self._parents: dict[int, tuple] = {}  # id(statement) -> (owner node, block, index)
        self._cache: dict = {}

    def bindings(self, name: cst.Name, owner, read_scope) -> frozenset | None:
        """The indices of ``owner``'s bindings of ``name`` that can reach this read, or None (all)."""
        if owner is not read_scope or owner.kind not in ("function", "module"):
            return None
        key = (id(owner), name.value)
        if key in self._unordered:
            return None
        statement = self._read_statement.get(name)
        if statement is None:
            return None
        cache_key = (id(owner), name.value, id(statement))
        if cache_key not in self._cache:
            self._cache[cache_key] = self._reaching(owner, name.value, statement)
        return self._cache[cache_key]

    # -- the walk back -------------------------------------------------------------------------------
    def _reaching(self, scope, name: str, statement) -> frozenset | None:
        count = len(scope.bindings.get(name, ()))
        if count < 2:
            return None  # nothing to choose between
        if any(source[0] in _MUTATIONS for source in scope.bindings[name]):
            return None  # what is put into the object shows through every binding that holds it
        self._by_statement = self._index(scope, name, count)
        if self._by_statement is None:
            return None
        if isinstance(statement, cst.While) or _has_suite(statement):
            return None  # a while test runs every iteration; a one-line suite hides which part reads
        if isinstance(statement, cst.SimpleStatementLine) and len(self._own(statement)) > 0 \
                and len(statement.body) > 1:
            return None  # `a = x; x = 1` on one line: the order inside it is not recorded
        found = self._before(scope, statement)
        if found is None or not found:
            return None
        return frozenset(found)

    def _index(self, scope, name: str, count: int) -> dict | None:
        """id(statement) -> [(index, innermost?)] for each binding of ``name`` in ``scope`` (None: one
        binding's place was not recorded)."""
        found: dict[int, list] = {}
        self._at_start = []
        for index in range(count):
            chain = self._chain.get((id(scope), name, index))
            if chain is None:
                return None
            if not chain:
                self._at_start.append(index)  # a parameter: bound when the function starts
            for depth, statement in enumerate(chain):
                found.setdefault(id(statement), []).append((index, depth == len(chain) - 1))
        return found

    def _own(self, statement) -> list:
        return [index for index, innermost in self._by_statement.get(id(statement), ()) if innermost]

    def _before(self, scope, statement):
        """The bindings that reach the start of ``statement`` (a set; None: every binding)."""
        acc: set = set()
        node = statement
        while True:
            owner, block, index = self._parent(scope, node)
            if owner is None:
                return None
            for previous in reversed(block[:index]):
                result = self._after(previous)
                if result is None:
                    return None
                found, falls_through = result
                acc |= found
                if not falls_through:
                    return acc
            if owner is scope.node:
                return acc | set(self._at_start) if scope.kind == "function" else acc
            if isinstance(owner, cst.For) and block is owner.body.body and self._own(owner):
                return acc | {max(self._own(owner))}  # the loop's target: bound again before each iteration
            if isinstance(owner, _LOOPS) and id(owner) in self._by_statement:
                return None  # the loop's earlier iterations rebind the name
            if isinstance(owner, (cst.Try, cst.TryStar)) and block is not owner.body.body \
                    or isinstance(owner, cst.Match):
                return None  # a handler or a match case: entered from anywhere in the try
            node = owner

    def _after(self, statement):
        """(bindings that may be the latest after ``statement``, whether earlier ones may still be)."""
        entries = self._by_statement.get(id(statement))
        if not entries:
            return set(), True
        if isinstance(statement, cst.SimpleStatementLine):
            return {max(index for index, _ in entries)}, False  # the last one it makes
        if _has_suite(statement) or isinstance(statement, (cst.Try, cst.TryStar, cst.Match)):
            return None
        own = self._own(statement)  # a def's or class's name, a for target, a with's `as` name
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            return ({max(own)}, False) if own else (set(), True)
        if isinstance(statement, cst.If):
            if own:
                return None  # a walrus in the test
            acc, falls_through = set(), False
            branch = statement
            while True:
                result = self._block_end(branch.body.body)
                if result is None:
                    return None
                acc |= result[0]
                falls_through |= result[1]
                orelse = branch.orelse
                if orelse is None:
                    return acc, True
                if isinstance(orelse, cst.If):
                    branch = orelse
                    continue
                result = self._block_end(orelse.body.body)
                if result is None:
                    return None
                return acc | result[0], falls_through or result[1]
        if isinstance(statement, _LOOPS):
            if statement.orelse is not None or _jumps(statement.body):
                return None
            result = self._block_end(statement.body.body)
            if result is None:
                return None
            acc = set(result[0])
            if result[1]:
                acc |= set(own)  # the for target, when the body does not rebind the name
            return acc, True  # the loop may not run at all
        if isinstance(statement, cst.With):
            # A context manager may swallow an exception (contextlib.suppress): what came before can remain.
            result = self._block_end(statement.body.body)
            return None if result is None else (result[0] | set(own), True)
        return None

    def _block_end(self, block):
        acc: set = set()
        for statement in reversed(block):
            result = self._after(statement)
            if result is None:
                return None
            acc |= result[0]
            if not result[1]:
                return acc, False
        return acc, True

    def _parent(self, scope, statement):
        """(the compound statement or scope node whose block holds ``statement``, that block, the index)."""
        found = self._parents.get(id(statement))
        if found is None:
            self._map_blocks(scope.node)
            found = self._parents.get(id(statement), (None, None, None))
        return found

    def _map_blocks(self, owner) -> None:
        for block in _blocks(owner):
            for index, statement in enumerate(block):
                if id(statement) in self._parents:
                    return  # mapped already (a second call for the same scope)
                self._parents[id(statement)] = (owner, block, index)
                if isinstance(statement, cst.BaseCompoundStatement) and not isinstance(
                        statement, (cst.FunctionDef, cst.ClassDef)):
                    self._map_blocks(statement)
            for statement in block:
                if isinstance(statement, cst.If):
                    self._map_elifs(statement)

    def _map_elifs(self, statement: cst.If) -> None:
        """An ``elif`` is an If inside the first one's ``orelse``: its blocks climb to the outer If."""
        orelse = statement.orelse
        while isinstance(orelse, cst.If):
            for index, inner in enumerate(orelse.body.body if isinstance(orelse.body, cst.IndentedBlock) else ()):
                self._parents[id(inner)] = (statement, orelse.body.body, index)
                if isinstance(inner, cst.BaseCompoundStatement) and not isinstance(
                        inner, (cst.FunctionDef, cst.ClassDef)):
                    self._map_blocks(inner)
            final = orelse.orelse
            if isinstance(final, cst.Else) and isinstance(final.body, cst.IndentedBlock):
                for index, inner in enumerate(final.body.body):
                    self._parents[id(inner)] = (statement, final.body.body, index)
                    if isinstance(inner, cst.BaseCompoundStatement) and not isinstance(
                            inner, (cst.FunctionDef, cst.ClassDef)):
                        self._map_blocks(inner)
            orelse = final


def _blocks(owner) -> list:
    """The statement sequences directly inside ``owner`` (a module, def, or compound statement)."""
    if isinstance(owner, cst.Module):
        return [owner.body]
    found = []
    body = getattr(owner, "body", None)
    if isinstance(body, cst.IndentedBlock):
        found.append(body.body)
    if isinstance(owner, cst.If):
        orelse = owner.orelse
        if isinstance(orelse, cst.Else) and isinstance(orelse.body, cst.IndentedBlock):
            found.append(orelse.body.body)
        return found  # an elif's blocks: ``_map_elifs``
    orelse = getattr(owner, "orelse", None)
    if isinstance(orelse, cst.Else) and isinstance(orelse.body, cst.IndentedBlock):
        found.append(orelse.body.body)
    for handler in getattr(owner, "handlers", ()):
        if isinstance(handler.body, cst.IndentedBlock):
            found.append(handler.body.body)
    final = getattr(owner, "finalbody", None)
    if final is not None and isinstance(final.body, cst.IndentedBlock):
        found.append(final.body.body)
    for case in getattr(owner, "cases", ()):
        if isinstance(case.body, cst.IndentedBlock):
            found.append(case.body.body)
    return found


def _has_suite(statement) -> bool:
    """A compound statement with a one-line body (``if x: y = 1``), where reads and bindings share it."""
    if not isinstance(statement, cst.BaseCompoundStatement):
        return False
    parts = [statement]
    while parts:
        part = parts.pop()
        if isinstance(getattr(part, "body", None), cst.SimpleStatementSuite):
            return True
        orelse = getattr(part, "orelse", None)
        if orelse is not None:
            parts.append(orelse)
        parts.extend(getattr(part, "handlers", ()))
        final = getattr(part, "finalbody", None)
        if final is not None:
            parts.append(final)
    return False


class _Jumps(cst.CSTVisitor):
    def __init__(self):
        super().__init__()
        self.found = False

    def visit_Break(self, node):
        self.found = True

    def visit_Continue(self, node):
        self.found = True

    def visit_FunctionDef(self, node):
        return False

    def visit_ClassDef(self, node):
        return False


def _jumps(body) -> bool:
    """``break`` or ``continue`` anywhere in a loop's body (an inner loop's too: kept simple)."""
    from .walk import walk

    visitor = _Jumps()
    walk(body, visitor)
    return visitor.found
