"""Readers: created once, PascalCase, no batch_size in the constructor, whole epochs, metadata
after the first epoch (DM308–DM311, DM319)."""

from __future__ import annotations

import libcst as cst

from ... import optable
from ..core import HEADER, check, code, lint_rule, method_call, same_variable, single_binding
from ...dataflow import keyword, reader_path

READER_IN_LOOP = lint_rule(
    "DM308", "reader-in-loop", "warning",
    "A reader is created inside a loop with the same arguments on every pass.",
    "Readers are stateful: they track the shuffle order and the shard position. A reader created "
    "again every epoch starts over each time, so with a fixed seed every epoch has the same order "
    "(verified: two fresh File(random_shuffle=True, seed=7) readers give identical epochs, one "
    "reader gives a new order each epoch) and shards never advance.",
    before=HEADER + "for epoch in range(3):\n    reader = ndd.readers.File(file_root=\"images\", random_shuffle=True, seed=7)\n"
                    "    for jpegs, labels in reader.next_epoch(batch_size=4):\n        train_step(jpegs, labels)\n",
    after=HEADER + "reader = ndd.readers.File(file_root=\"images\", random_shuffle=True, seed=7)\n"
                   "for epoch in range(3):\n"
                   "    for jpegs, labels in reader.next_epoch(batch_size=4):\n        train_step(jpegs, labels)\n",
    fix="manual",
    line=3,
    suggestion="Create the reader once, before the loop, and call reader.next_epoch(...) in the loop.",
)
READER_BATCH_SIZE = lint_rule(
    "DM309", "reader-batch-size", "error",
    "batch_size= in a reader constructor; readers take max_batch_size=, or the batch size goes to next_epoch().",
    "The reader constructor raises TypeError: unexpected keyword argument 'batch_size'. "
    "max_batch_size= is the constructor's name for it and becomes the default batch size of "
    "next_epoch() (verified: File(..., max_batch_size=4).next_epoch() yields Batches of 4), so "
    "renaming the keyword keeps what the line asked for.",
    before=HEADER + "reader = ndd.readers.File(file_root=\"images\", batch_size=4)\n",
    after=HEADER + "reader = ndd.readers.File(file_root=\"images\", max_batch_size=4)\n",
    fix="safe",
)
LOWERCASE_READER = lint_rule(
    "DM310", "lowercase-reader", "error",
    "ndd.readers.file(...): dynamic-mode readers are PascalCase classes (ndd.readers.File).",
    "There is no ndd.readers.file (AttributeError); readers are classes named after the operator "
    "schema (File, COCO, TFRecord, NemoAsr, ...). The name comes from the op table derived from DALI.",
    before=HEADER + "reader = ndd.readers.file(file_root=\"images\")\n",
    after=HEADER + "reader = ndd.readers.File(file_root=\"images\")\n",
    fix="safe",
)
BREAK_NEXT_EPOCH = lint_rule(
    "DM311", "break-next-epoch", "warning",
    "break out of a reader.next_epoch() loop, and next_epoch() is called again later.",
    "An epoch iterator must be consumed to the end. After a break, the next next_epoch() goes on "
    "from where the reader stopped and still yields a full epoch's worth of batches, so every later "
    "epoch is misaligned, with no error (verified on 2.4.0).",
    before=HEADER + "reader = ndd.readers.File(file_root=\"images\")\nfor epoch in range(3):\n"
                    "    for step, (jpegs, labels) in enumerate(reader.next_epoch(batch_size=4)):\n"
                    "        if step == 10:\n            break\n        train_step(jpegs, labels)\n",
    after=HEADER + "reader = ndd.readers.File(file_root=\"images\")\nfor epoch in range(3):\n"
                   "    for step, (jpegs, labels) in enumerate(reader.next_epoch(batch_size=4)):\n"
                   "        if step >= 10:\n            continue\n        train_step(jpegs, labels)\n",
    fix="manual",
    line=6,
    suggestion="Let the loop run to the end (skip the work with continue), or create a fresh reader for the next epoch.",
)
METADATA_BEFORE_EPOCH = lint_rule(
    "DM319", "metadata-before-epoch", "error",
    "reader.get_metadata() before the first next_epoch() on a reader built without max_batch_size.",
    "get_metadata() creates the reader's backend, with max_batch_size=1 when the constructor had "
    "none; the following next_epoch(batch_size=N>1) then fails with ValueError: `batch_size` N is "
    "different than the `max_batch_size` 1 used in the previous call (verified on 2.4.0).",
    before=HEADER + "reader = ndd.readers.File(file_root=\"images\")\nsize = reader.get_metadata()[\"epoch_size\"]\n"
                    "for jpegs, labels in reader.next_epoch(batch_size=4):\n    pass\n",
    after=HEADER + "reader = ndd.readers.File(file_root=\"images\", max_batch_size=4)\n"
                   "size = reader.get_metadata()[\"epoch_size\"]\n"
                   "for jpegs, labels in reader.next_epoch(batch_size=4):\n    pass\n",
    fix="manual",
    line=3,
    suggestion="Pass max_batch_size=N to the reader constructor, or call get_metadata() after the first batch.",
)

