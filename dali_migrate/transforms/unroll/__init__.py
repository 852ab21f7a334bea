"""unroll: pipelines (all four styles) to generators, and their consumers to plain iteration.

Before::

    @pipeline_def(batch_size=4, num_threads=2, device_id=None, seed=3)
    def classifier_pipe(root, size):
        jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, name="Reader")
        images = fn.decoders.image(jpegs, device="mixed")
        flip = fn.random.coin_flip()
        return fn.flip(fn.resize(images, size=size), horizontal=flip), labels

    pipe = classifier_pipe(root, 64)
    pipe.build()
    images, labels = pipe.run()

After (rename and arguments then turn the remaining fn.* into ndd.*)::

    if ndd.get_num_threads() < 2:
        ndd.set_num_threads(2)  # grow only: shrinking it after use hangs DALI 2.4


    def classifier_pipe(root, size, *, batch_size=4, seed=3):
        ndd.random.set_seed(seed)
        reader = ndd.readers.File(file_root=root, random_shuffle=True, name="Reader", seed=seed)
        while True:
            for jpegs, labels in reader.next_epoch(batch_size=batch_size):
                images = fn.decoders.image(jpegs, device="mixed")
                flip = fn.random.coin_flip(batch_size=batch_size)
                yield fn.flip(fn.resize(images, size=size), horizontal=flip), labels

    pipe = classifier_pipe(root, 64)
    images, labels = next(pipe)

The shape is the contract with the harness (BRIEF.md): a pipeline becomes a generator (or, for a
Pipeline subclass, a ReaderStream class whose ``steps()`` is one) that yields one tuple per former
``pipe.run()``; ``while True`` around ``next_epoch`` keeps the run() sample stream across epochs.
What cannot be unrolled faithfully is marked and recorded in ``ctx.facts["keep_pipeline_mode"]``.
"""

from __future__ import annotations

import libcst as cst

from ...elision import ModuleSymbols

from ...names import FN, OPS, NDD
from ..base import Pass, cold_statements, per_model, run_transformer, walk
from . import adapted, graph_functions, rules, source_helpers  # noqa: F401  (rules declares the DM2xx rules)
from .unroll import Unroller
from .call_sites import UNSUPPORTED_METHODS
from .discovery import Discovery

# Words besides DALI aliases and pipeline names through which the Unroller changes or marks code
# (method names it looks for on any object): top-level statements without them, or a name bound by
# relevant code, are left alone (base.cold_statements).
UNROLL_WORDS = {*UNSUPPORTED_METHODS, "epoch_size", "reader_meta", "checkpoint"}
# ... and words that do only together: a value built and run (``p.build()``, ``p.run()``) is a pipeline (adapted.py)
UNROLL_TOGETHER = (adapted.BUILT_AND_RUN,)


class UnrollPass(Pass):
    name = "unroll"

    def applies(self, ctx):
        project = ctx.facts.get("project")
        return any(q.startswith("nvidia.dali") for q in ctx.imports.aliases.values()) or \
            bool(project and project.imported_by(ctx.imports))

    def run(self, module, ctx):
        ctx.facts["module_symbols"] = module_symbols(module, ctx.elision)
        discovery = Discovery(ctx)
        # Cold top-level statements cannot define, hold or use a pipeline (``cold_statements``):
        # discovery reads the others only, as the unroller rewrites the others only.
        # A statement that holds a pipeline value by another name (``def step(q): return q.run()``,
        # called with one) is hot too: the flow model knows that name.
        flow = ctx.facts.get("flow")
        cold = cold_statements(module, ctx, UNROLL_WORDS | (flow.dali_names() if flow is not None else set()),
                               UNROLL_TOGETHER)
        discovery.on_visit(module)
        for statement in module.body:
            if statement not in cold:
                walk(statement, discovery)  # read-only: no rebuild
        discovery.on_leave(module)
        # the pipelines draw from RNG objects (a random op of the module has its own seed=): a random op outside their
        # steps that gets no rng= draws from the unseeded default RNG (the rename pass marks ops objects called so)
        ctx.facts["rng_mode"] = discovery.rng_mode
        module = source_helpers.rewrite_module(module, ctx)  # (a helper module has no pipeline of its own)
        adapts = bool(flow is not None and flow.adapted)  # pipelines given from elsewhere only (adapted.py)
        if not discovery.anything() and not adapts:
            if ctx.facts.get("source_streams"):  # its source helpers return ReaderStreams: the class goes with them
                module = Unroller(ctx, discovery).finish(module)
            return module
        ctx.imports.aliases.setdefault("ndd", NDD)
        ctx.facts["reader_functions"], ctx.facts["seeded_functions"] = per_model(
            ctx, "graph_functions", module, lambda: graph_functions.find(module, ctx.imports, ctx.may_mention))
        unroller = Unroller(ctx, discovery)
        unroller.adopt_adapted(module)
        unroller.plan_params(module)
        unroller.find_iterator_subclasses(module)
        module = run_transformer(module, unroller, cold)
        module = unroller.finish(module)
        return graph_functions.finish(module, ctx)


def module_symbols(module: cst.Module, elision=None) -> ModuleSymbols:
    """Module-level ``def``s and ``name = <value>`` assignments, by name (the last binding wins),
    those of statements left out of the parse (``elision``) included."""
    symbols = ModuleSymbols()
    for statement in module.body:
        unit = _elided_unit(statement, elision)
        if unit is not None:
            symbols.add_elided(unit)
        else:
            symbols.add_statement(statement)
    return symbols


def _elided_unit(statement, elision):
    if elision is None or not isinstance(statement, cst.SimpleStatementLine) \
            or not isinstance(statement.body[0], cst.Assign):
        return None
    target = statement.body[0].targets[0].target
    return elision.units.get(target.value) if isinstance(target, cst.Name) else None


__all__ = ["UnrollPass", "FN", "OPS", "module_symbols"]
