"""One description of a pipeline, whatever style defined it, and the code that finds them.

Four styles normalise to ``PipelineDesc``: ``@pipeline_def`` functions, ``pipe = Pipeline(...)``
filled in ``with pipe:``, ``Pipeline`` subclasses with ``define_graph``, and legacy ``ops.*`` objects
(which become plain op calls first, so the emitter only ever sees fn/ndd calls).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from ... import optable
from ...source import code_for_node, parse_expression, parse_statement
from ...names import FN, NDD, OPS, dotted

# Pipeline(...) positional parameters, in order (nvidia.dali.Pipeline.__init__).
PIPELINE_POSITIONAL = ("batch_size", "num_threads", "device_id", "seed", "exec_pipelined",
                       "prefetch_queue_depth", "exec_async", "bytes_per_sample", "set_affinity",
                       "max_streams", "default_cuda_stream_priority")
CORE = ("batch_size", "num_threads", "device_id", "seed")
# Options the migrated code keeps a meaning for elsewhere (checkpointing, conditionals).
HANDLED_ELSEWHERE = ("enable_checkpointing", "enable_conditionals", "py_num_workers", "py_start_method")

PIPELINE_DEF = "nvidia.dali.pipeline_def"
PIPELINE_CLS = "nvidia.dali.Pipeline"


class CannotUnroll(Exception):
    rule: str | None = None  # the marker's rule; None: DM212 (DM213 for conditionals)

    def __init__(self, reason: str, node: cst.CSTNode | None = None, rule: str | None = None):
        super().__init__(reason)
        self.reason = reason
        self.node = node
        if rule is not None:
            self.rule = rule


@dataclass
class ReaderSpec:
    var: str  # the Python name (or self.attr) that holds the reader object
    call: cst.Call  # ndd.readers.X(...) constructor call, already rewritten
    ndd_path: str  # "readers.File"
    target: cst.BaseAssignTargetExpression  # what each step unpacks into
    name: str | None  # the reader's name= (for reader_name / epoch_size)
    kwargs: dict[str, cst.BaseExpression] = field(default_factory=dict)
    comments: list = field(default_factory=list)  # the comment lines above the reader's statement


@dataclass
class PipelineDesc:
    name: str
    style: str  # "def" | "with" | "class"
    node: cst.CSTNode
    config: dict[str, cst.BaseExpression]  # Pipeline arguments from the decorator / constructor
    readers: list[ReaderSpec] = field(default_factory=list)
    pre: list[cst.BaseStatement] = field(default_factory=list)  # run once, before the loop
    loop: list[cst.BaseStatement] = field(default_factory=list)  # one pipeline step
    outputs: list[cst.BaseExpression] = field(default_factory=list)
    rngs: list[tuple[str, cst.BaseExpression]] = field(default_factory=list)  # per-op seeds
    has_random: bool = False
    params: list[str] = field(default_factory=list)  # the user parameters, in order
    param_defaults: dict[str, cst.BaseExpression] = field(default_factory=dict)
    extra: dict = field(default_factory=dict)  # style-specific details for the emitter

    def reader_named(self, name: str | None) -> ReaderSpec | None:
        if name is None:
            return self.readers[0] if len(self.readers) == 1 else None
        for reader in self.readers:
            if reader.name == name:
                return reader
        return self.readers[0] if len(self.readers) == 1 else None


def literal_value(expr: cst.BaseExpression | None):
    """Python value of a simple literal (int, str, True/False/None), else a sentinel."""
    if expr is None:
        return None
    if isinstance(expr, cst.Integer):
        return int(expr.value, 0)
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus) \
            and isinstance(expr.expression, cst.Integer):
        return -int(expr.expression.value, 0)
    if isinstance(expr, cst.Name) and expr.value in ("True", "False", "None"):
        return {"True": True, "False": False, "None": None}[expr.value]
    if isinstance(expr, cst.SimpleString):
        return expr.evaluated_value
    return _UNKNOWN


class _Unknown:
    def __repr__(self):
        return "<unknown>"


_UNKNOWN = _Unknown()


def is_unknown(value) -> bool:
    return value is _UNKNOWN


def kwarg(call: cst.Call, name: str) -> cst.BaseExpression | None:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg.value
    return None


def without_kwargs(call: cst.Call, names) -> cst.Call:
    args = list(call.args)
    kept = [a for a in args if not (a.keyword is not None and a.keyword.value in names)]
    if len(kept) == len(args):
        return call
    if kept and kept[-1] is not args[-1]:
        # the new last argument takes the old last one's ending (trailing comma, newline before ")")
        kept[-1] = kept[-1].with_changes(comma=args[-1].comma, whitespace_after_arg=args[-1].whitespace_after_arg)
    return call.with_changes(args=kept)


def with_kwarg(call: cst.Call, name: str, value: cst.BaseExpression) -> cst.Call:
    new = cst.Arg(keyword=cst.Name(name), value=value,
                  equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                        whitespace_after=cst.SimpleWhitespace("")))
    args = list(call.args)
    if not args:
        return call.with_changes(args=[new])
    last = args[-1]
    if isinstance(last.comma, cst.Comma) and _comma_has_newline(last.comma):
        # one argument per line with a trailing comma: keep that layout
        between = args[-2].comma if len(args) > 1 and isinstance(args[-2].comma, cst.Comma) \
            and _comma_has_newline(args[-2].comma) else last.comma
        args[-1] = last.with_changes(comma=between)
        new = new.with_changes(comma=last.comma)
    else:
        ending = last.comma
        args[-1] = last.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        if isinstance(ending, cst.Comma):
            new = new.with_changes(comma=ending)
    args.append(new)
    return call.with_changes(args=args)


def _comma_has_newline(comma: cst.Comma) -> bool:
    return isinstance(comma.whitespace_after, cst.ParenthesizedWhitespace)


def expr(code: str) -> cst.BaseExpression:
    return parse_expression(code)


def stmt(code: str) -> cst.BaseStatement:
    return parse_statement(code)


def ndd_attr(path: str) -> cst.BaseExpression:
    node: cst.BaseExpression = cst.Name("ndd")
    for part in path.split("."):
        node = cst.Attribute(value=node, attr=cst.Name(part))
    return node


def code_of(node: cst.CSTNode) -> str:
    return code_for_node(node)


# -- operator lookup ---------------------------------------------------------------------------

def fn_path(imports, func: cst.BaseExpression) -> str | None:
    """``"readers.file"`` for a callee that resolves to nvidia.dali.fn.readers.file."""
    qualname = imports.qualname(func)
    if qualname and qualname.startswith(FN + "."):
        return qualname[len(FN) + 1:]
    return None


def ops_path(imports, func: cst.BaseExpression) -> str | None:
    """``"FileReader"`` / ``"readers.File"`` for a callee that resolves to nvidia.dali.ops.X."""
    qualname = imports.qualname(func)
    if qualname and qualname.startswith(OPS + "."):
        return qualname[len(OPS) + 1:]
    return None


def ndd_path_of(imports, func: cst.BaseExpression) -> str | None:
    qualname = imports.qualname(func)
    if qualname and qualname.startswith(NDD + "."):
        return qualname[len(NDD) + 1:]
    return None


def op_entry(path: str) -> tuple[str | None, dict | None]:
    """(current fn path, table entry) for an fn path, following deprecations."""
    ndd_path, replaced_by, entry = optable.resolve_fn(path)
    return (replaced_by or path), entry


def ndd_entry(ndd_path: str) -> tuple[str | None, dict | None]:
    """(fn path, entry) for an ndd path (``random.coin_flip``), by reverse lookup in the table."""
    for path, entry in optable.table()["fn"].items():
        if entry.get("ndd") == ndd_path and not entry.get("replacement"):
            return path, entry
    return None, None


OPS_DROPPED = ("name", "preserve", "bytes_per_sample_hint")  # ndd rejects them; none changes what an op computes


def ops_fn_entry(path: str) -> tuple[str | None, dict | None]:
    """(fn path, fn table entry) of the legacy ``ops.<path>`` class (``"Flip"``, ``"random.CoinFlip"``), following
    deprecations; (None, None) where it has no fn counterpart."""
    entry = optable.ops_class(path)
    if not entry or not entry.get("fn"):
        return None, None
    current = optable.resolve_fn(entry["fn"])[1] or entry["fn"]
    return current, optable.resolve_fn(current)[2]


def ops_object_callable(call: cst.Call, fn_entry: dict, rng: cst.BaseExpression | None = None,
                        own_rng: bool = False) -> cst.Lambda:
    """What an ops object ``ops.X(a, b=c)`` is in dynamic mode: ``lambda *inputs, **kwargs: ndd.x(*inputs, a, b=c,
    **kwargs)``. In pipeline mode each call of the object adds an operator with the constructor's arguments and the
    call's (docs/dali-facts.md), which is that ndd call. ``rng``: the object's own random stream (its ``seed=``),
    passed as ``rng=`` instead of the seed, made once by whoever holds the lambda; ``own_rng``: the lambda makes it
    itself, once, as the default of a keyword-only ``rng`` (``lambda *inputs, rng=ndd.random.RNG(seed=s), **kwargs``:
    a default is evaluated when the lambda is made, where the object was made), so it can stand wherever the object
    stood (a list's element, a factory's return value)."""
    args = [a for a in call.args if a.keyword is None or a.keyword.value not in OPS_DROPPED]
    seed = kwarg(call, "seed")
    defaults = []
    if own_rng and seed is not None:
        rng = cst.Name("rng")
        defaults = [cst.Param(cst.Name("rng"), default=parse_expression(f"ndd.random.RNG(seed={code_for_node(seed)})"),
                              equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                                    whitespace_after=cst.SimpleWhitespace("")),
                              comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))]
    if rng is not None:
        args = [a for a in args if a.keyword is None or a.keyword.value != "seed"]
        args.append(cst.Arg(keyword=cst.Name("rng"), value=rng,
                            equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                                  whitespace_after=cst.SimpleWhitespace(""))))
    args = [cst.Arg(cst.Name("inputs"), star="*"), *args, cst.Arg(cst.Name("kwargs"), star="**")]
    fixed = [(a if isinstance(a.comma, cst.Comma) else a.with_changes(comma=cst.Comma(
        whitespace_after=cst.SimpleWhitespace(" ")))) if i < len(args) - 1 else a.with_changes(
        comma=cst.MaybeSentinel.DEFAULT) for i, a in enumerate(args)]
    return cst.Lambda(params=cst.Parameters(star_arg=cst.Param(cst.Name("inputs"), star="*",
                                                               comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
                                            kwonly_params=defaults,
                                            star_kwarg=cst.Param(cst.Name("kwargs"), star="**")),
                      body=cst.Call(func=ndd_attr(fn_entry["ndd"]), args=fixed))


def seeded(call: cst.Call, entry: dict | None) -> bool:
    """A call of a random operator with ``seed=``, which its ndd function does not take (it takes rng=)."""
    return bool(entry) and "seed" in entry.get("dropped_args", ()) and any(
        a.keyword is not None and a.keyword.value == "seed" for a in call.args)


class SeededCalls(cst.CSTVisitor):
    """The calls of fn random operators with ``seed=`` in a tree."""

    def __init__(self, imports):
        super().__init__()
        self.imports = imports
        self.found: list[cst.Call] = []

    def visit_Call(self, node):
        path = fn_path(self.imports, node.func)
        if path is not None and seeded(node, optable.resolve_fn(path)[2]):
            self.found.append(node)


def seeded_calls(node: cst.CSTNode, imports, skipped=frozenset(), may_mention=None) -> list[cst.Call]:
    """The seeded random-op calls in ``node``, outside the statements ``skipped`` (those of kept units).
    ``may_mention(node, words)`` (``MigrationContext.may_mention``): False where the node's text has none of the
    words (a subtree that does not say seed holds no seeded call: not walked)."""
    from ...walk import mentioning, walk

    mention = mentioning(may_mention, SEED_WORDS)
    if skipped:
        keep = (lambda n: n not in skipped and mention(n)) if mention else (lambda n: n not in skipped)
    else:
        keep = mention
    finder = SeededCalls(imports)
    walk(node, finder, keep=keep)
    return finder.found


SEED_WORDS = frozenset({"seed"})  # what the text of a seeded call says


def has_seeded_call(node: cst.CSTNode, imports, may_mention=None) -> bool:
    return bool(seeded_calls(node, imports, may_mention=may_mention))


def is_reader_path(path: str) -> bool:
    _, entry = op_entry(path)
    return bool(entry) and entry.get("kind") == "reader"


def dotted_or_none(node) -> str | None:
    return dotted(node) if isinstance(node, (cst.Name, cst.Attribute)) else None


class NameReads(cst.CSTVisitor):
    """The Name nodes of an expression or statement that are references (attribute names and
    keyword-argument names are not), and how many calls it makes."""

    def __init__(self):
        self.nodes: list[cst.Name] = []
        self.calls = 0
        self._skip: set[cst.CSTNode] = set()

    @property
    def names(self) -> set[str]:
        return {node.value for node in self.nodes}

    def visit_Attribute(self, node):
        self._skip.add(node.attr)

    def visit_Arg(self, node):
        if node.keyword is not None:
            self._skip.add(node.keyword)

    def visit_Name(self, node):
        if node not in self._skip:
            self.nodes.append(node)

    def visit_Call(self, node):
        self.calls += 1


def target_names(target) -> list[str]:
    """The names an assignment or loop target binds (``a``, ``a, (b, c)``)."""
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for e in target.elements for n in target_names(e.value)]
    return []


class AssignedNames(cst.CSTVisitor):
    """The names a statement binds, in any way: ``=``, ``+=``, an annotated assignment, a ``for`` target, ``:=``,
    ``with ... as``/``except ... as``, ``import``, ``def``, ``class``, ``global``/``nonlocal``. (A comprehension's
    own targets bind nothing outside it.)"""

    def __init__(self):
        self.names: set[str] = set()
        self.stored: set[str] = set()  # names stored through, not bound: ``x.a = v``, ``x[k] += v``

    def _target(self, target):
        self.names.update(target_names(target))
        if isinstance(target, (cst.Attribute, cst.Subscript)) and _base_name(target) is not None:
            self.stored.add(_base_name(target))

    def visit_AssignTarget(self, node):
        self._target(node.target)

    def visit_AugAssign(self, node):
        self._target(node.target)

    def visit_AnnAssign(self, node):
        self._target(node.target)

    def visit_For(self, node):
        self.names.update(target_names(node.target))

    def visit_NamedExpr(self, node):
        self.names.update(target_names(node.target))

    def visit_AsName(self, node):
        self.names.update(target_names(node.name))

    def visit_FunctionDef(self, node):
        self.names.add(node.name.value)

    def visit_ClassDef(self, node):
        self.names.add(node.name.value)

    def visit_Global(self, node):
        self.names.update(n.name.value for n in node.names)

    def visit_Nonlocal(self, node):
        self.names.update(n.name.value for n in node.names)

    def visit_ImportAlias(self, node):
        if node.asname is None:  # `import a.b` binds a
            name = node.name
            while isinstance(name, cst.Attribute):
                name = name.value
            self.names.update(target_names(name))


# Methods of Python's own values that read their object and leave it as it was: a call of any other method
# on a name (``outs.append(x)``, ``d.update(...)``, ``rng.random()``, a method of the user's own object) may change it.
_READING_METHODS = frozenset((
    "copy", "count", "index", "get", "keys", "values", "items", "format", "format_map", "join", "split", "rsplit",
    "splitlines", "strip", "lstrip", "rstrip", "startswith", "endswith", "lower", "upper", "replace", "find", "rfind",
    "encode", "decode", "isdigit", "isalpha", "isalnum", "issubset", "issuperset", "isdisjoint", "union",
    "intersection", "difference", "symmetric_difference", "astype", "reshape", "tolist", "item", "sum", "mean",
    "min", "max", "exists", "is_file", "is_dir", "glob", "rglob", "iterdir", "read_text", "read_bytes", "joinpath",
))


def _base_name(node) -> str | None:
    """``x`` of ``x``, ``x[k]``, ``x.a``, ``x[k].a[j]``: the variable whose object a store through it changes."""
    while isinstance(node, (cst.Subscript, cst.Attribute)):
        node = node.value
    return node.value if isinstance(node, cst.Name) else None


class ChangedNames(cst.CSTVisitor):
    """The names whose value a statement changes other than by binding them with ``=``: in place (a method call on
    the name that may change its object, ``x[k] = v``, ``x.a = v``, ``del x[k]``) or by augmented assignment
    (``x += v``, ``x[k] += v``); and ``aliases``, the pairs a plain ``a = b`` makes (one object, two names).
    A statement that runs once before the steps and binds such a name cannot leave the steps when a statement of
    the steps changes it: pipeline mode ran both once, the steps would change it again each time
    (``outs = []`` once, ``outs.append(op())`` per step)."""

    def __init__(self):
        self.names: set[str] = set()
        self.aliases: set[tuple[str, str]] = set()
        self.loop_targets: set[str] = set()  # bound by a ``for`` before its body reads them
        self.loaded: set[str] = set()  # the names it reads (NameReads counts the names ``=`` binds too)
        self._stored: set[int] = set()

    def visit_For(self, node):
        self.loop_targets.update(target_names(node.target))
        self._store(node.target)

    def _store(self, target):
        if isinstance(target, cst.Name):
            self._stored.add(id(target))
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._store(element.value)
        elif isinstance(target, cst.StarredElement):
            self._store(target.value)

    def visit_Name(self, node):
        if id(node) not in self._stored:
            self.loaded.add(node.value)

    def visit_Attribute(self, node):
        self._stored.add(id(node.attr))  # (not a name: an attribute)

    def visit_Arg(self, node):
        if node.keyword is not None:
            self._stored.add(id(node.keyword))

    def visit_Call(self, node):
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value not in _READING_METHODS:
            name = _base_name(func.value)
            if name is not None and not isinstance(func.value, cst.Call):
                self.names.add(name)

    def visit_AssignTarget(self, node):
        self._store(node.target)
        if isinstance(node.target, (cst.Subscript, cst.Attribute)):
            name = _base_name(node.target)
            if name is not None:
                self.names.add(name)

    def visit_Assign(self, node):
        if isinstance(node.value, cst.Name):
            for target in node.targets:
                if isinstance(target.target, cst.Name):
                    self.aliases.add((target.target.value, node.value.value))

    def visit_AugAssign(self, node):
        name = _base_name(node.target)
        if name is not None:
            self.names.add(name)

    def visit_Del(self, node):
        targets = node.target.elements if isinstance(node.target, (cst.Tuple, cst.List)) else [node.target]
        for target in targets:
            target = getattr(target, "value", target)
            if isinstance(target, (cst.Subscript, cst.Attribute)):
                name = _base_name(target)
                if name is not None:
                    self.names.add(name)

    def visit_FunctionDef(self, node):
        return False  # its body runs when it is called; its own names are its own

    def visit_Lambda(self, node):
        return False


# Names replaced by the expressions they are bound to (a reader's arguments at the call site), attribute names
# and keywords left alone: shared by consumers, graph_functions and classes.
class _Substitute(cst.CSTTransformer):
    def __init__(self, binding):
        super().__init__()
        self.binding = binding
        self._skip: set[cst.CSTNode] = set()

    def visit_Attribute(self, node):
        self._skip.add(node.attr)

    def visit_Arg(self, node):
        if node.keyword is not None:
            self._skip.add(node.keyword)

    def leave_Name(self, original_node, updated_node):
        if original_node in self._skip or original_node.value not in self.binding:
            return updated_node
        return self.binding[original_node.value]
