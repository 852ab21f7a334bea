"""Leftovers: the marker contract's safety net. Pipeline-mode API that no earlier pass migrated or
marked gets a marker, so a file without a marker really is fully migrated.

Before (a shape no pass knows, e.g. ops objects made from a comprehension's variable, which a callable of the ndd
operator would read at each call, not when the object was made)::

    class Turns:
        def __init__(self, angles):
            self.turns = [ops.Rotate(angle=a) for a in angles]

After::

    class Turns:
        def __init__(self, angles):
            # dali-migrate: DM105 ops.Rotate is pipeline-mode API that was not migrated here: ...
            self.turns = [ops.Rotate(angle=a) for a in angles]

References inside a statement that already carries another rule's marker (a pipeline kept in
pipeline mode, a python_function, ...) are that marker's business and are left alone.
"""

from __future__ import annotations

import libcst as cst

from ..findings import MARKER_PREFIX, rule
from ..names import dotted
from .base import MigrationTransformer, Pass, walk
from .unroll import epoch_iterator, frameworks

PIPELINE_MODE_LEFT = rule(
    "DM105", "pipeline-mode-left", "warning",
    "Pipeline-mode API (fn, ops, Pipeline, pipeline_def, the framework plugins) that no pass migrated or "
    "marked is marked here.",
    "Pipeline-mode objects do not run inside dynamic-mode code; the tool found a shape it does not "
    "migrate, so a person must, and the file must not look finished.",
    before="self.turns = [ops.Rotate(angle=a) for a in angles]",
    after="# dali-migrate: DM105 ops.Rotate is pipeline-mode API that was not migrated here: ...\n"
          "self.turns = [ops.Rotate(angle=a) for a in angles]",
    fix="manual",
    suggestion="Rewrite this part with ndd calls (ndd.random.coin_flip(batch_size=...) etc.), or move it into "
               "a shape dali-migrate migrates (an ops object whose arguments do not change after it is made).",
)

PIPELINE_ANNOTATION = rule(
    "DM106", "pipeline-annotation-dropped", "info",
    "A return annotation naming the Pipeline class is dropped where the function now returns a migrated "
    "pipeline (its body holds no pipeline-mode API).",
    "The factory returns what the migration made of its pipeline (a generator, or an object with "
    "epoch_size()), not a Pipeline; an annotation is not run, so dropping it changes nothing the program "
    "computes. Where the body still builds a pipeline-mode Pipeline, the annotation stays (marked DM105).",
    before="def create_pipeline(root) -> dali.Pipeline:\n    pipe = dali.Pipeline(batch_size=4)\n    ...",
    after="def create_pipeline(root):\n    def pipe_steps(*, batch_size=4):\n        ...",
)

POLICY_STRING = rule(
    "DM107", "last-batch-policy-string", "info",
    "LastBatchPolicy.FILL/DROP/PARTIAL become the strings \"FILL\"/\"DROP\"/\"PARTIAL\" in a module whose DALI "
    "iterators were all migrated (and that has one).",
    "The migrated iterator (EpochIterator) takes the policy's name as a string; the enum lives in the "
    "pipeline-mode plugin, which the module no longer needs. Every member in the module is rewritten, so "
    "comparisons between them keep their results.",
    before="policy = LastBatchPolicy.DROP if drop_last else LastBatchPolicy.PARTIAL",
    after="policy = \"DROP\" if drop_last else \"PARTIAL\"",
)

PIPELINE_MODE = ("nvidia.dali.fn", "nvidia.dali.ops", "nvidia.dali.Pipeline", "nvidia.dali.pipeline_def",
                 "nvidia.dali.pipeline", "nvidia.dali.plugin", "nvidia.dali.types.Constant")


def is_pipeline_mode(qualname: str) -> bool:
    return any(qualname == p or qualname.startswith(p + ".") for p in PIPELINE_MODE)


def _marker_rules(statement) -> set[str]:
    found = set()
    for line in getattr(statement, "leading_lines", ()):
        text = line.comment.value if line.comment is not None else ""
        if text.startswith(MARKER_PREFIX) and len(text.split()) > 2:
            found.add(text.split()[2])
    return found


def _may_reach_pipeline_mode(qualname: str) -> bool:
    """The alias is pipeline-mode API, or a module a pipeline-mode name hangs from (``nvidia``, ``types``)."""
    return is_pipeline_mode(qualname) or any(p.startswith(qualname + ".") for p in PIPELINE_MODE)


