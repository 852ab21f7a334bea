"""A Pipeline kept in an attribute, made in one method and filled in another.

Before::

    class ImageSet:
        def __init__(self, root, batch_size, seed):
            self._root = root
            self._pipe = Pipeline(batch_size=batch_size, num_threads=2, device_id=None, seed=seed)
            self._define_graph()

        def _define_graph(self):
            with self._pipe:
                jpegs, labels = fn.readers.file(file_root=self._root)
                self._pipe.set_outputs(fn.decoders.image(jpegs), labels)

        def run(self):
            return self._pipe.run()

After (withstyle writes the generator; its options are the values ``__init__`` gave the Pipeline)::

        def __init__(self, root, batch_size, seed):
            self._root = root
            self._pipe_batch_size = batch_size  # the options self._pipe was made with, for _define_graph
            self._pipe_seed = seed
            self._define_graph()

        def _define_graph(self):
            def _pipe_steps(*, batch_size=self._pipe_batch_size, seed=self._pipe_seed):
                ...
            self._pipe = _pipe_steps()

The Pipeline's options read ``__init__``'s parameters, which the filling method cannot see: each computed option the
generator can read (``READ_OPTIONS``) is stored on the object where the Pipeline was made (evaluated there, in the
same order, as the Pipeline's constructor evaluated it), and the generator takes those attributes as its defaults;
literal options stay literals, and the options that only tuned pipeline mode's execution are dropped, as for any
Pipeline. The other methods' ``build()``, ``run()`` and ``reset()`` follow the flow model's origin of the Pipeline
(``__init__:self._pipe``), as for a Pipeline made and filled in one block.

Refused, with the cause (the block stays in pipeline mode, marked DM212): a Pipeline the class binds to that
attribute more than once; one filled by more than one ``with`` block, in a loop or a nested function, or by a class
method; one whose filling method may run more than once (several call sites in the class, or one in a method called
again: each call would make a new generator); one ``__init__`` reads before it is filled (it would not be bound yet);
options given by ``*args``/``**kwargs``; a checkpointed one; and an attribute another class of the module makes in its
``__init__`` too (the flow model names such a Pipeline by its method, not its class).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from ...walk import mentioning, walk
from .model import CORE, PIPELINE_CLS, code_of, is_unknown, literal_value
from .signature import filled_pipeline, pipeline_call_config

INIT = "__init__"
# The options the generator can read (its keyword-only parameters, and how far an iterator ran it ahead): the others
# only tuned pipeline mode's execution, are dropped, and are only named in the findings that say so
READ_OPTIONS = (*CORE, "prefetch_queue_depth", "exec_pipelined")


@dataclass
class AttributePipe:
    """A Pipeline bound to ``<self>.<attr>`` in ``__init__`` and filled in another method's ``with`` block."""

    key: str  # the flow model's origin of the Pipeline: "<enclosing functions>.__init__:self._pipe"
    attr: str  # "_pipe"
    assign: cst.SimpleStatementLine  # `self._pipe = Pipeline(...)`, in __init__
    call: cst.Call  # its Pipeline(...)
    init_self: str  # __init__'s first parameter
    method: cst.FunctionDef | None = None  # the method that fills it
    block: cst.With | None = None  # its `with self._pipe:`
    stored: dict[str, str] = field(default_factory=dict)  # option -> the attribute that carries its value
    refused: str | None = None  # why it stays in pipeline mode

    @property
    def name(self) -> str:
        """The pipeline as the filling method names it (``self._pipe``)."""
        return f"{_first_param(self.method)}.{self.attr}"

    def carried_call(self) -> cst.Call:
        """The Pipeline(...) as the filling method sees it: every option by keyword, a computed one read from the
        attribute __init__ stored it in."""
        self_name = _first_param(self.method)
        args = []
        for option, value in pipeline_call_config(self.call).items():
            if option in self.stored:
                value = cst.Attribute(cst.Name(self_name), cst.Name(self.stored[option]))
            args.append(cst.Arg(value, keyword=cst.Name(option), equal=cst.AssignEqual(
                whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))))
        return self.call.with_changes(args=args)

    def storing_statements(self, call: cst.Call, statement: cst.SimpleStatementLine) -> list[cst.SimpleStatementLine]:
        """What replaces the Pipeline(...) ``statement`` (``call`` as rewritten so far) in __init__: each computed
        option stored on the object, in the order the Pipeline's arguments were evaluated."""
        config = pipeline_call_config(call)
        statements = []
        for option, attribute in self.stored.items():
            target = cst.Attribute(cst.Name(self.init_self), cst.Name(attribute))
            statements.append(cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(target)], config[option])]))
        if statements:
            comment = cst.TrailingWhitespace(whitespace=cst.SimpleWhitespace("  "), comment=cst.Comment(
                f"# the options {self.init_self}.{self.attr} was made with, for {self.method.name.value}()"))
            statements[0] = statements[0].with_changes(trailing_whitespace=comment,
                                                       leading_lines=statement.leading_lines)
        return statements


