"""The post-condition: the migrated module, read with the same flow model, before anything is written.

A migrated program must not call pipeline-mode API on what is now a dynamic-mode value (``.run()``
on a generator, ``.at(i)``/``len()``/``[i]`` on a Batch, ...), nor dynamic-mode API on what stayed in
pipeline mode (``next(pipe)`` on a Pipeline, ``.select`` on a TensorList), nor read a name that is
not defined where it is read (``self`` at module level, ``ndd`` before its import). Each violation
names the pipelines whose values it involves; the engine keeps those units in pipeline mode and
migrates again (``engine._migrate_units``).

The checks on dynamic-mode values are shared with the lint (``dynamic_value_misuse``), so hand-written
and agent-written dynamic-mode code gets them too.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass

import libcst as cst

from . import dataflow as df
from .names import ImportTable, import_bindings
from .transforms.unroll.helpers import is_tool_written_class
from .walk import line_hooks, walk

# TensorList/TensorCPU methods that an ndd Batch/Tensor does not have.
PIPELINE_ONLY_DATA_METHODS = {"at", "as_cpu", "as_array", "as_tensor", "as_reshaped_tensor", "is_dense_tensor",
                              "copy_to_external", "data_ptr", "set_layout", "reinterpret", "source_info"}
# Batch/Tensor properties that TensorList/TensorCPU had as methods: calling them is an error now.
PROPERTIES_NOT_METHODS = {"shape", "layout", "ndim", "dtype", "device"}
PIPELINE_ONLY_METHODS = {"build", "run", "epoch_size", "reader_meta", "schedule_run", "share_outputs",
                         "release_outputs", "outputs", "feed_input", "serialize", "checkpoint", "set_outputs",
                         "max_batch_size", "num_threads", "device_id", "reset", "iter_setup", "define_graph"}
DYNAMIC_ONLY_DATA_METHODS = {"select", "batch_size", "torch", "cpu", "slice", "evaluate", "tensors"}
_GENERATOR_ATTRS = {"send", "throw", "close", "gi_frame", "gi_running", "gi_code", "__next__", "__iter__"}


@dataclass
class Violation:
    node: cst.CSTNode
    origins: frozenset
    message: str
    statement: cst.CSTNode | None = None  # the innermost enclosing statement with a known position


def dynamic_value_misuse(flow: df.DataFlow, node) -> tuple[str, frozenset] | None:
    """Pipeline-mode API used on a dynamic-mode value at ``node`` (a Call, Attribute or Subscript):
    (message, origins of the value), else None. Used by the post-check and by the lint (DM320)."""
    if isinstance(node, cst.Call):
        func = node.func
        if isinstance(func, cst.Attribute):
            owner = flow.value_of(func.value)
            kind, attr = owner[0], func.attr.value
            if kind in df.DATA_KINDS and attr in PROPERTIES_NOT_METHODS:
                return (f"{_code(func)}() calls a property: {_word(kind)}.{attr} is not callable in dynamic mode "
                        f"(TensorList.{attr}() was)", owner[1])
            return None
        if isinstance(func, cst.Name) and func.value == "len" and flow.is_builtin(func) and node.args:
            arg = flow.value_of(node.args[0].value)
            if arg[0] in ("batch", "data") or _generator(arg[0]):
                return (f"len({_code(node.args[0].value)}): {_word(arg[0])} has no len() "
                        f"({'use .batch_size' if not _generator(arg[0]) else 'a generator has no length'})", arg[1])
        qualname = flow.imports.qualname(func)
        if qualname in ("numpy.asarray", "numpy.array") and node.args:
            arg = flow.value_of(node.args[0].value)
            if arg[0] in ("batch", "data"):
                return (f"{qualname.replace('numpy', 'np')}({_code(node.args[0].value)}) of a Batch is a 0-d object "
                        f"array: use np.array(ndd.as_tensor(batch)) or batch.select(i)", arg[1])
        return None
    if isinstance(node, cst.Attribute):
        if flow.imports.qualname(node) is not None:
            return None
        owner = flow.value_of(node.value)
        kind, attr = owner[0], node.attr.value
        if kind in df.DATA_KINDS and attr in PIPELINE_ONLY_DATA_METHODS:
            return f"{_code(node)}: {_word(kind)} has no .{attr} (TensorList API)", owner[1]
        if _generator(kind) and attr not in _GENERATOR_ATTRS and not (
                kind[0] == "stream" and attr in (*df.METADATA_METHODS, *df.METADATA_ATTRIBUTES, "reset")):
            return (f"{_code(node)}: {_code(node.value)} is a generator of dynamic-mode steps (a migrated pipeline) and has no .{attr}",
                    owner[1])
        return None
    if isinstance(node, cst.Subscript):
        value_node = node.value
        if isinstance(value_node, cst.Attribute) and value_node.attr.value in ("slice", "tensors"):
            return None
        owner = flow.value_of(value_node)
        if owner[0] in ("batch", "data"):
            return (f"{_code(node)}: a Batch has no [i]; use .select(i) for a sample or .slice[...] inside samples",
                    owner[1])
        if _generator(owner[0]):
            return f"{_code(node)}: a generator of dynamic-mode steps has no [i]", owner[1]
    return None


def _generator(kind) -> bool:
    """A migrated pipeline's steps: a generator, or a ReaderStream over one."""
    return isinstance(kind, tuple) and kind[0] in ("gen", "stream")


