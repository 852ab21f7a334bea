"""Pipeline subclasses with define_graph, and the legacy ``ops.*`` objects they hold.

``class P(Pipeline)`` becomes ``class P(ReaderStream)`` with the same ``__init__`` signature:
``super().__init__`` turns into attributes (batch_size, num_threads, device_id, seed), the reader ops object
into the ndd reader (created once, in ``__init__``, and listed by its name in ``self._readers``), and
``define_graph`` into a generator that yields one step per former ``pipe.run()``. The instance is the
pipeline, as before: ``next(pipe)`` gives the next step, and ``epoch_size``/``reader_meta``/``max_batch_size``
answer from its reader (``stream.py``). Other ops objects become ndd calls with the same arguments: inline
in ``steps`` when their arguments are constants, else a lambda built in ``__init__`` (so arguments
computed there keep their values, as the ops object kept them). Removed classes such as
``ops.nvJPEGDecoder`` or ``ops.FileReader`` map through the op table.
"""

from __future__ import annotations

import ast

import libcst as cst

from ...walk import transform, walk
from ... import optable
from ...dataflow import STREAM_CLASS
from ...files import module_name_of
from ...names import NDD, dotted, free_name
from . import checkpoints, conditional, constants, prefetch, rules, sources as external, stream
from .graph import _source_setup, build_graph, eager_sources, make_reader
from .generator_code import _uses_name, device_statement, loop_statements, seeding_statements, thread_statement
from .outputs import closing_returns, output_elements
from .step_calls import Env, argument_inputs_alike
from .helpers import class_source
from .model import (PIPELINE_CLS, AssignedNames, CannotUnroll, NameReads, PipelineDesc, code_of, expr, kwarg, ops_path,
                    stmt, with_kwarg, without_kwargs, ndd_attr, literal_value, ops_object_callable, _Substitute)

ITER_SETUP = "iter_setup"
EPOCH_ENDED = "iter_setup() ended the epoch: pipe.run() raised StopIteration until pipe.reset()"
# A class fed by iter_setup(): reset() after its steps ended starts them again (ReaderStream.reset).
RESTART = ("def _restart(self, epoch):\n"
           "    \"\"\"pipe.reset() after iter_setup() ended an epoch: the next epoch's steps.\"\"\"\n"
           "    return self.steps()\n")
FEED_INPUT = "feed_input"
# ops.ExternalSource(...) arguments: ndd.as_batch's, and those that only tuned the pipeline's copy of the data
SOURCE_AS_BATCH = ("dtype", "layout", "device")
SOURCE_DROPPED = ("name", "ndim", "no_copy", "blocking", "use_copy_kernel", "cuda_stream")
STEPS_METHOD = "steps"  # the generator ReaderStream.__next__ starts (dali_migrate/runtime/reader_stream.py)
OPTIONS_METHOD = "_pipeline_options"  # ReaderStream's: the options a super().__init__(*args, **kwargs) forwarded
_STREAM_ATTRIBUTES = (STEPS_METHOD, "_steps", "_readers", "_dali_pipeline", OPTIONS_METHOD)  # what ReaderStream defines
# the options a migrated class's steps read (``self.<name>``), set by its __init__
_STEP_OPTIONS = ("batch_size", "num_threads", "device_id", "seed")
_POSITIONAL = ("batch_size", "num_threads", "device_id", "seed", "exec_pipelined", "prefetch_queue_depth",
               "exec_async", "bytes_per_sample", "set_affinity", "max_streams", "default_cuda_stream_priority")
NON_READER_DROPPED = ("name", "preserve", "bytes_per_sample_hint")
# Pipeline methods a ReaderStream does not have (it has epoch_size, reader_meta, reset, max_batch_size, batch_size):
# another method of the class that uses one keeps the class in pipeline mode
_PIPELINE_ONLY = ("build", "run", "schedule_run", "share_outputs", "release_outputs", "outputs", "feed_input",
                  "serialize", "set_outputs", "checkpoint", "_prefetch", "_run_once", "start_py_workers")
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


def _methods(node: cst.ClassDef):
    return {s.name.value: s for s in node.body.body if isinstance(s, cst.FunctionDef)}


def _super_init(statement, class_name, imports):
    """The Pipeline.__init__ call of ``super().__init__(...)`` forms, or None."""
    if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1
            and isinstance(statement.body[0], cst.Expr) and isinstance(statement.body[0].value, cst.Call)):
        return None
    call = statement.body[0].value
    func = call.func
    if not (isinstance(func, cst.Attribute) and func.attr.value == "__init__"):
        return None
    owner = func.value
    if isinstance(owner, cst.Call) and isinstance(owner.func, cst.Name) and owner.func.value == "super":
        return call, list(call.args)
    if imports.qualname(owner) == PIPELINE_CLS:
        return call, list(call.args)[1:]  # Pipeline.__init__(self, ...)
    return None


def _config(args):
    config = {}
    positional = [a for a in args if a.keyword is None]
    if any(a.star for a in args):
        raise CannotUnroll("super().__init__ with *args/**kwargs: the pipeline arguments are not known")
    for name, arg in zip(_POSITIONAL, positional):
        config[name] = arg.value
    for arg in args:
        if arg.keyword is not None:
            config[arg.keyword.value] = arg.value
    return config


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


def _normalise_commas(call: cst.Call) -> cst.Call:
    args = list(call.args)
    fixed = []
    for i, a in enumerate(args):
        if i < len(args) - 1:
            if not isinstance(a.comma, cst.Comma):
                a = a.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        else:
            a = a.with_changes(comma=cst.MaybeSentinel.DEFAULT)
        fixed.append(a)
    return call.with_changes(args=fixed)


