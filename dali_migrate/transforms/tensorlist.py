"""TensorList -> Batch: the pipeline-output API on values proven to come from DALI.

Before::

    images, labels = pipe.run()
    first = images.as_cpu().at(0)
    n = len(labels)
    shapes = images.shape()
    dense = labels.as_array()
    ...
    @pipeline_def
    def pipe():
        xy = fn.random.uniform(range=(0, 1), shape=2)
        return fn.crop(images, crop_pos_x=xy[0], crop_pos_y=xy[1])

After::

    images, labels = pipe.run()
    first = np.array(images.cpu().select(0))
    n = labels.batch_size
    shapes = images.shape
    dense = np.array(ndd.as_tensor(labels))
    ...
    @pipeline_def
    def pipe():
        xy = fn.random.uniform(range=(0, 1), shape=2)
        return fn.crop(images, crop_pos_x=xy.slice[0], crop_pos_y=xy.slice[1])

The pass runs first, while ``pipe.run()`` still says which values are pipeline outputs; the
value-kind analysis (``dataflow.py``) follows names through assignments, unpacking, loops and
indexing. What it cannot prove is DALI is left alone (a pandas ``df.at[...]`` is never touched).

Faithfulness (every claim checked against DALI 2.4.0, see docs/dali-facts.md):

* ``tl.at(i)`` returns a fresh, writable numpy copy; ``batch.select(i)`` returns an ndd Tensor and
  ``np.asarray`` of it is a view into DALI's memory. So ``tl.at(i)`` becomes
  ``np.array(tl.select(i))`` (a copy again); ``np.asarray(tl.at(i))`` and ``np.array(tl.at(i))``
  become that same single call. ``tl.as_array()`` and ``np.asarray(tl)`` are copies too and become
  ``np.array(ndd.as_tensor(tl))`` (``np.asarray`` of a Batch would silently be a 0-d object array).
* ``tl.shape()`` and ``batch.shape`` are the same list of tuples; ``tl.layout()`` is ``""`` when
  there is no layout where ``batch.layout`` is ``None``, hence ``(tl.layout or "")``.
* ``tl[i]`` (a TensorCPU) becomes ``tl.select(i)`` (an ndd Tensor); on that sample ``t.shape()``
  (a list) becomes ``list(t.shape)`` (the property is a tuple) and ``t.layout()`` as above.
* On a GPU output ``tl.at(i)`` returned a TensorGPU; ``np.array(batch.select(i))`` raises there
  (loudly) instead: use ``batch.select(i).torch()`` for GPU data.
"""

from __future__ import annotations

import libcst as cst

from ..source import code_for_node
from ..findings import rule
from ..names import FN, MATH, NDD, OPS, free_name
from .. import dataflow as df
from .. import optable
from .base import MigrationTransformer, Pass, names_in
from .imports import numpy_name, request_numpy
from .leftovers import PIPELINE_MODE_LEFT
from ..walk import walk