def _word(kind) -> str:
    return {"batch": "an ndd.Batch", "tensor": "an ndd.Tensor", "data": "an ndd Batch/Tensor"}.get(kind, "it")


@line_hooks
class _Check(cst.CSTVisitor):
    def __init__(self, flow: df.DataFlow, migrated: frozenset, kept: frozenset, epoch_iterator: str | None,
                 known_undefined: set, positioned):
        super().__init__()
        self.flow = flow
        self.migrated = migrated
        self.kept = kept
        self.epoch_iterator = epoch_iterator
        self.known_undefined = known_undefined
        self.positioned = positioned
        self.violations: list[Violation] = []
        self._statements: list[cst.CSTNode] = []

    # (walk.line_hooks: before a statement's own visit hook, after its leave hook)
    def enter_line(self, node) -> None:
        if node in self.positioned:
            self._statements.append(node)

    def leave_line(self, node) -> None:
        if self._statements and self._statements[-1] is node:
            self._statements.pop()

    def _add(self, node, origins, message):
        statement = self._statements[-1] if self._statements else None
        self.violations.append(Violation(node, frozenset(origins), message, statement))

    def visit_ClassDef(self, node):
        # The classes dali-migrate writes (EpochIterator, ReaderStream, ...) take pipelines of either kind and ask
        # at run time what they hold (``hasattr(pipeline, "reset")``): not the user's code, not checked.
        return not is_tool_written_class(node)

    def visit_Name(self, node):
        scope = self.flow.name_scope.get(node)
        if scope is None or node.value in self.known_undefined or hasattr(builtins, node.value) \
                or node.value in ("__file__", "__name__"):
            return
        if scope.lookup_scope(node.value) is None:
            self.known_undefined.add(node.value)  # once per name
            self._add(node, frozenset(), f"{node.value} is not defined where the migrated code reads it")

    def visit_Call(self, node):
        self._dynamic(node)
        func = node.func
        if isinstance(func, cst.Name) and func.value in ("next", "iter") and self.flow.is_builtin(func) and node.args:
            arg = self.flow.value_of(node.args[0].value)
            if arg[0] == df.PIPELINE and arg[1] & self.kept:
                self._add(node, arg[1], f"{func.value}({_code(node.args[0].value)}) on a pipeline that stays in "
                                        f"pipeline mode (use .run())")
            kind = arg[0]
            if func.value == "next" and isinstance(kind, tuple) and kind[0] == "instance" and arg[1] & self.migrated \
                    and not self.flow.has_attribute(kind[1], "__next__") and not self._helper_base_has(kind[1], "__next__"):
                self._add(node, arg[1], f"next({_code(node.args[0].value)}): the migrated pipeline class is iterable "
                                        f"(it has __iter__), not an iterator: take next() of iter(...)")
        if isinstance(func, cst.Name) and func.value == self.epoch_iterator and node.args:
            arg = self.flow.value_of(node.args[0].value)
            if arg[1] & self.kept:
                self._add(node, arg[1], "the migrated iterator gets a pipeline that stays in pipeline mode")
        qualname = self.flow.imports.qualname(func)
        if qualname is not None and qualname.startswith(df.NDD + "."):
            for arg in node.args:
                found = self.flow.value_of(arg.value)
                if found[0] in (df.DATANODE, df.DATANODES, df.TENSORLIST, df.TENSORCPU):
                    self._add(node, found[1], f"{_code(node)}: a dynamic-mode operator gets a pipeline-mode value")
        if qualname is not None and qualname.startswith(df.FN + "."):
            for arg in node.args:
                found = self.flow.value_of(arg.value)
                if found[0] in ("batch", "tensor", "data") or _generator(found[0]):
                    self._add(node, found[1], f"{_code(node)}: a pipeline-mode operator gets a dynamic-mode value")

    def visit_Attribute(self, node):
        if self.flow.imports.qualname(node) is not None:
            return False
        self._dynamic(node)
        owner = self.flow.value_of(node.value)
        kind, attr = owner[0], node.attr.value
        if owner[1] & self.kept and kind in (df.TENSORLIST, df.TENSORCPU) and attr in DYNAMIC_ONLY_DATA_METHODS:
            self._add(node, owner[1], f"{_code(node)}: a pipeline output (kept in pipeline mode) has no .{attr}")
        if isinstance(kind, tuple) and kind[0] == "instance" and owner[1] & self.migrated \
                and attr in PIPELINE_ONLY_METHODS and not self.flow.has_attribute(kind[1], attr) \
                and not self._helper_base_has(kind[1], attr):
            self._add(node, owner[1], f"{_code(node)}: the migrated pipeline object has no .{attr}")
        return None

    def _helper_base_has(self, class_node, attr: str) -> bool:
        """A class of the chain derives from a run-time helper imported from the helper module (a migrated
        Pipeline subclass from ReaderStream), which defines ``attr``."""
        from .transforms.unroll.helpers import DROP, class_attributes

        for node in (class_node, *self.flow.bases(class_node)):
            for base in getattr(node, "bases", ()):
                name = base.value.value if isinstance(base.value, cst.Name) else None
                if name in DROP and attr in class_attributes(name):
                    return True
        return False

    def visit_Subscript(self, node):
        self._dynamic(node)

    def visit_For(self, node):
        self._iteration(node.iter)

    def visit_CompFor(self, node):
        self._iteration(node.iter)

    def _iteration(self, iterable):
        found = self.flow.value_of(iterable)
        if found[0] == df.PIPELINE and found[1] & self.kept:
            self._add(iterable, found[1], f"iterating {_code(iterable)}, a pipeline that stays in pipeline mode")
        if found[0] == "data":
            self._add(iterable, found[1], f"iterating {_code(iterable)}, a Batch (not iterable in dynamic mode)")

    def _dynamic(self, node):
        found = dynamic_value_misuse(self.flow, node)
        if found is not None:
            self._add(node, found[1], found[0])