class _SelfTargets(cst.CSTVisitor):
    """Attributes of self assigned inside define_graph (self.jpegs, self.labels = ...)."""

    def __init__(self):
        self.names: set[str] = set()

    def visit_AssignTarget(self, node):
        self._collect(node.target)

    def _collect(self, target):
        if isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) and target.value.value == "self":
            self.names.add(target.attr.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for e in target.elements:
                self._collect(e.value)


def filled_instances(unroller, class_name: str) -> list[str]:
    """The names bound to ``class_name(...)`` in this module and filled with ``with <name>:`` (a Pipeline subclass
    used as a plain Pipeline), when no class of its chain or its subclasses here defines define_graph."""
    node = unroller.d.classes.get(class_name)
    if node is None:
        return []
    chain, subclasses = _chain(unroller, node), [c for c in unroller.d.classes.values() if node in _chain(unroller, c)]
    if any("define_graph" in _methods(c) for c in {*chain, *subclasses}):
        return []
    return sorted({key.split(":", 1)[1] for key, (kind, func, _) in unroller.d.pipe_vars.items()
                   if kind == "call" and func == class_name and key.split(":", 1)[1] in unroller.d.with_names})


def _chain(unroller, node: cst.ClassDef) -> list[cst.ClassDef]:
    """The class and its Pipeline-subclass ancestors in this module, nearest first, ending with the one that
    derives from Pipeline itself; or ending with a Pipeline class of another module of the run, read from its
    text there (``_foreign_node``: a hierarchy across modules, capability 2), which derives from Pipeline itself."""
    classes = unroller.d.classes
    chain = [node]
    while True:
        parent = next((classes[b.value.value] for b in chain[-1].bases if isinstance(b.value, cst.Name)
                       and classes.get(b.value.value) is not None and classes[b.value.value] not in chain), None)
        if parent is None:
            foreign = unroller.d.foreign_bases.get(chain[-1].name.value) if classes.get(
                chain[-1].name.value) is chain[-1] else None
            if foreign is not None:
                chain.append(_foreign_node(unroller, foreign[1]))
            return chain
        chain.append(parent)


def _foreign_node(unroller, record) -> cst.ClassDef:
    """The ClassDef of a Pipeline class of another module of the run (``ProjectClass``), parsed once; only one that
    derives from Pipeline itself."""
    nodes = unroller.__dict__.setdefault("_foreign_nodes", {})
    if record.qualname not in nodes:
        from ...names import _PIPELINE_NAMES

        if not all(base in _PIPELINE_NAMES for base in record.bases):
            raise CannotUnroll(f"its base class {record.qualname} (module {record.module}) does not derive from "
                               f"Pipeline itself: a hierarchy across more than two modules is not migrated")
        node = cst.parse_module(record.source).body[0]
        nodes[record.qualname] = node
        unroller.__dict__.setdefault("_foreign_records", {})[node] = record
    return nodes[record.qualname]


def _imports_of(unroller, cls: cst.ClassDef):
    """The import table a class of the hierarchy is read with: this module's, or, for a class of another module
    of the run, that module's (``ProjectClass.aliases``)."""
    record = unroller.__dict__.get("_foreign_records", {}).get(cls)
    if record is None:
        return unroller.ctx.imports
    from ...names import ImportTable

    table = ImportTable()
    table.aliases = dict(record.aliases)
    return table


def _foreign_subclass_nodes(unroller, node: cst.ClassDef) -> list[cst.ClassDef]:
    """The Pipeline classes of other modules of the run that derive from ``node`` (a class of this module)."""
    project = unroller.ctx.facts.get("project")
    if not project or not project.pipeline_classes or unroller.d.classes.get(node.name.value) is not node:
        return []
    found = []
    nodes = unroller.__dict__.setdefault("_foreign_nodes", {})
    for record in project.foreign_subclasses(module_name_of(unroller.ctx.path), node.name.value):
        if "<nested>" in record.qualname:
            raise CannotUnroll(f"a subclass of it is defined inside a function or class of module {record.module} "
                               f"({record.name}): it would not migrate with it", node)
        if record.qualname not in nodes:
            nodes[record.qualname] = cst.parse_module(record.source).body[0]
            unroller.__dict__.setdefault("_foreign_records", {})[nodes[record.qualname]] = record
        found.append(nodes[record.qualname])
    return found


def _hierarchy(unroller, node: cst.ClassDef) -> tuple[list[cst.ClassDef], list[cst.ClassDef]]:
    """(``_chain``; the classes that derive from this one: the module's, and those of other modules of the run)."""
    return _chain(unroller, node), [c for c in unroller.d.classes.values() if node in _chain(unroller, c)[1:]] + \
        _foreign_subclass_nodes(unroller, node)


def _across_modules(unroller, node: cst.ClassDef, chain, subclasses) -> None:
    """A hierarchy across modules of the run migrates on both sides alike, or stays in pipeline mode on both: the
    define_graph of another module migrated here is read with this module's imports, so every name it reads that
    an import there binds must be bound here alike (``_kept_elsewhere``: a class the other side keeps)."""
    records = unroller.__dict__.get("_foreign_records", {})
    if not any(c in records for c in [*chain, *subclasses]):
        return
    aliases = unroller.ctx.imports.aliases
    methods = {}
    for cls in reversed(chain):
        methods.update({name: cls for name in _methods(cls)})
    for cls in chain:
        record = records.get(cls)
        if record is None or methods.get("define_graph") is not cls:
            # its __init__ and reader makers are read with its own module's imports (``_imports_of``), its other
            # methods run there unchanged; a define_graph of its own, whose steps this class yields, is migrated
            # here, with this module's imports
            continue
        theirs = dict(record.aliases)
        reads = NameReads()
        walk(_methods(cls)["define_graph"], reads)
        for name in sorted(reads.names):
            if name in theirs and aliases.get(name) != theirs[name]:
                raise CannotUnroll(f"its base class {record.qualname} reads {name} ({theirs[name]} in module "
                                   f"{record.module}), which this module does not import alike", node)


def _kept_elsewhere(unroller, node: cst.ClassDef, chain, subclasses) -> None:
    """A class of a hierarchy across modules that another module of the run keeps in pipeline mode keeps this one
    (checked last: this class's own reasons, where it has some, are the ones its marker gives)."""
    records = unroller.__dict__.get("_foreign_records", {})
    if not any(c in records for c in [*chain, *subclasses]):
        return
    project = unroller.ctx.facts["project"]
    here = module_name_of(unroller.ctx.path)
    for cls in [node, *chain, *subclasses]:
        qualname = records[cls].qualname if cls in records else f"{here}.{cls.name.value}"
        unroller.ctx.facts.setdefault("kept_reads", set()).add(qualname)  # (this module migrates again if it changes)
        kept = project.kept.get(qualname)
        if kept is not None and kept[0] != here:  # (kept by another module of the run: its uses there stay)
            raise CannotUnroll(f"its class hierarchy spans modules, and {qualname} {kept[1]}", node)


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


def describe_class(unroller, node: cst.ClassDef) -> PipelineDesc:
    """A Pipeline subclass, alone or in a hierarchy of this module's classes: the one that derives from
    Pipeline (its ``super().__init__`` gives the pipeline options), a base class without define_graph that
    builds shared ops and helpers (``base``), a subclass that adds its reader and define_graph."""
    imports = unroller.ctx.imports
    # The ops objects become ndd calls that the graph builder must know as such (a reader is found by its
    # ndd path): the project's pre-scan describes classes before any pass has added the ndd import.
    imports.aliases.setdefault("ndd", NDD)
    chain, subclasses = _hierarchy(unroller, node)
    hierarchy = len(chain) > 1 or bool(subclasses)
    methods = {}
    for cls in reversed(chain):
        methods.update(_methods(cls))
    own = _methods(node)
    if FEED_INPUT in methods:
        raise CannotUnroll("the class defines its own feed_input()", methods[FEED_INPUT])
    if ITER_SETUP in methods and (hierarchy or ITER_SETUP not in own or "define_graph" not in own):
        raise CannotUnroll("iter_setup() in a class hierarchy: only a class with its own define_graph and "
                           "iter_setup is migrated", methods[ITER_SETUP])
    attributes = _SelfAttributes()
    for cls in {*chain, *subclasses}:
        walk(cls, attributes)
    taken = (attributes.names | set(methods)) & set(_STREAM_ATTRIBUTES)
    if taken:
        raise CannotUnroll(f"the class has its own {', '.join(sorted(taken))}, which the migrated class (a "
                           f"{STREAM_CLASS}) defines", node)
    renames, renames_kept = _graph_helper_names({*chain, *subclasses}, attributes.names)
    _across_modules(unroller, node, chain, subclasses)
    if (renames or renames_kept) and any(c in unroller.__dict__.get("_foreign_records", {})
                                         for c in [*chain, *subclasses]):
        raise CannotUnroll(f"a method named like define_graph ({', '.join(sorted({*renames, *renames_kept}))}) in a "
                           f"class hierarchy across modules: its new name would have to agree in every module", node)
    root_init, graph = _methods(chain[-1]).get("__init__"), methods.get("define_graph")
    base = graph is None and any("define_graph" in _methods(c) for c in subclasses)
    if root_init is not None and graph is None and not base:
        filled = filled_instances(unroller, node.name.value)
        if filled:  # used as a plain Pipeline here: its pipelines are built in this module, not in others
            own = sorted({*attributes.names, *methods} - {"__init__"})
            raise CannotUnroll(f"a Pipeline subclass with no define_graph, used here as a Pipeline filled with `with "
                               f"{filled[0]}:`: each instance is both the pipeline and an object of the class"
                               + (f" ({', '.join(own)})" if own else "") + ", and the tool does not split one "
                               "into a dynamic-mode generator and an object that keeps the rest", node)
        raise CannotUnroll("a Pipeline subclass with no define_graph, and no subclass in this module defines one: "
                           "the pipelines built on it are defined in other modules, and a base class changes with "
                           "its subclasses (a hierarchy across modules migrates when its modules are migrated "
                           "together: `dali-migrate migrate --write` over the folder that holds them)", node)
    if root_init is None or graph is None and not base:
        raise CannotUnroll("a Pipeline subclass without __init__ and define_graph", node)
    super_call = None
    for statement in root_init.body.body:
        super_call = _super_init(statement, chain[-1].name.value, _imports_of(unroller, chain[-1]))
        if super_call is not None:
            super_statement = statement if chain[-1] is node else None
            break
    if super_call is None:
        raise CannotUnroll("no super().__init__(...) call in __init__", root_init)
    forwarded = any(a.star for a in super_call[1])
    if forwarded:
        # super().__init__(*args, **kwargs): the options are known at run time only; ReaderStream._pipeline_options
        # takes them as Pipeline.__init__ did, and the steps read them from self
        config = {name: expr(f"self.{name}") for name in _STEP_OPTIONS}
        if ITER_SETUP in methods:  # (how far a DALI iterator ran it ahead depends on its prefetch_queue_depth)
            raise CannotUnroll("super().__init__ with *args/**kwargs in a class fed by iter_setup(): its prefetch "
                               "depth, which decides the epochs a DALI iterator sees, is not known", node)
    else:
        config = _config(super_call[1])
    unroller._check_config(node.name.value, config, node)
    if hierarchy and checkpoints.enabled(config):
        raise CannotUnroll("a checkpointed Pipeline class hierarchy", node)

    init = own.get("__init__")
    makers = {}  # a base class's get_reader() too (read with its own module's imports)
    for cls in reversed(chain):
        makers.update(_reader_makers(_imports_of(unroller, cls), _methods(cls)))
    makers = {name: method for name, method in makers.items() if methods.get(name) is method}
    objects = _collect_objects(imports, init, hierarchy, makers)
    inherited = {}  # the ancestors' ops objects, which this class's methods call too
    for cls in reversed(chain[1:]):
        inherited.update(_collect_objects(_imports_of(unroller, cls), _methods(cls).get("__init__"), hierarchy,
                                          makers))
    # readers a base class creates in its __init__: created there as ndd readers (``_base_reader_call``, the
    # base's side), read by this class's define_graph (each by a statement of its own, as its own readers)
    inherited_readers = {attr: obj for attr, obj in inherited.items() if obj.is_reader and attr not in objects}
    for obj in inherited_readers.values():
        if obj.others or obj.chosen is not None:
            raise CannotUnroll(f"self.{obj.attr}: a base class's __init__ creates one reader or another by a "
                               f"condition", obj.statement)
    if any(obj.is_source for obj in inherited.values()):
        raise CannotUnroll("an external source created in a base class's __init__", node)
    env = Env(unroller.ctx, unroller._reporter, batch_size="self.batch_size", seed="self.seed",
              rng_mode=unroller.d.rng_mode, prefix="", rng_counter=unroller.rng_counter)
    callable_objects = {**inherited, **objects}
    desc = PipelineDesc(name=node.name.value, style="class", node=node, config=config)
    # a random ops object, called by a helper method too: the pipeline seed applies to it
    desc.has_random = hierarchy and any(obj.random for obj in callable_objects.values())
    for obj in callable_objects.values():
        for path, call in [(obj.fn_path, obj.call), *((p, sub) for _, p, _, sub in obj.entry.get("compose", ()))]:
            if path not in (COMPOSE_PATH, "external_source") and not obj.is_reader:
                argument_inputs_alike(call, env, path)  # an argument dynamic mode reads differently (DM117)
        if unroller.d.rng_mode and obj.fn_path == COMPOSE_PATH and any(
                entry.get("random") and kwarg(sub, "seed") is None for *_, entry, sub in obj.entry["compose"]):
            raise CannotUnroll(f"self.{obj.attr} chains a random operator without a seed of its own, and the program "
                               f"passes the pipeline's RNG to those (rng=), which a chain written in __init__ cannot "
                               f"reach", obj.statement)
        if unroller.d.rng_mode and any(bool(e.get("random")) != bool(obj.entry.get("random")) for *_, e in obj.others):
            raise CannotUnroll(f"self.{obj.attr} is a random operator in some branches only: its calls cannot all "
                               f"take rng=", obj.statement)
    nearest_init = next((_methods(c)["__init__"] for c in chain if "__init__" in _methods(c)), root_init)
    desc.params = [p.name.value for p in nearest_init.params.params][1:]
    # the ops objects the other methods call (their rewriter is made when the class is written: an Env held
    # here would tie the unroller, its descriptions and their trees in a reference cycle)
    desc.extra.update(objects=objects, super_statement=super_statement, reader_attr=None, base=base,
                      forwarded_options=super_call[1] if forwarded else None,
                      helper_objects=callable_objects, renames=renames, renames_kept=renames_kept)
    hierarchy_readers = _hierarchy_readers(unroller, [*chain, *subclasses])
    helper_reads = _reader_helpers({*chain, *subclasses}, hierarchy_readers)
    # the reader helpers as this class's define_graph calls them: by name, through its bases
    reader_helpers = {name: helper_reads[method] for name, method in methods.items() if method in helper_reads}
    desc.extra.update(reader_helpers=helper_reads, hierarchy_readers=hierarchy_readers)
    if base:
        desc.extra["base_readers"] = {attr: _base_reader_call(obj, env, desc) for attr, obj in objects.items()
                                      if obj.is_reader}
        _kept_elsewhere(unroller, node, chain, subclasses)
        return desc
    graph_statements = list(graph.body.body)
    if reader_helpers:
        for name, reads in reader_helpers.items():
            for read in reads:
                if read.attr not in {**inherited_readers, **objects}:
                    raise CannotUnroll(f"{name}() reads self.{read.attr}, a reader {node.name.value} does not create "
                                       f"(a subclass's __init__ does)", read.call)
        taken = NameReads()
        walk(graph, taken)
        bound = AssignedNames()
        walk(graph, bound)
        graph_statements = _graph_with_reader_reads(graph_statements, reader_helpers, taken.names | bound.names)
    statements, branched = closing_returns(graph_statements, imports, unroller.report, node.name.value,
                                           refuse=lambda found: _reads_reader_object(found, callable_objects))
    if not branched and not (statements and isinstance(statements[-1], cst.SimpleStatementLine)
                             and isinstance(statements[-1].body[0], cst.Return)):
        raise CannotUnroll("define_graph does not end with `return <outputs>`", graph)
    targets = _SelfTargets()
    walk(graph, targets)
    fed = _feeds(node, own, objects, statements)
    local_attrs = targets.names - set(callable_objects) - set(fed.attrs)
    readable = {**inherited_readers, **objects}  # the reader objects define_graph may call
    rewriter = _GraphCalls(callable_objects, local_attrs, env)
    reader_attrs: list[str] = []  # the ops reader objects define_graph calls, in order
    site_kwargs: dict[str, list] = {}  # each one's call arguments (name=...), merged into its constructor
    converted = []
    for statement in [part for s in statements for part in _split_readers(s, readable)]:
        if statement in fed.graph_statements:
            continue  # `self.jpegs = self.input()`: iter_setup() sets self.jpegs to the batch it fed
        if statement in fed.in_graph:  # `x = self.src()`: the external source it was
            converted.append(fed.in_graph[statement])
            if statement in unroller.ctx.positions:
                unroller.ctx.positions.setdefault(converted[-1], unroller.ctx.positions[statement])
            continue
        reader_obj = _reader_call(statement, readable)
        original_statement = statement
        if reader_obj is not None:
            if reader_obj.attr in reader_attrs:
                raise CannotUnroll(f"self.{reader_obj.attr} is called twice in define_graph", statement)
            reader_attrs.append(reader_obj.attr)
            call = statement.body[0].value
            site_kwargs[reader_obj.attr] = [a for a in call.args if a.keyword is not None]
            if reader_obj.attr in inherited_readers and (
                    any(a.keyword is None or a.keyword.value != "name" for a in call.args)
                    or kwarg(call, "name") is not None and kwarg(reader_obj.call, "name") is not None):
                raise CannotUnroll(f"{code_of(call)}: a reader a base class creates is called with arguments other "
                                   f"than name= (its base creates it without them)", statement)
            merged = cst.Call(func=ndd_attr(reader_obj.entry["ndd"]),
                              args=[*reader_obj.call.args, *site_kwargs[reader_obj.attr]])
            merged = _normalise_commas(merged)
            assign = statement.body[0]
            new_target = transform(assign.targets[0].target, rewriter, layout=False)
            statement = statement.with_changes(body=[assign.with_changes(
                targets=[assign.targets[0].with_changes(target=new_target)], value=merged)])
            if original_statement in unroller.ctx.positions:
                unroller.ctx.positions.setdefault(statement, unroller.ctx.positions[original_statement])
            converted.append(statement)
            continue
        new = transform(statement, rewriter, layout=False)
        if isinstance(new, cst.If):  # `if self.training: x = self.train_input()`: each created in __init__
            new = _branch_readers(new, objects, desc, reader_attrs, unroller.ctx.positions)
        if statement in unroller.ctx.positions:
            unroller.ctx.positions.setdefault(new, unroller.ctx.positions[statement])
        converted.append(new)
    desc.extra["object_readers"] = len(reader_attrs)
    desc.extra["self_attributes"] = set(attributes.names) | set(methods)  # several readers: each an object created in __init__
    if branched:  # each branch of the closing if/else yields its own outputs
        build_graph(desc, converted, None, env)
    else:
        build_graph(desc, converted[:-1], output_elements(converted[-1].body[0].value), env, closing=converted[-1])
    fed_attributes = [obj for obj in objects.values() if obj.source_branches]
    for obj in fed_attributes:
        for name, method in methods.items():
            if name not in ("__init__", "define_graph") and _AttrUses.count_in(method, obj.attr):
                raise CannotUnroll(f"self.{obj.attr} (an external source or an operator) is used by {name}() too: "
                                   f"an ended source would not end the steps there", method)
    desc.extra["external_sources"] += len(fed_attributes)  # read in the steps: not prefetched, as such sources
    if desc.pre:
        # nothing runs "before the reader" in a define_graph, but the readers created under a condition
        # (graph._conditional_if) are made once, at the start of the steps
        # (and the calls of types.Constant's values, graph._made_once)
        once = [*desc.extra.get("conditional_setup", []), *desc.extra.get("made_once", [])]
        last = max((i for i, s in enumerate(desc.pre) if any(s is o for o in once)), default=-1)
        if last > 0 and any(not any(s is o for o in once) for s in desc.pre[:last]):
            raise CannotUnroll("plain Python before a reader created under a condition in define_graph", graph)
        desc.loop = [s for s in desc.pre if not any(s is o for o in once)] + desc.loop
        desc.pre = [s for s in desc.pre if any(s is o for o in once)]
    if fed.setup:
        # pipe.run() called iter_setup() for each step (ahead of it by the prefetch queue): the step calls it first
        # StopIteration from iter_setup() ended the epoch: pipe.run() raised it until pipe.reset()
        desc.loop = [stmt(f"try:\n    self.{ITER_SETUP}()\nexcept StopIteration:\n    return  # {EPOCH_ENDED}\n"),
                     *desc.loop]
        desc.extra.update(iter_setup=True, feeds=fed.feeds, epochs=True)
        for attr, source in fed.attrs.items():
            unroller.report(rules.UNROLL.id, f"self.feed_input(self.{attr}, data) in iter_setup() -> self.{attr} = "
                            f"ndd.as_batch(data): each step calls iter_setup() and hands its batch to the ops "
                            f"(ops.ExternalSource self.{source.attr} is gone)", source.statement)
            if kwarg(source.call, "dtype") is not None:
                unroller.report(rules.EXTERNAL_SOURCE.id, f"self.{source.attr}: ExternalSource dtype= checked the fed "
                                f"data's type in pipeline mode (an error on a mismatch); ndd.as_batch(dtype=) "
                                f"converts to it", source.statement)
    for obj in objects.values():
        if obj.made_by is not None and obj.attr not in reader_attrs:
            raise CannotUnroll(f"self.{obj.attr} (the reader {obj.made_by}() returns) is not called by a statement of "
                               f"its own in define_graph (`x = self.{obj.attr}(...)`)", obj.statement)
    if len(desc.readers) > len(reader_attrs) and reader_attrs:
        raise CannotUnroll("an fn reader in define_graph beside an ops reader object", graph)
    if desc.readers and reader_attrs:
        # Ops reader objects: each created once in __init__ (an fn reader called in define_graph moves there
        # too, _hoist_reader).
        desc.extra["reader_alternatives"] = {}
        for reader, attr in zip(desc.readers, reader_attrs):
            reader.var = f"self.{attr}"
            if kwarg(reader.call, "max_batch_size") is None:
                # get_metadata() (the object answers it, asked here or not) before the first epoch would otherwise
                # freeze the batch size at 1
                reader.call = with_kwarg(reader.call, "max_batch_size", expr("self.batch_size"))
            desc.extra["reader_alternatives"][attr] = _alternatives(readable[attr], site_kwargs[attr], reader, desc,
                                                                    env)
    elif desc.readers:
        _hoist_reader(unroller, desc, graph, attributes.names)
    assigned = _SelfTargets()  # (an attribute of the class's own by one of those names is the class's)
    for cls in {*chain, *subclasses}:
        walk(cls, assigned)
    for name, method in methods.items():
        if name in ("__init__", "define_graph", ITER_SETUP):
            continue
        used = sorted(m for m in _PIPELINE_ONLY if m not in assigned.names and m not in methods
                      and _AttrUses.count_in(method, m))
        if used:
            raise CannotUnroll(f"{name}() uses the pipeline's {', '.join(f'self.{m}' for m in used)}, which the "
                               f"migrated class ({STREAM_CLASS}) does not have", method)
    read_attrs = reader_attrs + [attr for _, _, attr, is_object, _ in desc.extra.get("init_branch_readers", ())
                                 if is_object]
    for attr in read_attrs:
        for name, method in methods.items():
            if name not in ("__init__", "define_graph") and _AttrUses.count_in(method, attr) and not (
                    name in reader_helpers and methods.get(name) is not None):  # (its read moved to the steps)
                # epoch_size()/reader_meta() of the migrated class answer from it; the object itself is another
                raise CannotUnroll(f"self.{attr} (an ops reader) is used by {name}() too: it becomes an ndd reader "
                                   f"there, not the ops object (ask the pipeline's epoch_size()/reader_meta() "
                                   f"instead)", method)
    for reader, condition, attr, is_object, inner in desc.extra.get("init_branch_readers", ()):
        # (an ops object's arguments are those __init__ gave it; its condition matters for its name alone)
        parts = ([] if is_object else [(reader.call, "its arguments")]) + \
            ([(condition, "its condition")] if reader.name is not None or not is_object else [])
        _check_init_time(parts, inner, chain, graph)
    desc.extra.update(reader_attr=reader_attrs[0] if reader_attrs else None, reader_attrs=reader_attrs, graph=graph)
    desc.extra["inherited_readers"] = [attr for attr in reader_attrs if attr in inherited_readers]
    if subclasses:  # the readers this class creates for its subclasses' define_graph, not read by its own
        desc.extra["base_readers"] = {attr: _base_reader_call(obj, env, desc) for attr, obj in objects.items()
                                      if obj.is_reader and attr not in reader_attrs}
    if init is not None:
        _checkpointing(desc, init, objects)
    _kept_elsewhere(unroller, node, chain, subclasses)
    return desc


def _branch_readers(node: cst.If, objects: dict, desc: PipelineDesc, reader_attrs: list, positions) -> cst.If:
    """``node`` (an ``if`` of define_graph on a build-time value) with each ``x = self.R(...)`` of an ops reader
    object R in its blocks written as ``x = ndd.readers.X(<R's arguments>, <the call's>)``, listed in
    ``desc.extra["branch_object_readers"]`` for graph._conditional_if: R is created in __init__ as before, the
    steps read its stream under the same condition."""
    found = desc.extra.setdefault("branch_object_readers", {})
    replacements, made = {}, []
    for block in conditional.branches(node):
        for inner in block.body:
            obj = _reader_call(inner, objects)
            if obj is None:
                continue
            if obj.attr in reader_attrs or obj.attr in [attr for attr, *_ in found.values()] + [a for a, *_ in made]:
                raise CannotUnroll(f"self.{obj.attr} is called twice in define_graph", inner)
            if obj.others or obj.chosen is not None or obj.made_by is not None:
                raise CannotUnroll(f"self.{obj.attr}, a reader chosen in __init__, is called under an `if` of "
                                   f"define_graph", inner)
            call = inner.body[0].value
            if any(a.keyword is None or a.star for a in call.args):
                raise CannotUnroll(f"self.{obj.attr}(...) called with positional arguments", inner)
            merged = _normalise_commas(cst.Call(func=ndd_attr(obj.entry["ndd"]),
                                                args=[*obj.call.args, *call.args]))
            replacements[inner] = [inner.with_changes(body=[inner.body[0].with_changes(value=merged)])]
            made.append((obj.attr, inner, merged, obj))
    if not replacements:
        return node
    node = transform(node, _InitRewrite(replacements), layout=False)
    for attr, inner, merged, obj in made:
        new = replacements[inner][0]  # (with the leading lines _InitRewrite gave it)
        if inner in positions:
            positions.setdefault(new, positions[inner])
        found[new] = (attr, new.body[0].targets[0].target, merged, obj.fn_path, obj.entry)
    return node


def _check_init_time(parts: list, inner, chain: list, graph: cst.FunctionDef) -> None:
    """CannotUnroll unless the reader's call and its condition read the same at the end of ``__init__`` as in
    define_graph: only self's attributes that an ``__init__`` of the class sets, and names neither ``__init__``
    nor define_graph binds (module names)."""
    inits = [_methods(cls)["__init__"] for cls in chain if "__init__" in _methods(cls)]
    set_in_init, bound = _SelfTargets(), AssignedNames()
    for init in inits:
        walk(init, set_in_init)
        walk(init, bound)
    walk(graph, bound)
    params = {p.name.value for init in inits for p in [*init.params.params, *init.params.kwonly_params]}
    for part, what in parts:
        attributes, names = _SelfAttributes(), NameReads()
        walk(cst.Expr(part), attributes)
        walk(cst.Expr(part), names)
        unset = attributes.names - set_in_init.names - set(_POSITIONAL) - {m for c in chain for m in _methods(c)}
        local = (names.names - {"self"}) & (bound.names | params)
        if unset or local:
            shown = ", ".join(sorted([f"self.{a}" for a in unset] + sorted(local)))
            raise CannotUnroll(f"a reader under an `if` of define_graph is created in __init__, but {what} read "
                               f"{shown}, which __init__ does not set or binds itself", inner)


def _base_reader_call(obj: _OpsObject, env: Env, desc: PipelineDesc) -> cst.Call:
    """The protocol of a reader object a base class creates in ``__init__`` for its subclasses' define_graph
    (``self.input = ops.readers.File(...)``, or a reader maker's call): it becomes the ndd reader created there,
    once, with the constructor's arguments, ``max_batch_size=self.batch_size``, and the pipeline seed where it
    shuffles without a seed of its own (``make_reader``), as a subclass's own reader is created. A subclass
    whose define_graph calls it (by a statement of its own, with name= only) iterates it and lists it by that
    name in ``self._readers`` in its own ``__init__``."""
    if obj.others or obj.chosen is not None:
        raise CannotUnroll(f"self.{obj.attr}: a base class's __init__ creates one reader or another by a condition",
                           obj.statement)
    call = _normalise_commas(cst.Call(func=ndd_attr(obj.entry["ndd"]), args=list(obj.call.args)))
    made = make_reader(call, None, obj.entry, cst.Name(obj.attr), env, desc, f"self.{obj.attr}", obj.statement).call
    if kwarg(made, "max_batch_size") is None:
        made = with_kwarg(made, "max_batch_size", expr("self.batch_size"))
    return made


class _ReaderCallsIn(cst.CSTVisitor):
    def __init__(self, readers):
        self.readers, self.found = readers, None

    def visit_Call(self, node):
        if self.found is None and _self_attr(node.func) in self.readers:
            self.found = node


class _ReaderRead:
    """A statement of a helper method that reads a reader object: ``jpegs, labels = self.input(name="Reader")``
    (``target`` the names it binds) or ``return self.input(name="Reader")`` (``target`` None); ``params`` the
    names the migrated helper takes the reader's outputs by, in place of the call."""

    def __init__(self, index: int, attr: str, call: cst.Call, target, params: list[str]):
        self.index, self.attr, self.call, self.target, self.params = index, attr, call, target, params


def _helper_reads(method: cst.FunctionDef, readers: set[str]) -> list[_ReaderRead]:
    """The reader reads of a helper method (``_reader_helpers``), or CannotUnroll saying why they cannot move to
    the steps: each a statement of the helper's own body, ``names = self.R(name=...)`` or ``return self.R(...)``,
    the reader called once, its arguments keywords that read nothing of the helper's."""
    name = method.name.value
    body = list(method.body.body) if isinstance(method.body, cst.IndentedBlock) else []
    params = method.params
    if not params.params or params.params[0].name.value != "self" or method.decorators or params.posonly_params:
        raise CannotUnroll(f"{name}() calls a reader object, and is not a plain method of self", method)
    local, found = AssignedNames(), []
    walk(method, local)
    own = {p.name.value for p in [*params.params, *params.kwonly_params]} | local.names
    for index, statement in enumerate(body):
        small = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 \
            else None
        call = getattr(small, "value", None)
        attr = _self_attr(call.func) if isinstance(call, cst.Call) else None
        if attr in readers and (isinstance(small, cst.Return) or isinstance(small, cst.Assign)
                                and len(small.targets) == 1):
            target = small.targets[0].target if isinstance(small, cst.Assign) else None
            names = [target] if isinstance(target, cst.Name) else [
                e.value for e in target.elements] if isinstance(target, (cst.Tuple, cst.List)) else None
            if target is not None and (names is None or not all(isinstance(n, cst.Name) for n in names)):
                raise CannotUnroll(f"{name}(): {code_of(small)}: the reader's outputs are not bound to plain names",
                                   statement)
            reads = NameReads()
            walk(cst.Expr(call), reads)
            if any(a.keyword is None or a.star for a in call.args) or (reads.names - {"self"}) & own:
                raise CannotUnroll(f"{name}(): {code_of(call)}: a reader called with positional arguments or with "
                                   f"values the helper computes (its call moves to the steps)", statement)
            if target is None:
                names = [cst.Name(free_name(f"{attr}_outputs", own))]
            before = NameReads()
            for earlier in body[:index]:
                walk(earlier, before)
            taken = {n.value for n in names} & (before.names | {p.name.value for p in
                                                                 [*params.params, *params.kwonly_params]})
            if taken:
                raise CannotUnroll(f"{name}(): {', '.join(sorted(taken))} is used before the reader binds it", statement)
            found.append(_ReaderRead(index, attr, call, target, [n.value for n in names]))
            continue
        calls = _ReaderCallsIn(readers)
        walk(statement, calls)
        if calls.found is not None:
            raise CannotUnroll(f"{code_of(calls.found)}: a reader object called in {name}() other than by a statement "
                               f"of its own (`x = self.R(...)` or `return self.R(...)`)", statement)
    attrs = [read.attr for read in found]
    if len(set(attrs)) != len(attrs):
        raise CannotUnroll(f"{name}() calls the reader self.{attrs[0]} twice", method)
    for attr in attrs:
        if _AttrUses.count_in(method, attr) != 1:
            raise CannotUnroll(f"{name}() uses the reader self.{attr} other than by calling it", method)
    return found


def _hierarchy_readers(unroller, classes) -> set[str]:
    """The attributes any ``__init__`` of the hierarchy puts an ops reader object in (a reader maker's too)."""
    found = set()
    for cls in classes:
        imports, methods = _imports_of(unroller, cls), _methods(cls)
        collector = _OpsCollector(imports, _reader_makers(imports, methods))
        try:
            walk(methods.get("__init__", cst.Pass()), collector)
        except CannotUnroll:  # (that class's own description says why)
            continue
        found |= {attr for attr, obj in collector.found.items() if obj.is_reader}
    return found


def _reader_helpers(classes, readers: set[str]) -> dict[str, list[_ReaderRead]]:
    """The helper methods that read reader objects (``def load(self): return self.input(name="Reader")``) and that
    only define_graph calls, by a call of its own statement (``images, labels = self.load()``): {name: its reads}.
    In the steps the reader is iterated where define_graph called the helper (``_graph_with_reader_reads``), and
    the helper takes the reader's outputs as parameters (``_helper_taking_outputs``). Any other shape:
    CannotUnroll with the reason."""
    if not readers:
        return {}
    helpers = {}
    for cls in classes:
        for name, method in _methods(cls).items():
            if name in ("__init__", "define_graph"):
                continue
            calls = _ReaderCallsIn(readers)
            walk(method, calls)
            if calls.found is not None:
                helpers[method] = _helper_reads(method, readers)
    names = {method.name.value for method in helpers}
    for cls in classes:  # (sibling classes may each have their own)
        for name in names:
            defining = [c for c in _chain_of(cls, classes) if name in _methods(c)]
            if len(defining) > 1:
                raise CannotUnroll(f"{name}() reads a reader object and is defined by {defining[0].name.value} and by "
                                   f"its base {defining[1].name.value}", _methods(defining[0])[name])
    for cls in classes:
        for name, method in _methods(cls).items():
            for helper in names:
                uses = _HelperUses(helper)
                walk(method, uses)
                if not uses.count:
                    continue
                if name != "define_graph":
                    raise CannotUnroll(f"{helper}() reads a reader object and is used by {name}(), not only by "
                                       f"define_graph", method)
                sites = [statement for statement in method.body.body if _helper_call(statement, helper) is not None]
                if len(sites) != 1 or uses.count != 1:
                    raise CannotUnroll(f"{helper}() reads a reader object and define_graph does not call it once, by "
                                       f"a call in a statement of its own body", method)
    return helpers


class _HelperUses(cst.CSTVisitor):
    """``self.H``, ``super().H``, ``C.H``: the uses of a method by name."""

    def __init__(self, name: str):
        self.name, self.count, self.calls = name, 0, []

    def visit_Attribute(self, node):
        if node.attr.value == self.name:
            self.count += 1

    def visit_Call(self, node):
        if isinstance(node.func, cst.Attribute) and node.func.attr.value == self.name:
            self.calls.append(node)


def _chain_of(cls: cst.ClassDef, classes) -> list[cst.ClassDef]:
    """``cls`` and its bases among ``classes`` (a hierarchy), nearest first."""
    by_name = {c.name.value: c for c in classes}
    chain = [cls]
    while True:
        parent = next((by_name[b.value.value] for b in chain[-1].bases if isinstance(b.value, cst.Name)
                       and b.value.value in by_name and by_name[b.value.value] not in chain), None)
        if parent is None:
            return chain
        chain.append(parent)


def _helper_call(statement, helper: str) -> cst.Call | None:
    """The ``self.H(...)`` call of a simple statement of define_graph (``x = self.H()``, ``return self.H()``), when
    its arguments are plain (no ``*``/``**``); None otherwise."""
    if not isinstance(statement, cst.SimpleStatementLine):
        return None
    uses = _HelperUses(helper)
    walk(statement, uses)
    if len(uses.calls) != 1 or uses.count != 1 or _self_attr(uses.calls[0].func) != helper \
            or any(a.star for a in uses.calls[0].args):
        return None
    return uses.calls[0]


def _graph_with_reader_reads(statements: list, helpers: dict[str, list[_ReaderRead]], taken: set[str]) -> list:
    """define_graph's statements with each call of a reader helper preceded by its reads, as statements of
    define_graph's own (``jpegs, labels = self.input(name="Reader")``, under names define_graph does not use), and
    given their outputs first: ``images, labels = self.load(jpegs, labels)``. The graph is then migrated as one
    that called the reader itself (pipeline mode built the same graph: where an operator is called in
    define_graph does not change what it computes)."""
    out = []
    for statement in statements:
        helper, call = next(((h, c) for h in helpers if (c := _helper_call(statement, h)) is not None),
                            (None, None))
        if helper is None:
            out.append(statement)
            continue
        passed, reads = [], []
        for read in helpers[helper]:
            names = [free_name(param, taken) for param in read.params]
            taken |= set(names)
            passed += names
            if read.target is None or isinstance(read.target, cst.Name):
                target = cst.Name(names[0])
            else:
                target = cst.Tuple([cst.Element(cst.Name(n)) for n in names], lpar=[], rpar=[])
            reads.append(cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(target)], read.call)]))
        args = [cst.Arg(cst.Name(n)) for n in passed] + list(call.args)
        new = transform(statement, _ReplaceNode(call, _normalise_commas(call.with_changes(args=args))), layout=False)
        if reads:  # (the statement's comments stay above the first of them)
            reads[0] = reads[0].with_changes(leading_lines=statement.leading_lines)
            new = new.with_changes(leading_lines=[])
        out += [*reads, new]
    return out


