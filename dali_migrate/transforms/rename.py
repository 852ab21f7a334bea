"""fn -> ndd: every operator reference to its dynamic-mode name.

Before::

    images = fn.decoders.image(jpegs, device="mixed")
    jpegs, labels = fn.readers.file(file_root=root)
    images = fn.image_decoder(jpegs)
    y = dmath.sqrt(x)

After::

    images = ndd.decoders.image(jpegs, device="mixed")
    jpegs, labels = ndd.readers.File(file_root=root)
    images = ndd.decoders.image(jpegs)
    y = ndd.math.sqrt(x)

Readers become their PascalCase classes, deprecated names their replacements (from the op table
derived from the installed DALI). Operators with no dynamic-mode counterpart are marked.
Names are matched through imports and aliases, never as dotted strings.
"""

from __future__ import annotations

import builtins

import libcst as cst

from .. import optable
from ..source import code_for_node
from ..findings import MARKER_PREFIX, rule
from ..dataflow import ops_object_path as is_ops_object, site_operator
from ..names import FN, MATH, NDD, OPS, TYPES, dotted
from .arguments import PER_OP_SEED
from .base import MigrationTransformer, Pass, has_marker, walk
from .imports import request_import
from .unroll.model import seeded, seeded_calls
from .unroll.rules import CONSTANT, OP_SEED, RANDOM_BATCH_SIZE, RANDOM_OUTSIDE

FN_TO_NDD = rule(
    "DM101", "fn-to-ndd", "info",
    "An fn operator is renamed to its dynamic-mode function; readers become PascalCase classes.",
    "Dynamic mode exposes operators as ndd functions with the same names and readers as stateful classes.",
    before="jpegs, labels = fn.readers.file(file_root=root)\nimages = fn.resize(images, size=224)",
    after="jpegs, labels = ndd.readers.File(file_root=root)\nimages = ndd.resize(images, size=224)",
)
DEPRECATED_OP = rule(
    "DM102", "deprecated-op", "info",
    "A deprecated operator name is replaced by the operator that superseded it.",
    "Dynamic mode does not expose operators deprecated before DALI 2.0 (and these replacements work in both modes).",
    before="images = fn.image_decoder(jpegs)\nflip = fn.coin_flip()",
    after="images = ndd.decoders.image(jpegs)\nflip = ndd.random.coin_flip()",
)
DEPRECATION_EXPECTED = rule(
    "DM118", "deprecation-expected", "warning",
    "A deprecated operator (fn.x or an ops.X object) called where the program checks for its DeprecationWarning "
    "(inside assert_warns, assertWarns, pytest.warns or pytest.deprecated_call) is left as it is and marked.",
    "The operator that superseded it gives no warning, so the check would fail: the program observes the "
    "deprecation itself.",
    before="with assert_warns(DeprecationWarning):\n    fn.transform_translation(offset=(0, 0))",
    after="with assert_warns(DeprecationWarning):\n    # dali-migrate: DM118 fn.transform_translation is deprecated "
          "...\n    fn.transform_translation(offset=(0, 0))",
    fix="manual",
    suggestion="Drop the check of the deprecation with the deprecated name, or keep this call in pipeline mode.",
)
# The checks that expect a warning from the code they hold (their last dotted name).
_WARNING_CHECKS = ("assert_warns", "assertWarns", "assert_warns_regex", "assertWarnsRegex", "warns",
                   "deprecated_call")
NO_COUNTERPART = rule(
    "DM103", "no-ndd-counterpart", "warning",
    "An operator has no dynamic-mode counterpart; it is left as it is and marked.",
    "python_function, constant, shapes and a few input operators do not exist in dynamic mode; the code must be rewritten in plain Python or with ndd data types.",
    before="out = fn.python_function(x, function=f)",
    after="# dali-migrate: DM103 fn.python_function has no dynamic-mode counterpart ...\nout = fn.python_function(x, function=f)",
    fix="manual",
    suggestion="Call the function directly on the samples: ndd.as_batch([f(np.asarray(t)) for t in batch.tensors]).",
)
READER_OUTSIDE_PIPELINE = rule(
    "DM104", "reader-not-unrolled", "warning",
    "A reader call that is not part of a pipeline the tool unrolled is renamed and marked.",
    "In dynamic mode a reader is a stateful object: it is created once and iterated with "
    "reader.next_epoch(batch_size=...); calling it like an fn op does not return batches.",
    before="class Data:\n    def read(self, root):\n        return fn.readers.file(file_root=root)",
    after="class Data:\n    def read(self, root):\n        # dali-migrate: DM104 ...\n        return ndd.readers.File(file_root=root)",
    fix="manual",
    suggestion="Create the reader once, outside any loop, and iterate `for a, b in reader.next_epoch(batch_size=N):`.",
)

