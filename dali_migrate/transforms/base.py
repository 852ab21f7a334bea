"""What every pass builds on.

* ``Pass``: one job over the whole module; ``applies`` is a cheap gate so that passes with nothing
  to do cost nothing.
* ``MigrationTransformer``: a libcst transformer that (1) carries each node's original position
  to its rewritten node, so findings point at lines in the user's file whichever pass reports
  them, and (2) attaches ``# dali-migrate: DMnnn`` markers to the enclosing statement, once.
"""

from __future__ import annotations

from bisect import bisect_left

import libcst as cst

from ..context import MigrationContext
from ..elision import cold_by_fixpoint
from ..findings import MARKER_PREFIX, marker_text
from ..source import STATEMENTS, WORD
from ..walk import child_order, has_attribute_hooks, hooks_for, rebuild_children, same_children, transform
from ..walk import walk  # noqa: F401  (re-exported: passes walk read-only visitors with it)


class Pass:
    """One migration pass. Subclasses set ``name`` and ``transformer`` or override ``run``."""

    name = ""
    transformer: type["MigrationTransformer"] | None = None

    def applies(self, ctx: MigrationContext) -> bool:
        return True

    def run(self, module: cst.Module, ctx: MigrationContext) -> cst.Module:
        assert self.transformer is not None, f"{type(self).__name__} needs a transformer or run()"
        return run_transformer(module, self.transformer(ctx))

    def __repr__(self) -> str:
        return f"<pass {self.name}>"


def run_transformer(module: cst.Module, transformer: "MigrationTransformer",
                    cold: set[cst.CSTNode] | frozenset = frozenset()) -> cst.Module:
    """Run ``transformer`` over ``module``; the top-level statements in ``cold`` are left as they are
    (see ``cold_statements``), as are subtrees outside the transformer's ``relevant_names``."""
    names = transformer.relevant_names()
    transformer._relevant = frozenset(names) if names is not None else None
    kept = transformer.ctx.kept_statements
    if kept:  # statements of units that stay in pipeline mode: no pass enters them (units.py)
        cold = set(cold) | kept if cold else kept
    transformer._cold = cold
    cls = type(transformer)
    if cls.on_visit is MigrationTransformer.on_visit and cls.on_leave is MigrationTransformer.on_leave \
            and not has_attribute_hooks(transformer):
        new_module = _run_inline(module, transformer)
    else:
        new_module = transform(module, transformer, layout=False)
    transformer.ctx.positions.update(transformer.moved_positions)
    return new_module


def _run_inline(module: cst.Module, t: "MigrationTransformer") -> cst.Module:
    """``transform(module, t, layout=False)`` with ``MigrationTransformer.on_visit``/``on_leave``
    written into the walk: the same steps in the same order, without two method calls, a hook lookup
    and a span lookup through the context per node (10-25 % less per pass, measured on the speed
    corpora; tested equal to the generic walk in tests/test_walk.py)."""
    ctx, cls, cold, stack = t.ctx, type(t), t._cold, t._statement_stack
    layout = ctx.layout
    extents = layout.extents if layout is not None else {}
    offsets = layout.offsets if layout is not None else []
    mentions = ctx.mention_offsets(t._relevant) if t._relevant is not None else None
    count = len(mentions) if mentions is not None else 0
    relevant, built_words = t._relevant, ctx.built_words
    skipped_types = {} if cls.skips is not MigrationTransformer.skips else None
    inert = _INERT_TYPES.get(cls)
    if inert is None:
        inert = _INERT_TYPES[cls] = {}

    def visit(node):
        ntype = type(node)
        found = inert.get(ntype)
        if found is None:
            found = inert[ntype] = _inert(cls, ntype)
        if found:
            return node  # (a ``Name``, a ``Dot``...: no hook for it and nothing inside, so nothing to do)
        if cold and node in cold:
            return node
        if skipped_types is not None:
            skip = skipped_types.get(ntype)
            if skip is None:
                skip = skipped_types[ntype] = t.skips(ntype)
            if skip:
                return node
        if mentions is not None:
            extent = extents.get(node)
            if extent is not None:
                index = bisect_left(mentions, offsets[extent[0]])
                if index >= count or mentions[index] >= offsets[extent[1]]:
                    return node  # an unchanged subtree that mentions none of the relevant names
            elif built_words:
                words = built_words.get(node)
                if words is not None and words.isdisjoint(relevant):
                    return node  # a subtree built from a fixed text without the relevant names
        statement = _is_statement(ntype)
        if statement:
            stack.append((node, []))
        visit_hook, leave_hook = hooks_for(cls, ntype)
        if visit_hook is None or visit_hook(t, node) is not False:
            order = child_order(ntype, False)
            if order is None:
                updated = node._visit_and_replace_children(t)
                if same_children(updated, node):
                    updated = node
            else:
                updated = rebuild_children(node, order, visit)
        else:
            updated = node
        result = updated if leave_hook is None else leave_hook(t, node, updated)
        if result is node and not statement:
            return node  # the usual case, without a call
        return t._settle(node, result, statement)

    try:
        return visit(module)
    finally:
        del visit  # the recursive closure refers to itself: a cycle that would keep the tree for the collector


