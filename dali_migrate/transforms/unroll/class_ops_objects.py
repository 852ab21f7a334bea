"""The legacy ``ops.*`` objects a Pipeline subclass's ``__init__`` assigns to self (``self.x = ops.Y(...)``): the
operator each one is (the op table), whether it is a reader, an external source, an ``ops.Compose`` chain, one of
several chosen by a condition, or the reader a method returns (a reader maker); and how a call of one in
define_graph or in another method becomes an ndd call (``_GraphCalls``)."""

from __future__ import annotations

import libcst as cst

from ...walk import transform, walk
from ... import optable
from . import rules
from .class_common import _normalise_commas
from .step_calls import Env
from .model import CannotUnroll, NameReads, code_of, expr, kwarg, ops_path, with_kwarg, ndd_attr, literal_value, _Substitute

NON_READER_DROPPED = ("name", "preserve", "bytes_per_sample_hint")
COMPOSE = "Compose"  # ops.Compose([...]): a chain of ops objects (_OpsCollector._compose)
COMPOSE_PATH = "compose"  # its _OpsObject's fn_path


class _OpsObject:
    def __init__(self, attr, fn_path, entry, call, statement, top_level):
        self.attr = attr
        self.fn_path = fn_path
        self.entry = entry
        self.call = call
        self.statement = statement
        self.top_level = top_level
        self.inline = False
        self.graph_source = None  # ops.ExternalSource(source=X) called in define_graph: X
        # the same attribute assigned elsewhere (if/else): (call, statement, op table entry); each becomes its own
        # lambda, so the operator may differ from branch to branch
        self.others: list[tuple[cst.Call, cst.CSTNode, dict]] = []
        self.chosen: cst.IfExp | None = None  # ``self.x = A(...) if c else B(...)``: the choice of two readers
        self.made_by: str | None = None  # the method that returned this ops reader (_reader_makers)
        # ops.ExternalSource(source=...) assigned to the same attribute in other branches: (call, statement); each
        # becomes a callable giving the source's next batch, so the steps' calls read the one the attribute holds
        self.source_branches: list[tuple[cst.Call, cst.CSTNode]] = []

    @property
    def is_reader(self):
        return self.entry.get("kind") == "reader"

    @property
    def is_source(self):
        """An ``ops.ExternalSource``: its data comes from ``feed_input`` in ``iter_setup`` (``_feeds``)."""
        return self.fn_path == "external_source"

    @property
    def random(self) -> bool:
        """Random in some branch: the pipeline seed applies to it."""
        return any(entry.get("random") for entry in [self.entry, *(other[2] for other in self.others)])