# Suggestions for the operators that have no counterpart, from ndd-facts §6 and §12.
_NO_COUNTERPART_HINT = {
    "constant": ("the tool could not tell its value's type here: use ndd.Batch.broadcast(ndd.tensor(value, dtype=...), "
                 "batch_size) with the type pipeline mode gave it (int32 for int arrays, float32 for float ones)"),
    "shapes": ("its input cannot be bound to a name before the statement here (it sits in a conditional expression, "
               "a lambda or a comprehension), or it has arguments besides dtype= and a literal device=: bind the "
               "input to a name, then it becomes ndd.as_batch(x.shape, dtype=..., device=x.device)"),
    "external_source": "pass the data to the ops directly (ndd.as_batch) or use ndd.ExternalSource",
    "experimental.inputs.video": "decode the video with ndd.decoders.video on data you pass in",
}


def _python_function_hint(imports, call: cst.Call) -> str:
    """Why a Python operator is still here: its own reason, or that no migrated pipeline step holds it."""
    from .unroll import python_functions

    reason = python_functions.unsupported_reason(imports, call)
    return (f"it is not migrated because {reason}" if reason else
            "it is outside any pipeline step the tool migrates; where its graph migrates, the function is "
            "called on the samples and its results wrapped with ndd.as_batch")


def ndd_expr(path: str) -> cst.BaseExpression:
    """``ndd.<path>`` as an expression."""
    expr: cst.BaseExpression = cst.Name("ndd")
    for part in path.split("."):
        expr = cst.Attribute(value=expr, attr=cst.Name(part))
    return expr


_BUILTINS = frozenset(dir(builtins))


def _callee_word(func) -> str | None:
    """The last word of a callee (``coin`` of ``coin()``, ``flip`` of ``self.aug.flip(x)``), if it has one."""
    if isinstance(func, cst.Name):
        return func.value
    if isinstance(func, cst.Attribute):
        return func.attr.value
    if isinstance(func, cst.Subscript):
        return _callee_word(func.value)
    return None


def _deprecated_ops_class(path: str) -> bool:
    """``ops.TransformTranslation``: a class whose schema is that of a deprecated fn operator
    (``fn.transform_translation``, superseded by ``transforms.translation``), which DALI warns about as it does about
    the fn name."""
    schema = (optable.ops_class(path) or {}).get("schema")
    return any(entry.get("schema") == schema and optable.resolve_fn(fn_path)[1]
               for fn_path, entry in optable.table()["fn"].items()) if schema else False


def _ops_callee_words(ctx) -> set[str]:
    """The callee words of the calls that can reach an input-less random ops object made outside the pipelines'
    definitions (operator sites): only those calls may need a batch size (``_ops_object_call``)."""
    from .unroll.model import ops_fn_entry

    flow = ctx.facts.get("flow")
    operators = {site_operator(o) for o in flow.operator_sites.values()} if flow is not None else ()
    if not any(op.startswith("ops.") and (ops_fn_entry(op[4:])[1] or {}).get("input_less") for op in operators):
        return set()
    words = set()
    for call, _ in flow.calls:
        word = _callee_word(call.func)
        if word is None or word in words or any(a.keyword is None for a in call.args):
            continue
        if flow.ops_objects_in(call.func):
            words.add(word)
    return words