def _is_static(function: cst.FunctionDef) -> bool:
    return any(isinstance(d.decorator, cst.Name) and d.decorator.value == "staticmethod" for d in function.decorators)


def _first_param(function: cst.FunctionDef | None) -> str | None:
    params = function.params.posonly_params or function.params.params if function is not None else ()
    return params[0].name.value if params else None


def _literal(value: cst.BaseExpression) -> bool:
    """A value that reads nothing (``2``, ``None``, ``{"cpu_size": 2}``): the same wherever it is written."""
    if not is_unknown(literal_value(value)):
        return True
    reads = _Reads()
    walk(value, reads)
    return not reads.found


class _Reads(cst.CSTVisitor):
    def __init__(self):
        self.found = False

    def visit_Name(self, node):
        self.found |= node.value not in ("True", "False", "None")

    def visit_Call(self, node):
        self.found = True


class _SelfUses(cst.CSTVisitor):
    """In a method (its closures too, which share its ``self``; nested classes left out): assignments to
    ``<self>.<attr>`` (its statements), ``with <self>.<attr>:`` blocks (and whether each is in a loop or a nested
    function), reads of ``<self>.<attr>``, calls of ``<self>.<name>(...)``."""

    def __init__(self, self_name: str):
        self.self_name = self_name
        self.assigned: dict[str, list[cst.CSTNode]] = {}
        self.blocks: list[tuple[str, cst.With, bool]] = []  # (attr, block, in a loop or a nested function)
        self.read: list[tuple[str, cst.Attribute]] = []
        self.calls: dict[str, int] = {}
        self._loops = 0
        self._nested = 0
        self._targets: set[cst.CSTNode] = set()

    def _attr(self, node) -> str | None:
        return _self_attr(node, self.self_name)

    def visit_FunctionDef(self, node):
        self._nested += 1

    def leave_FunctionDef(self, node):
        self._nested -= 1

    def visit_Lambda(self, node):
        self._nested += 1

    def leave_Lambda(self, node):
        self._nested -= 1

    def visit_ClassDef(self, node):
        return False

    def visit_For(self, node):
        self._loops += 1

    def leave_For(self, node):
        self._loops -= 1

    def visit_While(self, node):
        self._loops += 1

    def leave_While(self, node):
        self._loops -= 1

    def _target(self, target, statement):
        for node in _target_nodes(target):
            attr = self._attr(node)
            if attr is not None:
                self.assigned.setdefault(attr, []).append(statement)
                self._targets.add(node)

    def visit_Assign(self, node):
        for target in node.targets:
            self._target(target.target, node)

    def visit_AugAssign(self, node):
        self._target(node.target, node)

    def visit_AnnAssign(self, node):
        self._target(node.target, node)

    def visit_With(self, node):
        for item in node.items:
            attr = self._attr(item.item)
            if attr is not None:
                self.blocks.append((attr, node, self._loops > 0 or self._nested > 0))

    def visit_Attribute(self, node):
        attr = self._attr(node)
        if attr is not None and node not in self._targets:
            self.read.append((attr, node))

    def visit_Call(self, node):
        attr = self._attr(node.func)
        if attr is not None:
            self.calls[attr] = self.calls.get(attr, 0) + 1


def _self_attr(node, self_name: str) -> str | None:
    """``attr`` of ``<self_name>.attr``, else None."""
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == self_name:
        return node.attr.value
    return None


def _target_nodes(target):
    if isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            yield from _target_nodes(element.value)
    elif isinstance(target, cst.StarredElement):
        yield from _target_nodes(target.value)
    else:
        yield target


_CLASS = frozenset({"class"})


