"""User subclasses of the PyTorch iterators (``class Loader(DALIClassificationIterator)``): they derive from the
EpochIterator instead, where it offers what the subclass uses.

A subclass that adapts the plugin's output (PyTorch Lightning wants a list, not a list of dicts) keeps the
plugin's constructor and calls ``super().__next__()``; the EpochIterator has the same methods
(``__next__``, ``__iter__``, ``__len__``, ``reset()``) and attributes (``output_map``, ``batch_size``,
``size``/``_size``), so the class derives from it and each construction site gets the EpochIterator's
arguments, as a plain ``DALIClassificationIterator(...)`` call would (``["data", "label"]`` inserted,
``LastBatchPolicy.PARTIAL`` -> ``"PARTIAL"``)::

    class Loader(DALIClassificationIterator):         class Loader(EpochIterator):
        def __init__(self, *args, **kwargs):              def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)      ->         super().__init__(*args, **kwargs)

        def __next__(self):                               def __next__(self):
            out = super().__next__()[0]                       out = super().__next__()[0]
            return [out[k] for k in self.output_map]          return [out[k] for k in self.output_map]

    loader = Loader(pipe, reader_name="Reader",        loader = Loader(pipe, ["data", "label"], reader_name="Reader",
        last_batch_policy=LastBatchPolicy.PARTIAL)         last_batch_policy="PARTIAL")

An ``__init__`` that forwards named parameters and ``*args``/``**kwargs`` unchanged (``(self, pipe, **kwargs)``) is
taken as the plugin's signature too. One with arguments of its own that calls ``super().__init__(...)`` (or
``super(Cls, self).__init__``) with explicit arguments (once, or once per branch, with the same pipelines parameter)
keeps its signature and its construction sites; each such call gets the EpochIterator's arguments, bound the way the plugin binds them (``PLUGIN_PARAMETERS``: positional ones by the
plugin's order, ``fill_last_batch`` given overrides ``last_batch_policy`` as in the plugin, ``dynamic_shape``
changes no value and is dropped, ``prepare_first_batch`` is passed on: the EpochIterator reads and counts its first
batch when it is made, as the plugin does, unless told not to)::

    def __init__(self, pipelines, size=-1, reader_name=None, fill_last_batch=True):
        policy = LastBatchPolicy.FILL if fill_last_batch else LastBatchPolicy.DROP
        super().__init__(pipelines, size, reader_name, last_batch_policy=policy)
    ->
        super().__init__(pipelines, ["data", "label"], size=size, reader_name=reader_name, last_batch_policy=policy)

The pipelines such a call passes may also be built in ``__init__`` itself (a ``@pipeline_def`` defined there and
called) or any other expression that is not a parameter: the construction sites then carry no pipelines, and the
class migrates where those pipelines are ReaderStreams (a ``reader_name=``, or any argument to its base, asks for
their reader) or values the tool cannot trace (DM241). Where the class stays, so does every pipeline of this module
its ``super().__init__`` gets: that call is marked too (DM212), which keeps their unit in pipeline mode.

Supported: no ``__init__``, or one of those two, ``super()`` calls of
those methods, and ``self.`` reads of those attributes (``epoch_iterator.ITERATOR_ATTRS``: what the EpochIterator has with the
plugin's meaning) or of what the subclass itself defines; every construction site a call whose pipelines the
migration writes as ReaderStreams (they answer the epoch size at run time), or whose pipelines the tool cannot
trace. A class never constructed here, or given pipelines it cannot trace (a parameter, another module's value),
decides at run time (DM241): the EpochIterator is the plugin's own iterator over pipeline-mode Pipelines. Such a
class keeps a ``super().__init__(pipe, ..., **kwargs)`` it cannot bind as written (the EpochIterator takes the
plugin's signature), and a DALIClassificationIterator subclass without ``__init__`` gets one that puts the output
map after the pipelines. The plugin's private counts (``self._counter``, which counts the batch prepared at
construction, ``self._first_batch``, ``self._last_batch_policy``, ...) are among those attributes: the EpochIterator
prepares its first batch there too and holds them with the plugin's values. Anything else (``self._pipes``, the
plugin's per-shard numpy arrays, a construction site over this module's pipelines that are not ReaderStreams) keeps the class, its construction sites and its pipelines in pipeline mode, with a marker
on the class that names the reason (DM212).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from ...walk import mentioning, walk
from .epoch_iterator import ITERATOR_ATTRS
from .model import NameReads, code_of

# The iterator classes a subclass may derive from -> the output map the plugin fixes (None: the caller's).
BASES = {"nvidia.dali.plugin.pytorch.DALIGenericIterator": None,
         "nvidia.dali.plugin.pytorch.DALIClassificationIterator": ["data", "label"]}
SUPER_METHODS = frozenset({"__init__", "__next__", "__iter__", "__len__", "reset", "next"})
# The plugin's constructor parameters in their order (DALI 2.4.0; tests/test_unroll_runtime.py checks them against
# the installed plugin): how a super().__init__(...) call's positional arguments bind.
_GENERIC = ("pipelines", "output_map", "size", "reader_name", "auto_reset", "fill_last_batch", "dynamic_shape",
            "last_batch_padded", "last_batch_policy", "prepare_first_batch")
PLUGIN_PARAMETERS = {"nvidia.dali.plugin.pytorch.DALIGenericIterator": _GENERIC,
                     "nvidia.dali.plugin.pytorch.DALIClassificationIterator": tuple(p for p in _GENERIC
                                                                                    if p != "output_map")}
# pipelines_at of a class whose __init__ hands super().__init__ pipelines that are not one of its parameters
BUILT_IN_INIT = (None, None)


@dataclass
class IteratorSubclass:
    name: str
    node: cst.ClassDef
    base: str  # the plugin class it derives from (its qualified name)
    problem: str | None = None  # why it stays in pipeline mode
    sites: list = field(default_factory=list)  # the calls that construct it
    super_inits: tuple = ()  # the super().__init__ calls of an __init__ with arguments of its own (one per branch)
    # Its pipelines come from where the tool cannot trace them (never constructed here, or given values it cannot
    # follow): the EpochIterator decides at run time which kind they are (DM241).
    run_time: bool = False
    # The one super().__init__ call of an __init__ whose arguments the tool cannot bind (*args, **kwargs): kept as it
    # is (the EpochIterator takes the plugin's signature), with DALIClassificationIterator's output map put in.
    verbatim_init: cst.Call | None = None
    # A DALIClassificationIterator subclass without __init__ decided at run time: it gets one that puts the output
    # map after the pipelines, so construction sites anywhere keep the plugin's signature.
    adds_init: bool = False
    # Every super().__init__ call of the class: where it stays in pipeline mode, pipelines built there stay too.
    init_calls: tuple = ()
    # (position, keyword) of the pipelines at a construction site, or BUILT_IN_INIT: its __init__ makes them
    pipelines_at: tuple = (0, "pipelines")

    @property
    def which(self) -> str:
        return self.base.rsplit(".", 1)[-1]

    @property
    def fixed_map(self):
        return BASES[self.base]


class _Calls(cst.CSTVisitor):
    """The calls of plain names, in the order of the text."""

    def __init__(self, calls: list):
        self.calls = calls

    def visit_Call(self, node):
        if isinstance(node.func, cst.Name):
            self.calls.append(node)


class _Find(_Calls):
    def __init__(self, imports):
        super().__init__([])
        self.imports = imports
        self.found: dict[str, IteratorSubclass] = {}

    def visit_ClassDef(self, node):
        for base in node.bases:
            qualname = self.imports.qualname(base.value)
            if qualname in BASES:
                self.found[node.name.value] = IteratorSubclass(node.name.value, node, qualname)


def find(module: cst.Module, imports, streams, untraced=lambda node: False,
         may_mention=None) -> dict[str, IteratorSubclass]:
    """The module's subclasses of the PyTorch iterators, each with its construction sites and, where it stays
    in pipeline mode, why (``streams(node)``: the migration writes the pipelines ``node`` holds as
    ReaderStreams; ``untraced(node)``: no pipeline of the run reaches ``node`` as far as the tool sees).
    ``may_mention(node, words)`` (``MigrationContext.may_mention``): False where the node's text has none of the
    words (not walked)."""
    leading = frozenset(local for local, target in imports.aliases.items()
                        if any(base == target or base.startswith(target + ".") for base in BASES))
    if not leading:
        return {}  # a base resolves through an import whose target leads to the plugin's iterator: there is none
    # A class whose base resolves to one says the import's local name; a call of a class found says its name.
    finder = _Find(imports)
    walk(module, finder, mentioning(may_mention, leading))
    if finder.found and may_mention is not None:
        names = frozenset(finder.found)
        finder.calls = []
        walk(module, _Calls(finder.calls), mentioning(may_mention, names))
    for subclass in finder.found.values():
        subclass.sites = [c for c in finder.calls if c.func.value == subclass.name]
        subclass.problem = _problem(subclass, streams, untraced)
        uses = _SelfUses()
        walk(subclass.node.body, uses)
        subclass.init_calls = tuple(uses.super_init)
    return finder.found


def _problem(subclass: IteratorSubclass, streams, untraced) -> str | None:
    node = subclass.node
    if node.keywords or any(not isinstance(b.value, (cst.Name, cst.Attribute)) for b in node.bases):
        return "its bases are not plain names"
    uses = _SelfUses()
    walk(node.body, uses)
    unsupported = sorted(uses.super_methods - SUPER_METHODS)
    if unsupported:
        return f"it calls super().{unsupported[0]}(), which the migrated base (EpochIterator) does not have"
    own = uses.assigned | {s.name.value for s in node.body.body if isinstance(s, cst.FunctionDef)}
    unknown = sorted(uses.read - own - ITERATOR_ATTRS)
    if unknown:
        return f"it reads self.{unknown[0]}, which the migrated base (EpochIterator) does not have"
    init = next((s for s in node.body.body if isinstance(s, cst.FunctionDef) and s.name.value == "__init__"), None)
    if init is not None and not _forwards(init):
        why = _own_init(subclass, init)
        if why is not None:
            subclass.verbatim_init = _verbatim_init(subclass, init)
            if subclass.verbatim_init is None:
                return why
    why = _sites_problem(subclass, streams, untraced)
    if why is None and subclass.run_time and subclass.fixed_map is not None and not subclass.super_inits \
            and subclass.verbatim_init is None:  # sites with DALIClassificationIterator's arguments, here or elsewhere
        if init is None:
            subclass.adds_init = True
        else:
            subclass.verbatim_init = _verbatim_init(subclass, init)
            if subclass.verbatim_init is None:
                return ("its __init__ forwards *args to DALIClassificationIterator, so the tool cannot put the output "
                        "map after the pipelines")
    return why


def _sites_problem(subclass: IteratorSubclass, streams, untraced) -> str | None:
    """Why the construction sites keep the class in pipeline mode, or None (``run_time`` set where a site's
    pipelines cannot be traced, or where there is none here)."""
    if subclass.pipelines_at == BUILT_IN_INIT:  # the sites give no pipelines: its __init__ makes them
        return _built_in_init_problem(subclass, streams, untraced)
    if not subclass.sites:  # a wrapper other modules construct: whichever kind they give, decided at run time
        subclass.run_time = True
        return None
    for call in subclass.sites:
        if subclass.verbatim_init is not None:  # the pipelines may be any argument of its own __init__
            if not all(untraced(a.value) for a in call.args):
                return (f"{code_of(call.func)}(...) is given values of this module through an __init__ whose "
                        f"super().__init__ arguments the tool cannot bind")
            subclass.run_time = True
            continue
        pipelines = _pipelines(call, *subclass.pipelines_at)
        if pipelines is not None and all(untraced(p) for p in pipelines) and (
                subclass.super_inits or subclass.fixed_map is not None or _gives_output_map(call)):
            subclass.run_time = True
            continue
        if not subclass.super_inits and subclass.fixed_map is None and not _gives_output_map(call):
            return f"{code_of(call.func)}(...) gives no output_map the tool can see"
        if pipelines is None or not all(streams(p) for p in pipelines):
            return (f"{code_of(call.func)}(...) is given pipelines that are not migrated to ReaderStreams here (only "
                    f"pipelines of this module whose reader the program names, e.g. with reader_name=, are)")
    return None


def _verbatim_init(subclass: IteratorSubclass, init: cst.FunctionDef) -> cst.Call | None:
    """The one ``super().__init__(...)`` call of ``init`` when it can stay as written: it calls the plugin class
    (``super()`` or ``super(Cls, self)``) with *args/**kwargs the tool cannot bind, its pipelines first and not
    in *args where DALIClassificationIterator's output map must follow them."""
    calls = _SelfUses()
    walk(init.body, calls)
    if len(calls.super_init) != 1:
        return None
    call = calls.super_init[0]
    super_args = call.func.value.args
    if super_args and not (len(super_args) == 2 and code_of(super_args[0].value) == subclass.name
                           and code_of(super_args[1].value) == "self"):
        return None
    if not any(a.star for a in call.args):
        return None
    first = call.args[0] if call.args else None
    if subclass.fixed_map is not None and (first is None or first.keyword is not None or first.star):
        return None
    return call


def _pipelines(call: cst.Call, position=0, keyword="pipelines"):
    """The pipeline expressions of a construction site (the argument at ``position`` or ``keyword``), or None."""
    arg = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == keyword), None)
    if arg is None:
        positional = [a for a in call.args if a.keyword is None]
        if any(a.star for a in positional[:position + 1]) or len(positional) <= position:
            return None
        arg = positional[position].value
    return [e.value for e in arg.elements] if isinstance(arg, (cst.List, cst.Tuple)) else [arg]


def _gives_output_map(call: cst.Call) -> bool:
    """A DALIGenericIterator-signature call with its output_map (the second positional argument or a keyword)."""
    if any(a.star for a in call.args):
        return False
    return any(a.keyword is not None and a.keyword.value == "output_map" for a in call.args) or \
        len([a for a in call.args if a.keyword is None]) >= 2


def bound_arguments(base: str, call: cst.Call) -> dict[str, cst.BaseExpression]:
    """The arguments of a ``super().__init__(...)`` call to the plugin class ``base``, by its parameter names."""
    positional = [a for a in call.args if a.keyword is None]
    bound = {name: arg.value for name, arg in zip(PLUGIN_PARAMETERS[base], positional)}
    bound.update({a.keyword.value: a.value for a in call.args if a.keyword is not None})
    return bound


def _own_init(subclass: IteratorSubclass, init: cst.FunctionDef) -> str | None:
    """None where each ``super().__init__`` call of ``init`` (one, or one per branch) passes explicit arguments the
    plugin takes, its pipelines one and the same of ``init``'s own parameters (recorded on ``subclass``); else why
    the class stays."""
    calls = _SelfUses()
    walk(init.body, calls)
    if not calls.super_init:
        return "its __init__ does not call super().__init__"
    found = [_bound_init(subclass, init, call) for call in calls.super_init]
    why = next((f for f in found if isinstance(f, str)), None)
    if why is not None:
        return why
    if len(set(found)) != 1:
        return "its __init__ calls super().__init__ with different pipelines"
    subclass.super_inits = tuple(calls.super_init)
    subclass.pipelines_at = found[0]
    return None


def _built_in_init_problem(subclass: IteratorSubclass, streams, untraced) -> str | None:
    """Why pipelines that ``__init__`` passes its ``super().__init__`` (not parameters of its own: built there, or
    read from elsewhere) keep the class in pipeline mode, or None: they are ReaderStreams, or values the tool cannot
    trace (``run_time`` set)."""
    pipelines = [_pipelines(call) for call in subclass.super_inits]
    if any(p is None for p in pipelines):
        return "its __init__ passes super().__init__ pipelines the tool cannot list"
    pipelines = [p for found in pipelines for p in found]
    if all(streams(p) for p in pipelines):
        return None
    if all(untraced(p) for p in pipelines):
        subclass.run_time = True
        return None
    return ("its __init__ passes super().__init__ pipelines that are not migrated to ReaderStreams here (only "
            "pipelines of this module whose reader the program names, e.g. with reader_name=, are)")


def _bound_init(subclass: IteratorSubclass, init: cst.FunctionDef, call: cst.Call):
    """(position, name) of the parameter of ``init`` that ``call`` (a super().__init__) passes as its pipelines,
    or why the call cannot be bound to the plugin's parameters."""
    super_args = call.func.value.args
    if super_args and not (len(super_args) == 2 and code_of(super_args[0].value) == subclass.name
                           and code_of(super_args[1].value) == "self"):
        return f"its __init__ calls {code_of(call.func)}, which skips the plugin class it derives from"
    names = PLUGIN_PARAMETERS[subclass.base]
    positional = [a for a in call.args if a.keyword is None]
    if any(a.star for a in call.args) or len(positional) > len(names) or any(
            a.keyword.value not in names for a in call.args if a.keyword is not None):
        return "its __init__ passes super().__init__ arguments the tool cannot bind to the plugin's parameters"
    bound = bound_arguments(subclass.base, call)
    if subclass.fixed_map is None and "output_map" not in bound:
        return "its __init__ gives super().__init__ no output_map"
    fill = bound.get("fill_last_batch")
    if fill is not None and not isinstance(fill, cst.Name):
        return f"its __init__ passes fill_last_batch={code_of(fill)}, which the migration would read twice"
    pipelines = bound.get("pipelines")
    if pipelines is None:
        return "its __init__ gives super().__init__ no pipelines"
    params = [p.name.value for p in init.params.params]
    if not isinstance(pipelines, cst.Name) or pipelines.value not in params[1:]:
        return BUILT_IN_INIT  # built in __init__ (or any expression there), not given by the construction sites
    return (params.index(pipelines.value) - 1, pipelines.value)


def _forwards(init: cst.FunctionDef) -> bool:
    """``def __init__(self, a, b, *args, **kwargs): ... super().__init__(a, b, *args, **kwargs)`` (named
    parameters without defaults, then ``*args`` and/or ``**kwargs``): the construction sites call the plugin's
    signature, as a plain iterator call would."""
    params = init.params
    if params.kwonly_params or params.posonly_params or any(p.default is not None for p in params.params):
        return False
    star = params.star_arg.name.value if isinstance(params.star_arg, cst.Param) else None
    double = params.star_kwarg.name.value if params.star_kwarg else None
    if star is None and double is None:
        return False
    calls = _SelfUses()
    walk(init.body, calls)
    if len(calls.super_init) != 1:
        return False
    args = calls.super_init[0].args
    wanted = [("", p.name.value) for p in params.params[1:]] + ([("*", star)] if star else []) + \
        ([("**", double)] if double else [])
    return [(a.star, a.value.value if isinstance(a.value, cst.Name) and a.keyword is None else None)
            for a in args] == wanted


def _is_super(node) -> bool:
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "super"


class _SelfUses(cst.CSTVisitor):
    """``self.x`` read and assigned, ``super().m`` used, and the ``super().__init__(...)`` calls."""

    def __init__(self):
        self.read: set[str] = set()
        self.assigned: set[str] = set()
        self.super_methods: set[str] = set()
        self.super_init: list[cst.Call] = []

    def visit_Call(self, node):
        if isinstance(node.func, cst.Attribute) and _is_super(node.func.value) and node.func.attr.value == "__init__":
            self.super_init.append(node)

    def visit_AssignTarget(self, node):
        target = node.target
        if isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) and target.value.value == "self":
            self.assigned.add(target.attr.value)

    def visit_Attribute(self, node):
        if isinstance(node.value, cst.Name) and node.value.value == "self":
            self.read.add(node.attr.value)
        elif _is_super(node.value):
            self.super_methods.add(node.attr.value)


ANY_ARGUMENT = "*"  # run_time_inputs: every argument of a class's construction


def run_time_inputs(module: cst.Module, imports) -> dict[str, frozenset]:
    """The module's top-level functions and iterator subclasses that hand what they are given straight to a PyTorch
    iterator the migration writes as the EpochIterator deciding at run time (DM241), with the arguments (positions
    and keywords) that may carry pipelines: a pipeline of another module passed there works in either mode. A
    function's parameter counts when every read of it is the pipelines argument of such an iterator (or an element
    of a list there); an iterator subclass counts whole when it migrates whatever its pipelines are."""
    found: dict[str, frozenset] = {}
    for name, subclass in find(module, imports, lambda node: False, lambda node: True).items():
        if subclass.problem is None and subclass.run_time and any(s is subclass.node for s in module.body):
            found[name] = frozenset({ANY_ARGUMENT})
    found.update(_adapting(module, imports))
    for statement in module.body:  # migrated already: a class on the EpochIterator the migration wrote
        if isinstance(statement, cst.ClassDef) and any(_migrated_iterator(base.value) for base in statement.bases):
            found[statement.name.value] = frozenset({ANY_ARGUMENT})
    for statement in module.body:  # *args/**kwargs handed on to DALIGenericIterator (flow_star_args.forwarded_stars)
        keys = _forwarding_keys(statement, imports)
        if keys:
            found[statement.name.value] = found.get(statement.name.value, frozenset()) | keys
    for statement in module.body:
        if not isinstance(statement, cst.FunctionDef) or statement.params.posonly_params:
            continue
        uses = _ParamUses(imports)
        walk(statement.body, uses)
        keys = set()
        for index, param in enumerate(statement.params.params):
            reads = {node for node in uses.nodes if node.value == param.name.value}
            if reads and reads <= uses.iterator_inputs:
                keys |= {index, param.name.value}
        if keys:
            found[statement.name.value] = frozenset(keys)
    return found


def _forwarding_keys(statement, imports) -> frozenset:
    """For a top-level def or class (its ``__init__``) that hands its ``*args``/``**kwargs`` on to DALIGenericIterator:
    ``("*", n)`` (the positions from n on land in ``*args``) and ``("**", named)`` (the keywords not named land in
    ``**kwargs``), as ``DataFlow.wrapper_inputs`` reads them; empty for any other statement."""
    from ...flow_star_args import forwarded_stars

    node = statement
    if isinstance(statement, cst.ClassDef):
        node = next((s for s in statement.body.body if isinstance(s, cst.FunctionDef) and s.name.value == "__init__"
                     and not s.decorators), None)
    if not isinstance(node, cst.FunctionDef) or node.params.posonly_params:
        return frozenset()
    forwarded = forwarded_stars(node, imports)
    if forwarded is None:
        return frozenset()
    own = node.params.params[1:] if isinstance(statement, cst.ClassDef) else node.params.params
    named = frozenset(p.name.value for p in (*own, *node.params.kwonly_params))
    keys = {("*", len(own))} if forwarded[0] else set()
    if forwarded[1]:
        keys.add(("**", named))
    return frozenset(keys)


def _adapting(module: cst.Module, imports) -> dict[str, frozenset]:
    """The top-level functions and classes that adapt pipelines given from elsewhere at run time (adapted.py), with
    the positions and keywords of those parameters; in a module migrated already, the ones that call
    ReaderStream.adapt on a parameter first."""
    from ... import dataflow as df
    from . import adapted
    from .stream import CLASS_NAME as STREAM

    found: dict[str, frozenset] = {}
    if not adapted.mentions(module):
        return found
    flow = df.DataFlow(module, imports)
    params = adapted.find(module, flow, lambda seeds: df.DataFlow(module, imports, adapted=seeds))
    for statement in module.body:
        if not isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            continue
        node = flow.seeded_function(statement)
        if not isinstance(node, cst.FunctionDef):
            continue
        names = set(params.get(statement.name.value, ())) | adapted.adapted_here(node, STREAM)
        own = node.params.params[1:] if isinstance(statement, cst.ClassDef) else node.params.params
        keys = {key for index, param in enumerate(own) if param.name.value in names
                for key in (index, param.name.value)}
        keys |= {param.name.value for param in node.params.kwonly_params if param.name.value in names}
        if keys:
            found[statement.name.value] = frozenset(keys)
    return found


class _ParamUses(NameReads):
    """Every read of a name (``nodes``), and the names that are a PyTorch iterator's pipelines argument."""

    def __init__(self, imports):
        super().__init__()
        self.imports = imports
        self.iterator_inputs: set = set()

    def visit_Call(self, node):
        if self.imports.qualname(node.func) in BASES or _migrated_iterator(node.func):
            pipelines = _pipelines(node)
            self.iterator_inputs.update(p for p in pipelines or () if isinstance(p, cst.Name))

    def visit_Param(self, node):
        self._skip.add(node.name)


def _migrated_iterator(node) -> bool:
    """The EpochIterator the migration wrote (in the module, or imported from the helper module): it decides at run
    time too."""
    from .epoch_iterator import CLASS_NAME

    return isinstance(node, cst.Name) and node.value == CLASS_NAME
