"""The Batch/Tensor API: indexing, len, select, numpy conversion and truth tests (DM302–DM307).

Each rule fires only on values the dataflow knows to be ndd Batches/Tensors (from ndd calls,
``reader.next_epoch(...)`` loop targets, ``ndd.as_batch``/``ndd.batch``, annotations), so lists,
numpy arrays and pandas objects are left alone.
"""

from __future__ import annotations

import libcst as cst

from ..core import HEADER, check, code, lint_rule, method_call, single_binding
from ...dataflow import is_data, literal_int

_READ = HEADER + 'reader = ndd.readers.File(file_root="images")\n'

BATCH_SUBSCRIPT = lint_rule(
    "DM302", "batch-subscript", "error",
    "batch[i] on an ndd.Batch, which has no __getitem__.",
    "Indexing a Batch is ambiguous (pick a sample, or index inside every sample), so Batch defines "
    "no [] and raises TypeError: 'Batch' object is not subscriptable. Say which one you mean.",
    before=_READ + "for jpegs, labels in reader.next_epoch(batch_size=4):\n    first = labels[0]\n",
    after=_READ + "for jpegs, labels in reader.next_epoch(batch_size=4):\n    first = labels.select(0)\n",
    fix="manual",
    suggestion="batch.select(i) picks sample i (a Tensor); batch.slice[i] indexes inside every sample "
               "(a Batch, as pipeline-mode x[i] did).",
)
BATCH_LEN = lint_rule(
    "DM303", "batch-len", "error",
    "len(batch) on an ndd.Batch; the number of samples is batch.batch_size.",
    "Batch has no __len__: len(batch) raises TypeError: object of type 'Batch' has no len().",
    before=HEADER + "batch = ndd.as_batch(samples)\nn = len(batch)\n",
    after=HEADER + "batch = ndd.as_batch(samples)\nn = batch.batch_size\n",
    fix="safe",
)
SELECT_FOR_SLICE = lint_rule(
    "DM304", "select-for-slice", "warning",
    "batch.select(i) passed as an operator argument, where a per-sample value (batch.slice[i]) was meant.",
    ".select(i) picks ONE sample (a Tensor); as an argument it is broadcast to every sample, or fails "
    "with 'Unexpected shape of argument' when the sample is not a scalar. Pipeline-mode xy[0] (index "
    "inside each sample) is xy.slice[0] in dynamic mode.",
    before=HEADER + "xy = ndd.random.uniform(batch_size=16, range=[0, 1], shape=2)\n"
                    "images = ndd.crop(images, crop=(64, 64), crop_pos_x=xy.select(0), crop_pos_y=xy.slice[1])\n",
    after=HEADER + "xy = ndd.random.uniform(batch_size=16, range=[0, 1], shape=2)\n"
                   "images = ndd.crop(images, crop=(64, 64), crop_pos_x=xy.slice[0], crop_pos_y=xy.slice[1])\n",
    fix="manual",
    suggestion="Use xy.slice[i] for the i-th element of every sample; pass the Batch itself for one "
               "value per sample.",
)
SELECT_WITH_SLICE = lint_rule(
    "DM305", "select-with-slice", "error",
    "batch.select(slice or list): broken in DALI 2.4.0, it silently returns the whole batch.",
    "Verified on 2.4.0: b.select(slice(1, 3)) and b.select([3, 1]) return all samples. Build the "
    "subset from single samples instead. The fix changes what the line computes (to what it says), "
    "so it is unsafe: apply it with --unsafe-fixes and review it.",
    before=HEADER + "batch = ndd.as_batch(samples)\nsubset = batch.select([3, 1])\n",
    after=HEADER + "batch = ndd.as_batch(samples)\nsubset = ndd.as_batch([batch.select(i) for i in [3, 1]])\n",
    fix="unsafe",
)
ASARRAY_BATCH = lint_rule(
    "DM306", "asarray-batch", "error",
    "np.asarray(batch) / np.array(batch) on an ndd.Batch silently gives a 0-d object array.",
    "Batch has no __array__: numpy wraps the Python object in a 0-d array of dtype object, with no "
    "error. Convert through a dense Tensor (np.asarray(ndd.as_tensor(batch)); pad=True for ragged "
    "batches) or per sample. The fix changes the value (to the array you meant), so it is unsafe.",
    before=HEADER + "import numpy as np\n\nbatch = ndd.as_batch(samples)\narr = np.asarray(batch)\n",
    after=HEADER + "import numpy as np\n\nbatch = ndd.as_batch(samples)\narr = np.asarray(ndd.as_tensor(batch))\n",
    fix="unsafe",
)
IF_ON_BATCH = lint_rule(
    "DM307", "if-on-batch", "error",
    "if / while / assert / and / or on an ndd Batch or Tensor, whose truth value is always True.",
    "Neither Batch nor Tensor defines __bool__, so bool(x) is True even for ndd.as_tensor(0), and "
    "comparisons such as flip == 1 return a Batch/Tensor, which is True too. The branch always runs.",
    before=HEADER + "flip = ndd.random.coin_flip(batch_size=8)\nif flip == 1:\n"
                    "    images = ndd.flip(images, horizontal=1)\n",
    after=HEADER + "flip = ndd.random.coin_flip(batch_size=8)\nimages = ndd.flip(images, horizontal=flip)\n",
    fix="manual",
    suggestion="For a Tensor use t.item(); for a Batch pass it as a per-sample argument "
               "(flip(horizontal=mask)) or blend with arithmetic (mask * a + (1 - mask) * b).",
)