class _ReplaceNode(cst.CSTTransformer):
    def __init__(self, old, new):
        super().__init__()
        self.old, self.new = old, new

    def on_leave(self, original_node, updated_node):
        return self.new if original_node is self.old else updated_node


def _helper_taking_outputs(method: cst.FunctionDef, readers: set[str]) -> cst.FunctionDef:
    """A reader helper (``_reader_helpers``) as the steps call it: its reads gone, the reader's outputs its first
    parameters after self (``def load(self, jpegs, labels)``; ``return self.input()`` -> ``return input_outputs``)."""
    reads = _helper_reads(method, readers)
    body = list(method.body.body)
    for read in reversed(reads):
        if read.target is None:
            returned = body[read.index].body[0]
            body[read.index] = body[read.index].with_changes(body=[returned.with_changes(value=cst.Name(
                read.params[0]))])
        else:
            statement = body.pop(read.index)
            if read.index < len(body) and statement.leading_lines:
                body[read.index] = body[read.index].with_changes(leading_lines=statement.leading_lines)
    if not body:
        body = [cst.SimpleStatementLine([cst.Pass()])]
    params = method.params
    added = [cst.Param(cst.Name(name)) for read in reads for name in read.params]
    new_params = _normalise_params([params.params[0], *added, *params.params[1:]])
    return method.with_changes(params=params.with_changes(params=new_params),
                               body=method.body.with_changes(body=body))


