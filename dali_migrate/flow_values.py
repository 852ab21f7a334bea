"""The values of the flow model (``dataflow.py``): the kinds a value can have and their lattice (``join``,
``element``, ``tuple_of``), origins of their own (operator sites, pipelines given from elsewhere), and what
DALI calls give (how many outputs an operator has, which paths are readers). The model solves over these;
every reader of the model reaches them through ``dataflow`` too."""

from __future__ import annotations

import libcst as cst

from . import optable
from .names import FN, MATH, OPS, TYPES


# -- kinds ------------------------------------------------------------------------------------------
# A value is ``(kind, origins)``; ``None`` is "no information yet" (the fixpoint's start).
# Pipeline mode:
PIPELINE = "pipeline"  # a Pipeline object
PIPELINE_FACTORY = "pipeline_factory"  # a @pipeline_def function or a Pipeline subclass
TENSORLIST = "tensorlist"  # one pipeline output (TensorListCPU/GPU)
OUTPUTS = "tuple:tensorlist"  # what pipe.run() returns: a tuple of TensorLists
TENSORCPU = "tensorcpu"  # tl[i]: one sample (TensorCPU/GPU)
DATANODE = "datanode"  # a graph value inside a pipeline definition
DATANODES = "datanodes"  # a multi-output op's list of DataNodes
DALI_ITERATOR = "dali_iterator"  # a framework plugin iterator over pipelines
OPERATOR = "operator"  # a pipeline-mode operator named as a value (`fn.flip`, `math.sqrt` not called there)
TF_OP = "tf_op"  # what TensorFlow's DALIIterator() returns: a callable taking pipeline=, giving the next step
GENERATOR_FACTORY = "generator_factory"  # a migrated pipeline imported from another module
STREAM_FACTORY = "stream_factory"  # one its module writes as a ReaderStream (project.ProjectPipeline.streamed)
# Dynamic mode (the lint's words): "batch", "tensor", "data" (one of the two), "tuple:K", "epoch:K"
# (reader.next_epoch(...): each step a "tuple:K"), "reader", "rng", "ckpt", "external_source".
DATA_KINDS = ("batch", "tensor", "data")
# Structured kinds: ("seq", K) a list or other iterable of K; ("gen", K) a generator object of K;
# ("stream", K) a ReaderStream over a generator of K (a migrated pipeline that answers its metadata);
# ("map", K) a dict of K values; ("keyed", K) a dict whose keys are K (pipeline classes, say) and whose values
# are plain Python data (the dict's origins are its keys'); ("ops", name) a legacy ops object; ("function", node), ("class", node),
# ("method", function node, class node): the module's own callables; ("instance", class node).
TOP = "top"
# Only as an element of ("tup", kinds): an element whose own value was TOP without origins (a literal, a
# plain Python value). A tuple's origins are one set for all of its elements; taking this element out
# gives UNKNOWN (no origins), not TOP with the origins of its neighbours: `(pipe_fn, (0, 9))[1]` carries
# nothing of the pipeline.
PLAIN = "plain"

PIPELINE_DEF = "nvidia.dali.pipeline_def"
PIPELINE_CLASS = "nvidia.dali.Pipeline"
TORCH_ITERATORS = ("nvidia.dali.plugin.pytorch.DALIGenericIterator",
                   "nvidia.dali.plugin.pytorch.DALIClassificationIterator",
                   "nvidia.dali.plugin.pytorch.DALIRaggedIterator")