class MigrationTransformer(cst.CSTTransformer):
    def __init__(self, ctx: MigrationContext) -> None:
        super().__init__()
        self.ctx = ctx
        self.moved_positions: dict[cst.CSTNode, tuple[int, int]] = {}
        self._statement_stack: list[tuple[cst.CSTNode, list[str]]] = []
        self._relevant: frozenset[str] | None = None
        self._cold: set[cst.CSTNode] | frozenset = frozenset()
        self._skipped: cst.CSTNode | None = None

    def relevant_names(self) -> set[str] | None:
        """Words without which a subtree cannot concern this transformer (``None``: every subtree can).

        Asked once, just before the walk. A subtree of the parsed module, unchanged so far, whose
        source text holds none of these words (as identifiers, in strings or in comments) is neither
        visited nor rebuilt: the transformer's ``visit_*``/``leave_*`` methods never see its nodes,
        and the node keeps its identity. So the set must hold every name through which the
        transformer could change or report something inside a subtree: the import aliases it
        resolves, the variables whose values it tracks, the method names it looks for."""
        return None

    # -- position tracking and markers ------------------------------------------------------
    def skips(self, node_type: type) -> bool:
        """True for node types whose subtrees can never concern this transformer (not visited)."""
        return False

    def on_visit(self, node: cst.CSTNode) -> bool:
        if node in self._cold or self.skips(type(node)) or \
                (self._relevant is not None and not self.ctx.may_mention(node, self._relevant)):
            self._skipped = node  # libcst calls on_leave(node, node) next, without visiting children
            return False
        if _is_statement(type(node)):
            self._statement_stack.append((node, []))
        visit_hook = hooks_for(type(self), type(node))[0]
        return visit_hook is None or visit_hook(self, node) is not False

    def on_leave(self, original_node, updated_node):
        if original_node is self._skipped:
            self._skipped = None
            return original_node
        leave_hook = hooks_for(type(self), type(original_node))[1]
        result = updated_node if leave_hook is None else leave_hook(self, original_node, updated_node)
        return self._settle(original_node, result, _is_statement(type(original_node)))

    def _settle(self, original_node, result, statement: bool):
        """After the leave hook: a statement's markers attached, an unchanged rebuild swapped back for
        the original, the original's position carried to what replaces it."""
        if statement:
            _, markers = self._statement_stack.pop()
            if markers:
                result = _attach_markers(result, markers)
        if result is original_node:
            return result
        if same_children(result, original_node):
            # Rebuilt although nothing in it changed: keep the original, so that it keeps its span
            # and later passes can skip it.
            return original_node
        position = self.ctx.positions.get(original_node)
        if position is not None:
            first = _first_node(result)
            if first is not None:
                self.moved_positions[first] = position
        return result

    def current_statement(self) -> cst.CSTNode | None:
        return self._statement_stack[-1][0] if self._statement_stack else None

    def report(self, rule_id: str, message: str, node: cst.CSTNode | None = None, *, fixed: bool = True):
        node = node if node is not None else self.current_statement()
        if node not in self.ctx.positions:
            # A node an earlier pass built has no original position: point at the innermost enclosing
            # statement that still has one (better a line near it than line 0).
            node = next((statement for statement, _ in reversed(self._statement_stack)
                         if statement in self.ctx.positions), node)
        return self.ctx.report(rule_id, message, node, fixed=fixed)

    def mark(self, rule_id: str, message: str, node: cst.CSTNode | None = None):
        """Leave the spot for a person: a finding plus a marker comment above the statement."""
        finding = self.report(rule_id, message, node, fixed=False)
        if self._statement_stack:
            self._statement_stack[-1][1].append(marker_text(rule_id, message))
        return finding


