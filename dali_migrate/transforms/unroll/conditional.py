"""Readers and external sources that a pipeline body creates under a plain Python condition.

``if mask_available: masks, _ = fn.readers.file(...)`` (a pipeline argument, a closure value, ``self.training``,
a config attribute): pipeline mode evaluated the condition once, when the graph was defined, so the pipeline
either has the reader in every step or never. The generator does the same: the readers (and sources) are
created once, before the loop, under the same condition, each a stream of its own batches, epoch after epoch
(what repeated ``pipe.run()`` read from it); the step keeps the ``if`` and takes the next batch of the stream
where the reader stood::

    if mask_available:                                  if mask_available:
        masks, _ = fn.readers.file(files=m)                 reader_2 = ndd.readers.File(files=m)
    else:                                      ->           batches_2 = endless(reader_2)
        masks = fn.zeros(shape=[1])                     while True:  # (the step)
                                                            if mask_available:
                                                                masks, _ = next(batches_2)
                                                            else:
                                                                masks = ndd.zeros(shape=[1], batch_size=...)

In a Pipeline subclass the readers are created in ``__init__`` instead (graph._init_reader): an ops reader object
called in a branch where ``__init__`` created it, a named fn reader at the end of ``__init__`` under the condition;
each named one is listed in ``self._readers`` under the condition, so the pipeline answers epoch_size(name) before
its first step; the steps keep the ``if`` and take its stream. A closing ``if`` whose branches each create readers
and return the same number of outputs sets output variables in each branch instead (outputs._returns_joined).

A condition that reads pipeline data, calls DALI, or whose names the body assigns again is not decided at
definition: the pipeline stays marked (DM212/DM220).
"""

from __future__ import annotations

import libcst as cst

from ...dataflow import DATANODE, DATANODES
from ...walk import walk
from .model import CannotUnroll, NameReads, code_of, expr, kwarg, stmt, with_kwarg

STREAM_PREFIX = "batches"


def holds_sources(statement, fact) -> bool:
    """An ``if`` of the body whose branches create a reader or an external source."""
    return isinstance(statement, cst.If) and bool(fact.calls.readers or fact.nested_sources.found is not None)


def check_condition(statement: cst.If, env, step_names: set[str], bound_later: set[str], contains_call) -> None:
    """CannotUnroll unless every test of the ``if``/``elif`` chain is decided when the graph is defined: it calls
    no DALI operator, reads no name that holds pipeline data, and no name the body assigns again."""
    node = statement
    flow = env.ctx.facts.get("flow")
    while isinstance(node, cst.If):
        test = node.test
        calls = contains_call(env.ctx.imports)
        walk(cst.Expr(test), calls)
        reads = NameReads()
        walk(cst.Expr(test), reads)
        shown = code_of(test)
        if calls.found:
            raise CannotUnroll(f"a reader under `if {shown}`, a condition that calls DALI (decided per step)", statement)
        data = reads.names & step_names or {n.value for n in reads.nodes if flow is not None and _is_data(flow, n)}
        if data:
            raise CannotUnroll(f"a reader under `if {shown}`, a condition that reads pipeline data "
                               f"({', '.join(sorted(data))})", statement)
        again = reads.names & bound_later
        if again:
            raise CannotUnroll(f"a reader under `if {shown}`, whose {', '.join(sorted(again))} the pipeline body "
                               f"assigns again", statement)
        node = node.orelse if isinstance(node.orelse, cst.If) else None


def _is_data(flow, name: cst.Name) -> bool:
    try:
        return flow.is_dali(name, DATANODE, DATANODES)
    except Exception:  # a node the flow model never saw (rewritten by an earlier pass)
        return False


def branches(statement: cst.If):
    """The blocks of an ``if``/``elif``/``else`` chain, in order."""
    node = statement
    while True:
        yield node.body
        if isinstance(node.orelse, cst.If):
            node = node.orelse
            continue
        if isinstance(node.orelse, cst.Else):
            yield node.orelse.body
        return