def _normalise_params(params: list) -> list:
    fixed = []
    for i, p in enumerate(params):
        if i < len(params) - 1 and not isinstance(p.comma, cst.Comma):
            p = p.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        fixed.append(p)
    return fixed


class _ReaderObjectCalls(cst.CSTVisitor):
    def __init__(self, readers):
        self.readers, self.found = readers, False

    def visit_Call(self, node):
        self.found |= _self_attr(node.func) in self.readers


def _reads_reader_object(node, objects: dict) -> bool:
    """``node`` calls one of the class's ops reader objects (``self.input(...)``): only a statement of its own in
    define_graph's body reads one (``_reader_call``), not one inside an ``if``."""
    calls = _ReaderObjectCalls({attr for attr, obj in objects.items() if obj.is_reader})
    walk(node, calls)
    return calls.found


def _ndd_maker(unroller, method: cst.FunctionDef) -> cst.FunctionDef:
    """A method that returned an ops reader (its calls in __init__ now create the ndd reader themselves): it
    returns the ndd reader, created with the same arguments, for any other caller."""
    returned = method.body.body[-1].body[0]
    call = returned.value
    path = ops_path(unroller.ctx.imports, call.func)
    entry = optable.resolve_fn(optable.ops_class(path)["fn"])[2]
    made = without_kwargs(call, ("bytes_per_sample_hint", "preserve")).with_changes(func=ndd_attr(entry["ndd"]))
    unroller.report(rules.READER_ONCE.id, f"{method.name.value}() returned an ops reader: its calls in __init__ create "
                    f"the ndd reader there; it returns ndd.{entry['ndd']}(...) itself", method)
    statement = method.body.body[-1]
    new_last = statement.with_changes(body=[returned.with_changes(value=made)])
    return method.with_changes(body=method.body.with_changes(body=[*method.body.body[:-1], new_last]))


