"""Guarded DALI imports: a module that imports DALI only inside ``try:``/``if <flag>:`` (and binds placeholders
when DALI is missing) keeps importing without DALI after migration.

Before::

    try:
        from nvidia.dali import fn, pipeline_def
        from nvidia.dali.plugin.pytorch import DALIGenericIterator
    except ImportError:
        fn = pipeline_def = DALIGenericIterator = None

After (``fn``, ``pipeline_def`` and the iterator were migrated away; the imports pass then drops their
now unused imports, and puts the ndd import where the DALI imports were)::

    try:
        import nvidia.dali.experimental.dynamic as ndd
    except ImportError:
        ndd = None

The placeholders of names the migrated code no longer reads go; those it still reads stay (and whatever is
still pipeline-mode API among them is marked by the leftovers pass, as anywhere else). ``ndd = None`` is added
only where the fallback bound placeholders for DALI names, as the author did for the others.
"""

from __future__ import annotations

import libcst as cst

from ..findings import rule
from .base import Pass
from .import_guards import find_guard
from .imports import NDD_IMPORT, _References
from .leftovers import policies_become_strings
from .unroll.epoch_iterator import policy_member
from ..source import parse_statement
from ..walk import walk

GUARDED_IMPORTS = rule(
    "DM108", "guarded-imports", "info",
    "A module that imports DALI only inside try/except ImportError (or if/else) keeps that shape: the ndd import "
    "goes where the DALI imports were, and the placeholders bound when DALI is missing follow the names the "
    "migrated code still reads.",
    "The original module imported without DALI installed (tests, CPU-only tools, optional features); an ndd "
    "import at the top would make the migrated module fail to import there. Placeholders of names nothing reads "
    "any more would keep pipeline-mode names alive for nothing.",
    before="try:\n    from nvidia.dali import fn, pipeline_def\nexcept ImportError:\n    fn = pipeline_def = None",
    after="try:\n    import nvidia.dali.experimental.dynamic as ndd\nexcept ImportError:\n    ndd = None",
)

def _placeholder_targets(statement, bound: set[str]):
    """``a = b = None`` / ``a, b = None, ABC`` binding only names the guard imports from DALI: [(name, value or
    None)], else None."""
    if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1
            and isinstance(statement.body[0], cst.Assign)):
        return None
    assign = statement.body[0]
    if len(assign.targets) == 1 and isinstance(assign.targets[0].target, cst.Tuple) \
            and isinstance(assign.value, cst.Tuple) \
            and len(assign.targets[0].target.elements) == len(assign.value.elements):
        pairs = [(e.value, v.value) for e, v in zip(assign.targets[0].target.elements, assign.value.elements)]
    else:
        pairs = [(t.target, None) for t in assign.targets]
    if not all(isinstance(t, cst.Name) and t.value in bound for t, _ in pairs):
        return None
    return [(t.value, v) for t, v in pairs]


def _without(statement, keep: list[str]):
    """The placeholder statement binding only ``keep`` (None when nothing is left)."""
    if not keep:
        return None
    assign = statement.body[0]
    if len(assign.targets) == 1 and isinstance(assign.targets[0].target, cst.Tuple) \
            and isinstance(assign.value, cst.Tuple):
        pairs = [(e, v) for e, v in zip(assign.targets[0].target.elements, assign.value.elements)
                 if e.value.value in keep]
        if len(pairs) == 1:
            new = assign.with_changes(targets=[cst.AssignTarget(pairs[0][0].value)], value=pairs[0][1].value)
        else:
            last = len(pairs) - 1
            targets = [e.with_changes(comma=cst.MaybeSentinel.DEFAULT) if i == last else e
                       for i, (e, _) in enumerate(pairs)]
            values = [v.with_changes(comma=cst.MaybeSentinel.DEFAULT) if i == last else v
                      for i, (_, v) in enumerate(pairs)]
            new = assign.with_changes(targets=[assign.targets[0].with_changes(
                target=assign.targets[0].target.with_changes(elements=targets))],
                value=assign.value.with_changes(elements=values))
    else:
        new = assign.with_changes(targets=[t for t in assign.targets if t.target.value in keep])
    return statement.with_changes(body=[new])


class _ReferencesOutside(_References):
    """Root names referenced anywhere except the placeholder statements, and except LastBatchPolicy members
    where the leftovers pass turns them into strings (``imports`` given)."""

    def __init__(self, skipped, imports=None):
        super().__init__()
        self.skipped, self.imports = skipped, imports

    def visit_SimpleStatementLine(self, node):
        return node not in self.skipped

    def visit_Attribute(self, node):
        if self.imports is not None and policy_member(self.imports, node) is not None:
            return False
        return super().visit_Attribute(node)


class GuardsPass(Pass):
    name = "guards"

    def applies(self, ctx):
        return bool(ctx.facts.get("uses_ndd") or ctx.facts.get("migrated"))

    def run(self, module, ctx):
        guard = find_guard(module)
        if guard is None or guard.fallback is None:
            return module
        placeholders = {s: _placeholder_targets(s, guard.bound) for s in guard.fallback.body}
        placeholders = {s: found for s, found in placeholders.items() if found}
        strings = policies_become_strings(module, ctx.imports, frozenset(placeholders), ctx.facts.get("flow"),
                                          text=ctx.source)
        references = _ReferencesOutside(set(placeholders), ctx.imports if strings else None)
        walk(module, references)  # read-only: no rebuild
        if "ndd" not in references.names:
            return module  # nothing was migrated to dynamic mode here
        fallback = []
        for statement in guard.fallback.body:
            found = placeholders.get(statement)
            if found is None:
                fallback.append(statement)
                continue
            keep = [name for name, _ in found if name in references.names]
            dropped = [name for name, _ in found if name not in references.names]
            if dropped:
                ctx.report(GUARDED_IMPORTS.id, f"placeholder for {', '.join(dropped)} dropped: the migrated code no "
                           f"longer reads {'it' if len(dropped) == 1 else 'them'}", statement)
            new = _without(statement, keep)
            if new is not None:
                fallback.append(new)
        if placeholders and "ndd" not in guard.bound:
            fallback.append(parse_statement("ndd = None\n"))
        body = guard.body
        if "ndd" not in guard.bound:
            at = guard.last_dali_import() + 1
            body.insert(at, parse_statement(NDD_IMPORT + "\n"))
            ctx.report(GUARDED_IMPORTS.id, f"`{NDD_IMPORT}` added where the module imports DALI (guarded: it "
                       f"still imports without DALI)", guard.node)
        node = guard.node.with_changes(body=guard.node.body.with_changes(body=body))
        if fallback != list(guard.fallback.body):
            new_fallback = guard.fallback.with_changes(body=fallback or [cst.SimpleStatementLine([cst.Pass()])])
            if isinstance(node, cst.Try):
                node = node.with_changes(handlers=[h.with_changes(body=new_fallback) if h.body is guard.fallback
                                                   else h for h in node.handlers])
            else:
                node = node.with_changes(orelse=node.orelse.with_changes(body=new_fallback))
        statements = list(module.body)
        statements[guard.index] = node
        return module.with_changes(body=statements)


__all__ = ["GuardsPass", "GUARDED_IMPORTS"]