@check
def batch_subscript(ctx) -> None:
    for node in ctx.nodes_of(cst.Subscript):
        if ctx.kind(node.value) == "batch":
            ctx.report(BATCH_SUBSCRIPT.id, node,
                       f"{code(node.value)}[...] on a Batch raises TypeError: use .select(i) for a sample "
                       f"or .slice[i] to index inside every sample")


def _builtin(ctx, func, name: str) -> bool:
    return isinstance(func, cst.Name) and func.value == name and ctx.flow.is_builtin(func)


_ATOMS = (cst.Name, cst.Attribute, cst.Call, cst.Subscript)


@check
def batch_len(ctx) -> None:
    for call in ctx.nodes_of(cst.Call):
        if _builtin(ctx, call.func, "len") and len(call.args) == 1 and call.args[0].keyword is None \
                and call.args[0].star == "":
            arg = call.args[0].value
            if ctx.kind(arg) == "batch":
                fix = None
                if isinstance(arg, _ATOMS) and not arg.lpar:
                    fix = lambda node: cst.Attribute(value=node.args[0].value, attr=cst.Name("batch_size"),  # noqa: E731
                                                     lpar=node.lpar, rpar=node.rpar)
                ctx.report(BATCH_LEN.id, call,
                           f"len() of a Batch raises TypeError: use {code(arg)}.batch_size", fix=fix)


def _op_keyword_uses(ctx):
    """(keyword Arg, value) for every keyword argument of an ndd operator call."""
    from ...dataflow import op_path

    for call in ctx.nodes_of(cst.Call):
        path = ctx.ndd_path(call.func)
        if path is None or op_path(path) is None:
            continue
        for arg in call.args:
            if arg.keyword is not None and arg.keyword.value not in ("device", "dtype", "rng", "batch_size", "layout"):
                yield arg, arg.value


def _select_index(ctx, node):
    receiver, _ = method_call(node, "select")
    if receiver is not None and len(node.args) == 1 and literal_int(node.args[0].value) \
            and ctx.kind(receiver) in ("batch", "data"):
        return receiver
    return None


@check
def select_for_slice(ctx) -> None:
    seen = set()
    for arg, value in _op_keyword_uses(ctx):
        target = value
        if isinstance(value, cst.Name):
            target = single_binding(ctx, value)
        if target is None or id(target) in seen:
            continue
        receiver = _select_index(ctx, target)
        if receiver is not None:
            seen.add(id(target))
            index = code(target.args[0].value)
            ctx.report(SELECT_FOR_SLICE.id, target,
                       f"{code(target)} is one sample (a Tensor) broadcast to every sample as "
                       f"{arg.keyword.value}=; for the {index}-th element of each sample use "
                       f"{code(receiver)}.slice[{index}]")