PIPELINE_CLASSES = ("nvidia.dali.Pipeline", "nvidia.dali.pipeline.Pipeline")


class _PipelineModeUse(cst.CSTVisitor):
    def __init__(self, imports):
        self.imports, self.found, self.members = imports, False, set()

    def visit_Attribute(self, node):
        self.members.add(node.attr)
        return self._check(node)

    def visit_Name(self, node):
        return node not in self.members and self._check(node)

    def _check(self, node) -> bool:
        qualname = self.imports.qualname(node)
        if qualname is not None and is_pipeline_mode(qualname):
            self.found = True
        return qualname is None and not self.found


# the classes the unroll writes for plugin iterators: a module without one exports its members to others
MIGRATED_ITERATORS = (epoch_iterator.CLASS_NAME, frameworks.JAX_NAME)


class _PluginUses(cst.CSTVisitor):
    """Whether a module refers to LastBatchPolicy members, and to anything else of the plugins (imports, and the
    statements in ``skipped``, aside)."""

    def __init__(self, imports, skipped=frozenset()):
        self.imports, self.policies, self.others, self.migrated_iterators = imports, False, False, False
        self.skipped, self.members = skipped, set()

    def visit_SimpleStatementLine(self, node):
        return node not in self.skipped

    def visit_Import(self, node):
        return False

    def visit_ImportFrom(self, node):
        return False

    def visit_Attribute(self, node):
        self.members.add(node.attr)
        if epoch_iterator.policy_member(self.imports, node) is not None:
            self.policies = True
            return False
        return self._other(node)

    def visit_Name(self, node):
        if node in self.members:
            return False  # the member of `x.name`, not a reference to `name`
        if node.value in MIGRATED_ITERATORS:
            self.migrated_iterators = True
        return self._other(node)

    def _other(self, node) -> bool:
        qualname = self.imports.qualname(node)
        if qualname is not None and qualname.startswith("nvidia.dali.plugin"):
            self.others = True
        return qualname is None


def policies_become_strings(module: cst.Module, imports, skipped=frozenset(), flow=None,
                            text: str | None = None) -> bool:
    """LastBatchPolicy members become strings where nothing else of the plugins is left in the module (its
    iterators were migrated, or it hands them to another module's iterator wrapper, whose EpochIterator reads
    them: DM241): only the migrated iterator reads them then. ``skipped``: statements that do not count (the
    guards pass asks before it drops placeholders); ``text``: the source ``module`` was parsed from."""
    if text is not None and "LastBatchPolicy" not in text \
            and not any("LastBatchPolicy" in qualname for qualname in imports.aliases.values()):
        # A member is LastBatchPolicy.X by its qualified name: an import of it, or the word in the code (no pass
        # writes it), so a module whose text has neither has none.
        return False
    uses = _PluginUses(imports, skipped)
    walk(module, uses)  # flags only: the walk's order of children does not matter
    if not uses.policies or uses.others:
        return False
    return uses.migrated_iterators or (flow is not None and any(flow.wrapper_inputs(call) for call, _ in flow.calls))


def _assigns(statement, call: cst.Call) -> bool:
    """``statement`` is the one-line assignment of ``call``'s value."""
    return isinstance(statement, cst.SimpleStatementLine) and any(
        isinstance(part, cst.Assign) and part.value is call for part in statement.body)