AT_TO_SELECT = rule(
    "DM120", "tensorlist-at", "info",
    "A pipeline output's tl.at(i) becomes np.array(batch.select(i)): the same fresh numpy copy.",
    "ndd.Batch has no at(); select(i) returns an ndd Tensor, whose np.asarray would be a view of "
    "DALI's memory, so np.array keeps at()'s copy semantics.",
    before="images, labels = pipe.run()\nfirst = images.at(0)",
    after="images, labels = pipe.run()\nfirst = np.array(images.select(0))",
)
TENSORLIST_API = rule(
    "DM121", "tensorlist-api", "info",
    "TensorList methods on a pipeline output become their Batch counterparts.",
    "ndd.Batch replaces TensorList: as_cpu() is cpu(), len() is batch_size, shape()/layout()/ndim() "
    "are properties, as_array()/as_tensor() go through ndd.as_tensor, tl[i] is select(i), is_dense_tensor() is "
    "whether every sample has the same shape (a pipeline's outputs are contiguous).",
    before="images = images.as_cpu()\nn = len(images)\nshapes = images.shape()\narr = images.as_array()",
    after="images = images.cpu()\nn = images.batch_size\nshapes = images.shape\n"
          "arr = np.array(ndd.as_tensor(images))",
)
TENSORLIST_NO_COUNTERPART = rule(
    "DM122", "tensorlist-no-counterpart", "warning",
    "A TensorList/TensorCPU method with no faithful Batch/Tensor counterpart is left and marked.",
    "ndd.Batch has no as_reshaped_tensor, copy_to_external, data_ptr, set_layout, "
    "...; its dtype is an ndd.DType that raises when compared with a types.DALIDataType. (A copy_to_external "
    "through ctypes.c_void_p(t.data_ptr()) of a torch tensor t is rewritten, DM121; is_dense_tensor() is "
    "whether the samples share a shape, DM121.)",
    before="flat = images.as_reshaped_tensor([-1])",
    after="# dali-migrate: DM122 ...\nflat = images.as_reshaped_tensor([-1])",
    fix="manual",
    suggestion="Use the Batch API: batch.shape, ndd.as_tensor(batch, pad=True), batch.torch(), "
               "compare batch.dtype with ndd.float32 etc.",
)
TENSORLIST_SLICE = rule(
    "DM123", "tensorlist-slice", "warning",
    "Slicing a pipeline output (tl[a:b]) is marked: Batch.select(slice) is broken in DALI 2.4.0.",
    "Batch.select(slice|list) returns the whole batch in 2.4.0 (and TensorListCPU slicing crashes "
    "the interpreter in pipeline mode).",
    before="head = images[0:2]",
    after="# dali-migrate: DM123 ...\nhead = images[0:2]",
    fix="manual",
    suggestion="ndd.as_batch([batch.select(i) for i in range(a, b)])",
)
DATANODE_SUBSCRIPT = rule(
    "DM124", "datanode-subscript", "info",
    "Indexing a graph value (x[0], x[:, 1:]) becomes per-sample slicing x.slice[...].",
    "In pipeline mode a DataNode subscript indexes inside every sample; an ndd.Batch has no "
    "__getitem__ and uses .slice[...] for that (verified equal).",
    before="xy = fn.random.uniform(range=(0, 1), shape=2)\nx = xy[0]",
    after="xy = fn.random.uniform(range=(0, 1), shape=2)\nx = xy.slice[0]",
)
DATANODE_SUBSCRIPT_DIFFERS = rule(
    "DM129", "datanode-subscript-differs", "warning",
    "Indexing a graph value with an Ellipsis (x[..., 0]) is marked: pipeline mode raises where dynamic mode slices.",
    "DALI 2.4.0's DataNode.__getitem__ raises NotImplementedError (Ellipsis in indexing is not implemented) when the "
    "graph is defined; ndd's batch.slice[..., 0] gives the slice. Every other index (ints, negative ints, ranges, "
    "steps, negative steps, out-of-range bounds, None, DataNode indices) gives the same in both modes (verified, "
    "docs/dali-facts.md).",
    before="last = data[..., -1]",
    after="# dali-migrate: DM129 x[..., i]: pipeline mode raises NotImplementedError ...\nlast = data[..., -1]",
    fix="manual",
    suggestion="Spell the leading dimensions out (data[:, :, -1]) where the rank is known; then run dali-migrate "
               "again.",
)
DATANODE_SHAPE = rule(
    "DM125", "datanode-shape", "warning",
    "DataNode.shape() with arguments besides dtype= and a literal device=, or on an expression that cannot be bound "
    "to a name first (inside a conditional expression, a lambda or a comprehension), is marked (DM127 rewrites "
    "the others).",
    "batch.shape is a Python list of tuples, not a Batch: ndd.as_batch(x.shape, ...) is the Batch of shapes, "
    "and it reads x twice, so an expression is first bound to a name before its statement; where that would "
    "evaluate it when the original did not, it stays (only the private ndd._shape(batch) is an operator).",
    before="shape = images.shape()",
    after="# dali-migrate: DM125 ...\nshape = images.shape()",
    fix="manual",
    suggestion="Use batch.shape (a list of tuples) in Python code, or ndd.as_batch(batch.shape) "
               "where a Batch of shapes is needed.",
)
SHAPES = rule(
    "DM127", "datanode-shapes", "info",
    "fn.shapes(x) and x.shape() in a pipeline graph become ndd.as_batch(x.shape, dtype=...): a Batch of each "
    "sample's shape.",
    "Dynamic mode has no shapes operator; batch.shape is the list of the samples' shapes, and as_batch of it "
    "gives what the operator gave (verified on DALI 2.4.0): one 1-D sample per sample, int64 unless dtype= says "
    "otherwise, no layout; on the input's device for fn.shapes (hence device=x.device), on the CPU for x.shape(). "
    "An input that is an expression is read twice, so it is first bound to a fresh name (shapes_input) in a "
    "statement before the one that uses it.",
    before="audio_shape = fn.shapes(audio, dtype=types.INT32)\nsize = images.shape()\n"
           "length = fn.shapes(fn.reshape(audio, shape=[-1]))",
    after="audio_shape = ndd.as_batch(audio.shape, dtype=types.INT32, device=audio.device)\n"
          "size = ndd.as_batch(images.shape, dtype=ndd.int64)\nshapes_input = ndd.reshape(audio, shape=[-1])\n"
          "length = ndd.as_batch(shapes_input.shape, dtype=ndd.int64, device=shapes_input.device)",
)

LIST_INPUT = rule(
    "DM126", "op-over-list", "info",
    "An operator given a list of DataNodes becomes one call per element (a list comprehension).",
    "Pipeline mode applies an operator to each DataNode of a list input and returns a list; dynamic-mode "
    "operators take one Batch and raise TypeError on a list (verified on DALI 2.4.0).",
    before="views = fn.resize([left, right], resize_x=8)",
    after="views = [ndd.resize(view, resize_x=8) for view in [left, right]]",
)
_NUMPY_COPIES = ("numpy.array", "numpy.asarray")
# DALI's own test helper (dali/test/python/test_utils.py), imported by its tests as a top-level module:
# ``to_array(x)`` is a fresh numpy copy of a TensorList (``as_cpu().as_array()``) or of one sample
# (``np.array(t.as_cpu())``), CPU or GPU.
DALI_TEST_TO_ARRAY = "test_utils.to_array"
# Batch/Tensor have no counterpart for these TensorList/TensorCPU methods.
_NO_COUNTERPART = {"as_reshaped_tensor", "is_dense_tensor", "copy_to_external", "data_ptr", "reset",
                   "set_layout", "broadcast", "reinterpret", "squeeze", "source_info", "get_property",
                   "stream", "device_id", "from_dlpack_list"}


def _call(func: cst.BaseExpression, *args: cst.BaseExpression) -> cst.Call:
    return cst.Call(func=func, args=[cst.Arg(a) for a in args])


def _attr(value: cst.BaseExpression, name: str) -> cst.Attribute:
    return cst.Attribute(value=value, attr=cst.Name(name))