def check(module: cst.Module, migrated_origins: dict[str, str], kept: frozenset, *, known_undefined=(),
          positioned=(), epoch_iterator: str | None = "EpochIterator",
          imported_generators: dict | None = None, model: df.DataFlow | None = None) -> list[Violation]:
    """The violations in a migrated ``module``. ``migrated_origins``: the names the migrated pipelines now
    have (a generator function, a class, ``<pipe>_steps``), with the origins they had; ``kept``: the
    origins that stayed in pipeline mode; ``known_undefined``: names the original already read undefined;
    ``positioned``: statements whose place in the file is known (violations point at the innermost);
    ``imported_generators``: names imported from modules of the project that migrated them, each with its
    ``project.ProjectPipeline`` (``streamed``: written as a ReaderStream there); ``model``: a model already
    built, read instead of a new one where it is the very model the check would build (``DataFlow.built_from``:
    no pass changed the module, say)."""
    imports = ImportTable.from_module(module)
    if model is not None and model.built_from(module, imports, migrated_origins, imported_generators):
        flow = model
    else:
        flow = df.DataFlow(module, imports, extra_pipelines=migrated_origins, imported_generators=imported_generators)
    known = set(known_undefined)
    migrated = frozenset(migrated_origins.values()) | frozenset(imported_generators or ())
    checker = _Check(flow, migrated, kept, epoch_iterator, known, positioned)
    with flow.answers_kept():  # (read and nothing more: its own model, or the module's where nothing changed)
        walk(module, checker)
    for name, statement in _read_before_bound(module, flow):
        if name.value not in known:
            known.add(name.value)
            checker.violations.append(Violation(name, frozenset(), f"{name.value} is read before the statement "
                                                                   f"that defines it", statement))
    return checker.violations