PLUGIN_PREFIX = "nvidia.dali.plugin."
RUN_METHODS = {"run", "outputs", "share_outputs"}  # pipeline methods that run a step
METADATA_METHODS = ("epoch_size", "reader_meta")
METADATA_ATTRIBUTES = ("max_batch_size", "batch_size")
STREAM_CLASS = "ReaderStream"  # the class the migration writes for them (unroll/stream.py)
TF_ITERATOR_OP = "nvidia.dali.plugin.tf.DALIIterator"
TF_OP_CLASS = "TFIterator"  # what the migration makes of it (unroll/frameworks.py)
# The origin of the pipelines a function or class of the module is given from where the model cannot see (another
# module, a caller not migrated) and that it uses as pipelines: adapted at run time (unroll/adapted.py).
ADAPTED_PREFIX = "<pipelines given to "
_DALI_CALLS = (FN + ".", MATH + ".", OPS + ".", PIPELINE_CLASS, f"{TYPES}.Constant")
_BATCH_MAKERS = {"batch", "as_batch", "Batch", "Batch.broadcast"}
_TENSOR_MAKERS = {"tensor", "as_tensor", "Tensor"}
_SAME_KIND_METHODS = {"cpu", "gpu", "evaluate"}
_NO_ORIGINS: frozenset = frozenset()
_NOT_YET = object()
_MAX_DEPTH = 4  # nesting of structured kinds (a list of lists of ...): deeper is TOP

Value = tuple  # (kind, origins)