def _one_shape(batch: cst.BaseExpression) -> cst.Comparison:
    """``(len({tuple(shape) for shape in batch.shape}) <= 1)``: TensorList.is_dense_tensor() on a pipeline's output
    (contiguous, docs/dali-facts.md), true when no two samples differ in shape (an empty batch too, as is_uniform
    says); in parentheses, so that it stays one operand wherever the call stood (``x.is_dense_tensor() == y``)."""
    shapes = cst.SetComp(elt=_call(cst.Name("tuple"), cst.Name("shape")),
                         for_in=cst.CompFor(target=cst.Name("shape"), iter=_attr(batch, "shape")))
    return cst.Comparison(left=_call(cst.Name("len"), shapes), comparisons=[cst.ComparisonTarget(
        operator=cst.LessThanEqual(), comparator=cst.Integer("1"))], lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _keyword(name: str, value: cst.BaseExpression) -> cst.Arg:
    return cst.Arg(value, keyword=cst.Name(name), equal=cst.AssignEqual(
        whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")))


def _no_args(call: cst.Call) -> bool:
    return not call.args


def _one_positional(call: cst.Call) -> bool:
    return len(call.args) == 1 and call.args[0].keyword is None and not call.args[0].star


def _keep_parens(original: cst.BaseExpression, new: cst.BaseExpression) -> cst.BaseExpression:
    if original.lpar and not getattr(new, "lpar", None):
        return new.with_changes(lpar=original.lpar, rpar=original.rpar)
    return new


class _TensorList(MigrationTransformer):
    def __init__(self, ctx, flow: df.DataFlow, names_in_use: set[str]):
        super().__init__(ctx)
        self.flow = flow
        self._numpy = numpy_name(ctx, names_in_use)
        self._names_in_use = names_in_use
        self._fresh_copies: set[cst.CSTNode] = set()  # original at()/as_array() calls we rewrote
        self._bare: set[cst.CSTNode] = set()  # expressions that need no parentheses where they are
        self._called: set[cst.CSTNode] = set()
        self._torch_dtypes: set[cst.Attribute] = set()  # x.dtype in to_torch_type[x.dtype] (leave_Subscript)
        self._fstring_quotes: list[str] = []  # the opening quotes of the f-strings around the node
        # data.copy_to_external(ctypes.c_void_p(t.data_ptr())) -> t (the torch tensor), and the pointer
        # statements that go with them (_PointerCopies)
        found = _PointerCopies(ctx.imports, flow)
        if "copy_to_external" in (getattr(ctx, "source", None) or "copy_to_external"):  # (most modules: no walk)
            walk(flow.module, found)
        self._pointer_copies: dict[cst.Call, cst.BaseExpression] = found.copies
        self._pointer_statements: set[cst.CSTNode] = found.dropped
        self._torch_data = free_name("torch_data", names_in_use)
        # The one-statement line being visited, and the bindings to put before it (_bound_input); None outside
        # such a line. _conditional counts the enclosing expressions that evaluate a part only sometimes.
        self._line: tuple[cst.SimpleStatementLine, list[cst.BaseStatement]] | None = None
        self._conditional = 0

    def relevant_names(self):
        # Rewrites need an expression of a DALI kind, and every such expression mentions a DALI
        # import or a name (variable, self.attribute, pipeline) the analysis gave a DALI kind.
        return self.ctx.imports.dali_locals() | self.flow.dali_names() | {
            local for local, qualname in self.ctx.imports.aliases.items() if qualname == DALI_TEST_TO_ARRAY}

    # -- helpers -----------------------------------------------------------------------------
    def _np(self, name: str) -> cst.Attribute:
        request_numpy(self.ctx, self._numpy)
        return _attr(cst.Name(self._numpy), name)

    def _ndd(self, name: str) -> cst.Attribute:
        self.ctx.facts["uses_ndd"] = True
        self.ctx.imports.aliases.setdefault("ndd", NDD)
        return _attr(cst.Name("ndd"), name)

    def visit_FormattedString(self, node):
        self._fstring_quotes.append(node.start)

    def leave_FormattedString(self, original_node, updated_node):
        self._fstring_quotes.pop()
        return updated_node

    def _kind(self, node) -> str:
        return self.flow.kind_of(node)

    def _of_no_pipeline(self, value) -> bool:
        """A graph value in a statement that belongs to no pipeline (not in one's definition, not in a graph helper
        one calls, touching no pipeline's values: units.py)."""
        units = self.ctx.facts.get("units")
        statement = self.current_statement()
        if units is None or statement is None or self.flow.origins_of(value):
            return False
        return not units.statement_origins.get(statement)

    def _or_empty(self, original, value: cst.BaseExpression) -> cst.BaseExpression:
        """``(x.layout or "")``: TensorList.layout() is "" where Batch.layout is None."""
        # inside an f-string quoted with " (before Python 3.12) the empty string must use the other quote
        empty = "''" if any('"' in quote for quote in self._fstring_quotes) else '""'
        expr = cst.BooleanOperation(left=_attr(value, "layout"), operator=cst.Or(),
                                    right=cst.SimpleString(empty))
        if original in self._bare:
            return expr
        return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])

    # -- statements bound before the line that needs them -------------------------------------------
    def visit_SimpleStatementLine(self, node):
        self._line = (node, []) if len(node.body) == 1 else None

    def leave_SimpleStatementLine(self, original_node, updated_node):
        bindings = self._line[1] if self._line is not None else []
        self._line = None
        updated = self._pointer_copy(original_node, updated_node)
        if not bindings:
            return updated
        statements = list(updated.nodes) if isinstance(updated, cst.FlattenSentinel) else [updated]
        bindings[0] = bindings[0].with_changes(leading_lines=statements[0].leading_lines)
        return cst.FlattenSentinel([*bindings, statements[0].with_changes(leading_lines=[]), *statements[1:]])

    def _enter_conditional(self, node):
        self._conditional += 1

    def _leave_conditional(self, original_node, updated_node):
        self._conditional -= 1
        return updated_node

    visit_Lambda = visit_BooleanOperation = visit_ListComp = visit_SetComp = visit_DictComp = \
        visit_GeneratorExp = _enter_conditional
    leave_Lambda = leave_BooleanOperation = leave_ListComp = leave_SetComp = leave_DictComp = \
        leave_GeneratorExp = _leave_conditional

    def visit_IfExp(self, node):
        self._conditional += 1

    def _bound_input(self, value: cst.BaseExpression) -> cst.Name | None:
        """``value`` bound to a fresh name in a statement before the current line (it is evaluated first, once,
        as it was), or None where that would change what runs: not on a one-statement line, or inside an
        expression that evaluates it only sometimes (a conditional, a lambda, a comprehension)."""
        if self._line is None or self._conditional:
            return None
        name = free_name("shapes_input", self._names_in_use)
        self._names_in_use.add(name)
        self._line[1].append(cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(name))], value)]))
        return cst.Name(name)

    # -- where parentheses are not needed ---------------------------------------------------------
    def visit_Arg(self, node):
        self._bare.add(node.value)

    def visit_Assign(self, node):
        self._bare.add(node.value)

    def visit_Return(self, node):
        if node.value is not None:
            self._bare.add(node.value)

    def visit_Call(self, node):
        self._called.add(node.func)

    def visit_Subscript(self, node):
        dtype = self._torch_type_of(node)
        if dtype is not None:
            self._torch_dtypes.add(dtype)

    def _torch_type_of(self, node: cst.Subscript) -> cst.Attribute | None:
        """``to_torch_type[x.dtype]`` on a pipeline output sample (a Tensor once migrated): the ``x.dtype``."""
        if self.ctx.imports.qualname(node.value) != TO_TORCH_TYPE or len(node.slice) != 1:
            return None
        index = node.slice[0].slice
        dtype = index.value if isinstance(index, cst.Index) and index.star is None else None
        if isinstance(dtype, cst.Attribute) and dtype.attr.value == "dtype" and self._kind(dtype.value) == df.TENSORCPU:
            return dtype
        return None

    # -- rewrites ----------------------------------------------------------------------------
    def leave_If(self, original_node, updated_node):
        return self._truth_test(original_node, updated_node)

    def leave_While(self, original_node, updated_node):
        return self._truth_test(original_node, updated_node)

    def leave_IfExp(self, original_node, updated_node):
        self._conditional -= 1
        return self._truth_test(original_node, updated_node)

    def _truth_test(self, original, updated):
        """``if outputs:`` on a name that holds a never-empty TensorList or None (an optional argument) ->
        ``if outputs is not None:`` (``not outputs`` -> ``outputs is None``). The truth of such a TensorList
        (len() > 0) is True, as a Batch's always is, so the test computes the same; spelled with ``is``, it
        says what it tests, and the linter's DM307 (a Batch's truth) does not apply."""
        test, negated = original.test, False
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not) and not test.lpar:
            test, negated = test.expression, True
        if not isinstance(test, cst.Name) or test.lpar:
            return updated
        kind, origins = self.flow.value_of(test)
        if kind != df.TENSORLIST or not self.flow.never_empty(origins):
            return updated
        operator = cst.Is() if negated else cst.IsNot()
        new_test = cst.Comparison(left=cst.Name(test.value),
                                  comparisons=[cst.ComparisonTarget(operator=operator, comparator=cst.Name("None"))])
        self.report(TENSORLIST_API.id, f"the truth of {test.value} (a TensorList that is never empty, or None) -> "
                                       f"{code_for_node(new_test)}", original)
        return updated.with_changes(test=new_test)

    def _plain_feed(self, call: cst.Call) -> bool:
        """``feed_ndarray(data, t)``, or with ``cuda_stream=torch.cuda.current_stream()`` (by keyword or third): the
        plugin then copied on PyTorch's current stream, where ``t.copy_(data.torch())`` copies too (``torch()`` makes
        that stream wait for the data: docs/dali-facts.md)."""
        args = list(call.args)
        if any(a.star for a in args) or len(args) not in (2, 3) or any(a.keyword is not None for a in args[:2]):
            return False
        if len(args) == 3:
            stream = args[2]
            if stream.keyword is not None and stream.keyword.value != "cuda_stream":
                return False
            value = stream.value
            if not (isinstance(value, cst.Call) and not value.args
                    and self.ctx.imports.qualname(value.func) == "torch.cuda.current_stream"):
                return False
        return True

    def leave_Call(self, original_node, updated_node):
        func = original_node.func
        listed = self._list_input(original_node, updated_node)
        if listed is not None:
            return listed
        if isinstance(func, cst.Attribute):
            new = self._method_call(original_node, updated_node)
            if new is not None:
                return _keep_parens(original_node, new)
        qualname = self.ctx.imports.qualname(func)
        if isinstance(func, cst.Name) and func.value == "len" and _one_positional(original_node) \
                and self.flow.is_builtin(func) and self._kind(original_node.args[0].value) == df.TENSORLIST:
            self.report(TENSORLIST_API.id, "len(TensorList) -> Batch.batch_size", original_node)
            return _keep_parens(original_node, _attr(updated_node.args[0].value, "batch_size"))
        if qualname == FEED_NDARRAY and self._plain_feed(original_node) \
                and self._kind(original_node.args[0].value) == df.TENSORCPU:
            # The plugin copied the DALI tensor into the torch tensor's memory (same dtype and shape, or an
            # assertion); copy_ writes into the same tensor, on its device, and returns it as feed_ndarray did.
            # Not a TensorList: its shape() (a list of shapes) never passed the plugin's shape assertion.
            data, target = (a.value for a in updated_node.args[:2])
            self.report(TENSORLIST_API.id, "feed_ndarray(data, t) -> t.copy_(data.torch()): a copy into t, which "
                        "keeps its dtype and device (where feed_ndarray asserted the same dtype and size, copy_ "
                        "converts and broadcasts)", original_node)
            return _keep_parens(original_node, cst.Call(func=_attr(target, "copy_"),
                                                        args=[cst.Arg(cst.Call(func=_attr(data, "torch")))]))
        if qualname == f"{FN}.shapes":
            new = self._shapes(original_node, updated_node)
            if new is not None:
                return _keep_parens(original_node, new)
        if qualname == DALI_TEST_TO_ARRAY and _one_positional(original_node):
            new = self._to_array(original_node, updated_node.args[0].value)
            if new is not None:
                return _keep_parens(original_node, new)
        if qualname in _NUMPY_COPIES and _one_positional(original_node):
            arg = original_node.args[0].value
            if arg in self._fresh_copies:
                # np.asarray(tl.at(i)) -> np.array(tl.select(i)): the inner call is already the copy.
                return _keep_parens(original_node, updated_node.args[0].value)
            if self._kind(arg) == df.TENSORLIST:
                self.report(TENSORLIST_API.id,
                            f"{qualname.replace('numpy', 'np')}(TensorList) -> np.array(ndd.as_tensor(batch)): "
                            "np.asarray of a Batch would be a 0-d object array", original_node)
                new = _call(self._np("array"), _call(self._ndd("as_tensor"), updated_node.args[0].value))
                return _keep_parens(original_node, new)
        return updated_node

    def _pointer_copy(self, original_node, updated_node):
        """``data.copy_to_external(ctypes.c_void_p(t.data_ptr()))`` -> ``torch_data = data.torch()`` and
        ``t.view(torch_data.dtype).view_as(torch_data).copy_(torch_data)``: copy_to_external wrote the data's raw
        bytes at the pointer, unconverted, whatever t's dtype and shape (verified, docs/dali-facts.md); t viewed
        as the data's dtype and shape takes the same bytes in the same memory."""
        call = _expression_call(original_node)
        if call is None or call not in self._pointer_copies:
            return updated_node
        target = self._pointer_copies[call]
        data = updated_node.body[0].value.func.value
        kind = "TensorList" if self._kind(call.func.value) == df.TENSORLIST else "TensorCPU"
        name = cst.Name(self._torch_data)
        as_torch = cst.SimpleStatementLine(
            body=[cst.Assign(targets=[cst.AssignTarget(name)], value=cst.Call(func=_attr(data, "torch")))],
            leading_lines=updated_node.leading_lines)
        viewed = _call(_attr(_call(_attr(target, "view"), _attr(name, "dtype")), "view_as"), name)
        copy = updated_node.with_changes(body=[cst.Expr(_call(_attr(viewed, "copy_"), name))], leading_lines=[])
        self.report(TENSORLIST_API.id, f"{kind}.copy_to_external(pointer to {code_for_node(target)}) -> "
                    f"{code_for_node(target)}.view({name.value}.dtype).view_as({name.value}).copy_({name.value}) "
                    "(the data as torch): the same bytes, unconverted, into the same memory; where that tensor holds "
                    "another number of bytes than the data (copy_to_external wrote a prefix of it, or past its end), "
                    "is not contiguous, or the batch is not dense, this raises instead", call)
        self.ctx.facts.setdefault("prune_if_unused", set()).add("ctypes")  # its import goes if nothing else uses it
        return cst.FlattenSentinel([as_torch, copy])

    def leave_IndentedBlock(self, original_node, updated_node):
        return self._without_pointers(original_node, updated_node)

    def leave_Module(self, original_node, updated_node):
        return self._without_pointers(original_node, updated_node)

    def _without_pointers(self, original_node, updated_node):
        """The ``ptr = ctypes.c_void_p(t.data_ptr())`` statements whose pointer only rewritten copies read."""
        if not self._pointer_statements.intersection(updated_node.body):
            return updated_node
        body, leading = [], []
        for after in updated_node.body:  # (an unchanged statement is the original node)
            if after in self._pointer_statements:
                leading.extend(after.leading_lines)  # its comments stay, above the next statement
                continue
            if leading:
                after = after.with_changes(leading_lines=[*leading, *after.leading_lines])
                leading = []
            body.append(after)
        return updated_node.with_changes(body=body)

    def _shapes(self, original, updated):
        """``fn.shapes(x, dtype=D, device=...)`` -> ``ndd.as_batch(x.shape, dtype=D, device=x.device)``."""
        positional = [a for a in original.args if a.keyword is None]
        if len(positional) != 1 or positional[0].star:
            return None
        index = original.args.index(positional[0])
        keywords = [a for a in original.args if a.keyword is not None]
        return self._shape_batch(original, positional[0].value, updated.args[index].value, keywords, None)

    def _shape_batch(self, original, data, value, keywords, device_default):
        """A Batch of the shapes of ``data`` (``value`` once rewritten), from the keywords of fn.shapes or
        DataNode.shape: ``dtype`` (int64 when absent) and ``device`` (a literal; absent: ``device_default``,
        or the data's own device where that is None). None when they say more than that. ``data`` is read
        twice (its shape and its device), so an expression (``fn.shapes(fn.reshape(x, shape=[-1]))``) is first
        bound to a fresh name before the statement (None where it cannot be, see ``_bound_input``)."""
        if any(a.star or a.keyword is None or a.keyword.value not in ("dtype", "device") for a in keywords):
            return None
        given = {a.keyword.value: a.value for a in keywords}
        device = given.get("device")
        if device is not None:
            if not isinstance(device, cst.SimpleString) or device.evaluated_value not in ("cpu", "gpu"):
                return None
            device_default = device.evaluated_value
        if not isinstance(data, (cst.Name, cst.Attribute)):
            value = self._bound_input(value)
            if value is None:
                return None
        dtype = given.get("dtype", self._ndd("int64"))
        args = [cst.Arg(_attr(value, "shape")), _keyword("dtype", dtype)]
        if device_default is None:
            args.append(_keyword("device", _attr(value, "device")))
        elif device_default == "gpu":
            args.append(_keyword("device", cst.SimpleString('"gpu"')))
        new = cst.Call(func=self._ndd("as_batch"), args=args)
        self.report(SHAPES.id, f"{code_for_node(original)} -> {code_for_node(new)}", original)
        return new

    def _to_array(self, original, value):
        """``test_utils.to_array(x)`` -> the same numpy copy from the Batch (``np.array(ndd.as_tensor(x.cpu()))``)
        or the Tensor (``np.array(x.cpu())``): ``.cpu()`` does what its ``as_cpu()`` did for GPU data."""
        kind = self._kind(original.args[0].value)
        if kind == df.TENSORLIST:
            self.report(TENSORLIST_API.id, "test_utils.to_array(TensorList) (DALI's test helper: a numpy copy) -> "
                        "np.array(ndd.as_tensor(batch.cpu()))", original)
            return _call(self._np("array"), _call(self._ndd("as_tensor"), cst.Call(func=_attr(value, "cpu"))))
        if kind == df.TENSORCPU:
            self.report(TENSORLIST_API.id, "test_utils.to_array(sample) (DALI's test helper: a numpy copy) -> "
                        "np.array(tensor.cpu())", original)
            return _call(self._np("array"), cst.Call(func=_attr(value, "cpu")))
        if not df.is_literal(original.args[0].value):
            # Its argument is a pipeline output by its very purpose, from a pipeline the tool cannot see.
            self.mark(PIPELINE_MODE_LEFT.id, "test_utils.to_array (DALI's test helper over pipeline outputs) gets "
                      f"{code_for_node(original.args[0].value)}, which the tool cannot trace to a pipeline: if it is "
                      "a Batch once migrated, write np.array(ndd.as_tensor(x.cpu())) (a sample: np.array(x.cpu()))",
                      original)
        return None

    def _list_input(self, original, updated):
        """``fn.op([a, b], ...)`` -> ``[fn.op(x, ...) for x in [a, b]]``: pipeline mode maps an op over a list
        of DataNodes, dynamic-mode ops take one Batch (TypeError on a list). A list of one (``[a]``, an
        ``external_source(..., num_outputs=1)``) gives what one call gives: ``fn.op(a)``, ``fn.op(xs[0])``. An op
        of several outputs over several DataNodes gives a list per output (``ops._repack_output_sets``)."""
        qualname = self.ctx.imports.qualname(original.func)
        if qualname is None or not qualname.startswith(FN + "."):
            return None
        arg = self.flow.list_input(original)
        if arg is None or not isinstance(arg, cst.Arg):
            return None
        index = original.args.index(arg)
        args = list(updated.args)
        listed = args[index].value
        name = qualname.replace('nvidia.dali.', '')
        if self.flow.list_length(arg.value) == 1:
            only = listed.elements[0].value if isinstance(listed, cst.List) else cst.Subscript(
                value=listed, slice=[cst.SubscriptElement(cst.Index(cst.Integer("0")))])
            args[index] = args[index].with_changes(value=only)
            self.report(LIST_INPUT.id, f"{name} over a list of one DataNode -> the call on that one: pipeline mode "
                        f"gives what one call gives, dynamic-mode operators take one Batch", original)
            return updated.with_changes(args=args)
        item = free_name("view", self._names_in_use)
        args[index] = args[index].with_changes(value=cst.Name(item))
        each = cst.ListComp(elt=updated.with_changes(args=args), for_in=cst.CompFor(target=cst.Name(item), iter=listed))
        _, _, entry = optable.resolve_fn(qualname[len(FN) + 1:])
        outputs = entry.get("outputs") if entry else None
        if isinstance(outputs, int) and outputs > 1:
            group = free_name("outputs", self._names_in_use | {item})
            self.report(LIST_INPUT.id, f"{name} (several outputs) over a list of DataNodes -> one call per element, "
                        f"regrouped into one list per output as pipeline mode does", original)
            return cst.ListComp(
                elt=_call(cst.Name("list"), cst.Name(group)),
                for_in=cst.CompFor(target=cst.Name(group), iter=cst.Call(
                    func=cst.Name("zip"), args=[cst.Arg(each, star="*")])))
        self.report(LIST_INPUT.id, f"{name} over a list of DataNodes -> one call per "
                    f"element: dynamic-mode operators take one Batch", original)
        return each

    def _method_call(self, original, updated):
        func = original.func
        method = func.attr.value
        kind = self._kind(func.value)
        value = updated.func.value
        if kind == df.TENSORLIST:
            if method == "at" and _one_positional(original):
                self._fresh_copies.add(original)
                self.report(AT_TO_SELECT.id, "TensorList.at(i) -> np.array(Batch.select(i))", original)
                return _call(self._np("array"), cst.Call(func=_attr(value, "select"), args=updated.args))
            if _no_args(original):
                if method == "as_cpu":
                    self.report(TENSORLIST_API.id, "TensorList.as_cpu() -> Batch.cpu()", original)
                    return cst.Call(func=_attr(value, "cpu"))
                if method == "as_array":
                    self._fresh_copies.add(original)
                    self.report(TENSORLIST_API.id, "TensorList.as_array() -> np.array(ndd.as_tensor(batch))",
                                original)
                    return _call(self._np("array"), _call(self._ndd("as_tensor"), value))
                if method == "as_tensor":
                    self.report(TENSORLIST_API.id, "TensorList.as_tensor() -> ndd.as_tensor(batch)", original)
                    return _call(self._ndd("as_tensor"), value)
                if method in ("shape", "ndim"):
                    self.report(TENSORLIST_API.id, f"TensorList.{method}() -> Batch.{method} (a property)",
                                original)
                    return _attr(value, method)
                if method == "layout":
                    self.report(TENSORLIST_API.id, 'TensorList.layout() -> (Batch.layout or ""): '
                                "the property is None where the method gave \"\"", original)
                    return self._or_empty(original, value)
                if method == "is_dense_tensor":
                    self.report(TENSORLIST_API.id, "TensorList.is_dense_tensor() -> (len({tuple(shape) for shape in "
                                "batch.shape}) <= 1): a pipeline's outputs are contiguous (it ends each with "
                                "MakeContiguous), so only a shape every sample shares makes one dense", original)
                    return _one_shape(value)
            if original in self._pointer_copies:
                return None  # the whole statement is rewritten (leave_SimpleStatementLine)
            if method in _NO_COUNTERPART:
                self.mark(TENSORLIST_NO_COUNTERPART.id,
                          f"TensorList.{method}() has no ndd.Batch counterpart: rewrite with the Batch API "
                          "(batch.shape, ndd.as_tensor(batch, pad=True), batch.torch())" + _COPY_HINT.get(method, ""),
                          original)
            return None
        if kind == df.TENSORCPU:
            if _no_args(original):
                if method == "as_cpu":
                    self.report(TENSORLIST_API.id, "Tensor.as_cpu() -> Tensor.cpu()", original)
                    return cst.Call(func=_attr(value, "cpu"))
                if method == "shape":
                    self.report(TENSORLIST_API.id, "TensorCPU.shape() -> list(Tensor.shape): "
                                "the property is a tuple where the method gave a list", original)
                    return _call(cst.Name("list"), _attr(value, "shape"))
                if method == "ndim":
                    self.report(TENSORLIST_API.id, "TensorCPU.ndim() -> Tensor.ndim (a property)", original)
                    return _attr(value, "ndim")
                if method == "layout":
                    self.report(TENSORLIST_API.id, 'TensorCPU.layout() -> (Tensor.layout or "")', original)
                    return self._or_empty(original, value)
            if original in self._pointer_copies:
                return None  # the whole statement is rewritten (leave_SimpleStatementLine)
            if method in _NO_COUNTERPART:
                self.mark(TENSORLIST_NO_COUNTERPART.id,
                          f"TensorCPU.{method}() has no ndd.Tensor counterpart" + _COPY_HINT.get(method, ""), original)
            return None
        if kind == df.DATANODE and method == "shape":
            new = self._shape_batch(original, original.func.value, value, original.args, "cpu")
            if new is not None:
                return new
            self.mark(DATANODE_SHAPE.id,
                      "DataNode.shape() is a per-sample graph value; in dynamic mode batch.shape is a "
                      "Python list of tuples: bind the data to a name x where it is always computed, then write "
                      "ndd.as_batch(x.shape, dtype=ndd.int64)", original)
        return None

    def leave_Attribute(self, original_node, updated_node):
        if original_node.attr.value == "dtype" and original_node not in self._called \
                and original_node not in self._torch_dtypes \
                and self._kind(original_node.value) in (df.TENSORLIST, df.TENSORCPU):
            self.mark(TENSORLIST_NO_COUNTERPART.id,
                      "Batch.dtype is an ndd.DType: comparing it with a types.DALIDataType raises "
                      "AttributeError; compare with ndd.float32 etc.", original_node)
        return updated_node

    def leave_Subscript(self, original_node, updated_node):
        dtype = self._torch_type_of(original_node)
        if dtype is not None:
            self.report(TENSORLIST_API.id, "to_torch_type[sample.dtype] -> Tensor.torch().dtype: the torch dtype of "
                        "the sample (a view, no copy)", original_node)
            sample = updated_node.slice[0].slice.value.value
            return _attr(cst.Call(func=_attr(sample, "torch")), "dtype")
        kind = self._kind(original_node.value)
        if kind == df.DATANODE and _string_key(original_node):
            return updated_node  # a reader's named outputs (tfrecord features): a dict in both modes
        if kind == df.DATANODE and self._of_no_pipeline(original_node.value):
            # a graph value of no pipeline (types.Constant in a test function, nodes made before `with pipe:`):
            # nothing migrates it, so its subscript stays pipeline mode's
            return updated_node
        if kind == df.DATANODE and _has_ellipsis(original_node):
            self.mark(DATANODE_SUBSCRIPT_DIFFERS.id, "x[..., i]: pipeline mode raises NotImplementedError (Ellipsis in "
                      "indexing is not implemented) where dynamic mode's x.slice[..., i] slices", original_node)
            return updated_node
        if kind == df.DATANODE:
            self.report(DATANODE_SUBSCRIPT.id, "DataNode subscript x[...] -> per-sample x.slice[...]",
                        original_node)
            return updated_node.with_changes(value=_attr(updated_node.value, "slice"))
        if kind == df.TENSORLIST:
            index = original_node.slice
            if len(index) == 1 and isinstance(index[0].slice, cst.Index) and index[0].slice.star is None:
                self.report(TENSORLIST_API.id, "TensorList[i] -> Batch.select(i)", original_node)
                new = cst.Call(func=_attr(updated_node.value, "select"),
                               args=[cst.Arg(updated_node.slice[0].slice.value)])
                return _keep_parens(original_node, new)
            self.mark(TENSORLIST_SLICE.id,
                      "slicing a pipeline output: Batch.select(slice) returns the whole batch in DALI 2.4.0; "
                      "use ndd.as_batch([batch.select(i) for i in range(a, b)])", original_node)
        return updated_node