class _Classes(cst.CSTVisitor):
    """Each class of the module with the names of the functions around it (the flow model's origin keys)."""

    def __init__(self):
        self.found: list[tuple[cst.ClassDef, tuple[str, ...]]] = []
        self._functions: list[str] = []

    def visit_ClassDef(self, node):
        self.found.append((node, tuple(self._functions)))

    def visit_SimpleStatementLine(self, node):
        return False  # (no class in it: the walk goes through compound statements only)

    def visit_FunctionDef(self, node):
        self._functions.append(node.name.value)

    def leave_FunctionDef(self, node):
        self._functions.pop()


def find(module: cst.Module, imports, may_mention=None) -> list[AttributePipe]:
    """The attribute pipelines of ``module`` made in ``__init__`` and filled by another method (each with its cause
    where it stays in pipeline mode). ``may_mention(node, words)`` (``MigrationContext.may_mention``): False where
    the node's text has none of the words (a function whose text does not say class holds none: not walked)."""
    classes = _Classes()
    walk(module, classes, mentioning(may_mention, _CLASS))
    found = [pipe for node, functions in classes.found for pipe in _in_class(node, functions, imports)]
    made_by: dict[str, int] = {}  # origin key -> how many classes make it
    for pipe in found:
        made_by[pipe.key] = made_by.get(pipe.key, 0) + 1
    for pipe in found:
        if made_by[pipe.key] > 1 and pipe.refused is None:
            pipe.refused = (f"{made_by[pipe.key]} classes of the module make a Pipeline in {INIT} as "
                            f"self.{pipe.attr}, and the tool tells such Pipelines apart by the method that makes "
                            f"them, not by its class")
    return found


def _in_class(node: cst.ClassDef, functions: tuple[str, ...], imports) -> list[AttributePipe]:
    methods = [s for s in node.body.body if isinstance(s, cst.FunctionDef)] \
        if isinstance(node.body, cst.IndentedBlock) else []
    init = next((m for m in methods if m.name.value == INIT), None)
    init_self = _first_param(init)
    if init is None or init_self is None or _is_static(init):
        return []
    made = []  # (statement, call, attribute) of each `self.X = Pipeline(...)` in __init__
    for statement in _simple_statements(init.body):
        assign = statement.body[0] if len(statement.body) == 1 else None
        if isinstance(assign, cst.Assign) and len(assign.targets) == 1 and isinstance(assign.value, cst.Call) \
                and imports.qualname(assign.value.func) == PIPELINE_CLS:
            attr = _self_attr(assign.targets[0].target, init_self)
            if attr is not None:
                made.append((statement, assign.value, attr))
    if not made:
        return []  # (the methods are walked only for a class that makes one)
    uses = {}
    for method in methods:
        self_name = _first_param(method)
        if self_name is not None and not _is_static(method):
            uses[method] = _SelfUses(self_name)
            walk(method.body, uses[method])
    pipes = []
    for statement, call, attr in made:
        blocks = [(method, block, looped) for method, use in uses.items() for a, block, looped in use.blocks
                  if a == attr and filled_pipeline(block, code_of(block.items[0].item)) == code_of(block.items[0].item)]
        if not blocks or any(method is init for method, _, _ in blocks):
            continue  # not filled here, or filled in __init__ itself: a Pipeline made and filled in one block
        pipe = AttributePipe(key=".".join([*functions, INIT]) + ":" + f"{init_self}.{attr}", attr=attr,
                             assign=statement, call=call, init_self=init_self)
        pipe.method, pipe.block = blocks[0][0], blocks[0][1]
        pipe.refused = _refusal(pipe, init, uses, blocks, methods)
        if pipe.refused is None:
            pipe.stored = _stored_names(pipe, uses)
        pipes.append(pipe)
    return pipes


def _simple_statements(block):
    """The one-line statements of a block and of the blocks of its ifs, withs and trys (not loops or defs)."""
    for statement in block.body:
        if isinstance(statement, cst.SimpleStatementLine):
            yield statement
        elif isinstance(statement, (cst.If, cst.With, cst.Try)):
            yield from _simple_statements(statement.body)
            orelse = getattr(statement, "orelse", None)
            while orelse is not None:
                yield from _simple_statements(orelse.body)
                orelse = getattr(orelse, "orelse", None)