class _OpsCollector(cst.CSTVisitor):
    """``self.X = ops.Y(...)`` anywhere in __init__."""

    def __init__(self, imports, makers=None):
        self.imports = imports
        self.makers = makers or {}  # method name -> the ops reader call it returns (_reader_makers)
        self.found: dict[str, _OpsObject] = {}
        self.depth = 0
        self.locals: set[str] = set()

    def visit_IndentedBlock(self, node):
        self.depth += 1

    def leave_IndentedBlock(self, node):
        self.depth -= 1

    def visit_AssignTarget(self, node):
        if isinstance(node.target, cst.Name):
            self.locals.add(node.target.value)

    def visit_SimpleStatementLine(self, node):
        if len(node.body) != 1 or not isinstance(node.body[0], cst.Assign):
            return
        assign = node.body[0]
        if len(assign.targets) == 1 and isinstance(assign.value, cst.IfExp) \
                and isinstance(assign.value.body, cst.Call) and isinstance(assign.value.orelse, cst.Call):
            # self.read = ops.readers.File(...) if x else ops.readers.Caffe(...): one reader or the other
            for call in (assign.value.body, assign.value.orelse):
                self._assigned(assign.targets[0].target, call, node, chosen=assign.value)
            return
        if len(assign.targets) != 1 or not isinstance(assign.value, cst.Call):
            return
        made = _made_reader(assign.value, self.makers)
        self._assigned(assign.targets[0].target, made if made is not None else assign.value, node)
        target = assign.targets[0].target
        if made is not None and isinstance(target, cst.Attribute) and target.attr.value in self.found:
            self.found[target.attr.value].made_by = assign.value.func.attr.value

    def _assigned(self, target, value: cst.Call, node, chosen: cst.IfExp | None = None):
        assign = cst.Assign([cst.AssignTarget(target)], value)
        if not (isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name)
                and target.value.value == "self"):
            return
        path = ops_path(self.imports, assign.value.func)
        if path is None:
            if chosen is not None and target.attr.value in self.found:  # x if c else <not an op>
                raise CannotUnroll(f"self.{target.attr.value} holds an operator or something else depending on "
                                   f"a condition", node)
            return
        if path == "ExternalSource" and target.attr.value in self.found:
            self._source_branch(self.found[target.attr.value], assign.value, node)
            return
        if path == COMPOSE:  # a chain of ops objects: one callable (_compose_statement)
            self._compose(target.attr.value, assign.value, node, chosen)
            return
        if path == "ExternalSource":  # a Python class, not in the table
            self.found[target.attr.value] = _OpsObject(target.attr.value, "external_source", {}, assign.value, node,
                                                       self.depth == 1)
            return
        entry = optable.ops_class(path)
        if entry is None or not entry.get("fn"):
            raise CannotUnroll(f"ops.{path} has no fn/ndd counterpart", node)
        fn_path = optable.resolve_fn(entry["fn"])[1] or entry["fn"]
        _, _, fn_entry = optable.resolve_fn(fn_path)
        if not fn_entry or not fn_entry.get("ndd"):
            raise CannotUnroll(f"ops.{path} has no dynamic-mode counterpart", node)
        attr = target.attr.value
        if attr in self.found and self.found[attr].is_source:  # the source came first: the operator holds it
            source = self.found[attr]
            self.found[attr] = _OpsObject(attr, fn_path, fn_entry, assign.value, node, False)
            self._source_branch(self.found[attr], source.call, source.statement)
            return
        if attr in self.found:
            other = self.found[attr]
            mixed = (chosen is not None or other.chosen is not None) and node is not other.statement
            if other.is_reader and fn_entry.get("kind") == "reader" and not mixed:
                # one reader or another by a condition of __init__ (a build-time value): each is created there
                # under it, and the steps read whichever self.{attr} holds; they must give the same outputs
                if fn_entry.get("outputs") != other.entry.get("outputs") or not isinstance(fn_entry.get("outputs"), int):
                    raise CannotUnroll(f"self.{attr} holds readers with different outputs depending on a condition",
                                       node)
                other.top_level = False
                other.others.append((assign.value, node, fn_entry))
                other.chosen = chosen or other.chosen
                return
            if other.is_reader or fn_entry.get("kind") == "reader":
                raise CannotUnroll(f"self.{attr} holds different readers depending on a condition", node)
            if bool(fn_entry.get("input_less")) != bool(other.entry.get("input_less")):
                # its calls get batch_size= or not, for every branch alike
                raise CannotUnroll(f"self.{attr} holds operators with and without inputs depending on a condition",
                                   node)
            other.top_level = False  # assigned in two places (if/else): keep it an object
            other.others.append((assign.value, node, fn_entry))
            return
        self.found[attr] = _OpsObject(attr, fn_path, fn_entry, assign.value, node, self.depth == 1)
        self.found[attr].chosen = chosen

    def _compose(self, attr: str, call: cst.Call, node, chosen) -> None:
        """``self.x = ops.Compose([ops.A(...), ops.B(...)])``: the ops written in place, each with an ndd counterpart,
        every one but the last giving one output (DALI 2.4.0's _CompoundOp hands all the outputs of one to the next,
        and call keyword arguments to the first only)."""
        if attr in self.found or chosen is not None or self.depth != 1:
            raise CannotUnroll(f"self.{attr} holds {code_of(call.func)}(...) under a condition or beside another "
                               f"operator", node)
        parts = []
        for sub in self._composed(call, node):
            path = ops_path(self.imports, sub.func)
            entry = optable.ops_class(path) if path not in (None, COMPOSE, "ExternalSource") else None
            fn_path = optable.resolve_fn(entry["fn"])[1] or entry["fn"] if entry and entry.get("fn") else None
            fn_entry = optable.resolve_fn(fn_path)[2] if fn_path else None
            if not fn_entry or not fn_entry.get("ndd"):
                raise CannotUnroll(f"{code_of(call.func)}(...) chains {code_of(sub)}, which has no ndd counterpart "
                                   f"the tool can write", node)
            if fn_entry.get("kind") == "reader" or fn_entry.get("input_less"):
                raise CannotUnroll(f"{code_of(call.func)}(...) chains ops.{path}, which takes no inputs", node)
            parts.append((path, fn_path, fn_entry, sub))
        for path, _, fn_entry, sub in parts[:-1]:
            outputs = fn_entry.get("outputs")
            if outputs is None and path.endswith("Resize") and kwarg(sub, "save_attrs") is None:
                outputs = 1  # save_attrs=True adds an output
            if outputs != 1:
                raise CannotUnroll(f"ops.{path} gives more than one output inside {code_of(call.func)}(...): the "
                                   f"next operator takes them all as inputs", node)
        last = parts[-1][2]
        entry = {"ndd": None, "compose": parts, "outputs": last.get("outputs"),
                 "random": any(p[2].get("random") for p in parts)}
        self.found[attr] = _OpsObject(attr, COMPOSE_PATH, entry, call, node, False)

    def _composed(self, call: cst.Call, node) -> list:
        """The ops calls an ``ops.Compose([...])`` chains, in order, a Compose written inside it flattened (as
        _CompoundOp flattens one); a list that is not written in place is not read."""
        listed = call.args[0].value if len(call.args) == 1 and call.args[0].keyword is None \
            and not call.args[0].star else None
        if not isinstance(listed, (cst.List, cst.Tuple)) or not listed.elements:
            raise CannotUnroll(f"{code_of(call.func)}(...) is not given a list of ops objects written in place, so "
                               f"the tool cannot tell which operators it chains", node)
        calls = []
        for element in listed.elements:
            sub = element.value
            if isinstance(element, cst.StarredElement) or not isinstance(sub, cst.Call) \
                    or ops_path(self.imports, sub.func) is None:
                raise CannotUnroll(f"{code_of(call.func)}(...) chains {code_of(sub)}, not an ops object written in "
                                   f"place", node)
            calls += self._composed(sub, node) if ops_path(self.imports, sub.func) == COMPOSE else [sub]
        return calls

    @staticmethod
    def _source_branch(obj: _OpsObject, call: cst.Call, node) -> None:
        """``self.x = ops.ExternalSource(source=S)`` in one branch of __init__ and an operator in another (a speech
        loader's speed-perturbation coefficients: fed, or drawn at random, or None): the operator's calls in the
        steps read the source's next batch where the attribute holds the source."""
        if obj.is_source or obj.is_reader or obj.chosen is not None or kwarg(call, "source") is None \
                or any(a.keyword is None or a.star for a in call.args) \
                or literal_value(kwarg(call, "cycle")) == "raise":  # (its epochs would restart on reset())
            raise CannotUnroll(f"self.{obj.attr} is an external source in one place and an operator in another", node)
        obj.top_level = False  # assigned in two places: an object, each branch its own
        obj.source_branches.append((call, node))