def _has_ellipsis(node: cst.Subscript) -> bool:
    return any(isinstance(e.slice, cst.Index) and isinstance(e.slice.value, cst.Ellipsis) for e in node.slice)


class _PointerCopies(cst.CSTVisitor):
    """``data.copy_to_external(ptr)`` statements on a pipeline output or sample whose pointer is
    ``ctypes.c_void_p(t.data_ptr())`` (a torch tensor's memory), written in the call or bound to a name by a
    ``name = ...`` statement, its only binding, earlier in the same block: the copy into ``t`` (``copies``:
    call -> t). A pointer statement is ``dropped`` when the rewritten copies are all that read its name. ``t``
    is read where the copy is: the statements between the pointer and the copy must not mention its names."""

    def __init__(self, imports, flow: df.DataFlow):
        super().__init__()
        self.imports, self.flow = imports, flow
        self.copies: dict[cst.Call, cst.BaseExpression] = {}
        self.dropped: set[cst.CSTNode] = set()
        self._pointer_reads: dict[tuple[int, str], list] = {}  # (scope id, pointer name) -> its reads
        self._candidates: list = []  # (pointer statement, (scope id, name), its copies' pointer reads)

    def visit_Module(self, node):
        self._block(node.body)
        for name in self.flow.name_scope:
            owner = self.flow.binding_scope(name)
            if owner is not None:
                self._pointer_reads.setdefault((id(owner), name.value), []).append(name)

    def leave_Module(self, node):
        for statement, key, copies in self._candidates:
            reads = [n for n in self._pointer_reads.get(key, ()) if n not in copies]
            if reads == [statement.body[0].targets[0].target]:  # only the pointer's own target is left
                self.dropped.add(statement)

    def visit_IndentedBlock(self, node):
        self._block(node.body)

    def _block(self, body) -> None:
        for index, statement in enumerate(body):
            call = _expression_call(statement)
            if call is None or not isinstance(call.func, cst.Attribute) or call.func.attr.value != "copy_to_external" \
                    or not _one_positional(call) or self.flow.kind_of(call.func.value) not in (df.TENSORLIST,
                                                                                              df.TENSORCPU):
                continue
            pointer = call.args[0].value
            target = self._target(pointer)
            if target is not None:
                self.copies[call] = target
                continue
            if not isinstance(pointer, cst.Name) or self.flow.single_value(pointer) is None:
                continue
            for earlier in range(index - 1, -1, -1):
                bound = _assigned(body[earlier], pointer.value)
                if bound is None:
                    continue
                target = self._target(bound)
                if target is not None and bound is self.flow.single_value(pointer) and not _mentions(
                        body[earlier + 1:index], names_in(target)):
                    self.copies[call] = target
                    owner = self.flow.binding_scope(pointer)
                    key = (id(owner), pointer.value)
                    entry = next((c for c in self._candidates if c[0] is body[earlier]), None)
                    if entry is None:
                        entry = (body[earlier], key, set())
                        self._candidates.append(entry)
                    entry[2].add(pointer)
                break

    def _target(self, pointer) -> cst.BaseExpression | None:
        """``t`` of ``ctypes.c_void_p(t.data_ptr())``, else None."""
        if not isinstance(pointer, cst.Call) or self.imports.qualname(pointer.func) != "ctypes.c_void_p" \
                or not _one_positional(pointer):
            return None
        inner = pointer.args[0].value
        if isinstance(inner, cst.Call) and isinstance(inner.func, cst.Attribute) \
                and inner.func.attr.value == "data_ptr" and not inner.args:
            return inner.func.value
        return None