def pipeline_argument(call: cst.Call) -> cst.Arg | None:
    """The ``pipeline=`` argument of a call (else its first positional one): DALIDataset, DALIIterator()'s op."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "pipeline":
            return arg
    positional = [arg for arg in call.args if arg.keyword is None and not arg.star]
    return positional[0] if positional else None


def value(kind, origins=_NO_ORIGINS) -> Value:
    return (kind, origins)


UNKNOWN = (TOP, _NO_ORIGINS)


def _depth(kind) -> int:
    if isinstance(kind, tuple) and kind[0] in ("seq", "gen", "stream", "map", "keyed"):
        return 1 + _depth(kind[1])
    if isinstance(kind, tuple) and kind[0] == "tup":
        return 1 + max((_depth(k) for k in kind[1]), default=0)
    return 0


def join_kind(a, b):
    if a is None:
        return b
    if b is None or a == b:
        return a
    if a in DATA_KINDS and b in DATA_KINDS:
        return "data"
    if isinstance(a, str) and isinstance(b, str) and a.startswith("tuple:") and b.startswith("tuple:"):
        inner = join_kind(a[6:], b[6:])
        return TOP if inner == TOP or not isinstance(inner, str) else f"tuple:{inner}"
    if isinstance(a, tuple) and isinstance(b, tuple) and a[0] == b[0] and a[0] in ("seq", "gen", "stream", "map",
                                                                                  "keyed"):
        inner = join_kind(a[1], b[1])
        return TOP if inner == TOP else (a[0], inner)
    if _is_tup(a) and _is_tup(b) and len(a[1]) == len(b[1]):
        return ("tup", tuple(join_kind(x, y) for x, y in zip(a[1], b[1])))
    return TOP


def _empty_dict(expr) -> bool:
    """``dict()``: an empty dict, as ``{}``."""
    return isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value == "dict" \
        and not expr.args


def _code_text(node) -> str:
    return cst.Module([]).code_for_node(node)


# Operator sites: each place outside the pipelines' definitions that names a pipeline-mode operator (``fn.flip`` as
# a value, ``fn.batch_permutation()`` called where no ``with pipe:`` or ``@pipeline_def`` body holds it) is an origin
# of its own. Whatever pipeline its value reaches (called in a graph, given to ``pipe.set_outputs``) meets it in one
# unit, so the place stays as it was wherever that unit stays in pipeline mode ("kept means kept").
SITE_PREFIX = "<operator "


def is_site(origin) -> bool:
    """An operator's site: of this module (``<operator fn.flip 1>``) or, passed here by another module of the run,
    by its qualname there (``tests.test_flip.<operator fn.flip 1>``)."""
    return isinstance(origin, str) and SITE_PREFIX in origin


def site_module(origin: str) -> str:
    """The module whose operator site a qualname names (``tests.test_flip`` above); "" for a site of this module."""
    return origin.partition("." + SITE_PREFIX)[0] if not origin.startswith(SITE_PREFIX) else ""


def site_operator(origin: str) -> str:
    """``fn.flip`` for the site ``<operator fn.flip 1>`` (or its qualname)."""
    return origin[origin.index(SITE_PREFIX) + len(SITE_PREFIX):].rsplit(" ", 1)[0]


def operator_path(qualname: str | None) -> bool:
    """``qualname`` names one pipeline-mode operator (an fn op, a ``nvidia.dali.math`` function), not a module."""
    if qualname is None:
        return False
    if qualname.startswith(FN + "."):
        return optable.resolve_fn(qualname[len(FN) + 1:])[2] is not None
    return qualname.startswith(MATH + ".") and qualname[len(MATH) + 1:] in optable.math_names()


def ops_object_path(qualname: str | None) -> bool:
    """``qualname`` names a legacy ops class whose object is an operator of whatever graph calls it (``ops.Flip``,
    ``ops.random.CoinFlip``): one with an ndd counterpart, not a reader (a stream, not a call per step); Compose and
    ExternalSource are Python classes, not in the table. Made outside the pipelines' definitions (an augmentation
    class's ``__init__``, a module's statement, a factory), the object is an operator site (``is_site``): the pipelines that call it meet it."""
    if qualname is None or not qualname.startswith(OPS + "."):
        return False
    entry = optable.ops_class(qualname[len(OPS) + 1:])
    if not entry or not entry.get("fn"):
        return False
    fn_entry = optable.resolve_fn(entry["fn"])[2]
    return bool(fn_entry and fn_entry.get("ndd") and fn_entry.get("kind") != "reader")


def is_adapted(origin) -> bool:
    """Pipelines a function or class adapts at run time (``ADAPTED_PREFIX``): a ReaderStream either way."""
    return isinstance(origin, str) and origin.startswith(ADAPTED_PREFIX)


def _is_tup(kind) -> bool:
    """("tup", (k1, k2, ...)): a tuple of known length whose elements differ in kind."""
    return isinstance(kind, tuple) and kind[0] == "tup"


# Node type -> its case in ``_eval`` (``_common_expression``): ``_eval`` asks it of every expression in every round
# of the solver, and ``isinstance`` against libcst's node classes (ABCs) is slow. Asked once per type.
_COMMON_EXPRESSION: dict[type, int] = {}


def _common_expression(expr) -> int:
    """1 a Name, 2 an Attribute, 3 a Call, 0 another expression ``_eval`` follows, 4 one it does not (UNKNOWN)."""
    if isinstance(expr, cst.Name):
        return 1
    if isinstance(expr, cst.Attribute):
        return 2
    if isinstance(expr, cst.Call):
        return 3
    return 0 if isinstance(expr, _FOLLOWED_EXPRESSIONS) else 4


# Every other expression class ``DataFlow._eval`` has a case for (keep the two in step).
_FOLLOWED_EXPRESSIONS = (cst.Subscript, cst.BinaryOperation, cst.UnaryOperation, cst.Comparison, cst.IfExp,
                         cst.BooleanOperation, cst.NamedExpr, cst.Tuple, cst.List, cst.Set, cst.Dict, cst.ListComp,
                         cst.SetComp, cst.GeneratorExp, cst.DictComp, cst.Lambda)


def _prints_alike(a, b) -> bool:
    """``str(a) == str(b)`` for two kinds, without printing the libcst nodes they hold: a node's text is its
    whole subtree pretty-printed, and kinds are compared in the fixpoint's inner loop."""
    if a is b:
        return True
    if isinstance(a, str) or isinstance(b, str):
        if isinstance(a, str) and isinstance(b, str):
            return a == b
        text, other = (a, b) if isinstance(a, str) else (b, a)
        if isinstance(other, tuple) and not text.startswith("("):
            return False  # a tuple prints as "(...)"
        if isinstance(other, cst.CSTNode) and not text.startswith(type(other).__name__ + "("):
            return False
        return str(a) == str(b)
    return _reprs_alike(a, b)