class _GraphCalls(cst.CSTTransformer):
    """In define_graph: ``self.op(...)`` -> the ndd call; ``self.x`` results -> locals."""

    def __init__(self, objects: dict[str, _OpsObject], local_attrs: set[str], env: Env):
        super().__init__()
        self.objects = objects
        self.local_attrs = local_attrs
        self.env = env

    def leave_Call(self, original_node, updated_node):
        func = updated_node.func
        if not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self"
                and func.attr.value in self.objects):
            return updated_node
        obj = self.objects[func.attr.value]
        if obj.is_reader:
            return updated_node  # handled with its statement
        positional = [a for a in updated_node.args if a.keyword is None]
        add_batch = obj.entry.get("input_less") and not positional and kwarg(updated_node, "batch_size") is None
        if obj.inline:
            ctor = _ctor_kwargs(obj)
            call = cst.Call(func=ndd_attr(obj.entry["ndd"]), args=[*updated_node.args, *ctor])
            call = _normalise_commas(call)
            return call  # random fixes run over the whole step afterwards (fix_random_call)
        call = updated_node
        if add_batch:
            call = with_kwarg(call, "batch_size", expr(self.env.batch_size))
            self.env.report(rules.RANDOM_BATCH_SIZE.id, f"self.{obj.attr}() ({obj.fn_path}) gets "
                              f"batch_size={self.env.batch_size}: one value per sample", original_node)
        if obj.entry.get("random") and self.env.rng_mode and kwarg(obj.call, "seed") is None \
                and obj.fn_path != COMPOSE_PATH:  # a chain's random ops have their own RNGs (describe_class)
            call = with_kwarg(call, "rng", expr("rng"))
        return call

    def leave_Attribute(self, original_node, updated_node):
        if isinstance(updated_node.value, cst.Name) and updated_node.value.value == "self" \
                and updated_node.attr.value in self.local_attrs:
            return cst.Name(updated_node.attr.value)
        return updated_node