def _expression_call(statement) -> cst.Call | None:
    """The call of a statement that is one call and nothing else (``x.f(y)``)."""
    if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 \
            and isinstance(statement.body[0], cst.Expr) and isinstance(statement.body[0].value, cst.Call):
        return statement.body[0].value
    return None


def _assigned(statement, name: str):
    """The value of a one-line ``name = value`` statement, else None."""
    if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 \
            and isinstance(statement.body[0], cst.Assign) and len(statement.body[0].targets) == 1:
        target = statement.body[0].targets[0].target
        if isinstance(target, cst.Name) and target.value == name:
            return statement.body[0].value
    return None


def _mentions(statements, names: set[str]) -> bool:
    return any(not names_in(statement).isdisjoint(names) for statement in statements)


TO_TORCH_TYPE = "nvidia.dali.plugin.pytorch.to_torch_type"
# A copy through a raw pointer (a feed_ndarray of the program's own): what to write in dynamic mode.
_COPY_HINT = {"copy_to_external": "; its pointer is not ctypes.c_void_p(t.data_ptr()) of a torch tensor t made in the "
                                  "call or in the statement before it (t not rebound between): the same copy into t is "
                                  "d = data.torch(); t.view(d.dtype).view_as(d).copy_(d) (raw bytes, unconverted)"}