def _split_readers(statement, objects: dict) -> list:
    """``x, y = self.input_x(...), self.input_y(...)`` as one statement per reader object called; any other
    statement alone."""
    if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1
            and isinstance(statement.body[0], cst.Assign) and len(statement.body[0].targets) == 1):
        return [statement]
    target, value = statement.body[0].targets[0].target, statement.body[0].value
    if not (isinstance(target, cst.Tuple) and isinstance(value, cst.Tuple)
            and len(target.elements) == len(value.elements) > 1
            and not any(isinstance(e, cst.StarredElement) for e in [*target.elements, *value.elements])):
        return [statement]
    parts = [cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(t.value)], v.value)])
             for t, v in zip(target.elements, value.elements)]
    if not any(_reader_call(part, objects) for part in parts):
        return [statement]
    return [parts[0].with_changes(leading_lines=statement.leading_lines), *parts[1:]]


def _alternatives(obj: _OpsObject, site_kwargs, first, desc: PipelineDesc, env: Env) -> list:
    """The other readers __init__ may put in the reader's attribute (``obj.others``), each as its ndd constructor
    with the arguments define_graph's call added, as the first one got them (``make_reader``)."""
    found = []
    for call, statement, entry in obj.others:
        merged = _normalise_commas(cst.Call(func=ndd_attr(entry["ndd"]), args=[*call.args, *site_kwargs]))
        spec = make_reader(merged, None, entry, first.target, env, desc, first.var, statement)
        made = spec.call
        if kwarg(made, "max_batch_size") is None:
            made = with_kwarg(made, "max_batch_size", expr("self.batch_size"))
        if spec.name != first.name:
            raise CannotUnroll(f"self.{obj.attr} holds readers of different names depending on a condition", statement)
        found.append((statement, made))
    return found


class _Fed:
    """What iter_setup() feeds: ``attrs`` {self attribute define_graph got from an external source: that source's
    ops object}, ``graph_statements`` (``self.jpegs = self.input()``, dropped from the steps) and ``feeds``
    {iter_setup's ``self.feed_input(self.jpegs, data)`` statement: ``self.jpegs = ndd.as_batch(data, ...)``}.
    Without iter_setup, ``in_graph`` {define_graph statement: the same statement calling the external source as
    fn.external_source would} for the sources given ``source=``."""

    def __init__(self):
        self.attrs: dict[str, _OpsObject] = {}
        self.graph_statements: set = set()
        self.feeds: dict = {}
        self.setup = False  # the class has an iter_setup(), which each step calls (it may feed nothing)
        self.in_graph: dict = {}


class _AttrUses(cst.CSTVisitor):
    def __init__(self, attr):
        self.attr, self.count = attr, 0

    def visit_Attribute(self, node):
        if _self_attr(node) == self.attr:
            self.count += 1

    @classmethod
    def count_in(cls, node, attr) -> int:
        uses = cls(attr)
        walk(node, uses)
        return uses.count


def _source_in_graph(node: cst.ClassDef, obj: _OpsObject, graph_statements, fed: _Fed) -> None:
    """``self.src = ops.ExternalSource(source=data, ...)`` in __init__, called once in define_graph as
    ``x = self.src()``: pipeline mode made that call an fn.external_source over ``data`` (the object given when
    __init__ ran). The attribute keeps the source object (``self.src = data``) and the define_graph statement
    becomes the fn.external_source call over ``self.src``, which the graph migrates as any other. Anything else
    stays marked."""
    why = "an ops.ExternalSource that no iter_setup() feeds and that is given no source= has no dynamic-mode " \
          "counterpart"
    if kwarg(obj.call, "source") is None or any(a.keyword is None or a.star for a in obj.call.args) \
            or not obj.top_level:
        raise CannotUnroll(why, obj.statement)
    calls = []
    for statement in graph_statements:
        small = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 \
            else None
        if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.value, cst.Call) \
                and _self_attr(small.value.func) == obj.attr:
            calls.append((statement, small))
    uses = _AttrUses(obj.attr)
    walk(node, uses)
    # one call in define_graph and the assignment in __init__: no other method reads the object
    if len(calls) != 1 or uses.count != 2 or any(a.keyword is None or a.star for a in calls[0][1].value.args):
        raise CannotUnroll(f"self.{obj.attr} (an ops.ExternalSource with source=) is not called once in "
                           f"define_graph, by a statement `x = self.{obj.attr}()` of its own", obj.statement)
    statement, assign = calls[0]
    args = [a.with_changes(value=expr(f"self.{obj.attr}")) if a.keyword.value == "source" else a
            for a in obj.call.args]
    graph_call = _normalise_commas(obj.call.with_changes(args=[*args, *assign.value.args]))
    fed.in_graph[statement] = statement.with_changes(body=[assign.with_changes(value=graph_call)])
    obj.graph_source = kwarg(obj.call, "source")


class _FeedCalls(cst.CSTVisitor):
    def __init__(self):
        self.calls: list[cst.Call] = []
        self.returns: list[cst.Return] = []

    def visit_Call(self, node):
        if isinstance(node.func, cst.Attribute) and node.func.attr.value == FEED_INPUT:
            self.calls.append(node)

    def visit_Return(self, node):
        self.returns.append(node)


def _self_attr(node) -> str | None:
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self":
        return node.attr.value
    return None


def _feeds(node: cst.ClassDef, own: dict, objects: dict, graph_statements) -> _Fed:
    """The external sources of a class whose iter_setup() feeds them (pipeline mode called iter_setup before each
    step and ran the graph on what it fed): each ``self.X = self.source()`` of define_graph, fed by one
    ``self.feed_input(self.X, data)`` statement of iter_setup's own body, becomes ``self.X = ndd.as_batch(data)``
    there (a list of samples or an array whose first dimension is the batch, as feed_input read them). Anything
    else that feeds or is fed stays marked."""
    fed = _Fed()
    sources = {attr: obj for attr, obj in objects.items() if obj.is_source}
    setup = own.get(ITER_SETUP)
    fed.setup = setup is not None
    if setup is None:
        for obj in sources.values():
            _source_in_graph(node, obj, graph_statements, fed)
        return fed
    for statement in graph_statements:
        assign = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 \
            else None
        if isinstance(assign, cst.Assign) and isinstance(assign.value, cst.Call) \
                and _self_attr(assign.value.func) in sources:
            attr = _self_attr(assign.targets[0].target) if len(assign.targets) == 1 else None
            if attr is None or assign.value.args:
                raise CannotUnroll(f"{code_of(assign.value)}: only `self.x = self.source()` is fed by iter_setup()",
                                   statement)
            if attr in fed.attrs:
                raise CannotUnroll(f"self.{attr} is assigned two external sources", statement)
            fed.attrs[attr] = sources[_self_attr(assign.value.func)]
            fed.graph_statements.add(statement)
    used = [obj.attr for obj in fed.attrs.values()]
    for obj in sources.values():
        if used.count(obj.attr) != 1 or not obj.top_level:
            raise CannotUnroll(f"self.{obj.attr} (an external source) is not called once in define_graph, by a "
                               f"statement of its own", obj.statement)
        for arg in obj.call.args:
            if arg.keyword is None or arg.keyword.value not in (*SOURCE_AS_BATCH, *SOURCE_DROPPED):
                raise CannotUnroll(f"ops.ExternalSource({code_of(arg)}): only feed_input() gives it data here",
                                   obj.statement)
    everywhere = _FeedCalls()
    walk(node, everywhere)
    in_setup = _FeedCalls()
    walk(setup.body, in_setup)
    if in_setup.returns:  # a step without its feed: pipeline mode failed there, the steps would reuse the last one
        raise CannotUnroll("iter_setup() may return before its feed_input() statements", setup)
    top_level = {}
    for statement in _feeding_statements(setup):
        small = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 \
            else None
        if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call) and small.value in everywhere.calls:
            top_level[small.value] = statement
    for call in everywhere.calls:
        statement = top_level.get(call)
        positional = [a for a in call.args if a.keyword is None and not a.star]
        extra = [a for a in call.args if a.keyword is not None and a.keyword.value != "layout" or a.star]
        attr = _self_attr(positional[0].value) if positional else None
        if statement is None or not (isinstance(call.func.value, cst.Name) and call.func.value.value == "self") \
                or len(positional) != 2 or extra or attr not in fed.attrs:
            raise CannotUnroll(f"{code_of(call)}: only `self.feed_input(self.x, data)` statements of iter_setup "
                               f"itself, for a self.x that define_graph got from an external source, are migrated",
                               call)
        if any(_self_attr(new[0].body[0].targets[0].target) == attr for new in fed.feeds.values()):
            raise CannotUnroll(f"self.{attr} is fed twice in one iter_setup()", call)
        source = fed.attrs[attr]
        layout = kwarg(call, "layout")
        kwargs = [a for a in source.call.args if a.keyword.value in SOURCE_AS_BATCH
                  and not (layout is not None and a.keyword.value == "layout")]
        if layout is not None:
            kwargs.append(cst.Arg(layout, keyword=cst.Name("layout"), equal=cst.AssignEqual(
                whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))))
        batch = _normalise_commas(cst.Call(func=expr("ndd.as_batch"), args=[positional[1], *kwargs]))
        fed.feeds[statement] = [statement.with_changes(body=[cst.Assign(
            targets=[cst.AssignTarget(positional[0].value)], value=batch)])]
    missing = set(fed.attrs) - {_self_attr(new[0].body[0].targets[0].target) for new in fed.feeds.values()}
    if missing:
        raise CannotUnroll(f"self.{sorted(missing)[0]} is fed by no feed_input() statement of iter_setup()", setup)
    return fed


def _ends_epoch(handler: cst.ExceptHandler) -> bool:
    return isinstance(handler.type, cst.Name) and handler.type.value == "StopIteration"


def _feeding_statements(setup: cst.FunctionDef) -> list:
    """The statements of iter_setup() that may feed: its own, and those of a ``try:`` of its own whose every
    handler catches StopIteration (the docs' shape: the data iterator ends, iter_setup() starts it again and
    raises StopIteration, which ends the epoch)."""
    out = []
    for statement in setup.body.body:
        out.append(statement)
        if isinstance(statement, cst.Try) and statement.handlers and all(map(_ends_epoch, statement.handlers)) \
                and statement.finalbody is None and statement.orelse is None:
            out.extend(statement.body.body)
    return out