def _ctor_kwargs(obj: _OpsObject):
    args = [a for a in obj.call.args if a.keyword is None or a.keyword.value not in NON_READER_DROPPED]
    return args


def _reader_makers(imports, methods: dict) -> dict[str, cst.FunctionDef]:
    """The methods whose body only returns an ops reader (``def get_reader(self, data): return
    ops.readers.Numpy(files=data, ...)``): a call of one in __init__ creates that reader there."""
    found = {}
    for name, method in methods.items():
        body = [s for s in method.body.body if not (isinstance(s, cst.SimpleStatementLine) and isinstance(
            s.body[0], cst.Expr) and isinstance(s.body[0].value, (cst.SimpleString, cst.ConcatenatedString)))] \
            if isinstance(method.body, cst.IndentedBlock) else []
        if len(body) != 1 or not isinstance(body[0], cst.SimpleStatementLine) or len(body[0].body) != 1:
            continue
        returned = body[0].body[0]
        if not isinstance(returned, cst.Return) or not isinstance(returned.value, cst.Call):
            continue
        path = ops_path(imports, returned.value.func)
        entry = optable.ops_class(path) if path else None
        fn_entry = optable.resolve_fn(entry["fn"])[2] if entry and entry.get("fn") else None
        params = method.params
        if fn_entry and fn_entry.get("kind") == "reader" and not isinstance(params.star_arg, (cst.Param, cst.ParamStar)) \
                and params.star_kwarg is None \
                and not params.kwonly_params and not params.posonly_params and params.params \
                and params.params[0].name.value == "self":
            found[name] = method
    return found


def _made_reader(call: cst.Call, makers: dict) -> cst.Call | None:
    """``self.get_reader(x)`` of a reader maker: the ops reader call it returns, its parameters bound to the
    arguments (names, attributes and literals only: each is read as often as the maker reads its parameter)."""
    func = call.func
    if not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self"
            and func.attr.value in makers) or any(a.star for a in call.args):
        return None
    method = makers[func.attr.value]
    params = method.params.params[1:]
    names = [p.name.value for p in params]
    binding = {}
    positional = [a for a in call.args if a.keyword is None]
    if len(positional) > len(params):
        return None
    for param, arg in zip(names, positional):
        binding[param] = arg.value
    for arg in call.args:
        if arg.keyword is not None:
            if arg.keyword.value not in names or arg.keyword.value in binding:
                return None
            binding[arg.keyword.value] = arg.value
    for param in params:
        if param.name.value not in binding:
            if param.default is None:
                return None
            binding[param.name.value] = param.default
    if not all(_plain_read(v) for v in binding.values()):
        raise CannotUnroll(f"{code_of(call)}: an argument of the reader maker is not a name, an attribute, a "
                           f"literal or a subscript of one by a literal (it would be evaluated again)", call)
    return transform(method.body.body[-1].body[0].value, _Substitute(binding), layout=False)


def _plain_read(node) -> bool:
    """A value that reading again gives again: a name, an attribute, a literal, ``kwargs["imgs"]``."""
    if isinstance(node, cst.Subscript):
        return len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index) and isinstance(
            node.slice[0].slice.value, (cst.SimpleString, cst.Integer)) and _plain_read(node.value)
    return isinstance(node, (cst.Name, cst.Attribute, cst.SimpleString, cst.Integer, cst.Float))


def _collect_objects(imports, init, hierarchy: bool, makers=None) -> dict[str, _OpsObject]:
    """The ops objects ``init`` assigns to self (``makers``: the class's methods that return an ops reader). In a
    class hierarchy every non-reader one stays an object (a lambda): other classes' methods may call it."""
    collector = _OpsCollector(imports, makers or {})
    if init is None:
        return {}
    walk(init, collector)
    init_names = collector.locals | {p.name.value for p in init.params.params} - {"self"}
    for obj in collector.found.values():
        if obj.is_source:
            continue
        if obj.is_reader:
            if not obj.top_level and not obj.others:
                raise CannotUnroll(f"the reader self.{obj.attr} is created conditionally", obj.statement)
            continue
        free = NameReads()
        walk(obj.call, free)
        obj.inline = obj.top_level and not hierarchy and not (free.names & (init_names | {"self"}))
    return collector.found
