"""Random ops outside any pipeline: in a helper function a pipeline calls, or in code no pipeline runs.

Without ``batch_size=`` an input-less fn random op would return one value for the whole batch: in a graph helper that
gets the pipeline's data, the batch size is that data's (``batch_size_from``: the parameter passed as an operator's
input, ``batch_size=images.batch_size``); elsewhere it is marked. In a module whose pipelines seed RNG objects, one
that gets no ``rng=`` would draw from the unseeded default RNG: marked. ``RandomOpsOutside`` is the part of the
``Unroller`` that does it (``_pipeline_depth`` says whether a call is inside a pipeline); the rename pass asks
``batch_size_from`` of the helpers it rewrites.
"""

from __future__ import annotations

import libcst as cst

from ...names import dotted
from ...walk import walk
from . import rules
from .model import expr, fn_path, has_seeded_call, kwarg, with_kwarg


def batch_size_from(function: cst.FunctionDef, ctx) -> str | None:
    """In a graph helper (a function that builds part of a pipeline's graph from its parameters), the parameter
    that carries the pipeline's data: the first one passed as an operator's input, else the first one that is
    an operand of arithmetic on an operator's result (``flip * augmented``). Its batch size is the batch size
    there. A function no pipeline of this module calls (another module's or a later cell's helper) counts too:
    fn operators only run inside a pipeline's graph, so its data parameters hold that pipeline's batches."""
    units = ctx.facts.get("units")
    if units is None:
        return None
    params = [p.name.value for p in [*function.params.posonly_params, *function.params.params]]
    if params[:1] == ["self"] or any(isinstance(helper, cst.FunctionDef) and helper.name.value == function.name.value
                                     for helper in units.helpers):  # (a lambda helper has no name)
        pass
    elif _called_here(function, ctx):
        return None  # called by this module's own code, not by a pipeline: its parameters need not be batches
    inputs = _OperatorInputs(ctx.imports, set(params) - {"self"}, ctx.facts.get("flow"))
    walk(function.body, inputs)
    return next((p for p in params if p in inputs.found), None) or next(
        (p for p in params if p in inputs.operands), None)


def _called_here(function: cst.FunctionDef, ctx) -> bool:
    flow = ctx.facts.get("flow")
    if flow is None:
        return True
    return any(reached and reached[0].node is function for reached in flow.call_targets.values())


class _OperatorInputs(cst.CSTVisitor):
    """Parameters passed to a DALI operator positionally (``found``), and those that are an operand of
    arithmetic whose other side is a DALI operator's result (``operands``)."""

    def __init__(self, imports, names: set[str], flow=None):
        super().__init__()
        self.imports, self.names, self.found, self.operands = imports, names, set(), set()
        self.flow = flow  # to know calls of ops objects made outside the definitions (``self.flip(images)``)
        self.results: set[str] = set()  # names bound to an operator's result

    def _dali_call(self, node) -> bool:
        qualname = (self.imports.qualname(node.func) or "") if isinstance(node, cst.Call) else ""
        return qualname.startswith(("nvidia.dali.fn.", "nvidia.dali.experimental.dynamic.")) or bool(
            not qualname and isinstance(node, cst.Call) and self.flow is not None and self.flow.ops_objects_in(node.func))

    def visit_Call(self, node):
        if self._dali_call(node):
            for arg in node.args:
                value = arg.value
                if isinstance(value, cst.Attribute) and value.attr.value == "shape":  # fn.shapes(x), migrated
                    value = value.value
                if arg.keyword is None and isinstance(value, cst.Name) and value.value in self.names:
                    self.found.add(value.value)

    def visit_Assign(self, node):
        if self._dali_call(node.value) or isinstance(node.value, cst.Call) and self._makes_data(node.value):
            self.results.update(t.target.value for t in node.targets if isinstance(t.target, cst.Name))

    def _makes_data(self, call: cst.Call) -> bool:
        """A call of a graph helper given an operator's result (``maybe(0.15, fn.random.uniform(...), 1.0)``): what
        it returns is graph data too."""
        return any(isinstance(arg.value, cst.Call) and (self._dali_call(arg.value) or self._makes_data(arg.value))
                   for arg in call.args)

    def visit_BinaryOperation(self, node):
        sides = (node.left, node.right)
        if any(self._dali_call(side) or isinstance(side, cst.Name) and side.value in self.results
               or isinstance(side, cst.Call) and self._makes_data(side) for side in sides):
            self.operands.update(side.value for side in sides if isinstance(side, cst.Name) and side.value in self.names)