class _Rename(MigrationTransformer):
    def __init__(self, ctx):
        super().__init__(ctx)
        self._keep = ctx.facts.get("keep_pipeline_mode", set())
        self._skip_depth = 0
        self._callees: set[cst.CSTNode] = set()
        self._calls: dict[cst.CSTNode, cst.Call] = {}  # callee -> its call
        self._batch_sizes: dict[cst.Call, str] = {}  # random op -> the helper parameter its batch size is
        self._functions: list[cst.FunctionDef] = []
        self._classes: list[cst.ClassDef] = []
        self._constants: dict[cst.Call, cst.BaseExpression] = {}  # fn.constant calls in graph helpers -> batches
        self._not_loads: set[cst.Name] = set()  # names that are not references (attr, keyword, def...)
        self._seed_kept: set[cst.FunctionDef] = set()  # functions left as they were (kept, or seeded calls)
        self._warning_checks = 0  # depth of `with assert_warns(...)` blocks around the node
        self._warning_withs: set[cst.With] = set()
        # callee words that may call an input-less random ops object (computed once, whether or not the walk prunes)
        self._ops_callees: set[str] = _ops_callee_words(ctx)

    def relevant_names(self):
        # Only references that resolve into fn, math, types or ops are renamed or marked: the aliases that can
        # reach them (`fn`, `dmath`, `types`, `ops`, or `nvidia`/`dali` above them), not `ndd` or `Pipeline`; and
        # the names through which ops objects made outside the definitions are called (``_ops_object_call``).
        return {local for local, q in self.ctx.imports.aliases.items()
                if any(q == p or q.startswith(p + ".") or p.startswith(q + ".") for p in (FN, MATH, TYPES, OPS))
                } | self._ops_callees

    def visit_Import(self, node):
        return False

    def visit_ImportFrom(self, node):
        return False

    def visit_Arg(self, node):
        if node.keyword is not None:
            self._not_loads.add(node.keyword)

    def visit_Param(self, node):
        self._not_loads.add(node.name)

    def visit_With(self, node):
        if any(isinstance(item.item, cst.Call) and (dotted(item.item.func) or "").rsplit(".", 1)[-1] in _WARNING_CHECKS
               for item in node.items):
            self._warning_checks += 1
            self._warning_withs.add(node)
        if self._kept_with(node):  # a pipeline's graph that stays in pipeline mode: its marker says why
            self._skip_depth += 1
        return True

    def leave_With(self, original_node, updated_node):
        if original_node in self._warning_withs:
            self._warning_checks -= 1
        if self._kept_with(original_node):
            self._skip_depth -= 1
        return updated_node

    def _kept_with(self, node: cst.With) -> bool:
        """``with pipe:`` over a pipeline kept in pipeline mode, its block marked with the cause (unroll's
        withstyle): its operators stay as they are, so what they would lack once rewritten is no reason."""
        if len(node.items) != 1 or not isinstance(node.items[0].item, (cst.Name, cst.Attribute)):
            return False
        return dotted(node.items[0].item) in self._keep and any(
            line.comment is not None and line.comment.value.startswith(MARKER_PREFIX) for line in node.leading_lines)

    def visit_FunctionDef(self, node):
        self._not_loads.add(node.name)
        self._functions.append(node)
        if node.name.value in self._keep or (not self._skip_depth and self._has_seeded_call(node)):
            self._seed_kept.add(node)
            self._skip_depth += 1
        return True

    def leave_FunctionDef(self, original_node, updated_node):
        self._functions.pop()
        if original_node in self._seed_kept:
            self._skip_depth -= 1
        return updated_node

    def _has_seeded_call(self, function: cst.FunctionDef) -> bool:
        """A function that calls a random operator with ``seed=`` (one no pipeline step the migration writes
        holds: the unroll turned those into ``rng=``) stays as it was: ndd takes no seed= (TypeError), and an RNG
        made in the function would restart at each call; renaming its other operators would leave it half in
        each mode. Its seeded calls are marked (DM112), which keeps the units that use it in pipeline mode."""
        found = seeded_calls(function.body, self.ctx.imports, self.ctx.kept_statements or frozenset(),
                             self.ctx.may_mention)
        if found:  # one marker, above the def: the whole function is left as it was
            self._mark_seeded(found, function)
        return bool(found)

    def visit_ClassDef(self, node):
        self._classes.append(node)
        self._not_loads.add(node.name)
        if node.name.value in self._keep:
            self._skip_depth += 1
        return True

    def leave_ClassDef(self, original_node, updated_node):
        self._classes.pop()
        if original_node.name.value in self._keep:
            self._skip_depth -= 1
        return updated_node

    def visit_Call(self, node):
        self._callees.add(node.func)
        self._calls[node.func] = node

    def _is_called(self, node) -> bool:
        return node in self._callees

    def visit_Attribute(self, node):
        self._not_loads.add(node.attr)
        # Only the outermost attribute of a dotted name is rewritten.
        return self.ctx.imports.qualname(node) is None

    def leave_Attribute(self, original_node, updated_node):
        return self._rewrite(original_node, updated_node)

    def leave_Name(self, original_node, updated_node):
        if original_node in self._not_loads:
            return updated_node
        return self._rewrite(original_node, updated_node)

    def _rewrite(self, original_node, updated_node):
        if self._skip_depth:
            return updated_node
        qualname = self.ctx.imports.qualname(original_node)
        if qualname is None:
            return updated_node
        if qualname == FN + ".constant" and self._is_called(original_node):
            self._helper_constant(self._calls[original_node])
            return updated_node
        if qualname.startswith(FN + "."):
            return self._rename_fn(original_node, updated_node, qualname[len(FN) + 1:])
        if qualname == TYPES + ".Constant" and self._is_called(original_node):
            if self._constant_outside_steps(self._calls[original_node]):
                return updated_node
            # types.Constant builds a pipeline-mode constant node; dynamic mode has plain tensors.
            self.mark(NO_COUNTERPART.id, "types.Constant has no dynamic-mode counterpart: "
                      + self._constant_hint(self._calls[original_node]), original_node)
            return updated_node
        if qualname.startswith(MATH + "."):
            name = qualname[len(MATH) + 1:]
            if name in optable.math_names():
                self.report(FN_TO_NDD.id, f"nvidia.dali.math.{name} -> ndd.math.{name}", original_node)
                self._note_ndd()
                return ndd_expr(f"math.{name}")
        return updated_node

    def visit_Module(self, node):
        self._module = node

    def _constant_outside_steps(self, call: cst.Call) -> bool:
        """``target = types.Constant(value)`` outside every pipeline step (a dataset class's ``__init__`` whose
        ``with pipe:`` reads ``self.target``): the ndd tensor of the value, where every read of the target meets
        batch data (dynamic mode broadcasts the tensor there, as the constant node gave each sample its value)."""
        from .unroll import constants

        statement = self.current_statement()
        assign = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 \
            else None
        if not (isinstance(assign, cst.Assign) and assign.value is call and len(assign.targets) == 1):
            return False
        target = assign.targets[0].target
        if self._classes and code_for_node(target).startswith("self."):
            scope = self._classes[-1]  # an attribute of the class's objects: its methods read it
        elif isinstance(target, cst.Name):
            scope = self._module
        else:
            return False
        tensor = constants.tensor_outside_steps(self.ctx.imports, call)
        if tensor is None or not constants.used_with_batches(self.ctx.imports, scope, code_for_node(target), assign):
            return False
        self._constants[call] = tensor
        if "np." in code_for_node(tensor):
            request_import(self.ctx, "np", "import numpy as np")
        self._note_ndd()
        self.report(CONSTANT.id, f"types.Constant -> {code_for_node(tensor)}: built outside the pipeline's steps, a "
                    f"tensor; every read of {code_for_node(target)} meets batch data, where dynamic mode broadcasts "
                    f"it to each sample as the constant node did", call)
        return True

    def _constant_hint(self, call: cst.Call) -> str:
        """Why a types.Constant is left: its type is not shown, or (typed) it is outside every pipeline step the
        migration writes, where the batch it stands for has no batch size."""
        from .unroll import constants

        typed = constants.rewrite(self.ctx.imports, call, False, "batch_size")
        if typed is None:
            return _NO_COUNTERPART_HINT["constant"]
        return ("it is built outside any pipeline step the tool migrates, and read where no batch data meets it (an "
                "output of its own, or a graph that is not visible or not migrated here); where it is a batch of the "
                f"pipeline's batch size, it becomes {code_for_node(typed)}")

    def _rename_fn(self, original_node, updated_node, path):
        ndd_path, replaced_by, entry = optable.resolve_fn(path)
        if entry is None:
            return updated_node  # a submodule (fn.readers) or something fn does not have
        if ndd_path is None:
            hint = _NO_COUNTERPART_HINT.get(replaced_by or path, "rewrite this part in plain Python")
            if path in ("python_function", "dl_tensor_python_function") and original_node in self._calls:
                hint = _python_function_hint(self.ctx.imports, self._calls[original_node])
            self.mark(NO_COUNTERPART.id, f"fn.{path} has no dynamic-mode counterpart: {hint}", original_node)
            return updated_node
        if entry.get("kind") == "reader" and self._is_called(original_node):
            self.mark(READER_OUTSIDE_PIPELINE.id,
                      f"ndd.{ndd_path} is a stateful reader: create it once and iterate "
                      f"reader.next_epoch(batch_size=...); calling it does not return batches"
                      + self._template_method_reason(), original_node)
        if original_node in self._calls and seeded(self._calls[original_node], entry):
            # outside functions (a module's statement): the call stays a pipeline-mode operator, marked, rather than
            # renamed into code that cannot run (TypeError on seed=)
            self._mark_seeded([self._calls[original_node]])
            return updated_node
        if replaced_by and self._warning_checks:
            self.mark(DEPRECATION_EXPECTED.id, f"fn.{path} is deprecated and this code checks for its warning; "
                      f"ndd.{ndd_path}, which superseded it, gives none: it stays as it is", original_node)
            return updated_node
        if entry.get("random") and entry.get("input_less") and self._is_called(original_node):
            self._random_without_batch_size(original_node, ndd_path)
        if replaced_by:
            self.report(DEPRECATED_OP.id, f"fn.{path} is deprecated: ndd.{ndd_path}", original_node)
        else:
            self.report(FN_TO_NDD.id, f"fn.{path} -> ndd.{ndd_path}", original_node)
        self._note_ndd()
        return ndd_expr(ndd_path)

    def _mark_seeded(self, calls: list, function: cst.FunctionDef | None = None) -> None:
        """DM112 for seeded random-op calls left in pipeline mode: alone (a module's statement), or a function's."""
        paths = sorted({self.ctx.imports.qualname(c.func)[len(FN) + 1:] for c in calls})
        shown = ", ".join(f"fn.{p}(seed=...)" for p in paths)
        ndd_paths = ", ".join(f"ndd.{optable.resolve_fn(p)[0]}" for p in paths)
        where = (f"{function.name.value} stays as it was (pipeline mode) for its {shown}: pipeline mode ran it once, "
                 f"when a pipeline defined its graph, and an RNG made in it would restart at each call; its caller "
                 f"makes the RNG. ") if function is not None else f"{shown} stays in pipeline mode: "
        self.mark(PER_OP_SEED.id, f"{where}{ndd_paths} takes no seed= (TypeError) and no pipeline step the migration "
                  f"writes holds this call; dynamic mode's counterpart is rng=ndd.random.RNG(seed=...) made once per "
                  f"operator, beside the loop of steps (values differ from pipeline mode's)", calls[0])

    def _template_method_reason(self) -> str:
        """Why a reader in a method of a class derived from an imported one cannot move here: the pipeline that
        calls the method is built by the base class, in a module this file does not hold."""
        if not self._classes or not self._functions or self._functions[-1] not in self._classes[-1].body.body:
            return ""
        bases = [q for b in self._classes[-1].bases if (q := self.ctx.imports.qualname(b.value))
                 and not q.startswith("nvidia.")]
        if not bases:
            return ""
        return (f"; {self._functions[-1].name.value} is a method of a class derived from {bases[0]} (another "
                f"module): a reader made in a method belongs to the pipeline that calls it, which is not visible "
                f"here; it can only move with that pipeline")

    def _random_without_batch_size(self, func, ndd_path: str) -> None:
        """An input-less random op called without inputs and without batch_size, outside any pipeline the
        unroll wrote (a helper module's augmentation, say): in dynamic mode it returns one value for the
        whole batch. Marked, unless the unroll marked it already (RANDOM_OUTSIDE in its own modules)."""
        call = self._calls.get(func)
        if call is None or any(a.keyword is None for a in call.args) or \
                any(a.keyword is not None and a.keyword.value == "batch_size" for a in call.args):
            return
        statement = self.current_statement()
        if statement is not None and has_marker(statement, RANDOM_OUTSIDE.id):
            return
        from .unroll.random_outside import batch_size_from

        data = batch_size_from(self._functions[-1], self.ctx) if self._functions else None
        if data is not None:  # a graph helper (of another module's pipeline): its data's batch size
            self._batch_sizes[call] = data
            self.report(RANDOM_BATCH_SIZE.id, f"ndd.{ndd_path} gets batch_size={data}.batch_size: the helper's "
                        f"data has one sample per value, as in the pipeline", call)
            return
        self.mark(RANDOM_OUTSIDE.id, f"ndd.{ndd_path} has no batch_size here: it returns one value for the whole "
                  f"batch, not one per sample; pass the batch size in and call it with batch_size=", call)

    def _helper_constant(self, call: cst.Call) -> None:
        """``fn.constant(...)`` in a graph helper (of another module's pipeline): a batch of that constant, as
        many samples as the helper's data has (``constants``). Elsewhere it stays, and the post-check marks what
        uses it."""
        from .unroll import constants
        from .unroll.random_outside import batch_size_from

        data = batch_size_from(self._functions[-1], self.ctx) if self._functions else None
        replacement = constants.rewrite(self.ctx.imports, call, False, f"{data}.batch_size") if data else None
        if replacement is None:
            return
        self._constants[call] = replacement
        if "np." in code_for_node(replacement):
            request_import(self.ctx, "np", "import numpy as np")
        self._note_ndd()
        self.report(CONSTANT.id, f"fn.constant -> {code_for_node(replacement)}: one sample per sample of "
                    f"{data}, as in the pipeline", call)

    def leave_Call(self, original_node, updated_node):
        if original_node in self._constants:
            return self._constants[original_node]
        if not self._skip_depth:
            made = self._ops_object(original_node, updated_node)
            if made is not None:
                return made
            self._ops_object_call(original_node)
            if isinstance(updated_node.func, cst.Lambda) and not updated_node.func.lpar:
                # ``ops.X(...)()``: the object called where it is made; the lambda needs its parentheses there
                updated_node = updated_node.with_changes(func=updated_node.func.with_changes(
                    lpar=[cst.LeftParen()], rpar=[cst.RightParen()]))
        data = self._batch_sizes.get(original_node)
        if data is None:
            return updated_node
        from .unroll.model import expr, with_kwarg

        return with_kwarg(updated_node, "batch_size", expr(f"{data}.batch_size"))

    def _ops_object(self, original: cst.Call, updated: cst.Call) -> cst.Lambda | None:
        """``ops.Flip(horizontal=1)`` made outside every pipeline definition the unroll rewrote (an augmentation
        class's ``__init__``, a module's statement, a list, a factory's return): the callable
        ``lambda *inputs, **kwargs: ndd.flip(*inputs, horizontal=1, **kwargs)``, whose calls are the ndd calls
        pipeline mode's calls of the object made (``model.ops_object_callable``). A random one with its own
        ``seed=`` makes its RNG once, where the object was made. Readers, and calls with ``*args``/``**kwargs``,
        stay (DM105 marks them)."""
        qualname = self.ctx.imports.qualname(original.func)
        flow = self.ctx.facts.get("flow")
        if not is_ops_object(qualname) or flow is None or original not in flow.operator_sites \
                or any(a.star for a in original.args) or not self._arguments_kept(original, flow):
            return None
        from .unroll.model import OPS_DROPPED, kwarg, ops_fn_entry, ops_object_callable

        path = qualname[len(OPS) + 1:]
        entry = ops_fn_entry(path)[1]
        if self._warning_checks and _deprecated_ops_class(path):
            self.mark(DEPRECATION_EXPECTED.id, f"ops.{path} is deprecated and this code checks for its warning; "
                      f"ndd.{entry['ndd']}, which superseded it, gives none: it stays as it is", original)
            return None
        seed = kwarg(original, "seed") if entry.get("random") else None
        made = ops_object_callable(updated, entry, own_rng=seed is not None)
        dropped = sorted({a.keyword.value for a in original.args if a.keyword is not None} & set(OPS_DROPPED))
        self.report(FN_TO_NDD.id, f"ops.{path}(...) -> a callable of ndd.{entry['ndd']} with the same arguments: each "
                    f"call of it is the operator pipeline mode added to the graph at that call"
                    + (f"; {', '.join(dropped)}= dropped (ndd takes none)" if dropped else ""), original)
        if seed is not None:
            self.report(OP_SEED.id, f"ops.{path}(seed={code_for_node(seed)}) -> its own ndd.random.RNG(seed="
                        f"{code_for_node(seed)}), made once with the callable (rng=); values differ from pipeline "
                        f"mode", original)
        self._note_ndd()
        return made

    def _arguments_kept(self, call: cst.Call, flow) -> bool:
        """The constructor's arguments have, whenever the lambda is called, the values they had where the object
        was made (the ops object kept those): they call nothing, and every name they read holds one value
        (``DataFlow.holds_one_value``: not a loop variable, not bound again) or is an import or a builtin. An
        attribute (``self.size``, ``args.size``) is read at each call: taken to hold its value too."""
        from .unroll.model import NameReads

        reads = NameReads()
        for arg in call.args:
            walk(arg.value, reads)
        if reads.calls:
            return False
        return all(self.ctx.imports.qualname(name) is not None or flow.holds_one_value(name)
                   or name.value in _BUILTINS and flow.name_scope.get(name) is not None
                   and flow.name_scope[name].lookup_scope(name.value) is None for name in reads.nodes)

    def _ops_object_call(self, original: cst.Call) -> None:
        """A call of an ops object (``self.coin()``, ``flips[i](images)``) where the flow model traces the object
        to ``ops.X(...)`` calls made outside the pipelines' definitions (now callables, ``_ops_object``). One of an
        input-less random op called without inputs gets the batch size of the data of the graph helper it is in
        (dynamic mode would give one value for the whole batch); elsewhere it is marked (DM216). Calls in a
        migrated pipeline's steps got ``batch_size=`` from the unroll."""
        flow = self.ctx.facts.get("flow")
        if flow is None or not self._ops_callees or not _callee_word(original.func) in self._ops_callees:
            return
        made = flow.ops_objects_in(original.func)
        if not made or any(a.keyword is None for a in original.args) or any(
                a.keyword is not None and a.keyword.value == "batch_size" for a in original.args):
            return
        from .unroll.model import kwarg, ops_fn_entry

        entries = [ops_fn_entry(self.ctx.imports.qualname(c.func)[len(OPS) + 1:])[1] for c in made]
        if not any(e.get("input_less") and e.get("random") for e in entries):
            return
        from .unroll.random_outside import batch_size_from

        data = batch_size_from(self._functions[-1], self.ctx) if self._functions else None
        if self.ctx.facts.get("rng_mode") and any(kwarg(c, "seed") is None for c in made):
            self.mark(RANDOM_OUTSIDE.id, f"{code_for_node(original.func)}() (an ops object made by "
                      f"{code_for_node(made[0].func)}(...) without seed=) would draw from the unseeded default RNG "
                      f"(values change from run to run): the migrated pipelines of this module seed RNG objects; pass "
                      f"the pipeline's rng in", original)
            return
        if data is not None and all(e.get("input_less") and e.get("random") for e in entries):
            self._batch_sizes[original] = data
            self.report(RANDOM_BATCH_SIZE.id, f"{code_for_node(original.func)}() (an ops object made by "
                        f"{code_for_node(made[0].func)}(...)) gets batch_size={data}.batch_size: the helper's data has "
                        f"one sample per value, as in the pipeline", original)
            return
        self.mark(RANDOM_OUTSIDE.id, f"{code_for_node(original.func)}() (an ops object made by "
                  f"{code_for_node(made[0].func)}(...)) has no batch_size here: it returns one value for the whole "
                  f"batch, not one per sample; pass the batch size in and call it with batch_size=", original)

    def _note_ndd(self):
        # Later passes recognise `ndd.x` through the import table, as if the import existed already.
        self.ctx.facts["uses_ndd"] = True
        self.ctx.imports.aliases.setdefault("ndd", NDD)


class RenamePass(Pass):
    name = "rename"
    transformer = _Rename

    def applies(self, ctx):
        # `import nvidia.dali.fn` binds `nvidia` and `import nvidia.dali as dali` binds the package:
        # a prefix of fn/math may reach them too.
        return any(q.startswith((FN, MATH, OPS)) or FN.startswith(q + ".") or MATH.startswith(q + ".")
                   or OPS.startswith(q + ".") for q in ctx.imports.aliases.values())