def block_conditions(statement: cst.If) -> list[cst.BaseExpression]:
    """The condition under which each block of the chain runs, in ``branches`` order (``not a and b`` for
    ``elif b`` after ``if a``)."""
    found, earlier, node = [], [], statement
    while isinstance(node, cst.If):
        found.append(_all(earlier + [_parenthesized(node.test)]))
        earlier.append(negated(node.test))
        if isinstance(node.orelse, cst.Else):
            found.append(_all(earlier))
        node = node.orelse if isinstance(node.orelse, cst.If) else None
    return found


def _all(parts: list) -> cst.BaseExpression:
    result = parts[0]
    for part in parts[1:]:
        result = cst.BooleanOperation(result, cst.And(), part)
    return result


class WithMaxBatchSize(cst.CSTTransformer):
    """``var = ndd.readers.X(...)`` for the readers ``names`` gets ``max_batch_size=``: a streamed pipeline's
    readers answer for their metadata before the first step (stream.py)."""

    def __init__(self, names: set[str], batch_size: str):
        super().__init__()
        self.names, self.batch_size = names, batch_size

    def leave_Assign(self, original_node, updated_node):
        if len(updated_node.targets) == 1 and code_of(updated_node.targets[0].target) in self.names \
                and isinstance(updated_node.value, cst.Call) and kwarg(updated_node.value, "max_batch_size") is None:
            return updated_node.with_changes(value=with_kwarg(updated_node.value, "max_batch_size",
                                                              expr(self.batch_size)))
        return updated_node


def rebuild(statement: cst.If, blocks: list[list]) -> cst.If | None:
    """``statement``'s chain with each block's statements replaced by ``blocks`` (in ``branches`` order): None when
    every block is empty, one block alone under the condition it ran under (``if not a and b:``), else the chain
    without the empty branches at its end (``pass`` in the others)."""
    filled = [k for k, block in enumerate(blocks) if block]
    if not filled:
        return None
    if len(filled) == 1:
        k = filled[0]
        return statement.with_changes(test=block_conditions(statement)[k],
                                      body=statement.body.with_changes(body=blocks[k]), orelse=None)
    return _keep(_rebuild(statement, list(blocks)), filled[-1] + 1)


def _rebuild(node: cst.If, blocks: list) -> cst.If:
    body = node.body.with_changes(body=blocks.pop(0) or [cst.SimpleStatementLine([cst.Pass()])])
    orelse = node.orelse
    if isinstance(orelse, cst.If):
        orelse = _rebuild(orelse, blocks)
    elif isinstance(orelse, cst.Else):
        orelse = orelse.with_changes(body=orelse.body.with_changes(
            body=blocks.pop(0) or [cst.SimpleStatementLine([cst.Pass()])]))
    return node.with_changes(body=body, orelse=orelse)


def _keep(node: cst.If, count: int) -> cst.If:
    """The chain's first ``count`` branches."""
    if count <= 1:
        return node.with_changes(orelse=None)
    if isinstance(node.orelse, cst.If):
        return node.with_changes(orelse=_keep(node.orelse, count - 1))
    return node


def negated(test: cst.BaseExpression) -> cst.BaseExpression:
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not) and not test.lpar:
        return test.expression
    return cst.UnaryOperation(cst.Not(), _parenthesized(test))


def _parenthesized(test: cst.BaseExpression) -> cst.BaseExpression:
    """``test`` as an operand of ``and``/``not``: parentheses only where it binds more loosely."""
    if isinstance(test, (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Comparison, cst.UnaryOperation)) \
            or test.lpar:
        return test
    return test.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def stream_statement(stream: str, reader_var: str, endless: str) -> cst.BaseStatement:
    return stmt(f"{stream} = {endless}({reader_var})\n")


def pull_statement(target, stream: str) -> cst.BaseStatement:
    return cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(target)], expr(f"next({stream})"))])