def _reprs_alike(a, b) -> bool:
    """``repr(a) == repr(b)``: nodes by structure (``deep_equals``: every field, as their repr prints every field)."""
    if a is b:
        return True
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_reprs_alike(x, y) for x, y in zip(a, b))
    if isinstance(a, cst.CSTNode) and isinstance(b, cst.CSTNode):
        return type(a) is type(b) and a.deep_equals(b) and repr(a) == repr(b)
    if isinstance(a, (tuple, cst.CSTNode)) or isinstance(b, (tuple, cst.CSTNode)):
        return False  # "(...)", "Name(...)" and the repr of a string, a number or None never meet
    return repr(a) == repr(b)


def _join_all(kinds):
    found = None
    for kind in kinds:
        found = join_kind(found, kind)
    return found


def join(a: Value | None, b: Value | None) -> Value | None:
    if a is None:
        return b
    if b is None:
        return a
    kind = join_kind(a[0], b[0])
    origins = a[1] | b[1] if b[1] else a[1]
    return (kind, origins)


def is_data(kind) -> bool:
    return kind in DATA_KINDS


def is_dali_kind(kind) -> bool:
    """Kinds that only DALI values have (containers of them too)."""
    if kind is None or kind == TOP or kind == PLAIN:
        return False
    if isinstance(kind, tuple):
        if kind[0] in ("seq", "gen", "stream", "map", "keyed"):
            return is_dali_kind(kind[1])
        if kind[0] == "tup":
            return any(is_dali_kind(k) for k in kind[1])
        return kind[0] == "ops"
    if kind.startswith(("tuple:", "epoch:")):
        return is_dali_kind(kind[6:])
    return True


def tuple_of(kind):
    """The kind of a tuple of ``kind`` elements."""
    if kind is None:
        return None
    if isinstance(kind, str) and kind != TOP:
        return f"tuple:{kind}"
    return ("seq", kind) if kind != TOP else TOP


def element(kind):
    """What iterating (or ``next``) over a value of ``kind`` gives."""
    if kind is None:
        return None
    if isinstance(kind, tuple):
        if kind[0] in ("seq", "gen", "stream", "keyed"):
            return kind[1]
        if kind[0] == "tup":
            return _join_all(kind[1])
        return TOP
    if kind.startswith("tuple:"):
        return kind[6:]
    if kind.startswith("epoch:"):
        return "tuple:" + kind[6:]
    if kind == DATANODES:
        return DATANODE
    if kind == TENSORLIST:
        return TENSORCPU
    if kind == "batch":
        return "tensor"
    return TOP


def _index(kind, is_slice: bool, position: int | None = None):
    """What ``x[i]`` (or ``x[a:b]``) of a value of ``kind`` gives (``position``: a literal ``i``)."""
    if kind is None:
        return None
    if isinstance(kind, tuple):
        if kind[0] == "tup":
            if is_slice:
                return TOP
            if position is not None and -len(kind[1]) <= position < len(kind[1]):
                return kind[1][position]
            return _join_all(kind[1])
        if kind[0] == "seq":
            return kind if is_slice else kind[1]
        if kind[0] == "map":
            return kind[1]
        if kind[0] == "keyed":
            return PLAIN  # a value: plain data, without the keys' origins
        return TOP
    if kind == DATANODE:
        return DATANODE
    if kind.startswith("tuple:"):
        return ("seq", kind[6:]) if is_slice else kind[6:]
    if kind == DATANODES:
        return TOP if is_slice else DATANODE
    if kind == TENSORLIST:
        return TOP if is_slice else TENSORCPU
    if kind == "tensor":
        return "tensor"
    return TOP


def _is_enumerate(expr) -> bool:
    """``enumerate(x)``, ``enumerate(x, 1)`` or ``enumerate(x, start=1)``: pairs of a count and x's elements."""
    if not (isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value == "enumerate"):
        return False
    args = expr.args
    return (1 <= len(args) <= 2 and args[0].keyword is None and not args[0].star
            and all(not a.star and (a.keyword is None or a.keyword.value == "start") for a in args[1:]))


def _is_zip(expr) -> bool:
    """``zip(a, b, ...)``, also with ``strict=``: tuples of the inputs' elements (``_zip_inputs``)."""
    return (isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value == "zip"
            and bool(_zip_inputs(expr)) and all(not a.star and (a.keyword is None or a.keyword.value == "strict")
                                                 for a in expr.args))