class _SelfAttributes(cst.CSTVisitor):
    def __init__(self):
        self.names: set[str] = set()

    def visit_Attribute(self, node):
        if isinstance(node.value, cst.Name) and node.value.value == "self":
            self.names.add(node.attr.value)


def _hoist_reader(unroller, desc: PipelineDesc, graph: cst.FunctionDef, attributes: set[str]) -> None:
    """An fn reader called in define_graph is created at the end of ``__init__`` instead, as an ops reader object
    is: the object answers epoch_size()/reader_meta() before its first step, as the built pipeline did. Only
    when its arguments read nothing that define_graph computes (self's attributes and module names are the same
    at the end of ``__init__`` as when build() called define_graph); otherwise it stays a local of the steps."""
    reader = desc.readers[0]
    reads, bound = NameReads(), AssignedNames()
    walk(reader.call, reads)
    walk(graph, bound)
    if reads.names & bound.names:
        return
    attr = free_name("reader", attributes)
    reader.var = f"self.{attr}"
    if kwarg(reader.call, "max_batch_size") is None:
        reader.call = with_kwarg(reader.call, "max_batch_size", expr("self.batch_size"))
    desc.extra["hoisted_reader"] = attr


def _checkpointing(desc: PipelineDesc, init: cst.FunctionDef, objects) -> None:
    """enable_checkpointing=True: the checkpoint travels through __init__ (the parameter forwarded to
    Pipeline(checkpoint=...), else a new ``checkpoint=None``) into ``self.checkpoint``; the readers get
    enable_checkpointing=True. Left marked when a stateful object cannot be registered by name."""
    if not checkpoints.enabled(desc.config):
        return
    names = [p.name.value for p in [*init.params.params, *init.params.kwonly_params]]
    saved = desc.config.get("checkpoint")
    why = None
    if saved is not None and not (isinstance(saved, cst.Name) and saved.value in names):
        why = f"Pipeline(checkpoint={code_of(saved)}) is not a parameter of __init__"
    elif saved is None and checkpoints.PARAM in names:
        why = f"__init__ already has a {checkpoints.PARAM} parameter that the pipeline does not get"
    for obj in objects.values():
        parts = [p[3] for p in obj.entry.get("compose", ())]  # ops.Compose: the seeds are its operators'
        if obj.random and not obj.inline and any(kwarg(c, "seed") is not None
                                                 for c in [obj.call, *parts, *(o[0] for o in obj.others)]):
            why = f"self.{obj.attr} has its own seed inside a lambda: its RNG cannot be registered by name"
    if why is not None:
        desc.extra["checkpoint_unmigrated"] = why
        return
    desc.extra["checkpoint"] = True
    desc.extra["checkpoint_param"] = saved.value if saved is not None else checkpoints.PARAM
    desc.extra["checkpoint_added"] = saved is None
    for reader in desc.readers:
        reader.call = checkpoints.reader_call(reader.call)


def _reader_call(statement, objects):
    if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1
            and isinstance(statement.body[0], cst.Assign) and isinstance(statement.body[0].value, cst.Call)):
        return None
    func = statement.body[0].value.func
    if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self" \
            and func.attr.value in objects and objects[func.attr.value].is_reader:
        return objects[func.attr.value]
    return None


class _InitRewrite(cst.CSTTransformer):
    def __init__(self, replacements):
        super().__init__()
        self.replacements = replacements  # original statement -> list of statements

    def visit_SimpleStatementLine(self, node):
        return False  # replaced whole or kept whole: nothing inside a simple statement is looked at

    def leave_SimpleStatementLine(self, original_node, updated_node):
        if original_node in self.replacements:
            new = self.replacements[original_node]
            if not new:
                return cst.RemoveFromParent()
            new[0] = new[0].with_changes(leading_lines=updated_node.leading_lines)
            return cst.FlattenSentinel(new)
        return updated_node

    def leave_IndentedBlock(self, original_node, updated_node):
        if not updated_node.body:
            return updated_node.with_changes(body=[cst.SimpleStatementLine([cst.Pass()])])
        return updated_node


def emit_class(unroller, desc: PipelineDesc, original: cst.ClassDef, updated: cst.ClassDef):
    objects = desc.extra["objects"]
    methods = _methods(original)
    config = desc.config
    if desc.extra["base"]:
        unroller.report(rules.UNROLL.id, f"class {desc.name} (the base of Pipeline subclasses, without define_graph) "
                        f"-> a {STREAM_CLASS} base: its ops objects become ndd calls, its subclasses' steps() "
                        f"yield the steps", original)
    else:
        unroller.report(rules.UNROLL.id, f"class {desc.name} -> a {STREAM_CLASS} whose steps() generator yields one "
                        f"step per pipe.run()", original)
    replacements = {}
    if desc.extra["super_statement"] is not None:  # the class that derives from Pipeline itself
        unroller._report_config(desc, original)
        attributes = []
        forwarded = desc.extra.get("forwarded_options")
        if forwarded is not None:
            call = cst.Call(func=expr(f"self.{OPTIONS_METHOD}"), args=forwarded)
            attributes.append(stmt(f"{code_of(call)}  # the Pipeline options the steps read: "
                                   f"{', '.join(_STEP_OPTIONS)}\n"))
            unroller.report(rules.PIPELINE_OPTION.id, f"{desc.name}: super().__init__({code_of(call).split('(', 1)[1][:-1]}) "
                            f"forwarded its callers' Pipeline options -> self.{OPTIONS_METHOD}(...) takes "
                            f"{', '.join(_STEP_OPTIONS)} at run time as Pipeline.__init__ did; the options that only "
                            f"tuned pipeline mode's execution are dropped, and enable_conditionals, "
                            f"enable_checkpointing or checkpoint given there raise", original)
        for name in () if forwarded is not None else _STEP_OPTIONS:
            value = config.get(name)
            if name == "seed" and value is not None and literal_value(value) == -1:
                value = None
            attributes.append(stmt(f"self.{name} = {code_of(value) if value is not None else 'None'}\n"))
        if desc.extra.get("checkpoint"):
            attributes.append(stmt(f"self.{checkpoints.PARAM} = {desc.extra['checkpoint_param']}\n"))
        if desc.extra.get("feeds"):  # how far a DALI iterator with size= had run it past an epoch's end
            ahead = unroller.run_ahead(desc, original)
            if ahead != str(prefetch.DEFAULT_DEPTH):
                attributes.append(stmt(f"self._prefetch_depth = {ahead}\n"))
        replacements[desc.extra["super_statement"]] = attributes
    for obj in objects.values():
        if obj.is_source and obj.graph_source is not None:  # the steps call it as fn.external_source did
            replacements[obj.statement] = [stmt(f"self.{obj.attr} = {code_of(obj.graph_source)}\n")]
            unroller.report(rules.UNROLL.id, f"ops.ExternalSource self.{obj.attr}: the attribute keeps its source "
                            f"({code_of(obj.graph_source)}), which the steps read as fn.external_source did",
                            obj.statement)
            continue
        if obj.is_source:
            replacements[obj.statement] = []  # fed by iter_setup(), which now sets the graph's input itself
            continue
        if obj.is_reader and obj.attr in desc.extra.get("base_readers", {}):
            replacements[obj.statement] = [stmt(f"self.{obj.attr} = {code_of(desc.extra['base_readers'][obj.attr])}\n")]
            unroller.report(rules.READER_ONCE.id, f"self.{obj.attr} (a reader {desc.name} creates for its subclasses' "
                            f"define_graph) -> the ndd reader, created here once; the subclasses' steps iterate it",
                            obj.statement)
            continue
        if obj.is_reader:
            if obj.attr in desc.extra.get("reader_attrs", ()):
                reader = desc.readers[desc.extra["reader_attrs"].index(obj.attr)]
                alternatives = desc.extra["reader_alternatives"][obj.attr]
                if obj.chosen is not None:  # self.x = A(...) if c else B(...)
                    made = cst.IfExp(test=obj.chosen.test, body=reader.call, orelse=alternatives[0][1],
                                     whitespace_before_if=obj.chosen.whitespace_before_if,
                                     whitespace_after_if=obj.chosen.whitespace_after_if,
                                     whitespace_before_else=obj.chosen.whitespace_before_else,
                                     whitespace_after_else=obj.chosen.whitespace_after_else)
                    alternatives = []
                else:
                    made = reader.call
                for statement, call in [(obj.statement, made), *alternatives]:
                    replacements[statement] = [stmt(f"self.{obj.attr} = {code_of(call)}\n")]
                    if reader.name is not None:
                        replacements[statement].append(_readers_statement(
                            reader.name, obj.attr, several=len(desc.extra["reader_attrs"]) > 1))
                if obj.others:
                    unroller.report(rules.READER_ONCE.id, f"self.{obj.attr} holds one reader or another by a "
                                    f"condition of __init__: each is created there as an ndd reader, and the steps "
                                    f"read the one self.{obj.attr} holds", obj.statement)
            for reader, _, attr, _, _ in desc.extra.get("init_branch_readers", ()):
                if attr == obj.attr:  # called under an `if` of define_graph: created here all the same
                    replacements[obj.statement] = [stmt(f"self.{obj.attr} = {code_of(reader.call)}\n")]
            continue
        if obj.inline:
            replacements[obj.statement] = []
            continue
        if obj.fn_path == COMPOSE_PATH:
            replacements[obj.statement] = _compose_statement(unroller, obj, desc)
            continue
        for call, statement, entry in [(obj.call, obj.statement, obj.entry), *obj.others]:
            replacements[statement] = _lambda_statement(unroller, obj, call, statement, desc, entry)
        for call, statement in obj.source_branches:
            replacements[statement] = _source_branch_statements(unroller, obj, call, statement, methods["__init__"])
        unroller.report(rules.UNROLL.id, f"ops object self.{obj.attr} ({obj.fn_path}) -> an ndd call with the same "
                        f"arguments (a lambda: its arguments are computed in __init__)", obj.statement)
    init = methods.get("__init__")
    hoisted = desc.extra.get("hoisted_reader")
    if init is None and hoisted is not None:  # a subclass with only define_graph: its reader needs an __init__
        init = cst.parse_statement("def __init__(self, *args, **kwargs):\n    super().__init__(*args, **kwargs)\n")
    elif init is not None:
        init = transform(init, _InitRewrite(replacements), layout=False)
    inherited_readers = desc.extra.get("inherited_readers", ())
    named = [(reader.name, attr) for reader, attr in zip(desc.readers, desc.extra.get("reader_attrs", ()))
             if attr in inherited_readers and reader.name is not None]
    if named:  # the base created them: listed by the names this class's define_graph gave them
        if init is None:
            init = cst.parse_statement("def __init__(self, *args, **kwargs):\n    super().__init__(*args, **kwargs)\n")
        init = init.with_changes(body=init.body.with_changes(body=[
            *init.body.body, *(_readers_statement(name, attr, several=True) for name, attr in named)]))
    if hoisted is not None:
        reader = desc.readers[0]
        created = [stmt(f"self.{hoisted} = {code_of(reader.call)}\n")]
        if reader.name is not None:
            created.append(_readers_statement(reader.name, hoisted))
        init = init.with_changes(body=init.body.with_changes(body=[*init.body.body, *created]))
    branch_readers = _branch_reader_statements(desc)
    if branch_readers:
        if init is None:  # a subclass with only define_graph: its readers need an __init__
            init = cst.parse_statement("def __init__(self, *args, **kwargs):\n    super().__init__(*args, **kwargs)\n")
        init = init.with_changes(body=init.body.with_changes(body=[*init.body.body, *branch_readers]))
    sources = _hoisted_sources(desc, original)
    if sources:
        if init is None:  # a subclass with only define_graph: its sources need an __init__
            init = cst.parse_statement("def __init__(self, *args, **kwargs):\n    super().__init__(*args, **kwargs)\n")
        created = []
        for var, setup in sources.items():
            created += [stmt(f"self.{var} = {code_of(setup.body[0].value)}\n"),
                        stmt(f'self._readers = {{**self._readers, **getattr(self.{var}, "_readers", {{}})}}\n')]
            unroller.report(rules.READER_META.id, f"{desc.name}: the stream of {code_of(setup.body[0].value.func)}"
                            f"(...) is created in __init__, so that the readers it names answer epoch_size()/"
                            f"reader_meta() before the first step", original)
        init = init.with_changes(body=init.body.with_changes(body=[*init.body.body, *created]))
    if desc.extra.get("checkpoint_added"):
        param = cst.Param(cst.Name(checkpoints.PARAM), default=cst.Name("None"),
                          equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                                whitespace_after=cst.SimpleWhitespace("")))
        params = init.params
        star = params.star_arg if isinstance(params.star_arg, (cst.Param, cst.ParamStar)) else cst.ParamStar()
        init = init.with_changes(params=params.with_changes(star_arg=star,
                                                            kwonly_params=[*params.kwonly_params, param]))

    if init is not None:
        init = _constants_after_options(unroller, init)
        init = _without_self_build(unroller, init)
    # the other methods: calls of the ops objects they make, as in define_graph
    helpers = _GraphCalls(desc.extra["helper_objects"], set(), Env(
        unroller.ctx, unroller._reporter, batch_size="self.batch_size", seed="self.seed",
        rng_mode=unroller.d.rng_mode, prefix="", rng_counter=unroller.rng_counter))
    new_body = [transform(transform(s, helpers, layout=False), _constants(unroller), layout=False)
                if isinstance(s, cst.FunctionDef) and s.name.value not in ("__init__", "define_graph") else s
                for s in updated.body.body]
    makers = _reader_makers(unroller.ctx.imports, methods)
    new_body = [_ndd_maker(unroller, s) if isinstance(s, cst.FunctionDef) and s.name.value in makers else s
                for s in new_body]
    reader_helpers = {name: desc.extra["reader_helpers"][method] for name, method in methods.items()
                      if method in desc.extra.get("reader_helpers", {})}  # this class's own
    for index, statement in enumerate(new_body):
        if isinstance(statement, cst.FunctionDef) and statement.name.value in reader_helpers:
            new_body[index] = _helper_taking_outputs(statement, desc.extra["hierarchy_readers"])
            reads = reader_helpers[statement.name.value]
            unroller.report(rules.READER_ONCE.id, f"{desc.name}.{statement.name.value}() read "
                            f"{', '.join(f'self.{r.attr}' for r in reads)}: the steps iterate the reader where "
                            f"define_graph called it, and hand its outputs to {statement.name.value}("
                            f"{', '.join(n for r in reads for n in r.params)})", methods[statement.name.value])
    if desc.extra.get("feeds"):  # iter_setup(): each feed_input statement sets the attribute the steps read
        setup = transform(transform(methods[ITER_SETUP], _InitRewrite(desc.extra["feeds"]), layout=False), helpers,
                          layout=False)
        new_body = [setup if isinstance(s, cst.FunctionDef) and s.name.value == ITER_SETUP else s for s in new_body]
        at = next(i for i, s in enumerate(new_body) if isinstance(s, cst.FunctionDef) and s.name.value == ITER_SETUP)
        new_body.insert(at + 1, stmt(RESTART).with_changes(leading_lines=[cst.EmptyLine(indent=False)]))
    if init is not None and "__init__" not in methods:
        if new_body and not new_body[0].leading_lines:
            new_body[0] = new_body[0].with_changes(leading_lines=[cst.EmptyLine(indent=False)])
        new_body.insert(0, init)
    new_body = [init if isinstance(s, cst.FunctionDef) and s.name.value == "__init__" else s for s in new_body]
    if desc.extra["base"]:
        return updated.with_changes(bases=stream_bases(unroller, updated),
                                    body=updated.body.with_changes(body=_rename_graph_helpers(
                                        unroller, desc, original, new_body)))

    env = Env(unroller.ctx, unroller._reporter, batch_size="self.batch_size", seed="self.seed",
              rng_mode=unroller.d.rng_mode, prefix="", rng_counter=unroller.rng_counter)
    body = [thread_statement("self.num_threads"), *seeding_statements(desc, env, config.get("seed"))]
    steps = loop_statements(desc, env)
    steps = [stmt(f"{var} = self.{var}\n").with_changes(leading_lines=s.leading_lines)
             if s in sources.values() and (var := _assigned_name(s)) else s for s in steps]
    if desc.readers and (desc.extra["reader_attr"] is not None or hoisted is not None):
        steps = [s for s in steps if not any(_assigns(s, reader.var) for reader in desc.readers)]
    if desc.extra.get("checkpoint"):
        objects = checkpoints.stateful_objects(desc, unroller.d.rng_mode, _uses_name(desc, "rng"))
        steps[-1:-1] = checkpoints.registration(desc, objects, holder=f"self.{checkpoints.PARAM}")
    body += steps
    fed_attributes = {obj.attr for obj in desc.extra["objects"].values() if obj.source_branches}
    if fed_attributes:
        body = [transform(s, _SourceEnds(fed_attributes), layout=False) for s in body]
    device = unroller.device_of(desc)
    if device is not None:
        body = [device_statement(device, body, unroller.ctx)]
    graph = desc.extra["graph"]
    steps = graph.with_changes(name=cst.Name(STEPS_METHOD), body=graph.body.with_changes(body=body),
                               decorators=[*graph.decorators, *unroller.prefetch_decorators(desc, original)])
    new_body = [steps.with_changes(leading_lines=s.leading_lines) if isinstance(s, cst.FunctionDef)
                and s.name.value == "define_graph" else s for s in new_body]
    if "define_graph" not in methods:  # inherited: this class yields the steps of its base's define_graph
        new_body.append(steps.with_changes(leading_lines=[cst.EmptyLine(indent=False)]))
    new_body = _rename_graph_helpers(unroller, desc, original, new_body)
    return updated.with_changes(bases=stream_bases(unroller, updated), body=updated.body.with_changes(body=new_body))