def _subset_fix(receiver, index_expr, ndd_name: str):
    def fix(node):
        recv = code(receiver)
        var = "i" if "i" not in {n.value for n in _names(receiver)} else "idx"
        if isinstance(index_expr, cst.Call):  # slice(a, b[, c])
            parts = ", ".join(code(a.value) for a in index_expr.args)
            text = f"{ndd_name}.as_batch([{recv}.select({var}) for {var} in range({recv}.batch_size)[slice({parts})]])"
        else:
            text = f"{ndd_name}.as_batch([{recv}.select({var}) for {var} in {code(index_expr)}])"
        return cst.parse_expression(text).with_changes(lpar=node.lpar, rpar=node.rpar)
    return fix


class _NameNodes(cst.CSTVisitor):  # (module level: a class made per call would keep the tree in a cycle)
    def __init__(self):
        self.found = []

    def visit_Name(self, node):
        self.found.append(node)


def _names(node):
    names = _NameNodes()
    node.visit(names)
    return names.found


@check
def select_with_slice(ctx) -> None:
    ndd_name = ctx.ndd_alias()
    for call in ctx.nodes_of(cst.Call):
        receiver, _ = method_call(call, "select")
        if receiver is None or len(call.args) != 1 or call.args[0].keyword is not None:
            continue
        if ctx.kind(receiver) not in ("batch", "data"):
            continue
        index = call.args[0].value
        is_slice = isinstance(index, cst.Call) and _builtin(ctx, index.func, "slice") and not any(
            a.keyword or a.star for a in index.args)
        if not (is_slice or isinstance(index, (cst.List, cst.Tuple, cst.ListComp))
                or (isinstance(index, cst.Call) and _builtin(ctx, index.func, "range"))):
            continue
        fix = _subset_fix(receiver, index, ndd_name) if ndd_name else None
        ctx.report(SELECT_WITH_SLICE.id, call,
                   f"{code(receiver)}.select({code(index)}) returns the whole batch in DALI 2.4.0; build "
                   f"the subset with ndd.as_batch([{code(receiver)}.select(i) for i in ...])", fix=fix)


_NUMPY_CONVERTERS = {"numpy.asarray", "numpy.array", "numpy.asanyarray", "numpy.ascontiguousarray"}


@check
def asarray_batch(ctx) -> None:
    ndd_name = ctx.ndd_alias()
    for call in ctx.nodes_of(cst.Call):
        if ctx.imports.qualname(call.func) not in _NUMPY_CONVERTERS or not call.args:
            continue
        first = call.args[0]
        if first.keyword is not None or first.star or ctx.kind(first.value) != "batch":
            continue
        fix = None
        if ndd_name:
            def fix(node, ndd_name=ndd_name):
                wrapped = cst.parse_expression(f"{ndd_name}.as_tensor(x)").with_changes(
                    args=[cst.Arg(node.args[0].value)])
                return node.with_changes(args=[node.args[0].with_changes(value=wrapped), *node.args[1:]])
        ctx.report(ASARRAY_BATCH.id, call,
                   f"{code(call.func)}() of a Batch silently gives a 0-d object array: use "
                   f"{code(call.func)}(ndd.as_tensor({code(first.value)})) (pad=True if ragged)", fix=fix)


def _truth_tested(expr):
    if isinstance(expr, cst.BooleanOperation):
        yield from _truth_tested(expr.left)
        yield from _truth_tested(expr.right)
    elif isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Not):
        yield from _truth_tested(expr.expression)
    else:
        yield expr


@check
def if_on_batch(ctx) -> None:
    tests = []
    for node in ctx.nodes_of(cst.If, cst.While, cst.IfExp, cst.Assert):
        tests.append(node.test)
    for call in ctx.nodes_of(cst.Call):
        if _builtin(ctx, call.func, "bool") and len(call.args) == 1:
            tests.append(call.args[0].value)
    for test in tests:
        for expr in _truth_tested(test):
            kind = ctx.kind(expr)
            if not is_data(kind):
                continue
            what = {"batch": "a Batch", "tensor": "a Tensor"}.get(kind, "a Batch/Tensor")
            hint = "use .item()" if kind == "tensor" else \
                "pass the Batch as a per-sample argument or blend with arithmetic"
            ctx.report(IF_ON_BATCH.id, expr,
                       f"the truth value of {what} ({code(expr)}) is always True; {hint}")
