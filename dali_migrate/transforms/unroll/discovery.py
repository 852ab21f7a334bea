"""What a module defines and how it uses its pipelines, read before anything changes (``Discovery``).

The unroll pass walks the module once with ``Discovery`` before the ``Unroller`` rewrites anything: the
``@pipeline_def`` functions (each definition of a name, as a notebook redefines one), the Pipeline subclasses (of
this module or, across modules, of the run), the variables that hold a ``Pipeline(...)`` or a pipeline function's
call and the methods called on them, the ``with pipe:`` blocks and the factories that return what they fill,
Pipelines kept in attributes (``attribute_pipes.py``), the iterators used, whether readers' metadata is asked for,
which pipelines are called with checkpointing, and whether a random op has its own ``seed=`` (``rng_mode``).
"""

from __future__ import annotations

import libcst as cst

from ... import optable
from ...names import dotted
from ...files import module_name_of
from . import attribute_pipes
from .model import PIPELINE_CLS, PIPELINE_DEF, fn_path, kwarg, literal_value, ops_path
from .signature import filled_pipeline

TORCH_ITERATORS = {
    "nvidia.dali.plugin.pytorch.DALIGenericIterator": None,
    "nvidia.dali.plugin.pytorch.DALIClassificationIterator": ["data", "label"],
}
OTHER_ITERATOR_PREFIXES = ("nvidia.dali.plugin.tf", "nvidia.dali.plugin.paddle", "nvidia.dali.plugin.mxnet",
                           "nvidia.dali.plugin.jax")
RNG_OPS = {p for p, e in optable.table()["fn"].items() if e.get("random")}


def _is_pipeline_def(imports, decorator: cst.Decorator):
    target = decorator.decorator
    call = target if isinstance(target, cst.Call) else None
    name = call.func if call is not None else target
    if imports.qualname(name) == PIPELINE_DEF:
        return call if call is not None else True
    return None