def _branch_reader_statements(desc: PipelineDesc) -> list:
    """The end of ``__init__`` for the readers define_graph called under a build-time ``if``
    (graph._init_reader): an fn reader is created there under its condition; each named one is listed in
    ``self._readers`` under its condition, so that epoch_size()/reader_meta() find the one the steps read."""
    found = []
    for reader, condition, attr, is_object, _ in desc.extra.get("init_branch_readers", ()):
        body = [] if is_object else [stmt(f"self.{attr} = {code_of(reader.call)}\n")]
        if reader.name is not None:
            body.append(stmt(f"self._readers = {{**self._readers, {stream._quoted(reader.name)}: self.{attr}}}\n"))
        if body:
            found.append(cst.If(test=condition, body=cst.IndentedBlock(body)))
    return found


class _SelfBuild(cst.CSTTransformer):
    """Drops ``self.build()`` statements: the migrated class has no build (its steps start at the first next())."""

    def __init__(self):
        super().__init__()
        self.dropped = []

    def leave_SimpleStatementLine(self, original_node, updated_node):
        body = updated_node.body
        if len(body) == 1 and isinstance(body[0], cst.Expr) and isinstance(body[0].value, cst.Call) \
                and not body[0].value.args and _self_attr(body[0].value.func) == "build":
            self.dropped.append(original_node)
            return cst.RemoveFromParent()
        return updated_node

    def leave_IndentedBlock(self, original_node, updated_node):
        if not updated_node.body:
            return updated_node.with_changes(body=[cst.SimpleStatementLine([cst.Pass()])])
        return updated_node


def _without_self_build(unroller, init: cst.FunctionDef) -> cst.FunctionDef:
    """``self.build()`` in __init__ (a class that builds itself): the migrated class needs no build."""
    dropper = _SelfBuild()
    init = transform(init, dropper, layout=False)
    for statement in dropper.dropped:
        unroller.report(rules.BUILD_RUN.id, "self.build() is dropped: the migrated class needs no build; its steps "
                        "start at the first next()", statement)
    return init


GRAPH_WORD, STEP_WORD = "define_graph", "step"


def _stream_attributes() -> set[str]:
    """What the ReaderStream class defines (its methods and class attributes): a migrated class derives from it."""
    tree = ast.parse(class_source(stream.CLASS_NAME))
    names = set(_STREAM_ATTRIBUTES)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
            names.add(node.attr)
        elif isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return names


def _graph_helper_names(classes, attributes: set[str]) -> tuple[dict[str, str], dict[str, str]]:
    """({old: new}, {old: the name that was taken}) for the hierarchy's methods named like define_graph
    (``base_define_graph``, a helper its subclasses' define_graph call): ``step`` replaces ``define_graph`` in
    the name, since the helper now computes one step's outputs and no graph is defined. A new name that some
    attribute or method of the hierarchy (ReaderStream's included) already has keeps the old name."""
    methods = set()
    for cls in classes:
        methods |= set(_methods(cls))
    taken = methods | attributes | _stream_attributes()
    renames, kept = {}, {}
    for old in sorted(methods):
        if GRAPH_WORD not in old or old == GRAPH_WORD:
            continue
        new = old.replace(GRAPH_WORD, STEP_WORD)
        if new in taken or new in renames.values():
            kept[old] = new
        else:
            renames[old] = new
    return renames, kept


class _GraphHelperCalls(cst.CSTTransformer):
    """The renamed methods: their ``def`` in the class body, and ``self.X``/``super().X``/``super(C, self).X``/
    ``C.X`` for a class C of the hierarchy."""

    def __init__(self, renames: dict[str, str], class_names: set[str]):
        super().__init__()
        self.renames = renames
        self.class_names = class_names
        self.depth = 0

    def visit_ClassDef(self, node):
        self.depth += 1

    def leave_ClassDef(self, original_node, updated_node):
        self.depth -= 1
        return updated_node

    def leave_FunctionDef(self, original_node, updated_node):
        if original_node.name.value in self.renames and self.depth <= 1:
            return updated_node.with_changes(name=cst.Name(self.renames[original_node.name.value]))
        return updated_node

    def leave_Attribute(self, original_node, updated_node):
        if updated_node.attr.value not in self.renames:
            return updated_node
        owner = updated_node.value
        if (isinstance(owner, cst.Name) and owner.value in {"self", *self.class_names}) or (
                isinstance(owner, cst.Call) and isinstance(owner.func, cst.Name) and owner.func.value == "super"):
            return updated_node.with_changes(attr=cst.Name(self.renames[updated_node.attr.value]))
        return updated_node


def _rename_graph_helpers(unroller, desc: PipelineDesc, original: cst.ClassDef, body: list) -> list:
    renames, kept = desc.extra["renames"], desc.extra["renames_kept"]
    own = _methods(original)
    for old, new in renames.items():
        if old in own:
            unroller.report(rules.GRAPH_HELPER_RENAMED.id, f"{desc.name}.{old} -> {new}: it computes one step's "
                            f"outputs now (define_graph became steps()), and the calls in the migrated classes "
                            f"follow; code in modules not migrated with it that calls {old} must use {new}", own[old])
    for old, new in kept.items():
        if old in own:
            unroller.report(rules.GRAPH_HELPER_RENAMED.id, f"{desc.name}.{old} keeps its name: {new} is already an "
                            f"attribute of the class hierarchy", own[old])
    if not renames:
        return body
    chain, subclasses = _hierarchy(unroller, original)
    rename = _GraphHelperCalls(renames, {c.name.value for c in [*chain, *subclasses]})
    return [transform(statement, rename, layout=False) for statement in body]