FEED_NDARRAY = "nvidia.dali.plugin.pytorch.feed_ndarray"


def _given_outputs(ctx) -> bool:
    """Project mode: a module that imports no DALI may hold outputs of pipelines it imports from other modules, or
    that other modules pass to its functions."""
    flow = ctx.facts.get("flow")
    return flow is not None and bool(flow.seeded or flow.extra_imported)


class TensorListPass(Pass):
    name = "tensorlist"

    def applies(self, ctx):
        return any(q.startswith((FN, OPS, MATH, df.PIPELINE_DEF, df.PIPELINE_CLASS, "nvidia.dali.pipeline",
                                 "nvidia.dali.types"))
                   or q in ("nvidia", "nvidia.dali") for q in ctx.imports.aliases.values()) or _given_outputs(ctx)

    def run(self, module, ctx):
        flow = ctx.facts.get("flow") or df.DataFlow(module, ctx.imports)  # the engine's model of the module
        if not flow.calls_dali and not (flow.seeded or flow.extra_imported):
            return module  # nothing can hold a pipeline, an output or a DataNode
        names_in_use = {n.value for n in flow.name_scope}
        from .base import run_transformer
        return run_transformer(module, _TensorList(ctx, flow, names_in_use))


def _string_key(node: cst.Subscript) -> bool:
    """``x["key"]``: a DataNode takes no string index, so ``x`` is a dict of them."""
    index = node.slice[0].slice if len(node.slice) == 1 else None
    return isinstance(index, cst.Index) and isinstance(index.value, (cst.SimpleString, cst.ConcatenatedString,
                                                                     cst.FormattedString))