# Per transformer class, per node type: whether the inline walk has nothing to do with such a node (no hook for it,
# no child it enters, not a statement); each answer would return the node as it is, so it is returned at once.
_INERT_TYPES: dict[type, dict[type, bool]] = {}


def _inert(cls: type, node_type: type) -> bool:
    return hooks_for(cls, node_type) == (None, None) and child_order(node_type, False) == () \
        and not _is_statement(node_type)


_STATEMENT_TYPES: dict[type, bool] = {}


def _is_statement(node_type: type) -> bool:
    found = _STATEMENT_TYPES.get(node_type)
    if found is None:
        found = _STATEMENT_TYPES[node_type] = issubclass(node_type, STATEMENTS)
    return found


def per_model(ctx, what: str, module: cst.Module, compute):
    """``compute()``, an analysis of ``module`` and the import table alone whose answer nobody changes, done once for
    every run of the passes that shares the flow model (``engine._migrate_units`` runs them again, from the same
    module, for each unit it keeps in pipeline mode): asked again of the same module with the same imports, the
    first answer is given."""
    flow = ctx.facts.get("flow")
    if flow is None:
        return compute()
    imports = (tuple(ctx.imports.aliases.items()), frozenset(ctx.imports.plain_imports))
    known = flow.derived.get(what)
    if known is not None and known[0] is module and known[1] == imports:
        return known[2]
    found = compute()
    flow.derived[what] = (module, imports, found)
    return found


def cold_statements(module: cst.Module, ctx: MigrationContext, words: set[str], hot_together=()) -> set[cst.CSTNode]:
    """Top-level statements that cannot concern a pass which follows DALI through names.

    Hot, to start with: every top-level statement whose text mentions a DALI import alias or one of
    ``words``. Then, to a fixpoint: every statement that mentions a name a hot statement binds at
    module level (``p = my_pipe()`` makes ``def main(): p.run()`` hot, wherever it is; ``def
    my_pipe`` makes its callers hot). The rest is cold. Mentions are words in the statement's text
    (strings and comments too), bindings a superset (assignment, loop, ``with``/``except`` targets,
    imports, ``def``/``class`` names, at any depth outside functions and classes; every word of a statement with
    ``global``, ``:=`` or ``match``). Statements a pass built, or changed, are never cold. ``hot_together``: sets of
    words that make a statement hot when it mentions all of one."""
    hot_words = set(ctx.imports.dali_locals()) | set(words)
    project = ctx.facts.get("project")
    if project:
        # Local names bound to pipelines that other files of the project define (cross-module).
        hot_words |= {local for local, q in ctx.imports.aliases.items() if q in project.pipelines}
    body, words_of = [], {}
    for statement in module.body:
        span = ctx.span(statement)
        if span is None:  # built or changed by an earlier pass: hot, and every name in it counts
            hot_words |= names_in(statement)
            continue
        body.append(statement)
        found = set(WORD.findall(ctx.source, span[0], span[1]))
        if ":=" in ctx.source[span[0]:span[1]]:
            found.add("global")  # a walrus may bind a module name from anywhere: count every word
        words_of[statement] = found
    return set(cold_by_fixpoint(body, words_of.__getitem__,
                                lambda statement: _bound_names(statement, words_of[statement]), hot_words,
                                hot_together))