def undefined_names(module: cst.Module, flow: df.DataFlow | None = None) -> dict[str, cst.Name]:
    """Names read where nothing binds them (not builtins either), and module-level names read by
    module-level code before the statement that binds them: the first such read of each."""
    if flow is None:
        flow = df.DataFlow(module, ImportTable.from_module(module))
    found: dict[str, cst.Name] = {}
    for name, scope in flow.name_scope.items():
        if name.value in found or hasattr(builtins, name.value) or name.value in ("__file__", "__name__"):
            continue
        if scope.lookup_scope(name.value) is None:
            found[name.value] = name
    for name, _ in _read_before_bound(module, flow):
        found.setdefault(name.value, name)
    return found


def _read_before_bound(module: cst.Module, flow: df.DataFlow):
    """Module-level code runs top to bottom: (name, top-level statement) for each module-level read of a
    name whose first binding statement comes later."""
    first_binding: dict[str, int] = {}
    reads: list[tuple[int, cst.Name]] = []
    for index, statement in enumerate(module.body):
        collector = _TopLevel(flow)
        walk(statement, collector)
        reads.extend((index, name) for name in collector.reads)
        for bound in collector.binds:
            first_binding.setdefault(bound, index)
    for index, name in reads:
        first = first_binding.get(name.value)
        if first is not None and first > index:
            yield name, module.body[index]


class _TopLevel(cst.CSTVisitor):
    """Names a top-level statement reads as it runs (not inside function bodies), and names it binds."""

    def __init__(self, flow: df.DataFlow):
        super().__init__()
        self.flow = flow
        self.reads: list[cst.Name] = []
        self.binds: set[str] = set()

    def visit_FunctionDef(self, node):
        self.binds.add(node.name.value)
        return False

    def visit_ClassDef(self, node):
        self.binds.add(node.name.value)
        return False

    def visit_Lambda(self, node):
        return False

    def visit_Name(self, node):
        scope = self.flow.name_scope.get(node)
        if scope is not None and scope.kind == "module":
            self.reads.append(node)

    def visit_Import(self, node):
        self.binds.update(import_bindings(node))
        return False

    def visit_ImportFrom(self, node):
        self.binds.update(import_bindings(node))
        return False

    def visit_AssignTarget(self, node):
        _targets(node.target, self.binds)

    def visit_For(self, node):
        _targets(node.target, self.binds)

    def visit_AnnAssign(self, node):
        _targets(node.target, self.binds)

    def visit_AugAssign(self, node):
        _targets(node.target, self.binds)

    def visit_AsName(self, node):
        _targets(node.name, self.binds)


def _targets(target, into: set) -> None:
    if isinstance(target, cst.Name):
        into.add(target.value)
    elif isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            _targets(element.value, into)
    elif isinstance(target, cst.StarredElement):
        _targets(target.value, into)


def _code(node) -> str:
    from .source import code_for_node

    text = " ".join(code_for_node(node).split())
    return text if len(text) <= 60 else text[:57] + "..."


__all__ = ["check", "dynamic_value_misuse", "undefined_names", "Violation"]