def _assigned_name(statement) -> str | None:
    target = statement.body[0].targets[0].target
    return target.value if isinstance(target, cst.Name) else None


def _hoisted_sources(desc: PipelineDesc, original: cst.ClassDef) -> dict:
    """{variable: its statement} for the source helpers' streams the steps create (``source = helper(...,
    batch_size=self.batch_size)``), created at the end of ``__init__`` instead, where the readers they name join
    ``self._readers``: the object answers for them before its first step, as after build(). Only where their
    arguments read nothing define_graph computes and the class has no attribute of that name."""
    graph = desc.extra.get("graph")
    sources = eager_sources(desc)
    if graph is None or not sources or desc.extra.get("checkpoint") or desc.extra.get("feeds"):
        return {}
    attributes = _SelfAttributes()
    walk(original, attributes)
    bound = AssignedNames()
    walk(graph, bound)
    found = {}
    for var, setup in zip(sources, desc.extra["source_setup"]):
        reads = NameReads()
        walk(setup.body[0].value, reads)
        if var in attributes.names or reads.names & bound.names or _assigned_name(setup) != var:
            return {}
        found[var] = setup
    return found


def _constants(unroller) -> constants.Rewriter:
    """Constants (``types.Constant``, ``fn.constant``) that the class's helper methods build, or its ``__init__``
    once the pipeline options are set: a batch of the pipeline's batch size, as in the steps (capability 5)."""
    return constants.Rewriter(unroller.ctx.imports, "self.batch_size", lambda original, found: unroller.report(
        rules.CONSTANT.id, f"{code_of(original)} -> {code_of(found)}: a batch of self.batch_size samples, as the "
        f"constant node gave every step", original), unroller.ctx)


def _constants_after_options(unroller, init: cst.FunctionDef) -> cst.FunctionDef:
    """``__init__`` with the constants rewritten in the statements after ``super().__init__(...)`` (or the
    attributes that replaced it): before it, ``self.batch_size`` is not set yet."""
    body = list(init.body.body)
    first = next((i for i, statement in enumerate(body) if isinstance(statement, cst.SimpleStatementLine) and (
        code_of(statement).lstrip().startswith(("self.batch_size =", "super(")) or ".__init__(" in code_of(statement))),
        None)
    if first is None:
        return init
    rewriter = _constants(unroller)
    rewriter.hoisting = "local"  # types.Constant(f(x)): f(x) is called there, once, as pipeline mode called it
    rewritten = []
    for statement in body[first + 1:]:
        new = transform(statement, rewriter, layout=False)
        made = rewriter.take_pending()
        if made:
            made[0] = made[0].with_changes(leading_lines=new.leading_lines)
            new = new.with_changes(leading_lines=[])
        rewritten += [*made, new]
    body[first + 1:] = rewritten
    return init.with_changes(body=init.body.with_changes(body=body))


def stream_bases(unroller, updated: cst.ClassDef) -> list[cst.Arg]:
    """The class's bases with ``Pipeline`` replaced by ``ReaderStream``: an instance is an iterator over the
    steps its define_graph() generator yields (``next(pipe)`` for ``pipe.run()``) that answers epoch_size(),
    reader_meta() and max_batch_size at run time, wherever the object goes (a factory, a list, an attribute);
    its define_graph is the generator ``steps`` that ReaderStream calls."""
    unroller.need_stream = True
    return [b.with_changes(value=cst.Name(STREAM_CLASS)) if unroller.ctx.imports.qualname(b.value) == PIPELINE_CLS
            else b for b in updated.bases]


def _readers_statement(name: str, attr: str, several: bool = False) -> cst.BaseStatement:
    """``self._readers``: the reader by its name, which epoch_size(name)/reader_meta(name) ask (ReaderStream);
    ``several``: added to the others' (a class with several readers)."""
    others = "**self._readers, " if several else ""
    return stmt(f"self._readers = {{{others}{repr(name).replace(chr(39), chr(34))}: self.{attr}}}\n")


def _lambda_statement(unroller, obj, call, statement, desc, entry):
    seed = kwarg(call, "seed") if entry.get("random") else None
    before, rng = [], None
    if seed is not None:
        # The op's own random stream: one RNG, created here once (an RNG made inside the lambda would
        # restart at every call and repeat the same values every step).
        rng = f"self.{obj.attr}_rng"
        before.append(stmt(f"{rng} = ndd.random.RNG(seed={code_of(seed)})\n"))
        unroller.report(rules.OP_SEED.id, f"self.{obj.attr}: seed={code_of(seed)} -> its own "
                        f"ndd.random.RNG ({rng}), created once", statement)
    if entry.get("random"):
        desc.has_random = True
    lam = ops_object_callable(call, entry, expr(rng) if rng else None)
    return [*before, stmt(f"self.{obj.attr} = {code_of(lam)}\n")]


def _compose_statement(unroller, obj: _OpsObject, desc) -> list:
    """``self.x = ops.Compose([ops.A(a), ops.B(b)])`` -> ``self.x = lambda *inputs, **kwargs: ndd.b(ndd.a(*inputs, a,
    **kwargs), b)``: what DALI 2.4.0's _CompoundOp computes (each op on the outputs of the one before, the call's
    keyword arguments to the first). Where a GPU op follows a CPU one, _CompoundOp added ``.gpu()`` to the inputs
    the op's schema wants on the GPU; an ndd op moves its inputs to the device its schema says by itself
    (``_ops.py``, convert_args with ``_input_device``: docs/dali-facts.md), so the chain needs no ``.gpu()``. A
    random op with its own seed= gets an RNG of its own, created once; one without takes the pipeline's seed."""
    before, current = [], None
    parts = obj.entry["compose"]
    for index, (path, fn_path, entry, sub) in enumerate(parts):
        ctor = cst.Call(func=ndd_attr(entry["ndd"]),
                        args=[a for a in sub.args if a.keyword is None or a.keyword.value not in NON_READER_DROPPED])
        seed = kwarg(ctor, "seed")
        if entry.get("random") and seed is not None:
            rng = f"self.{obj.attr}_rng" + (str(index) if sum(1 for p in parts if p[2].get("random")) > 1 else "")
            before.append(stmt(f"{rng} = ndd.random.RNG(seed={code_of(seed)})\n"))
            ctor = with_kwarg(without_kwargs(ctor, {"seed"}), "rng", expr(rng))
            unroller.report(rules.OP_SEED.id, f"self.{obj.attr}: ops.{path}(seed={code_of(seed)}) -> its own "
                            f"ndd.random.RNG ({rng}), created once", obj.statement)
        if entry.get("random"):
            desc.has_random = True
        inputs = [cst.Arg(cst.Name("inputs"), star="*")] if current is None else [cst.Arg(current)]
        extra = [cst.Arg(cst.Name("kwargs"), star="**")] if current is None else []
        args = [a.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))) for a in
                [*inputs, *ctor.args, *extra]]  # one line: the chain is one lambda
        current = _normalise_commas(ctor.with_changes(args=args))
    lam = cst.Lambda(params=cst.Parameters(star_arg=cst.Param(cst.Name("inputs"), star="*"),
                                           star_kwarg=cst.Param(cst.Name("kwargs"), star="**")), body=current)
    chain = " -> ".join(p[1] for p in parts)
    unroller.report(rules.UNROLL.id, f"{code_of(obj.call.func)}([...]) self.{obj.attr} -> one callable chaining the ndd "
                    f"calls ({chain}) with the same arguments; each moves its inputs to its device as Compose did",
                    obj.statement)
    return [*before, stmt(f"self.{obj.attr} = {code_of(lam)}\n")]


def _source_branch_statements(unroller, obj: _OpsObject, call: cst.Call, statement, init: cst.FunctionDef) -> list:
    """``self.x = ops.ExternalSource(source=S, ...)`` in a branch where other branches put an operator in ``self.x``:
    a generator of S's batches, as pipeline mode's external_source read them (its kind decided as in a graph,
    ``sources.py``), and ``self.x`` a callable that gives the next one, whatever the steps' call passes (batch_size=,
    inputs): pipeline mode made the call an fn.external_source over S. Its end surfaces as StopIteration from that
    call, which ends the steps (``_SourceEnds``)."""
    taken = {p.name.value for p in [*init.params.params, *init.params.kwonly_params]}
    walk(init, names := NameReads())
    taken |= names.names
    generator, stream_name = free_name(f"{obj.attr}_batches", taken), free_name(f"{obj.attr}_stream", taken)
    env = Env(unroller.ctx, unroller._reporter, batch_size="self.batch_size", seed="self.seed",
              rng_mode=unroller.d.rng_mode, prefix="", rng_counter=unroller.rng_counter)
    symbols = unroller.ctx.facts.get("module_symbols", {})
    spec = external.describe_source(cst.Name(obj.attr), call, statement, 1, symbols, taken,
                                    lambda rule_id, message, node: env.report(rule_id, message, node),
                                    unroller.ctx.facts.get("flow"))
    walk(spec.source, read := NameReads())
    spec.var = free_name("source", read.names)  # local to the generator: only the source's own names are in the way
    steps = [*external.pull_statements(spec, "self.batch_size"), stmt(f"yield {obj.attr}\n")]
    function = cst.FunctionDef(
        name=cst.Name(generator), params=cst.Parameters(),
        body=cst.IndentedBlock([*_source_setup(spec, statement, env),
                                cst.While(test=cst.Name("True"), body=cst.IndentedBlock(steps))],
                               header=cst.TrailingWhitespace(whitespace=cst.SimpleWhitespace("  "), comment=cst.Comment(
                                   f"# what ops.ExternalSource({code_of(spec.source)}) gave: a batch a step"))))
    unroller.report(rules.EXTERNAL_SOURCE.id, f"self.{obj.attr} = ops.ExternalSource(source={code_of(spec.source)}) "
                    f"where other branches put an operator there -> a callable giving the source's next batch "
                    f"(ndd.as_batch of each item); the steps end where it ends, as pipe.run() did", statement)
    return [function, stmt(f"{stream_name} = {generator}()\n"),
            stmt(f"self.{obj.attr} = lambda *inputs, **kwargs: next({stream_name})\n")]


class _SourceEnds(cst.CSTTransformer):
    """A statement of the steps that calls ``self.x``, where ``self.x`` may hold an external source's batches
    (``_source_branch_statements``): its StopIteration ends the steps, as pipe.run() raised StopIteration from
    the source's end on (inside a generator it would be a RuntimeError)."""

    def __init__(self, attrs: set[str]):
        super().__init__()
        self.attrs = attrs

    def leave_SimpleStatementLine(self, original_node, updated_node):
        calls = _AttrCalls(self.attrs)
        walk(updated_node, calls)
        if not calls.found:
            return updated_node
        attr = calls.found[0]
        handler = cst.ExceptHandler(
            type=cst.Name("StopIteration"),
            body=cst.IndentedBlock([stmt("return\n")], header=cst.TrailingWhitespace(
                whitespace=cst.SimpleWhitespace("  "), comment=cst.Comment(
                f"# self.{attr} held an external source, and it ended: pipe.run() raised StopIteration from here on"))))
        return cst.Try(body=cst.IndentedBlock([updated_node.with_changes(leading_lines=[])]), handlers=[handler],
                       leading_lines=updated_node.leading_lines)


class _AttrCalls(cst.CSTVisitor):
    def __init__(self, attrs):
        self.attrs, self.found = attrs, []

    def visit_Call(self, node):
        if _self_attr(node.func) in self.attrs:
            self.found.append(_self_attr(node.func))


def _assigns(statement, var):
    return isinstance(statement, cst.SimpleStatementLine) and isinstance(statement.body[0], cst.Assign) \
        and code_of(statement.body[0].targets[0].target) == var


__all__ = ["describe_class", "emit_class", "dotted"]