class _Leftovers(MigrationTransformer):
    _pipeline_returns: dict[cst.FunctionDef, bool] = {}  # def -> its body holds no pipeline-mode API
    _kept_made: set = frozenset()  # the callees of the Pipeline(...) calls of pipelines the unroll pass kept
    _not_references: set = frozenset()  # the `name` of each `x.name`, and each parameter's name

    def visit_FunctionDef(self, node):
        """``-> Pipeline`` on a function: dropped where the function's pipeline was migrated (nothing in its
        body is pipeline-mode API any more); where it still builds one, marked as any leftover is."""
        returns = node.returns.annotation if node.returns is not None else None
        if returns is not None and self.ctx.imports.qualname(returns) in PIPELINE_CLASSES:
            use = _PipelineModeUse(self.ctx.imports)
            walk(node.body, use)
            self._pipeline_returns = {**self._pipeline_returns, node: not use.found}
        return True

    _policies_to_strings = False

    def visit_Module(self, node):
        self._not_references = set()
        flow = self.ctx.facts.get("flow")
        self._policies_to_strings = policies_become_strings(node, self.ctx.imports, flow=flow, text=self.ctx.source)
        # `pipe = Pipeline(...)` of a pipeline the unroll pass kept, with a marker that says why (at its `with` block):
        # its unit stays in pipeline mode as it was, so the Pipeline is not a leftover of its own, and a marker here
        # would only say less than that one. Only where the flow model ties that block to this Pipeline (the marker
        # there keeps its unit) and only the statement that is the unit's definition: the engine marks that one
        # (DM230), so it still sits under a marker (another Pipeline(...) of the same origin does not)
        kept = self.ctx.facts.get("keep_pipeline_mode") or set()
        units = self.ctx.facts.get("units")
        definitions = units.definitions if units is not None else {}
        filled = set(flow.with_origin.values()) if flow is not None else set()
        self._kept_made = {call.func for call, origin in (flow.pipeline_calls.items() if flow is not None else ())
                           if origin.rpartition(":")[2] in kept and origin in filled
                           and _assigns(definitions.get(origin), call)}
        return True

    def leave_Attribute(self, original_node, updated_node):
        member = epoch_iterator.policy_member(self.ctx.imports, original_node) if self._policies_to_strings else None
        if member is None:
            return updated_node
        self.report(POLICY_STRING.id, f'{dotted(original_node)} -> "{member}" (the migrated iterator takes the '
                    f"policy's name)", original_node)
        return cst.SimpleString(f'"{member}"')

    def visit_Annotation(self, node):
        return not any(f.returns is node and dropped for f, dropped in self._pipeline_returns.items())

    def leave_FunctionDef(self, original_node, updated_node):
        if self._pipeline_returns.get(original_node):
            self.report(PIPELINE_ANNOTATION.id, f"-> {dotted(original_node.returns.annotation)} dropped from "
                        f"{original_node.name.value}(): it returns the migrated pipeline now", original_node)
            return updated_node.with_changes(returns=None)
        return updated_node

    def relevant_names(self):
        # Not `ndd`: migrated code says it everywhere, and it is never pipeline-mode API.
        return {local for local, q in self.ctx.imports.aliases.items() if _may_reach_pipeline_mode(q)}

    def visit_Import(self, node):
        return False

    def visit_ImportFrom(self, node):
        return False

    def visit_Attribute(self, node):
        self._not_references.add(node.attr)
        root = node.value
        while isinstance(root, cst.Attribute):
            root = root.value
        if isinstance(root, cst.Name) and self._reads_a_parameter(root):
            return True  # `fn._schema_name` of a parameter `fn`
        return self._check(node)

    def visit_Param(self, node):
        self._not_references.add(node.name)
        return True

    def visit_Name(self, node):
        # the member of `self.ops` or `aug.fn` is not a reference to the module imported as `ops` or `fn`, nor is
        # a parameter of a function that happens to share its name (`def __init__(self, dali_proxy)`)
        return node not in self._not_references and not self._reads_a_parameter(node) and self._check(node)

    def _reads_a_parameter(self, node: cst.Name) -> bool:
        flow = self.ctx.facts.get("flow")
        return flow is not None and flow.reads_a_parameter(node)

    def _covered(self) -> bool:
        """Inside a statement that another rule's marker already hands to a person."""
        return any(_marker_rules(statement) - {PIPELINE_MODE_LEFT.id} for statement, _ in self._statement_stack)

    def _check(self, node) -> bool:
        if self._policies_to_strings and epoch_iterator.policy_member(self.ctx.imports, node) is not None:
            return False  # becomes a string (leave_Attribute)
        qualname = self.ctx.imports.qualname(node)
        if qualname is None:
            return True
        if is_pipeline_mode(qualname) and not self._covered() and node not in self._kept_made:
            self.mark(PIPELINE_MODE_LEFT.id, f"{dotted(node)} is pipeline-mode API that was not migrated "
                      f"here: rewrite it with dynamic-mode (ndd) code", node)
        return False  # a resolved dotted name: its parts are not references of their own


class LeftoversPass(Pass):
    name = "leftovers"
    transformer = _Leftovers

    def applies(self, ctx):
        return any(_may_reach_pipeline_mode(q) for q in ctx.imports.aliases.values())
