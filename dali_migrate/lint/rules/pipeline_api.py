"""Pipeline-mode API on dynamic-mode values (DM320): the same check the migration runs on its own output
before it writes anything (``dali_migrate.postcheck.dynamic_value_misuse``), for code written by hand or
by an agent. The flow model follows the values through ``next(gen)``/``for ... in gen`` of a generator
that yields ndd values, helpers' parameters, returns and containers.
"""

from __future__ import annotations

import libcst as cst

from ...dataflow import DATA_KINDS
from ...postcheck import dynamic_value_misuse
from ..core import HEADER, check, lint_rule

_GEN = HEADER + ('\n\ndef loader(root, batch_size=4):\n    reader = ndd.readers.File(file_root=root)\n'
                 '    while True:\n        for jpegs, labels in reader.next_epoch(batch_size=batch_size):\n'
                 '            yield ndd.decoders.image(jpegs), labels\n\n\n')

PIPELINE_API = lint_rule(
    "DM320", "pipeline-api-on-dynamic-value", "error",
    "Pipeline-mode API on a dynamic-mode value: TensorList methods (.at, .as_cpu, .as_array, .as_tensor, "
    ".shape(), .layout()) on an ndd Batch or Tensor, or Pipeline methods (.run, .build, .epoch_size, "
    ".schedule_run, ...) on a generator that yields ndd values.",
    "A migrated pipeline is a generator and its outputs are ndd Batches: the pipeline-mode methods do not "
    "exist there (AttributeError), and shape/layout/ndim are properties, not methods (TypeError).",
    before=_GEN + 'pipe = loader("images")\nimages, labels = pipe.run()\n',
    after=_GEN + 'pipe = loader("images")\nimages, labels = next(pipe)\n',
    fix="manual",
    suggestion="next(pipe) for pipe.run(); batch.select(i) for tl.at(i); batch.cpu() for as_cpu(); "
               "np.array(ndd.as_tensor(batch)) for as_array(); batch.shape for tl.shape(); "
               "reader.get_metadata() for epoch_size().",
)


@check
def pipeline_api_on_dynamic_value(ctx) -> None:
    flow = ctx.flow
    for node in ctx.nodes_of(cst.Call, cst.Attribute, cst.Subscript):
        found = dynamic_value_misuse(flow, node)
        if found is None or _reported_elsewhere(ctx, node) or ctx.tool_written(node):
            continue
        ctx.report(PIPELINE_API.id, node, found[0])


def _reported_elsewhere(ctx, node) -> bool:
    """batch[i], len(batch) and np.asarray(batch) have rules of their own (DM302, DM303, DM306)."""
    if isinstance(node, cst.Subscript):
        return ctx.kind(node.value) in DATA_KINDS
    if isinstance(node, cst.Call) and node.args:
        return ctx.kind(node.args[0].value) in DATA_KINDS and not isinstance(node.func, cst.Attribute)
    return False