_LOOPS = (cst.For, cst.While)
_SCOPES = (cst.FunctionDef, cst.Lambda, cst.ClassDef, cst.Module)


def reader_calls(ctx):
    for call in ctx.nodes_of(cst.Call):
        path = ctx.ndd_path(call.func)
        if path is not None and reader_path(path):
            yield call, path


def _enclosing_loop(ctx, node):
    """The innermost for/while whose body (not its header) holds ``node``, in the same function."""
    child, parent = node, ctx.parent(node)
    while parent is not None and not isinstance(parent, _SCOPES):
        if isinstance(parent, _LOOPS) and child is parent.body:
            return parent
        child, parent = parent, ctx.parent(parent)
    return None


def _bound_in(loop) -> set[str]:
    names = set()

    class _V(cst.CSTVisitor):
        def visit_AssignTarget(self, node):
            node.target.visit(_Targets())

        def visit_AugAssign(self, node):
            node.target.visit(_Targets())

        def visit_AnnAssign(self, node):
            node.target.visit(_Targets())

        def visit_For(self, node):
            node.target.visit(_Targets())

        def visit_NamedExpr(self, node):
            node.target.visit(_Targets())

        def visit_WithItem(self, node):
            if node.asname is not None:
                node.asname.visit(_Targets())

        def visit_FunctionDef(self, node):
            return False

    class _Targets(cst.CSTVisitor):
        def visit_Name(self, node):
            names.add(node.value)

    loop.visit(_V())
    if isinstance(loop, cst.For):
        loop.target.visit(_Targets())
    return names


def _names_in(node) -> set[str]:
    names = set()

    class _V(cst.CSTVisitor):
        def visit_Name(self, n):
            names.add(n.value)
    node.visit(_V())
    return names


@check
def reader_in_loop(ctx) -> None:
    for call, path in reader_calls(ctx):
        loop = _enclosing_loop(ctx, call)
        if loop is None:
            continue
        used = set()
        for arg in call.args:
            used |= _names_in(arg.value)
        if used & _bound_in(loop):
            continue  # a different reader each pass (another folder, shard, ...): fine
        ctx.report(READER_IN_LOOP.id, call,
                   f"ndd.{path}(...) is created again on every pass of the loop at line {ctx.line(loop)}; "
                   f"create it once before the loop and call next_epoch() inside")


@check
def reader_batch_size(ctx) -> None:
    for call, path in reader_calls(ctx):
        arg = keyword(call, "batch_size")
        if arg is None:
            continue
        fix = None
        if keyword(call, "max_batch_size") is None:
            fix = lambda a: a.with_changes(keyword=cst.Name("max_batch_size"))  # noqa: E731
        ctx.report(READER_BATCH_SIZE.id, arg,
                   f"ndd.{path}() takes no batch_size= (TypeError): use max_batch_size= or "
                   f"next_epoch(batch_size=...)", fix=fix, fix_node=arg)