def _zip_inputs(call: cst.Call) -> list[cst.Arg]:
    return [a for a in call.args if a.keyword is None]


def _items_call(expr) -> bool:
    return (isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "items"
            and not expr.args)


def is_literal(expr) -> bool:
    """A constant that is surely not a DALI value (numbers, strings, containers of them)."""
    if isinstance(expr, (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString)):
        return True
    if isinstance(expr, cst.Name) and expr.value in ("True", "False", "None"):
        return True
    if isinstance(expr, cst.UnaryOperation):
        return is_literal(expr.expression)
    if isinstance(expr, cst.BinaryOperation):
        return is_literal(expr.left) and is_literal(expr.right)
    if isinstance(expr, (cst.Tuple, cst.List, cst.Set)):
        return all(isinstance(e, cst.Element) and is_literal(e.value) for e in expr.elements)
    return False


def literal_int(expr) -> bool:
    if isinstance(expr, cst.Integer):
        return True
    return isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus) and \
        isinstance(expr.expression, cst.Integer)


def keyword(call: cst.Call, name: str) -> cst.Arg | None:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg
    return None


def reader_path(path: str) -> bool:
    """``readers.File`` / ``readers.file`` / ``experimental.readers.Fits``: a reader class (or its
    lowercase misspelling)."""
    head, _, name = path.rpartition(".")
    return head in ("readers", "experimental.readers") and bool(name)


def op_path(path: str) -> str | None:
    """The ndd op path when ``path`` names an ndd operator function, else None."""
    if path.startswith("math."):
        return path
    if path in _ndd_functions():
        return path
    return None


_FUNCTIONS: frozenset[str] | None = None


def _ndd_functions() -> frozenset[str]:
    global _FUNCTIONS
    if _FUNCTIONS is None:
        table = optable.table()["fn"]
        _FUNCTIONS = frozenset(e["ndd"] for e in table.values()
                               if e.get("ndd") and e.get("kind") != "reader") | {"imread"}
    return _FUNCTIONS


def _num_outputs_kwarg(call: cst.Call, qualname: str = ""):
    """external_source, python_function, ... return a list when num_outputs > 1 whatever the schema says;
    external_source returns one with ``num_outputs=1`` too (a list of one DataNode, DALI 2.4.0)."""
    arg = keyword(call, "num_outputs")
    if arg is None:
        return None
    if isinstance(arg.value, cst.Integer):
        count = int(arg.value.evaluated_value)
        if count == 1 and qualname == f"{FN}.external_source":
            return ("seq", DATANODE)
        return DATANODE if count == 1 else DATANODES if count > 1 else TOP
    return TOP


def _fn_outputs(qualname: str):
    """DATANODE / DATANODES / TOP for a call of the fn op ``qualname``."""
    _, _, entry = optable.resolve_fn(qualname[len(FN) + 1:])
    if not entry:
        return TOP
    outputs = entry.get("outputs")
    if outputs == 1:
        return DATANODE
    if isinstance(outputs, int) and outputs > 1:
        return DATANODES
    return TOP


def _several_outputs(qualname: str, call: cst.Call) -> bool:
    """Whether an fn op whose output count the table leaves open may return several outputs here."""
    from . import derive

    if qualname == f"{FN}.external_source":  # one DataNode unless num_outputs says otherwise (DALI 2.4.0)
        return any(a.keyword is not None and a.keyword.value == "num_outputs" for a in call.args)
    ndd_path, _, entry = optable.resolve_fn(qualname[len(FN) + 1:])
    if not entry or not ndd_path:
        return True
    return derive.may_have_several_outputs(ndd_path, {a.keyword.value for a in call.args if a.keyword})


def _ops_outputs(ops_name: str):
    entry = optable.ops_class(ops_name)
    if entry and entry.get("fn"):
        return _fn_outputs(f"{FN}.{entry['fn']}")
    return TOP
