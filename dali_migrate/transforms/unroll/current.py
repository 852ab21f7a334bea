"""``Pipeline.current().device_id`` (``batch_size``, ``max_batch_size``, ``num_threads``) in a ``@pipeline_def``
body: the generator's own parameter of that name.

A pipeline function asks the pipeline being built for its options, e.g. to read the shard of the GPU it
runs on (``shard_id=Pipeline.current().device_id``). The generator written for it takes these options as
parameters, with the values the pipeline had: the call's, else the decorator's, else ``None`` for
``device_id`` (DALI 2.4.0: ``Pipeline.current().device_id`` is ``None`` when no device_id is given). Reading
the name makes the generator take the parameter (``plan_params``), so the call sites keep passing it::

    @pipeline_def                                        def pipe(num_gpus, *, batch_size, device_id=None):
    def pipe(num_gpus):                                      reader = ndd.readers.Caffe(path=root,
        device_id = Pipeline.current().device_id      ->         shard_id=device_id, num_shards=num_gpus)
        jpegs, labels = fn.readers.caffe(                    ...
            path=root, shard_id=device_id, num_shards=num_gpus)

``name = Pipeline.current().name`` is dropped (the parameter is that name). Left for the leftovers marker
(DM105): ``seed`` (a generator whose seed nobody gives takes none, where pipeline mode drew one), other
attributes, and a body where the name means something else: a parameter of the pipeline function (pipeline_def
gives the call's argument to the function then, not to the pipeline) or a name the body assigns.
"""

from __future__ import annotations

import libcst as cst

from ...walk import transform, walk
from .model import AssignedNames

PIPELINE = "nvidia.dali.Pipeline"
# Pipeline.current() attribute -> the generator parameter that holds its value.
PARAMETERS = {"batch_size": "batch_size", "max_batch_size": "batch_size", "num_threads": "num_threads",
              "device_id": "device_id"}


def _parameter(node, imports) -> str | None:
    """The generator parameter ``node`` (``Pipeline.current().<attribute>``) reads, else None."""
    if not (isinstance(node, cst.Attribute) and node.attr.value in PARAMETERS):
        return None
    call = node.value
    if not (isinstance(call, cst.Call) and not call.args and isinstance(call.func, cst.Attribute)
            and call.func.attr.value == "current" and imports.qualname(call.func.value) == PIPELINE):
        return None
    return PARAMETERS[node.attr.value]


def _self_assignment(statement, imports) -> str | None:
    """``device_id = Pipeline.current().device_id``: the name it binds to the parameter of the same name."""
    if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1
            and isinstance(statement.body[0], cst.Assign) and len(statement.body[0].targets) == 1):
        return None
    assign = statement.body[0]
    target = assign.targets[0].target
    name = _parameter(assign.value, imports)
    return name if isinstance(target, cst.Name) and target.value == name else None


class _Reads(cst.CSTVisitor):
    def __init__(self, imports):
        self.imports, self.found = imports, False

    def visit_Attribute(self, node):
        self.found = self.found or _parameter(node, self.imports) is not None


class _Substitute(cst.CSTTransformer):
    def __init__(self, imports, taken: set[str]):
        super().__init__()
        self.imports, self.taken, self.read = imports, taken, set()

    def leave_Attribute(self, original_node, updated_node):
        name = _parameter(original_node, self.imports)
        if name is None or name in self.taken:
            return updated_node
        self.read.add(original_node.attr.value)
        return cst.Name(name)


def substitute(statements: list, params, imports) -> tuple[list, set[str]]:
    """The pipeline body ``statements`` with each ``Pipeline.current().<option>`` read as the generator's
    parameter, where that name means it (not a parameter of the function, not assigned in the body), and the
    attributes read so."""
    reads = _Reads(imports)
    for statement in statements:
        walk(statement, reads)
    if not reads.found:
        return statements, set()
    dropped = {id(s): _self_assignment(s, imports) for s in statements}
    assigned = AssignedNames()
    for statement in statements:
        if dropped[id(statement)] is None:
            walk(statement, assigned)
    taken = set(params) | assigned.names
    result, comments, substitute = [], [], _Substitute(imports, taken)
    for statement in statements:
        name = dropped[id(statement)]
        if name is not None and name not in taken:
            substitute.read.add(name)
            comments.extend(line for line in statement.leading_lines if line.comment is not None)
            continue
        statement = transform(statement, substitute, layout=False)
        if comments:  # the comments above a dropped assignment stay, above the next statement
            statement = statement.with_changes(leading_lines=[*comments, *statement.leading_lines])
            comments = []
        result.append(statement)
    return result, substitute.read