@check
def lowercase_reader(ctx) -> None:
    for node in ctx.nodes_of(cst.Attribute, cst.Name):
        path = ctx.ndd_path(node)
        if path is None or not reader_path(path):
            continue
        parent = ctx.parent(node)
        if isinstance(parent, cst.Attribute) and parent.value is node:
            continue  # part of a longer dotted name
        if isinstance(parent, cst.ImportAlias):
            continue
        head, _, name = path.rpartition(".")
        if not name.islower():
            continue
        ndd_name, _, _ = optable.resolve_fn(path)
        if not ndd_name or ndd_name == path:
            continue
        new = ndd_name.rpartition(".")[2]
        fix = None
        if isinstance(node, cst.Attribute):
            fix = lambda n, new=new: n.with_changes(attr=cst.Name(new))  # noqa: E731
        ctx.report(LOWERCASE_READER.id, node,
                   f"ndd.{path} does not exist: readers are classes, use ndd.{ndd_name}", fix=fix)


def _epoch_loops(ctx):
    """(for loop, reader expression) for every ``for ... in [enumerate(]R.next_epoch(...)[)]``."""
    for loop in ctx.nodes_of(cst.For):
        it = loop.iter
        if isinstance(it, cst.Call) and isinstance(it.func, cst.Name) and it.func.value == "enumerate" and it.args:
            it = it.args[0].value
        receiver, _ = method_call(it, "next_epoch")
        if receiver is not None and ctx.kind(receiver, at=it) == "reader":
            yield loop, receiver


def _breaks(loop):
    found = []

    class _V(cst.CSTVisitor):
        def visit_Break(self, node):
            found.append(node)

        def visit_For(self, node):
            return False

        def visit_While(self, node):
            return False

        def visit_FunctionDef(self, node):
            return False

        def visit_ClassDef(self, node):
            return False

    loop.body.visit(_V())
    return found


def _next_epoch_calls(ctx, reader):
    for call in ctx.nodes_of(cst.Call):
        receiver, _ = method_call(call, "next_epoch")
        if receiver is not None and same_variable(ctx, receiver, reader):
            yield call


@check
def break_next_epoch(ctx) -> None:
    for loop, reader in _epoch_loops(ctx):
        breaks = _breaks(loop)
        if not breaks:
            continue
        again = _enclosing_loop(ctx, loop) is not None or any(
            ctx.line(c) > ctx.end_line(loop) for c in _next_epoch_calls(ctx, reader))
        if not again:
            continue
        for brk in breaks:
            ctx.report(BREAK_NEXT_EPOCH.id, brk,
                       f"break leaves {code(reader)}.next_epoch() half-read; the next next_epoch() "
                       f"continues from here and later epochs are misaligned (no error)")


@check
def metadata_before_epoch(ctx) -> None:
    for call in ctx.nodes_of(cst.Call):
        reader, _ = method_call(call, "get_metadata")
        if not isinstance(reader, cst.Name) or ctx.kind(reader) != "reader":
            continue
        ctor = single_binding(ctx, reader)
        if not isinstance(ctor, cst.Call) or keyword(ctor, "max_batch_size") is not None \
                or any(a.keyword is None for a in ctor.args):
            continue
        epochs = list(_next_epoch_calls(ctx, reader))
        if any(ctx.line(e) < ctx.line(call) for e in epochs):
            continue
        batched = [e for e in epochs if e.args and not (
            isinstance(e.args[0].value, cst.Integer) and e.args[0].value.value == "1")]
        if not batched:
            continue
        ctx.report(METADATA_BEFORE_EPOCH.id, call,
                   f"{code(reader)}.get_metadata() before the first next_epoch() fixes the batch size at 1, so "
                   f"next_epoch({code(batched[0].args[0].value)}) at line {ctx.line(batched[0])} fails: "
                   f"give the constructor max_batch_size=")