class Discovery(cst.CSTVisitor):
    """What the module defines and how it uses it; read before anything changes."""

    def __init__(self, ctx):
        super().__init__()
        self.ctx = ctx
        self.defs: dict[str, cst.FunctionDef] = {}  # the last @pipeline_def of each name
        self.earlier_defs: list[cst.FunctionDef] = []  # ones a later definition of the same name replaces
        self.classes: dict[str, cst.ClassDef] = {}
        # class name -> (the local name of its base, that base's ProjectClass): a Pipeline class of another module
        self.foreign_bases: dict[str, tuple] = {}
        self.pipe_vars: dict[str, tuple[str, str, cst.Call]] = {}  # "pipe" -> (kind, pipeline, call)
        self.rng_mode = False
        self.uses_iterators = False
        self.with_names: set[str] = set()
        self.meta_used = False  # epoch_size / reader_meta / an iterator with reader_name
        self.var_methods: dict[str, set[str]] = {}  # "scope:pipe" -> {"build", "run", ...}
        self.with_blocks: dict[str, tuple[cst.With, cst.Call]] = {}  # "scope:pipe" -> (with, Pipeline call)
        self.factories: dict[str, str] = {}  # function name -> the with-pipeline key it returns
        self.scope: list[str] = []  # enclosing functions: the same name in two functions is two variables
        self.checkpointed_calls: set[str] = set()  # pipeline functions called with enable_checkpointing/checkpoint
        self.function_params: dict[str, list[str]] = {}  # "outer.f" -> f's parameter names
        # Pipelines made in __init__ and filled by another method (attribute_pipes.py), and those that migrate by
        # their origin keys ("__init__:self._pipe")
        self.attribute_pipes: list[attribute_pipes.AttributePipe] = []
        self.migrating_attribute_pipes: dict[str, attribute_pipes.AttributePipe] = {}

    def anything(self) -> bool:
        return bool(self.defs or self.classes or self.with_names or self.uses_iterators or self.pipe_vars
                    or self.imported())

    def imported(self) -> dict:
        """Local name -> ProjectPipeline for the pipelines this module imports from the project."""
        project = self.ctx.facts.get("project")
        if not project:
            return {}
        return {local: found for local in self.ctx.imports.aliases
                if (found := project.lookup(self.ctx.imports, local)) is not None}

    def visit_Module(self, node):
        self.attribute_pipes = attribute_pipes.find(node, self.ctx.imports, self.ctx.may_mention)
        for pipe in self.attribute_pipes:
            if pipe.refused is None:  # its block, with the options as the filling method sees them
                self.migrating_attribute_pipes[pipe.key] = pipe
                self.with_blocks[pipe.key] = (pipe.block, pipe.carried_call())

    def visit_FunctionDef(self, node):
        for decorator in node.decorators:
            if _is_pipeline_def(self.ctx.imports, decorator):
                if node.name.value in self.defs:  # a notebook cell that redefines it: each is migrated
                    self.earlier_defs.append(self.defs[node.name.value])
                self.defs[node.name.value] = node
        self.scope.append(node.name.value)
        self.function_params[".".join(self.scope)] = [
            p.name.value for p in [*node.params.params, *node.params.kwonly_params]]

    def leave_FunctionDef(self, node):
        self.scope.pop()

    def key(self, name: str) -> str:
        return ".".join(self.scope) + ":" + name

    def visit_ClassDef(self, node):
        for base in node.bases:
            if self.ctx.imports.qualname(base.value) == PIPELINE_CLS or (  # or one of this module's Pipeline classes
                    isinstance(base.value, cst.Name) and base.value.value in self.classes):
                self.classes[node.name.value] = node
        project = self.ctx.facts.get("project")
        if node.name.value not in self.classes and not self.scope and project and project.pipeline_classes:
            # a subclass of a Pipeline class of another module of the run (class_hierarchy.py: a hierarchy across modules)
            here = module_name_of(self.ctx.path)
            foreign = project.foreign_base(here, node.name.value)
            record = project.pipeline_classes.get(f"{here}.{node.name.value}")
            if foreign is not None and len(record.bases) == len(node.bases):
                local = node.bases[record.bases.index(foreign.qualname)].value
                if isinstance(local, cst.Name):
                    self.classes[node.name.value] = node
                    self.foreign_bases[node.name.value] = (local.value, foreign)

    def visit_With(self, node):
        for item in node.items:
            name = dotted(item.item) if isinstance(item.item, (cst.Name, cst.Attribute)) else None
            if name:
                self.with_names.add(name)
                name = filled_pipeline(node, name)  # `with pipe: ... other.set_outputs(...)` fills other
                found = self.pipe_vars.get(self.key(name)) if name else None
                if found is not None and found[0] == "with":
                    self.with_blocks[self.key(name)] = (node, found[2])

    def visit_Return(self, node):
        if self.scope and isinstance(node.value, cst.Name):
            key = self.key(node.value.value)
            if key in self.with_blocks:
                self.factories[self.scope[-1]] = key  # a factory returns the pipeline it filled

    def visit_Call(self, node):
        qualname = self.ctx.imports.qualname(node.func)
        if qualname in TORCH_ITERATORS or (qualname and qualname.startswith(OTHER_ITERATOR_PREFIXES)):
            self.uses_iterators = True
            if kwarg(node, "reader_name") is not None:
                self.meta_used = True
        if isinstance(node.func, cst.Attribute) and node.func.attr.value in ("epoch_size", "reader_meta"):
            self.meta_used = True
        if isinstance(node.func, cst.Name) and (kwarg(node, "checkpoint") is not None or (
                kwarg(node, "enable_checkpointing") is not None
                and literal_value(kwarg(node, "enable_checkpointing")) is not False)):
            self.checkpointed_calls.add(node.func.value)
        if kwarg(node, "seed") is not None:
            path = fn_path(self.ctx.imports, node.func)
            if path is None:
                ops = ops_path(self.ctx.imports, node.func)
                entry = optable.ops_class(ops) if ops else None
                path = entry.get("fn") if entry else None
            if path is not None:
                resolved = optable.resolve_fn(path)[1] or path
                if resolved in RNG_OPS:
                    self.rng_mode = True

    def visit_Attribute(self, node):
        owner = dotted(node.value) if isinstance(node.value, (cst.Name, cst.Attribute)) else None
        if owner:
            self.var_methods.setdefault(self.key(owner), set()).add(node.attr.value)

    def visit_Assign(self, node):
        if len(node.targets) != 1 or not isinstance(node.value, cst.Call):
            return
        target = node.targets[0].target
        name = dotted(target) if isinstance(target, (cst.Name, cst.Attribute)) else None
        if name is None:
            return
        func = node.value.func
        if self.ctx.imports.qualname(func) == PIPELINE_CLS:
            self.pipe_vars[self.key(name)] = ("with", name, node.value)
        elif isinstance(func, cst.Name):
            # defs/classes may be defined after use; resolved lazily in the transformer
            self.pipe_vars[self.key(name)] = ("call", func.value, node.value)