class _Bindings(cst.CSTVisitor):
    """Names a top-level statement binds at module level (a superset)."""

    def __init__(self):
        super().__init__()
        self.names: set[str] = set()

    def _targets(self, node):
        self.names |= names_in(node)

    def visit_FunctionDef(self, node):
        self.names.add(node.name.value)
        return False

    def visit_ClassDef(self, node):
        self.names.add(node.name.value)
        return False  # names bound in a class body are class attributes

    def visit_Assign(self, node):
        for target in node.targets:
            self._targets(target.target)
        return False

    def visit_AnnAssign(self, node):
        self._targets(node.target)
        return False

    def visit_AugAssign(self, node):
        self._targets(node.target)
        return False

    def visit_For(self, node):
        self._targets(node.target)

    def visit_AsName(self, node):  # with ... as x, except E as x, import a as x
        self._targets(node.name)

    def visit_ImportAlias(self, node):
        self._targets(node.name if node.asname is None else node.asname.name)

    def visit_Call(self, node):
        return False

    def visit_Lambda(self, node):
        return False


def names_in(node: cst.CSTNode, keep=None) -> set[str]:
    """Every ``Name`` in ``node``'s subtree (references, targets, parameters alike); with ``keep``, in the subtrees
    it keeps (``walk``)."""
    collector = _NameCollector()
    walk(node, collector, keep)
    return collector.names


def name_nodes_in(node: cst.CSTNode) -> list[cst.Name]:
    """The ``Name`` nodes of ``names_in``."""
    collector = _NameCollector()
    walk(node, collector)
    return collector.nodes


class _NameCollector(cst.CSTVisitor):
    def __init__(self):
        super().__init__()
        self.names: set[str] = set()
        self.nodes: list[cst.Name] = []

    def visit_Name(self, node):
        self.names.add(node.value)
        self.nodes.append(node)


def _bound_names(statement: cst.CSTNode, words: set[str]) -> set[str]:
    if words & {"global", "nonlocal", "match"} or isinstance(statement, cst.Match):
        return words
    bindings = _Bindings()
    walk(statement, bindings)
    return bindings.names


def _first_node(result):
    if isinstance(result, cst.FlattenSentinel):
        return result.nodes[0] if result.nodes else None
    if isinstance(result, cst.CSTNode):
        return result
    return None


def has_marker(statement: cst.CSTNode, rule_id: str) -> bool:
    prefix = f"{MARKER_PREFIX} {rule_id} "
    for line in getattr(statement, "leading_lines", ()):
        if line.comment is not None and line.comment.value.startswith(prefix):
            return True
    return False


def _attach_markers(result, markers: list[str]):
    if isinstance(result, cst.FlattenSentinel):
        if not result.nodes:
            return result
        first = _attach_markers(result.nodes[0], markers)
        return cst.FlattenSentinel([first, *result.nodes[1:]])
    if not isinstance(result, STATEMENTS):
        return result
    existing = {line.comment.value.split(" ")[2] for line in result.leading_lines
                if line.comment is not None and line.comment.value.startswith(MARKER_PREFIX)
                and len(line.comment.value.split(" ")) > 2}
    new_lines = []
    for text in dict.fromkeys(markers):  # keep order, drop repeats
        rule_id = text.split(" ")[2]
        if rule_id in existing:
            continue  # idempotent: a second run does not stack markers
        existing.add(rule_id)
        new_lines.append(cst.EmptyLine(comment=cst.Comment(text)))
    if not new_lines:
        return result
    return result.with_changes(leading_lines=[*result.leading_lines, *new_lines])