def _refusal(pipe: AttributePipe, init, uses, blocks, methods) -> str | None:
    attr, name = pipe.attr, f"self.{pipe.attr}"
    method = pipe.method
    if any(arg.star for arg in pipe.call.args):
        return (f"{name} = Pipeline(...) gets its options by *args/**kwargs, which the method that fills it "
                f"cannot see")
    config = pipeline_call_config(pipe.call)
    if "checkpoint" in config or literal_value(config.get("enable_checkpointing")) not in (None, False):
        return (f"{name} = Pipeline(...) is checkpointed, and the tool migrates the checkpoints of a Pipeline made "
                f"and filled in one block")
    if any(isinstance(decorator.decorator, cst.Name) and decorator.decorator.value == "classmethod"
           for decorator in method.decorators):
        return f"{method.name.value}() that fills {name} is a class method"
    if len(blocks) > 1:
        return f"{name} is filled by {len(blocks)} `with` blocks (the tool migrates a Pipeline filled once)"
    if blocks[0][2]:
        return (f"{name} is filled in a loop or a nested function of {method.name.value}() (the tool migrates a "
                f"Pipeline filled once, in the method's own body)")
    bound = sum(len(use.assigned.get(attr, ())) for use in uses.values())
    if bound > 1:
        return f"the class binds {name} {bound} times, and the tool follows a Pipeline bound once"
    fill = method.name.value
    callers = _callers_beyond_init(fill, uses, init)
    if callers:
        return (f"{fill}() fills {name} and may run more than once (called by {', '.join(callers)}): each call would "
                f"make a new generator, where pipeline mode filled one Pipeline")
    read_early = _read_before_filled(pipe, init, _chain(fill, uses, init))
    if read_early:
        return (f"{INIT}() reads {name} before {fill}() fills it, where the migrated object has no {name} yet "
                f"(it holds the generator once {fill}() has run)")
    return None


def _callers_beyond_init(name: str, uses, init, seen=frozenset()) -> list[str]:
    """The callers (``method()``) through which the method ``name`` may run more than once: none where the class calls
    it at most once, from ``__init__`` or from a method that is itself called that way (or from outside alone)."""
    sites = [(caller, use.calls[name]) for caller, use in uses.items() if use.calls.get(name)]
    if not sites:
        return []  # called from outside the class, if at all
    if len(sites) > 1 or sites[0][1] > 1:
        return [f"{caller.name.value}()" for caller, _ in sites]
    caller = sites[0][0]
    if caller is init:
        return []
    if caller.name.value in seen:  # recursion
        return [f"{caller.name.value}()"]
    return _callers_beyond_init(caller.name.value, uses, init, seen | {name})


def _chain(name: str, uses, init) -> set[str]:
    """The methods through which __init__ calls the method ``name`` (``name`` itself, and each one's single caller up
    to the one __init__ calls; ``_callers_beyond_init`` found one caller at each step)."""
    chain = {name}
    while True:
        callers = [caller for caller, use in uses.items() if use.calls.get(name)]
        if len(callers) != 1 or callers[0] is init or callers[0].name.value in chain:
            return chain
        name = callers[0].name.value
        chain.add(name)


def _read_before_filled(pipe: AttributePipe, init: cst.FunctionDef, fills: set[str]) -> bool:
    """__init__ reads the attribute after the statement of its body that makes the Pipeline and before one that
    calls the filling method (or a method of ``fills``, through which it is called)."""
    made = False
    for statement in init.body.body:
        if not made:
            made = statement is pipe.assign or (not isinstance(statement, cst.SimpleStatementLine) and any(
                inner is pipe.assign for inner in _simple_statements(statement.body)))
            continue
        use = _SelfUses(pipe.init_self)
        walk(statement, use)
        if any(attr == pipe.attr for attr, _ in use.read):
            return True
        if any(use.calls.get(name) for name in fills):
            return False
    return False


def _stored_names(pipe: AttributePipe, uses) -> dict[str, str]:
    """option -> the attribute __init__ stores it in (``_pipe_batch_size``), for each computed option the generator
    can read (``READ_OPTIONS``); a name the class already uses gets a number."""
    taken = {attr for use in uses.values() for attr in [*use.assigned, *(a for a, _ in use.read), *use.calls]}
    stored = {}
    for option, value in pipeline_call_config(pipe.call).items():
        if _literal(value) or option not in READ_OPTIONS:
            continue
        attribute = f"{pipe.attr}_{option}"
        number = 2
        while attribute in taken:
            attribute, number = f"{pipe.attr}_{option}_{number}", number + 1
        taken.add(attribute)
        stored[option] = attribute
    return stored


__all__ = ["AttributePipe", "find"]