class RandomOpsOutside:
    """The ``Unroller``'s part for random ops outside pipelines (a mixin: its state is the ``Unroller``'s)."""

    # -- random ops outside pipelines (helper functions the pipeline calls) ------------------------
    _pipeline_depth = 0  # > 0 inside a @pipeline_def, a Pipeline subclass or a `with pipe:` block

    def visit_With(self, node):
        if any(isinstance(i.item, (cst.Name, cst.Attribute)) and dotted(i.item) in self.d.with_names
               for i in node.items):
            self._pipeline_depth += 1
        return True

    def leave_With(self, original_node, updated_node):
        if any(isinstance(i.item, (cst.Name, cst.Attribute)) and dotted(i.item) in self.d.with_names
               for i in original_node.items):
            self._pipeline_depth -= 1
        return updated_node

    def _left_for_seeds(self, function: cst.FunctionDef) -> bool:
        """A function with seeded random ops that no rewrite gives rng parameters (graph_functions.find lists the
        candidates; finish gives them theirs or puts them back as they were): the rename pass leaves it as it was."""
        found = self._seed_functions.get(function)
        if found is None:
            candidate = (self.ctx.facts.get("seeded_functions") or {}).get(function.name.value)
            found = self._seed_functions[function] = not (candidate is not None and candidate.node is function) \
                and has_seeded_call(function, self.ctx.imports, self.ctx.may_mention)
        return found

    def _random_outside(self, call: cst.Call, updated: cst.Call) -> cst.Call:
        """An fn random op outside any pipeline (in a helper the pipeline calls). Without batch_size it
        would return one value for the whole batch: in a graph helper that gets the pipeline's data, the
        batch size is that data's (``batch_size=images.batch_size``); elsewhere it is marked. In a module
        that seeds RNG objects it would draw from the unseeded default RNG: marked."""
        path = fn_path(self.ctx.imports, call.func)
        if path is None:
            return updated
        if call in self._adopted_randoms:
            self.unmarked_randoms.add(updated)
            return updated
        if self._functions and self._left_for_seeds(self._functions[-1]):
            return updated  # the rename pass leaves it as it was, marked (DM112)
        from .model import op_entry
        current, entry = op_entry(path)
        if not entry or not entry.get("random"):
            return updated
        problems = []
        positional = [a for a in call.args if a.keyword is None]
        if entry.get("input_less") and not positional and kwarg(call, "batch_size") is None:
            data = batch_size_from(self._functions[-1], self.ctx) if self._functions else None
            if data is not None:
                self.report(rules.RANDOM_BATCH_SIZE.id, f"fn.{current} gets batch_size={data}.batch_size: the "
                            f"helper's data has one sample per value, as in the pipeline", call)
                updated = with_kwarg(updated, "batch_size", expr(f"{data}.batch_size"))
            else:
                problems.append(rules.NO_BATCH_SIZE)
        if self.d.rng_mode and kwarg(call, "seed") is None and kwarg(call, "rng") is None:
            problems.append("gets no rng=: the migrated pipeline seeds RNG objects, so this op draws from the "
                            "unseeded default RNG (values change from run to run); pass the pipeline's rng in")
        if problems:
            self.mark(rules.RANDOM_OUTSIDE.id, f"ndd.{current} " + "; it also ".join(problems), call)
        return updated
