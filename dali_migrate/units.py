"""Migration units: a pipeline together with everything its objects and outputs reach migrates as one
unit, or the whole unit stays in pipeline mode.

Read from the flow model (``dataflow.py``) over the original module:

* **Units.** Pipelines whose values meet (one variable, one list, one helper's parameter, one graph
  helper called from both) are one unit: the connected components of the origins the model gives.
* **Where each statement belongs.** Every statement is tagged with the origins of the values it
  touches, and with the pipeline whose definition it is part of (a ``@pipeline_def`` body, a
  ``Pipeline`` subclass, a ``with pipe:`` block, a graph helper called from one). A marker a pass
  leaves on a line, or a failed post-check there, is the problem of the units of that line.
* **Operators as values.** An operator named outside the pipelines' definitions (``fn.flip`` passed as
  ``fn_operator=``, a table of lambdas over ``nvidia.dali.math``, ``fn.batch_permutation()`` built before
  ``pipe.set_outputs``) is an origin of its own (``dataflow.SITE_PREFIX``): it joins the unit of every pipeline
  its value reaches, so it stays as it was wherever that unit stays in pipeline mode; one handed to code the model
  cannot follow stays as it was, marked (``operator_escapes``), or, given to another module of the run, is followed
  there as pipelines are.
* **Escapes.** A pipeline-mode value that reaches a place no pass can rewrite and the model cannot
  follow (a library call, ``print``, an f-string, ``if tl:``, an attribute with no Batch counterpart,
  iterating a pipeline or one sample, ...) would silently change meaning after migration: its unit stays in
  pipeline mode from the start, with a marker at that place saying why.
* **Expected errors.** A pipeline made, built or run inside code that observes its errors (a raises check, a function
  such a check calls, a try body) would raise them elsewhere once migrated, or not at all: an escape too (DM238),
  except StopIteration caught around steps alone, which the migrated generator raises at the same step.

The engine keeps a unit in pipeline mode when it has an escape, a marker, or a failed post-check: its
statements are then left untouched by every pass (``kept_statements``), and the engine marks its
definitions and the places that kept it (``engine._annotate_kept``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from . import dataflow as df, optable
from .findings import MARKER_PREFIX, rule
from .names import CALLED_SUFFIX
from .transforms.tensorlist import DALI_TEST_TO_ARRAY
from .transforms.unroll.epoch_iterator import ITERATOR_ATTRS
from .transforms.unroll.helpers import is_helper_import, is_tool_written_class
from .walk import holds_a_line, line_hooks, walk

UNIT_KEPT = rule(
    "DM230", "unit-kept", "warning",
    "A pipeline stays in pipeline mode together with everything that uses it (its migration unit), because "
    "one part of the unit cannot be migrated faithfully; the marker lists the places that decided it.",
    "A program half in one mode and half in the other does not run: a pipeline left in pipeline mode needs "
    "its consumers untouched, and migrated consumers need a migrated pipeline. So a unit moves whole, or "
    "stays whole and keeps running as it did.",
    before="pipe = make_pipe(root)\nimages, labels = pipe.run()\nwriter.add_images('x', images)",
    after="# dali-migrate: DM230 make_pipe stays in pipeline mode with everything that uses it: line 3: ...\n"
          "pipe = make_pipe(root)\nimages, labels = pipe.run()\n"
          "# dali-migrate: DM231 images (a pipeline output) is passed to writer.add_images(), ...\n"
          "writer.add_images('x', images)",
    fix="manual",
    suggestion="Fix the places the marker lists (convert the value there yourself, e.g. np.array(...) or "
               ".torch()), remove the markers and run dali-migrate again; or migrate this pipeline by hand.",
)
VALUE_ESCAPES = rule(
    "DM231", "value-escapes", "warning",
    "A pipeline-mode value (a pipeline, its outputs, a TensorList) reaches code dali-migrate cannot rewrite "
    "or follow (a library call, print, an f-string, a truth test, ...): after migration that code would get a "
    "dynamic-mode value and could behave differently. The unit stays in pipeline mode.",
    "Values change type in migration (TensorList -> ndd.Batch, Pipeline -> generator); code that the tool "
    "cannot see into might depend on the old type, so changing it silently could change what it computes.",
    before="images, labels = pipe.run()\nprint(images)",
    after="# dali-migrate: DM231 images (a pipeline output (TensorList)) is passed to print(), ...\n"
          "images, labels = pipe.run()\nprint(images)",
    fix="manual",
    suggestion="Convert the value where it leaves DALI code (images.as_array(), labels.at(i)), so the rest of "
               "the program gets plain numpy values; then run dali-migrate again.",
)
CHECK_FAILED = rule(
    "DM232", "migration-check-failed", "warning",
    "The migrated code, read again before anything is written, would misuse a value (pipeline-mode API on a "
    "dynamic-mode value, or the reverse, or a name used where it is not defined); the unit stays in pipeline "
    "mode.",
    "The post-condition check catches what no single rewrite saw: a migrated unit is only written when the "
    "whole migrated program uses each value in the mode it now has.",
    before="pipe = make()\nn = pipe.epoch_size('Reader')",
    after="# dali-migrate: DM232 pipe.epoch_size: pipe is a generator (a migrated pipeline) and has no "
          ".epoch_size\npipe = make()\nn = pipe.epoch_size('Reader')",
    fix="manual",
    suggestion="Rewrite the line the marker names by hand for dynamic mode, or keep the pipeline in pipeline "
               "mode; then run dali-migrate again.",
)
ITERATOR_HANDED_ON = rule(
    "DM233", "iterator-handed-on", "info",
    "A PyTorch or JAX DALI iterator is handed to code dali-migrate cannot follow (a library, a wrapper class of "
    "another module, a method of an object it does not know); it migrates all the same, and the finding names "
    "where it goes.",
    "The migrated iterator (EpochIterator) offers the plugin iterator's public API with the plugin's values: "
    "iteration and next(it), .next(), reset(), len(), size/_size, batch_size, output_map and _num_gpus, each "
    "step a list of one dict of framework tensors per pipeline (docs/dali-facts.md). Code that uses only "
    "these computes the same, and so does code that reads the plugin's private counts (_counter, _first_batch, "
    "_last_batch_policy, ...: units.ITERATOR_ATTRS); anything else of the plugin (_pipes, checkpoints(), ...) "
    "raises AttributeError there, loudly. What is not the same: isinstance(it, DALIGenericIterator) is False: "
    "check the named code for that.",
    before="loader = DALIGenericIterator(pipe, [\"x\"], reader_name=\"R\")\ntrainer.fit(model, loader)",
    after="loader = EpochIterator(pipe, [\"x\"], reader_name=\"R\")\ntrainer.fit(model, loader)",
    fix="unsafe",
    suggestion="Read the code the finding names: if it checks isinstance(..., DALIGenericIterator) or reads the "
               "plugin's private attributes, adapt it to the EpochIterator.",
)

ERROR_EXPECTED = rule(
    "DM238", "pipeline-error-expected", "warning",
    "The program expects an error from a pipeline: its construction, build or run sits inside assert_raises, "
    "pytest.raises, a @raises test (or a function such a check calls) or the body of a try/except. Pipeline mode raises "
    "such errors where it constructs, builds or runs the pipeline; a migrated pipeline raises them at its first "
    "step, when an output is read, or never. The unit stays in pipeline mode.",
    "Dynamic mode has no build step and evaluates asynchronously: an operator's error surfaces at the first read of "
    "its output (docs/dali-facts.md), with another message (no 'Error in CPU operator ...' prefix). The one case "
    "that raises the same error at the same point is left to migrate: StopIteration caught around a step "
    "(pipe.run(), next(it)), which the migrated generator raises when its source ends, as pipe.run() did.",
    before="pipe = bad_pipe()\nwith pytest.raises(RuntimeError):\n    pipe.build()",
    after="pipe = bad_pipe()\nwith pytest.raises(RuntimeError):\n"
          "    # dali-migrate: DM238 pipe.build() is inside pytest.raises(RuntimeError): ...\n    pipe.build()",
    fix="manual",
    suggestion="Keep the check in pipeline mode, or rewrite it for dynamic mode by hand: expect the error where the "
               "migrated pipeline's output is first read (next(pipe) and a read such as np.asarray), with the "
               "message dynamic mode gives.",
)

HELPER_KEPT = rule(
    "DM239", "passed-to-kept-helper", "warning",
    "A pipeline, its outputs or a sample is passed to a function or class of another module of the run, and that "
    "module keeps it in pipeline mode (its code needs the pipeline-mode value: pipe_out.shape(), ...). The unit stays "
    "in pipeline mode here too; the marker at the call names the helper and why it keeps the value.",
    "A unit that spans modules moves whole: a migrated caller would hand a dynamic-mode value to a helper that still "
    "reads it as a TensorList, and the helper would fail or compute something else, while the caller's file carries no "
    "marker. The helper's own marker says what it needs; this one says, in the calling file, which call depends on it.",
    before="# helper.py: def compare(outs, expected): assert outs[0].shape() == ...\n"
           "from helper import compare\npipe_out = pipe.run()\ncompare(pipe_out, expected)",
    after="from helper import compare\npipe_out = pipe.run()\n"
          "# dali-migrate: DM239 pipe_out (a pipeline's outputs) is passed to helper.compare(), which keeps it in "
          "pipeline mode: ...\ncompare(pipe_out, expected)",
    fix="manual",
    suggestion="Migrate the helper's uses of the value by hand (or convert the value before the call: np.asarray, "
               ".at(i)), remove the markers and run dali-migrate again over both modules.",
)

ITERATOR_NAME_MISSING = rule(
    "DM235", "iterator-attribute-missing-in-both", "info",
    "An attribute of a DALI framework iterator that neither the plugin's iterators nor the migrated one have "
    "(it.shutdown()): the original raises AttributeError there and so does the migrated code, so the line is left "
    "as it is and the unit migrates; the finding says so.",
    "DALI 2.4.0's iterators (PyTorch, JAX) have no such attribute (PLUGIN_ITERATOR_NAMES, compared with the "
    "installed plugins by tests/test_unroll_runtime.py), and the EpochIterator has none either (its names are read "
    "from its text), so both raise AttributeError at that line and every value before it is the same. The message "
    "names the class: EpochIterator where the original named DALIGenericIterator or DALIClassificationIterator.",
    before="it = DALIClassificationIterator(pipe, reader_name=\"R\")\n...\nit.shutdown()",
    after="it = EpochIterator(pipe, [\"data\", \"label\"], reader_name=\"R\")\n...\nit.shutdown()",
    fix="unsafe",
    suggestion="The original failed at that line: remove the call, or replace it with what it was meant to do.",
)
# Every name the installed plugin iterators have (DALI 2.4.0: PyTorch's DALIGenericIterator,
# DALIClassificationIterator and DALIRaggedIterator, JAX's DALIGenericIterator; their methods and properties beyond
# object's, and the instance attributes they set, with reader_name and with checkpointing). A test compares it with
# the installed plugins.
PLUGIN_ITERATOR_NAMES = frozenset({
    "DENSE_TAG", "SPARSE_COO_TAG", "SPARSE_LIST_TAG", "__annotations__", "__dict__", "__iter__", "__len__",
    "__module__", "__next__", "__weakref__", "_advance_and_check_drop_last", "_assert_shards_shapes", "_auto_reset",
    "_build_output_with_device_put", "_build_output_with_sharding", "_calculate_shard_sizes", "_check_batch_size",
    "_checkpointed_fields", "_counter", "_counter_per_gpu", "_deserialize_value", "_enable_checkpointing",
    "_end_iteration", "_ever_consumed", "_ever_scheduled", "_extract_from_reader_and_validate", "_first_batch",
    "_gather_outputs_for_category", "_get_outputs", "_initial_checkpoints", "_is_stick_to_shard",
    "_last_batch_padded", "_last_batch_policy", "_next_impl", "_num_gpus", "_output_categories", "_output_tags",
    "_outputs_types", "_pipes", "_pmap_compatible", "_prepare_first_batch", "_reader_name", "_remove_padded",
    "_report_no_data_in_pipeline", "_restore_state", "_save_state", "_schedule_runs", "_serialize_value",
    "_shard_sizes_per_gpu", "_shard_sizes_per_gpu_initial", "_sharding", "_shards_id", "_shards_num", "_size",
    "_size_no_pad", "batch_size", "checkpoints", "next", "output_map", "reset", "size"})


def missing_in_both(attr: str) -> bool:
    """Neither a plugin iterator nor the migrated one (EpochIterator, JaxEpochIterator) has ``attr``: reading it
    raises AttributeError before and after the migration."""
    return attr not in PLUGIN_ITERATOR_NAMES and not hasattr(object, attr) and attr not in _epoch_iterator_names()


def _epoch_iterator_names() -> frozenset:
    """The names the migrated iterators' text defines: methods, class attributes and ``self.x`` it sets."""
    global _EPOCH_ITERATOR_NAMES
    if _EPOCH_ITERATOR_NAMES is None:
        import ast

        from .transforms.unroll.helpers import class_source

        names = set()
        for node in ast.walk(ast.parse(class_source("EpochIterator") + "\n" + class_source("JaxEpochIterator"))):
            if isinstance(node, ast.ClassDef):
                names |= {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
                names |= {t.id for n in node.body if isinstance(n, ast.Assign) for t in n.targets
                          if isinstance(t, ast.Name)}
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self" \
                    and isinstance(node.ctx, ast.Store):
                names.add(node.attr)
        _EPOCH_ITERATOR_NAMES = frozenset(names)
    return _EPOCH_ITERATOR_NAMES


_EPOCH_ITERATOR_NAMES = None

# Methods with a migration (rewritten, or marked so that the unit stays whole) on each kind.
PIPELINE_METHODS = {"build", "run", "epoch_size", "reader_meta", "checkpoint", "schedule_run", "share_outputs",
                    "release_outputs", "_prefetch", "outputs", "feed_input", "serialize", "set_outputs", "reset"}
TENSORLIST_METHODS = {"at", "as_cpu", "as_array", "as_tensor", "shape", "layout", "ndim", "dtype",
                      "as_reshaped_tensor", "is_dense_tensor", "copy_to_external", "data_ptr", "reset", "set_layout",
                      "broadcast", "reinterpret", "squeeze", "source_info", "get_property", "stream", "device_id"}
TENSORCPU_METHODS = {"as_cpu", "shape", "layout", "ndim", "dtype", "copy_to_external", "data_ptr", "squeeze",
                     "source_info", "get_property", "stream", "device_id"}
# What a @pipeline_def function and the function it migrates to (a generator function, one wrapped by
# Prefetch with functools.wraps, or one returning a ReaderStream) both have, with the same values.
FUNCTION_ATTRS = {"__name__", "__qualname__", "__doc__", "__module__"}
# Pipeline-only methods distinctive enough that a call on a value the model cannot trace (a parameter no
# call in this module fills, ``self._pipes[i]``) is taken to be a call on a pipeline: a hand-written
# iterator over pipelines that another module builds (``build``/``run`` are too common a name to tell).
UNTRACED_PIPELINE_API = {"schedule_run", "share_outputs", "release_outputs", "_prefetch", "_run_once",
                         "feed_input", "reader_meta", "deserialize_and_build"}
_CONTAINER_METHODS = {"append", "add", "insert", "pop", "get", "values", "items", "keys", "copy", "clear", "remove",
                      "index", "count", "__len__"}
# Builtins the model sees through, by what they take (containers, tuples of outputs).
_SEE_THROUGH = {"len", "list", "tuple", "iter", "next", "reversed", "sorted"}
_NUMPY_COPIES = ("numpy.array", "numpy.asarray")
# What checks that code raises: context managers, decorators and functions of nose, pytest, unittest, DALI's nose_utils
# (assert_raises, raises), and contextlib.suppress.
_RAISE_CHECKS = {"assert_raises", "raises", "assertRaises", "assertRaisesRegex", "assertRaisesRegexp",
                 "assert_raises_regex", "suppress"}
_MESSAGE_KEYWORDS = {"glob", "regex", "match", "expected_regex"}
# Exceptions no pipeline raises: a try whose handlers catch only these does not observe a pipeline's errors.
_NOT_PIPELINE_ERRORS = frozenset({"KeyboardInterrupt", "SystemExit", "GeneratorExit", "ImportError",
                                  "ModuleNotFoundError"})
# A pipeline method that runs a step (dataflow.RUN_METHODS) is the migrated code's next(pipe); every other call on a
# pipeline, and making one, can raise in pipeline mode where the migrated code raises nothing yet.


@dataclass(eq=False)
class _Region:
    """Code that observes errors: a with-statement over assert_raises/pytest.raises (or suppress), a @raises test, a
    try with handlers, or the call assert_raises(E, pipe.build) (``node``: the With, FunctionDef, Try or Call)."""
    node: cst.CSTNode
    label: str
    types: frozenset  # the exception names it catches ("" for anything: a bare except, an expression)
    message: bool  # it reads the message (glob=, match=, `as e`) too
    follows_calls: bool  # errors of the functions it calls count (a check expects them; a try may only guard)


@dataclass(eq=False)
class _Op:
    """Something that makes, builds or runs a pipeline (or steps a framework iterator over one)."""
    node: cst.CSTNode
    step: bool
    origins: frozenset
    stack: tuple  # the statements around it, outermost first
    regions: tuple  # the expression regions (assert_raises(E, callable)) around it
    made: bool = False  # it makes the pipeline (a @pipeline_def or Pipeline call, a `with pipe:` graph)


def tracked(found) -> bool:
    """Values whose meaning changes with the migration: pipeline-mode objects and outputs, containers of
    them, and unknown values that carry some (``TOP`` with origins)."""
    kind, origins = found
    return _tracked_kind(kind, any(not df.is_site(o) for o in origins))


def _tracked_kind(kind, carries: bool) -> bool:
    """``carries``: the value has origins, which an unknown part of it (TOP) may hold."""
    if kind == df.TOP:
        return carries
    if isinstance(kind, tuple):
        if kind[0] == "tup":
            return any(_tracked_kind(k, carries) for k in kind[1])
        return kind[0] in ("seq", "gen", "stream", "map") and _tracked_kind(kind[1], carries)
    return kind in (df.PIPELINE, df.OUTPUTS, df.TENSORLIST, df.TENSORCPU, df.DALI_ITERATOR)


def _describe(kind) -> str:
    if kind == df.PIPELINE:
        return "a pipeline"
    if kind == df.OUTPUTS:
        return "a pipeline's outputs"
    if kind == df.TENSORLIST:
        return "a pipeline output (TensorList)"
    if kind == df.TENSORCPU:
        return "a pipeline output sample (TensorCPU)"
    if kind == df.DALI_ITERATOR:
        return "a DALI framework iterator"
    if isinstance(kind, tuple) and kind[0] == "tup":
        return "a container holding a pipeline's values"
    if isinstance(kind, tuple):
        return "a container of " + _describe(kind[1]).removeprefix("a ")
    return "a value that may be a pipeline's"


@dataclass
class Escape:
    node: cst.CSTNode
    origins: frozenset
    message: str
    callee: str | None = None  # the plain name called with the value, where that is the escape
    rule: str = VALUE_ESCAPES.id  # the marker's rule (ERROR_EXPECTED for a pipeline inside an error check)


_OUTPUT_KINDS = (df.OUTPUTS, df.TENSORLIST, df.TENSORCPU)


def _holds_outputs(kind) -> bool:
    """A pipeline's outputs, one of them, one of its samples, or a container holding one."""
    if kind in _OUTPUT_KINDS:
        return True
    if isinstance(kind, tuple):
        if kind[0] == "tup":
            return any(_holds_outputs(k) for k in kind[1])
        return kind[0] in ("seq", "gen", "map", "keyed") and _holds_outputs(kind[1])
    return isinstance(kind, str) and kind.startswith("tuple:") and _holds_outputs(kind[len("tuple:"):])


def outputs_returned(flow: df.DataFlow, module: cst.Module, names) -> list[Escape]:
    """The top-level functions, and the methods of top-level classes, among ``names`` (another module of the run says
    them: ``project.Project.said_elsewhere``) that return a pipeline's outputs: those go to that module's code, which
    the migration does not follow into (it would get ndd Batches where it used TensorLists), so their pipelines stay
    in pipeline mode, marked where the function is defined."""
    found = []
    for statement in module.body:
        if not isinstance(statement, (cst.FunctionDef, cst.ClassDef)) or statement.name.value not in names:
            continue
        functions = [statement] if isinstance(statement, cst.FunctionDef) else [
            s for s in statement.body.body if isinstance(s, cst.FunctionDef)] if isinstance(
            statement.body, cst.IndentedBlock) else []
        for function in functions:
            result = flow._returns.get(function)
            if result is None or not result[1] or not _holds_outputs(result[0]):
                continue
            name = function.name.value if function is statement else f"{statement.name.value}.{function.name.value}"
            found.append(Escape(function, result[1], f"{name}() returns {_describe(result[0])}, and another module of "
                                                     f"the run uses {statement.name.value}: the migration does not "
                                                     f"follow a returned value into another module (it would get "
                                                     f"ndd Batches there)"))
    return found


@dataclass
class Reason:
    """Why a unit stays in pipeline mode: a place (original line) and what is there."""
    line: int
    rule: str
    message: str
    extra: dict = field(default_factory=dict, compare=False)  # the finding's own extras (its suggestion)


class Kept:
    """The units that stay in pipeline mode, each with its reasons (shared by all of its origins)."""

    def __init__(self, units: "Units"):
        self.units = units
        self.reasons: dict[str, list[Reason]] = {}

    @property
    def origins(self) -> frozenset:
        return frozenset(self.reasons)

    def keep(self, origins, reason: Reason) -> bool:
        """Keep the units of ``origins`` for ``reason``; True when a unit was not kept before."""
        every = self.units.unit(origins)
        new = not every <= self.origins
        shared = next((self.reasons[o] for o in every if o in self.reasons), None)
        if shared is None:
            shared = []
        if reason not in shared:
            shared.append(reason)
        for origin in every:
            if origin in self.reasons and self.reasons[origin] is not shared:
                for other in self.reasons[origin]:  # two kept units joined: one list of reasons
                    if other not in shared:
                        shared.append(other)
            self.reasons[origin] = shared
        return new

    def groups(self) -> list[tuple[frozenset, list[Reason]]]:
        """Each kept unit once: (its origins, its reasons)."""
        seen: dict[int, tuple[set, list]] = {}
        for origin, reasons in self.reasons.items():
            seen.setdefault(id(reasons), (set(), reasons))[0].add(origin)
        return [(frozenset(origins), reasons) for origins, reasons in seen.values()]


class Units:
    """Units, statement tags and escapes of one module (see the module docstring)."""

    def __init__(self, flow: df.DataFlow, module: cst.Module, position, foreign_helpers: dict | None = None,
                 follows=None):
        """``position(node) -> (line, column)`` in the user's file (used here, not kept: the context
        that gives it holds the units). ``foreign_helpers``: top-level functions of this module that
        pipelines of other modules build their graphs with (name -> those pipelines' qualnames).
        ``follows(qualname)``: the callee is in another module migrated in the same run, which learns what it
        is passed and migrates its uses or keeps the pipeline (project mode)."""
        self._position = position
        self._parent: dict[str, str] = {}
        tagger = _Tagger(flow, foreign_helpers, follows)
        with flow.answers_kept():  # (before any pass: nothing the model reads changes during the walk)
            walk(module, tagger)
        self.statement_origins: dict[cst.CSTNode, frozenset] = tagger.statement_origins
        self.escapes: list[Escape] = tagger.escapes + tagger.expected_errors()
        # operators named as values that reach code the model does not follow: left as they were (kept), marked
        self.operator_escapes: list[Escape] = tagger.operator_escapes
        self.handed_on: list[Escape] = tagger.handed_on  # framework iterators handed to code not followed
        self.missing: list[Escape] = tagger.missing  # iterator attributes no iterator has, before or after
        self.definitions: dict[str, cst.CSTNode] = tagger.definitions
        self.top_level = set(module.body)
        self.helpers: dict[cst.CSTNode, frozenset] = tagger.function_units  # graph helpers -> their pipelines
        # other modules' pipelines -> the first statement here that binds a value their graphs call (an ops object)
        self.foreign_values: dict[str, cst.CSTNode] = tagger.foreign_values
        # Markers already in the file (a person has not removed them yet): (statement, rule, message).
        self.existing_markers: list[tuple[cst.CSTNode, str, str]] = tagger.existing_markers
        self.foreign_calls = tagger.foreign_calls
        # values passed to another module of the run (``follows``): the engine keeps them where that module cannot
        # be told what they are
        self.followed: list[Escape] = tagger.followed
        # the functions a pipeline (or its class or function) is handed to by name: a definition elision left out
        # among them must be read (context.needs_whole_file), or its uses of the value would go unseen
        self.handed_to: set[str] = tagger.handed_to
        if self.definitions:  # any of this module's pipelines may be what reaches an untraced pipeline call
            self.escapes += [Escape(node, frozenset(self.definitions), message) for node, message in tagger.untraced]
        for found in (*flow._values.values(), *flow._attr_values.values(), *flow._params.values(),
                      *flow._returns.values()):
            if found is not None and len(found[1]) > 1:
                self._union(found[1])
        for origins in tagger.statement_contexts:
            if len(origins) > 1:
                self._union(origins)
        for params in flow.adapted.values():  # any pipeline of this module may be what a caller hands there: one unit
            for _kind, origins in params.values():
                for origin in origins:
                    self._parent.setdefault(origin, origin)  # a unit's origin (all_origins) even as its root
                self._union(origins | frozenset(self.definitions))
        self._by_line: dict[int, tuple[int, frozenset, cst.CSTNode]] | None = None
        self._lines()
        self._top_lines = [(position(s)[0], self._last_line(s, position(s)[0]), s) for s in module.body
                           if position(s)[0]]
        self._adopted: set[cst.CSTNode] = set()  # top-level statements made units of their own (``adopt``)
        self._position = None

    # -- units ------------------------------------------------------------------------------------
    def _find(self, origin: str) -> str:
        parent = self._parent.get(origin, origin)
        if parent == origin:
            return origin
        root = self._find(parent)
        self._parent[origin] = root
        return root

    def _union(self, origins) -> None:
        items = list(origins)
        for origin in items:  # each one is known, a root too (an operator's site is no definition)
            self._parent.setdefault(origin, origin)
        root = self._find(items[0])
        for other in items[1:]:
            other_root = self._find(other)
            if other_root != root:
                self._parent[other_root] = root

    def unit(self, origins) -> frozenset:
        """Every origin in the units of ``origins``."""
        roots = {self._find(o) for o in origins}
        every = set(self.definitions) | set(self._parent) | set(origins)
        return frozenset(o for o in every if self._find(o) in roots)

    def pipelines(self, origins) -> frozenset:
        """What a marker or a failed check on a line keeps: the pipelines among ``origins``, an operator site standing
        for the pipelines of its unit. Graph code outside every pipeline's unit (``scale = fn.random.uniform()``
        that no pipeline reads) is migrated and marked by the passes as it stands, as before sites existed; graph
        code a pipeline reads (``out = fn.op(data, seed=1)`` before ``pipe.set_outputs(out)``, marked) keeps that
        pipeline, and so stays as it was with it."""
        sites = [o for o in origins if df.is_site(o)]
        found = frozenset(o for o in origins if not df.is_site(o))
        return found | frozenset(o for o in self.unit(sites) if not df.is_site(o)) if sites else found

    def all_origins(self) -> frozenset:
        return frozenset(self.definitions) | frozenset(self._parent)

    def adopt(self, line: int) -> str | None:
        """A unit of its own for the top-level statement holding ``line``, when what failed there belongs
        to no pipeline the model knows (graph code outside ``with pipe:``, ``pipe.set_outputs(...)``
        called on DataNodes built around it): keeping that origin leaves the whole statement as it was.
        None when there is no such statement or it was adopted already."""
        top = next((s for first, last, s in self._top_lines if first <= line <= last), None)
        if top is None or top in self._adopted:
            return None
        self._adopted.add(top)
        origin = f"<statement at line {line}>"
        inner = _Statements()
        walk(top, inner)
        for statement in inner.found:
            self.statement_origins[statement] = self.statement_origins.get(statement, frozenset()) | {origin}
        self._parent[origin] = origin
        if self._by_line is not None:
            self._by_line = {n: (size, origins | {origin} if statement in inner.found else origins, statement)
                             for n, (size, origins, statement) in self._by_line.items()}
        return origin

    # -- places -----------------------------------------------------------------------------------
    def _lines(self) -> dict:
        if self._by_line is None:
            by_line: dict[int, tuple[int, frozenset, cst.CSTNode]] = {}
            for statement, origins in self.statement_origins.items():
                first = self._position(statement)[0]
                if not first:
                    continue
                last = self._last_line(statement, first)
                size = last - first
                for line in range(first, last + 1):
                    known = by_line.get(line)
                    if known is None or size <= known[0]:
                        by_line[line] = (size, origins, statement)
            self._by_line = by_line
        return self._by_line

    def _last_line(self, statement, first: int) -> int:
        if isinstance(statement, cst.SimpleStatementLine):
            body = statement.body
            end = body[-1] if body else statement
        else:
            end = statement
        # the position of the last child statement, for compound statements
        body = getattr(getattr(statement, "body", None), "body", None)
        if isinstance(body, (list, tuple)) and body:
            last = body[-1]
            line = self._position(last)[0]
            return max(first, self._last_line(last, line) if line else first)
        return max(first, self._position(end)[0])

    def origins_at(self, line: int) -> frozenset:
        """The origins of the innermost statement on ``line`` (with its definition's)."""
        found = self._lines().get(line)
        return found[1] if found is not None else frozenset()

    def statement_at(self, line: int):
        found = self._lines().get(line)
        return found[2] if found is not None else None

    def kept_statements(self, kept: frozenset) -> set:
        """The statements of the original module that belong to a kept unit (left as they are)."""
        if not kept:
            return set()
        return {statement for statement, origins in self.statement_origins.items() if origins & kept}


class _Statements(cst.CSTVisitor):
    def __init__(self):
        super().__init__()
        self.found: set = set()

    def on_visit(self, node) -> bool:
        if holds_a_line(type(node)):
            self.found.add(node)
        return True


@line_hooks
class _Tagger(cst.CSTVisitor):
    """One walk: each statement's origins, the pipelines' definitions, and the escapes."""

    def __init__(self, flow: df.DataFlow, foreign: dict | None = None, follows=None):
        super().__init__()
        self.flow = flow
        self._follows = follows or (lambda qualname: False)
        self.followed: list[Escape] = []
        self.statement_origins: dict[cst.CSTNode, frozenset] = {}
        self.statement_contexts: list[frozenset] = []
        self.escapes: list[Escape] = []
        self.handed_on: list[Escape] = []
        self.missing: list[Escape] = []  # attributes no plugin iterator and no migrated one has (DM235)
        self.definitions: dict[str, cst.CSTNode] = {}
        self.existing_markers: list[tuple[cst.CSTNode, str, str]] = []
        self.foreign_calls: list[tuple[str, object, tuple]] = []  # (imported callee, argument key, value)
        self.untraced: list[tuple[cst.CSTNode, str]] = []  # pipeline-only calls on values the model cannot trace
        self.handed_to: set[str] = set()  # plain names called with a value that has origins, or from graph code
        self.operator_escapes: list[Escape] = []  # operators handed to code not followed (``_operator_handed``)
        self._tool_imports: set[str] = set()  # qualnames of the run-time helpers an earlier run imported
        self._tool_written = 0  # inside a class dali-migrate wrote (EpochIterator, ReaderStream, ...)
        self._statements: list[list] = []  # [statement, origins set]
        self._context: list[frozenset] = [frozenset()]
        # Inside a pipeline's definition or a graph helper, values are DataNodes: the unroll's business.
        self._graph: list[bool] = [False]
        self._loop_iters: set[cst.CSTNode] = set()
        self._stored: set[cst.Attribute] = set()  # attributes assigned or deleted (``_store``)
        self.function_units = _function_units(flow, foreign)
        # module-level names other modules' graphs call that are no function or class (an ops object made here)
        self.foreign_values: dict[str, cst.CSTNode] = {}  # another module's pipeline -> the statement it calls here
        self._foreign_values = {name: frozenset(origins) for name, origins in (foreign or {}).items()
                                if name not in {f.name for f in flow.functions.values()}}
        # Pipelines inside code that expects their errors (``expected_errors``).
        self._regions: list[_Region] = []
        self._expression_regions: list[_Region] = []
        self._ops: list[_Op] = []
        self._calls_made: list[_Op] = []  # calls of the module's functions (``node``: the call, ``origins``: empty)
        self._callee: dict[cst.Call, cst.CSTNode] = {}

    # -- statements and their context (walk.line_hooks: before a statement's own visit hook, after its leave hook) --
    def enter_line(self, node) -> None:
        for line in node.leading_lines:
            text = line.comment.value if line.comment is not None else ""
            if text.startswith(MARKER_PREFIX) and len(text.split(" ", 3)) == 4:
                _, _, rule_id, message = text.split(" ", 3)
                self.existing_markers.append((node, rule_id, message))
        self._error_region(node)
        if isinstance(node, cst.With) and node in self.flow.with_origin and not self._graph[-1]:
            # the graph of a `with pipe:` pipeline is made here; the migrated one at its first step
            self._ops.append(_Op(node, False, frozenset((self.flow.with_origin[node],)),
                                 self._stack() + (node,), tuple(self._expression_regions), True))
        own = self._own_context(node)
        context = self._context[-1] | own
        self._statements.append([node, set(context)])
        self._context.append(context)
        self._graph.append(self._graph[-1] or bool(own))

    def leave_line(self, node) -> None:
        statement, origins = self._statements.pop()
        self._context.pop()
        self._graph.pop()
        found = frozenset(origins)
        self.statement_origins[statement] = found
        if len(found) > 1:
            self.statement_contexts.append(found)

    def _own_context(self, node) -> frozenset:
        if isinstance(node, cst.FunctionDef):
            function = self.flow.function_of(node)
            if function is not None and function.pipeline:
                self.definitions.setdefault(function.pipeline, node)
                return frozenset((function.pipeline,))
            return self.function_units.get(node, frozenset())
        if isinstance(node, cst.ClassDef):
            info = self.flow.classes.get(node)
            if info is not None and info[3]:
                self.definitions.setdefault(info[0], node)
                return frozenset((info[0],))
        if isinstance(node, cst.With):
            origin = self.flow.with_origin.get(node)
            if origin:
                return frozenset((origin,))
        return frozenset()

    def _touch(self, origins) -> None:
        if origins and self._statements:
            self._statements[-1][1].update(origins)

    def visit_Name(self, node):
        if node in self.flow.name_scope:
            found = self.flow.value_of(node)
            self._touch(found[1])
            if node.value in self._foreign_values and self.flow.name_scope[node] is self.flow.module_scope:
                self._touch(self._foreign_values[node.value])  # ``flip = ops.Flip()`` another module's graph calls
                if self._statements:
                    for origin in self._foreign_values[node.value]:
                        self.foreign_values.setdefault(origin, self._statements[-1][0])

    def visit_Lambda(self, node):
        # A lambda graph helper (``aug = lambda x: fn.flip(x)``) is not a statement: the one holding it
        # belongs to the units of the pipelines that build with it.
        self._touch(self.function_units.get(node, frozenset()))

    def visit_Assign(self, node):
        if isinstance(node.value, cst.Call) and node.value in self.flow.pipeline_calls and self._statements:
            self.definitions.setdefault(self.flow.pipeline_calls[node.value], self._statements[-1][0])
        for target in node.targets:
            self._store(target.target)

    def visit_AugAssign(self, node):
        self._store(node.target)

    def visit_AnnAssign(self, node):
        self._store(node.target)

    def visit_Del(self, node):
        self._store(node.target)

    def _store(self, target):
        """``pipe.x = ...`` (or del, +=): not a read that a plain attribute lets through. The migrated steps run
        ahead of the caller (Prefetch): a value stored from outside would reach them a step late."""
        if isinstance(target, cst.Attribute):
            self._stored.add(target)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._store(element.value)
        elif isinstance(target, cst.StarredElement):
            self._store(target.value)

    def visit_For(self, node):
        self._loop_iters.add(node.iter)
        self._check_iteration(node.iter)
        found = self.flow.value_of(node.iter)
        if found[0] == df.DALI_ITERATOR:
            self._pipeline_op(node.iter, True, found[1])

    def visit_CompFor(self, node):
        self._loop_iters.add(node.iter)
        self._check_iteration(node.iter)

    def _check_iteration(self, iterable):
        if _is_call_of(iterable, ("enumerate", "zip")):
            self._loop_iters.add(iterable)  # enumerate(zip(a, b)): the inner call is iterated too
            for arg in iterable.args:
                self._check_iteration(arg.value)
            return
        found = self.flow.value_of(iterable)
        kind = found[0]
        if kind in (df.TENSORCPU, df.PIPELINE) or (kind == df.TOP and found[1]):
            self._escape(iterable, found, f"iterating {_code(iterable)} ({_describe(kind)})")

    # -- code that expects a pipeline's errors (ERROR_EXPECTED) ---------------------------------------
    def _stack(self) -> tuple:
        return tuple(entry[0] for entry in self._statements)

    def _pipeline_op(self, node, step: bool, origins, made: bool = False) -> None:
        if origins and not self._graph[-1]:
            self._ops.append(_Op(node, step, frozenset(origins), self._stack(), tuple(self._expression_regions), made))

    def _lifecycle(self, call: cst.Call, found) -> None:
        """Record ``call`` where it makes, builds or runs a pipeline, calls a function of the module, or checks that a
        callable raises (``assert_raises(RuntimeError, pipe.build)``)."""
        flow, func = self.flow, call.func
        kind, origins = found
        owner = flow.value_of(func.value) if isinstance(func, cst.Attribute) else (None, frozenset())
        if owner[0] == df.PIPELINE:
            self._pipeline_op(call, func.attr.value in df.RUN_METHODS, owner[1])
        elif owner[0] == df.DALI_ITERATOR:
            self._pipeline_op(call, True, owner[1])
        elif kind == df.PIPELINE:
            self._pipeline_op(call, False, origins, True)  # made here (a @pipeline_def builds its graph when called)
        elif kind == df.DALI_ITERATOR:
            self._pipeline_op(call, True, origins)  # a framework iterator runs its pipelines when made
        elif isinstance(func, cst.Name) and func.value == "next" and call.args and flow.is_builtin(func):
            stepped = flow.value_of(call.args[0].value)
            if stepped[0] == df.DALI_ITERATOR:
                self._pipeline_op(call, True, stepped[1])
        reached = flow.call_targets.get(call)
        if reached is not None and not self._graph[-1]:
            self._callee[call] = reached[0].node
            given = frozenset().union(*(flow.value_of(a.value)[1] for a in call.args))  # what this call passes
            self._calls_made.append(_Op(call, False, given, self._stack(), tuple(self._expression_regions)))
        positional = [a for a in call.args if a.keyword is None and not a.star]
        if _check_name(func) in _RAISE_CHECKS and len(positional) >= 2 and not self._graph[-1]:
            region = _Region(call, f"{_code(func)}({_code(positional[0].value)}, ...)",
                             _exception_names(positional[0].value), _reads_message(call, 2), True)
            self._regions.append(region)
            self._expression_regions.append(region)
            target = positional[1].value
            owner = flow.value_of(target.value) if isinstance(target, cst.Attribute) else (None, frozenset())
            if owner[0] == df.PIPELINE:  # assert_raises(RuntimeError, pipe.build)
                self._pipeline_op(target, target.attr.value in df.RUN_METHODS, owner[1])

    def leave_Call(self, node):
        if self._expression_regions and self._expression_regions[-1].node is node:
            self._expression_regions.pop()

    def _error_region(self, node) -> None:
        if self._graph[-1]:
            return
        if isinstance(node, cst.With):
            for item in node.items:
                call = item.item
                if isinstance(call, cst.Call) and _check_name(call.func) in _RAISE_CHECKS:
                    positional = [a for a in call.args if a.keyword is None and not a.star]
                    if _check_name(call.func) == "suppress":
                        types = frozenset().union(*(_exception_names(a.value) for a in positional))
                    else:
                        types = _exception_names(positional[0].value) if positional else frozenset(("",))
                    message = item.asname is not None or _reads_message(call, 1)
                    self._regions.append(_Region(node, _code(call), types, message, True))
                    return
        elif isinstance(node, cst.Try) and node.handlers:
            types = frozenset().union(*(_exception_names(h.type) for h in node.handlers))
            if not types <= _NOT_PIPELINE_ERRORS:
                names = " nor ".join(sorted(t or "anything" for t in types))
                self._regions.append(_Region(node, f"a try whose except catches {names}", types,
                                             any(h.name is not None for h in node.handlers), False))
        elif isinstance(node, cst.FunctionDef):
            for decorator in node.decorators:
                call = decorator.decorator
                if isinstance(call, cst.Call) and _check_name(call.func) == "raises":
                    positional = [a for a in call.args if a.keyword is None and not a.star]
                    types = _exception_names(positional[0].value) if positional else frozenset(("",))
                    self._regions.append(_Region(node, f"the test {node.name.value} decorated with @{_code(call)}",
                                                 types, _reads_message(call, 1), True))
                    return

    def expected_errors(self) -> list[Escape]:
        """An escape (ERROR_EXPECTED) for each region that holds a pipeline's construction, build or run: there the
        program expects the error pipeline mode raises, which the migrated pipeline raises elsewhere or not at all.
        Not one for steps alone (pipe.run(), next(it)) inside a region that catches StopIteration only: the migrated
        generator raises it at the same step, when its source ends."""
        if not self._regions:
            return []
        reach: dict[cst.CSTNode, list[_Op]] = {}
        ops_in: dict[cst.CSTNode, list[_Op]] = {}  # the ops and calls of each function, by its def
        calls_in: dict[cst.CSTNode, list[_Op]] = {}
        for op in self._ops:
            ops_in.setdefault(_innermost_def(op.stack), []).append(op)
        for call in self._calls_made:
            calls_in.setdefault(_innermost_def(call.stack), []).append(call)

        def reached(function, seen) -> list[_Op]:
            if function in reach:
                return reach[function]
            if function in seen:
                return []
            seen.add(function)
            found = list(ops_in.get(function, ()))
            for call in calls_in.get(function, ()):
                found += reached(self._callee[call.node], seen)
            reach[function] = found
            return found

        escapes = []
        for region in self._regions:
            inside = [(op.node, op.step, op.origins) for op in self._ops if _within(region, op)]
            if region.follows_calls:
                for call in self._calls_made:
                    if _within(region, call):
                        # the pipelines this call hands over, or the called code makes (a parameter's other callers'
                        # pipelines are not run here)
                        ops = reached(self._callee[call.node], set())
                        mine = call.origins.union(*(op.origins for op in ops if op.made))
                        ops = [(op.step, op.origins & mine) for op in ops if op.origins & mine]
                        if ops:
                            inside.append((call.node, all(step for step, _ in ops),
                                           frozenset().union(*(origins for _, origins in ops))))
            if not inside:
                continue
            if region.types == {"StopIteration"} and not region.message and all(step for _, step, _ in inside):
                continue
            node = inside[0][0]
            what = f"{_code(node)} (which makes, builds or runs a pipeline)" if node in self._callee else _code(node)
            escapes.append(Escape(node, frozenset().union(*(origins for _, _, origins in inside)),
                                  f"{what} is inside {region.label}, which expects its error there: a migrated "
                                  f"pipeline raises it later (its first step or output read) or not at all",
                                  rule=ERROR_EXPECTED.id))
        del reached  # a recursive closure holds itself (and this visitor, and the tree) in a reference cycle
        return escapes

    # -- uses ---------------------------------------------------------------------------------------
    def visit_Call(self, node):
        found = self.flow.value_of(node)
        self._touch(found[1])
        self._lifecycle(node, found)
        graph = self.flow.graph_origin.get(node)
        if graph:
            self._touch((graph,))
        arguments = [(a, self.flow.value_of(a.value)) for a in node.args]
        if isinstance(node.func, cst.Name) and (self._graph[-1] or any(v[1] for _, v in arguments)):
            self.handed_to.add(node.func.value)  # graph code's calls too: the callee may build part of the pipeline
        for arg, found_arg in arguments:
            self._operator_handed(node, arg, found_arg)
        if not graph:
            self._operator_without_batch(node)
        moving = [(a, v) for a, v in arguments if tracked(v)]
        if not moving:
            return
        callee = node.func.value if isinstance(node.func, cst.Name) else None
        for arg, found_arg in moving:
            problem = self._call_problem(node, arg, found_arg)
            if problem and found_arg[0] == df.DALI_ITERATOR and not arg.star and not self._graph[-1] and (
                    not isinstance(node.func, cst.Name) or not self.flow.is_builtin(node.func)):
                # The migrated iterator has the plugin's public API (ITERATOR_HANDED_ON): it may go on.
                self.handed_on.append(Escape(arg.value, found_arg[1], problem, callee))
            elif problem:
                self._escape(arg.value, found_arg, problem, callee)

    def _operator_without_batch(self, call: cst.Call) -> None:
        """``op(shape=...)`` outside any pipeline's graph, where ``op`` holds an operator that takes no input
        (``fn.zeros`` from a table of cases): inside the pipeline that uses its value it made one sample per sample
        of the batch; in dynamic mode it makes one Tensor, and nothing here says which batch size to pass. Its
        operators stay as they are, with every unit that meets them."""
        if any(a.keyword is None for a in call.args) or any(a.keyword and a.keyword.value == "batch_size"
                                                              for a in call.args):
            return
        if isinstance(call.func, cst.Attribute) and self.flow.imports.qualname(call.func):
            return  # fn.zeros(...) written out: the passes give it batch_size= or mark it (DM216)
        found = self.flow.value_of(call.func)
        sites = frozenset(o for o in found[1] if df.is_site(o))
        if not sites or not (found[0] == df.OPERATOR or found[0] == df.TOP and all(df.is_site(o) for o in found[1])):
            return
        input_less = sorted({df.site_operator(o) for o in sites
                             if (optable.fn_entry(df.site_operator(o).removeprefix("fn.")) or {}).get("input_less")})
        if not input_less:
            return
        where = self._statements[-1][0] if self._statements else call
        self.operator_escapes.append(Escape(where, sites, (
            f"{_code(call.func)}(...) calls {', '.join(input_less)} outside a pipeline with no input: in the pipeline "
            f"that used its value it gave a batch, in dynamic mode it gives one Tensor unless told the batch size, "
            f"which this call does not know, so it stays as it is")))

    def _operator_handed(self, call: cst.Call, arg: cst.Arg, found) -> None:
        """An operator named as a value (``fn.flip``, a lambda or def that calls operators, a table of them, an ops object
        made outside the pipelines' definitions) handed to
        code the model does not follow (a function of another module, a decorator's arguments, a library): whatever
        pipeline calls it there is not visible here, and it may stay in pipeline mode. The operator is left as it was
        (its sites are kept, and marked), and meets every unit that also calls it here."""
        sites = frozenset(o for o in found[1] if df.is_site(o))
        if not sites or not _holds_operator(found[0]):
            return  # graph values (a DataNode for pipe.set_outputs), or what may as well be plain (TOP: a name
            # bound to a table of operators and to its keys): not known to be an operator
        func = call.func
        qualname = self.flow.imports.qualname(func)
        if qualname is not None and qualname.startswith("nvidia.dali."):
            return  # DALI's own API (fn.python_function(function=...)): migrated or marked with the call
        reached = self.flow.call_targets.get(call)
        if reached is not None and not reached[0].escapes and not arg.star:
            return  # a function or class of this module: the model follows the operator there
        if df.parametrizes(call, self.flow.imports) and not arg.star:
            return  # @params((fn.flip, 3), ...): the model follows the cases into the test's parameters
        if self.flow.builds_pipeline_here(call) and not arg.star:
            return  # a @pipeline_def or Pipeline subclass of this module: its graph's calls meet the operator
        if isinstance(func, cst.Name) and self.flow.is_builtin(func) and func.value in _SEE_THROUGH | {"enumerate",
                                                                                                     "zip"}:
            return  # list(ops), zip(ops, names): the model sees what comes out
        if isinstance(func, cst.Attribute):
            owner = self.flow.value_of(func.value)
            if isinstance(owner[0], tuple) and owner[0][0] in ("seq", "map") or owner[0] in (df.PIPELINE,) or \
                    func.attr.value in ("append", "extend", "insert", "add", "update", "setdefault"):
                return  # stored into a container the model follows, or handed to a pipeline
        if qualname is not None and self._follows(qualname) and not arg.star:
            # another module of the run: it learns which parameter gets the operator (project.foreign_calls), and
            # keeps it where its pipeline stays in pipeline mode (then this module keeps it: api.migrate_paths)
            key = arg.keyword.value if arg.keyword is not None else [a for a in call.args if a.keyword is None].index(arg)
            self.foreign_calls.append((qualname, key, (_portable_operators(found[0]), sites)))
            return
        target = _code(func)
        where = self._statements[-1][0] if self._statements else arg.value  # (a call over several lines: its first)
        self.operator_escapes.append(Escape(where, sites, (
            f"{_code(arg.value)} (a pipeline-mode operator) is passed to {target}, which dali-migrate cannot follow: "
            f"the pipeline that calls it there may stay in pipeline mode, so it stays as it is")))

    def visit_Module(self, node):
        for statement in node.body:  # `from dali_dynamic_compat import EpochIterator, ...  # written by dali-migrate`
            if isinstance(statement, cst.SimpleStatementLine) and is_helper_import(statement):
                for small in statement.body:
                    if isinstance(small, cst.ImportFrom) and not isinstance(small.names, cst.ImportStar):
                        self._tool_imports.update(self.flow.imports.qualname(alias.asname.name if alias.asname else
                                                                             alias.name) or "" for alias in small.names)

    def _call_problem(self, call: cst.Call, arg: cst.Arg, found) -> str | None:
        """None when the migration handles ``arg`` (a tracked value) passed to ``call``; else why not."""
        flow = self.flow
        func = call.func
        kind = found[0]
        what = f"{_code(arg.value)} ({_describe(kind)})"
        qualname = flow.imports.qualname(func)
        if flow.torch_iterator_call(call) or flow.iterator_super_init(call):
            return None  # a PyTorch iterator, or a subclass of one: migrated or marked (iterator_subclass.py)
        if kind in (df.PIPELINE, ("seq", df.PIPELINE)) and any(a is arg for a in flow.wrapper_inputs(call)):
            return None  # another module's wrapper hands it to an iterator deciding at run time (DM241)
        if kind == df.PIPELINE and flow.kind_of(func) == df.TF_OP and df.pipeline_argument(call) is arg:
            return None  # TFIterator (DALIIterator() migrated) takes a pipeline of either mode (run time)
        if qualname is not None:
            if qualname.startswith("nvidia.dali."):
                return None  # DALI's own API: the passes migrate or mark it
            if qualname in self._tool_imports:
                return None  # the run-time helpers an earlier run wrote (EpochIterator, ...): they take either kind
            if qualname in _NUMPY_COPIES and kind in (df.TENSORLIST, df.TENSORCPU) and arg is call.args[0]:
                return None
            if qualname == DALI_TEST_TO_ARRAY and kind in (df.TENSORLIST, df.TENSORCPU) and len(call.args) == 1 \
                    and arg.keyword is None and not arg.star:
                return None  # DALI's test helper: the tensorlist pass writes the numpy copy it made
            follows = self._follows(qualname)
            if (isinstance(func, cst.Name) or follows) and not arg.star:
                # Maybe a module of the project: it learns what it gets (engine, api.migrate_paths).
                key = arg.keyword.value if arg.keyword is not None else \
                    [a for a in call.args if a.keyword is None].index(arg)
                self.foreign_calls.append((qualname, key, found))
            problem = f"{what} is passed to {qualname}, which dali-migrate cannot follow"
            if follows and not arg.star:
                self.followed.append(Escape(arg.value, found[1], problem, qualname))
                return None  # that module migrates its uses of it, or keeps it (and so every module does)
            return problem
        if isinstance(func, cst.Name) and flow.is_builtin(func):
            name = func.value
            if name in ("enumerate", "zip") and call in self._loop_iters:
                return None
            if name == "isinstance" and arg is call.args[0] and _list_or_tuple_test(call) and kind not in (
                    df.OUTPUTS, df.TOP):
                # False for a pipeline or a TensorList in both modes (a generator, a Batch is no list or tuple); a
                # list of them stays a list. Not a step's outputs: a tuple that may be one Batch once migrated.
                return None
            if kind == df.DALI_ITERATOR and name in ("len", "next", "iter", "enumerate", "zip"):
                return None  # the migrated EpochIterator is an iterator with a length, as the plugin's was
            if name == "len" and kind == df.PIPELINE and flow.own_method(found[1], "__len__"):
                return None  # the class's own __len__, kept by the migrated class
            if name == "len" and kind in (df.TENSORLIST, df.OUTPUTS) or (
                    name in _SEE_THROUGH and (kind == df.OUTPUTS or isinstance(kind, tuple))):
                return None
            return f"{what} is passed to {name}(), whose result differs once it is a dynamic-mode value"
        reached = flow.call_targets.get(call)
        if reached is not None:
            if reached[0].escapes:
                return (f"{what} is passed to {reached[0].name}(), which is also called where dali-migrate "
                        f"cannot see")
            own = reached[0].params[1:] if reached[0].bound else reached[0].params
            if arg.star and not df.spread_over(call.args, own):
                star = next((p[0] for p in own if p[1] == "star"), None)
                if star is not None:
                    return f"{what} is unpacked into {reached[0].name}()'s *{star}, which dali-migrate does not follow"
                return f"{what} is unpacked into {reached[0].name}()'s parameters in a way dali-migrate does not follow"
            if any(a is arg for a in flow.star_arguments(call)) and not any(a is arg for a in flow.star_inputs(call)):
                # (what a def hands on to DALIGenericIterator with *args/**kwargs is followed: wrapper_inputs above)
                return f"{what} lands in {reached[0].name}()'s *args/**kwargs, which dali-migrate cannot follow"
            return None
        if isinstance(func, cst.Attribute):
            owner = flow.value_of(func.value)
            if isinstance(owner[0], tuple) and owner[0][0] in ("seq", "map") and func.attr.value in (
                    "append", "add", "insert"):
                return None
        return f"{what} is passed to {_code(func)}(), which dali-migrate cannot follow"

    def visit_ClassDef(self, node):
        self._tool_written += is_tool_written_class(node)

    def leave_ClassDef(self, node):
        self._tool_written -= is_tool_written_class(node)

    def visit_Attribute(self, node):
        if self.flow.imports.qualname(node) is not None:
            site = self.flow.operator_sites.get(node)
            if site is not None:
                self._touch((site,))  # `fn.flip` as a value: the statement is where that operator is named
            return False  # a dotted module path
        found = self.flow.value_of(node.value)
        kind, attr = found[0], node.attr.value
        if kind == df.PIPELINE_FACTORY and self.flow.pipeline_functions(found[1]) \
                and attr not in FUNCTION_ATTRS:  # `__wrapped__`, `_is_pipeline_def`: pipeline_def's own
            self._escape(node, found, f"{_code(node)}: the migrated function has no `.{attr}` as the "
                                      f"@pipeline_def function had")
            return None
        if not tracked(found):
            if kind == df.TOP and attr in UNTRACED_PIPELINE_API and not self._graph[-1] and not self._tool_written:
                self.untraced.append((node, f"{_code(node)}: called on a value dali-migrate cannot trace to a "
                                            f"pipeline (a parameter, an attribute); a pipeline of this module "
                                            f"that reaches it would be a dynamic-mode value after migration"))
            return None
        if kind == df.PIPELINE and self.flow.own_method(found[1], attr):
            return None  # a method of the module's own Pipeline subclass: the migrated class keeps it
        if kind == df.PIPELINE and self.flow.own_plain_attribute(found[1], attr):
            if node not in self._stored:
                return None  # a plain value the class's own methods set: the migrated class keeps it
            self._escape(node, found, f"{_code(node)} is assigned outside the class: the migrated pipeline's steps "
                                      f"run ahead of the caller and could see the new value later than pipe.run() did")
            return None
        if kind == df.PIPELINE and (attr in PIPELINE_METHODS or attr in df.METADATA_ATTRIBUTES and self.flow.streamable(
                found[1]) or attr == "device_id" and all(df.is_adapted(o) for o in found[1])) or kind == df.TENSORLIST and attr in TENSORLIST_METHODS \
                or kind == df.TENSORCPU and attr in TENSORCPU_METHODS or kind == df.DALI_ITERATOR and attr in \
                ITERATOR_ATTRS or isinstance(kind, tuple) and kind[0] in ("seq", "map") and attr in _CONTAINER_METHODS:
            return None
        if kind == df.DALI_ITERATOR and missing_in_both(attr):  # AttributeError in both: the unit migrates
            self.missing.append(Escape(node, found[1], f"{_code(node)}: neither the plugin's iterator nor the "
                                                       f"migrated one has `.{attr}`"))
            return None
        self._escape(node, found, f"{_code(node)}: {_describe(kind)} has no dynamic-mode `.{attr}` that "
                                  f"dali-migrate can write")
        return None

    def visit_Subscript(self, node):
        found = self.flow.value_of(node.value)
        if not tracked(found):
            return
        kind = found[0]
        if kind in (df.OUTPUTS, df.TENSORLIST) or isinstance(kind, tuple) and kind[0] in ("seq", "map", "tup"):
            return  # the model knows what indexing these gives: the place that uses the item decides
        self._escape(node, found, f"{_code(node)}: indexing {_describe(kind)}")

    def visit_If(self, node):
        self._truth(node.test)

    def visit_While(self, node):
        self._truth(node.test)

    def visit_IfExp(self, node):
        self._truth(node.test)

    def visit_BooleanOperation(self, node):
        self._truth(node.left)
        self._truth(node.right)

    def visit_UnaryOperation(self, node):
        if isinstance(node.operator, cst.Not):
            self._truth(node.expression)

    def _truth(self, expr):
        found = self.flow.value_of(expr)
        if found[0] == df.TENSORLIST and self.flow.never_empty(found[1]):
            return  # true in both modes: a run of these pipelines is never an empty batch
        if found[0] in (df.TENSORLIST, df.TENSORCPU) or (found[0] == df.TOP and found[1]):
            self._escape(expr, found, f"the truth of {_code(expr)} ({_describe(found[0])}) differs in dynamic mode "
                                      f"(a Batch is always true)")

    def visit_Comparison(self, node):
        operands = [node.left, *(c.comparator for c in node.comparisons)]
        if all(isinstance(c.operator, (cst.Is, cst.IsNot)) for c in node.comparisons):
            return
        for operand in operands:
            found = self.flow.value_of(operand)
            if tracked(found) and found[0] not in (df.OUTPUTS,) and not isinstance(found[0], tuple):
                self._escape(operand, found, f"{_code(operand)} ({_describe(found[0])}) is compared")

    def visit_FormattedStringExpression(self, node):
        found = self.flow.value_of(node.expression)
        if tracked(found):
            self._escape(node.expression, found, f"{_code(node.expression)} ({_describe(found[0])}) is formatted "
                                                 f"into a string: its text changes in dynamic mode")

    def _escape(self, node, found, message: str, callee: str | None = None) -> None:
        origins = frozenset(o for o in found[1] if not df.is_site(o))  # an operator's site is no pipeline value
        if not origins or self._graph[-1]:
            return
        self.escapes.append(Escape(node, origins, message, callee))


def _function_units(flow: df.DataFlow, foreign: dict | None = None) -> dict:
    """Functions the pipelines' graphs call (graph helpers), with the pipelines that call them,
    transitively: such a helper belongs to the units of every pipeline that builds with it.
    ``foreign``: top-level function or class name -> pipelines of other modules whose graphs call it (or its
    objects)."""
    enclosing: dict[cst.Call, cst.CSTNode] = {}
    for call, scope in flow.calls:
        while scope is not None and scope.kind not in ("function", "lambda", "module", "class"):
            scope = scope.parent
        if scope is not None and scope.kind in ("function", "lambda"):
            enclosing[call] = scope.node
    units: dict[cst.CSTNode, frozenset] = {}
    work = []
    for call, origin in flow.graph_origin.items():
        reached = flow.call_targets.get(call)
        if reached is not None:
            work.append((reached[0].node, frozenset((origin,))))
    for function in flow.functions.values():
        origins = (foreign or {}).get(function.name)
        if origins and isinstance(function.node, cst.FunctionDef) and function.node in flow.module_scope_functions:
            work.append((function.node, frozenset(origins)))
        elif foreign and function.class_node is not None and function.class_node in flow.module_scope_classes \
                and foreign.get(function.class_node.name.value + CALLED_SUFFIX):
            # a class whose objects other modules' graphs call (an augmentation): its methods build those graphs
            work.append((function.node, frozenset(foreign[function.class_node.name.value + CALLED_SUFFIX])))
    by_function: dict[cst.CSTNode, list[cst.Call]] = {}
    for call, function in enclosing.items():
        by_function.setdefault(function, []).append(call)
    while work:
        function, origins = work.pop()
        known = units.get(function, frozenset())
        if origins <= known:
            continue
        units[function] = known | origins
        for call in by_function.get(function, ()):
            reached = flow.call_targets.get(call)
            if reached is not None:
                work.append((reached[0].node, units[function]))
    return units


def _check_name(func) -> str | None:
    """The name a check is called by: ``assert_raises``, ``pytest.raises`` -> ``raises``, ``self.assertRaises``."""
    if isinstance(func, cst.Name):
        return func.value
    if isinstance(func, cst.Attribute):
        return func.attr.value
    return None


def _exception_names(expr) -> frozenset:
    """The names of the exceptions an ``except`` clause or a check catches ("" where it may be anything)."""
    if expr is None:
        return frozenset(("",))
    if isinstance(expr, (cst.Tuple, cst.List)):
        return frozenset().union(*(_exception_names(e.value) for e in expr.elements)) if expr.elements else \
            frozenset(("",))
    if isinstance(expr, cst.Name):
        return frozenset((expr.value,))
    if isinstance(expr, cst.Attribute):
        return frozenset((expr.attr.value,))
    return frozenset(("",))


def _reads_message(call: cst.Call, positional_types: int) -> bool:
    """A check that reads the error's message: a pattern keyword (glob=, regex=, match=), a Regex variant, or a
    positional argument after the exception types (nose_utils.raises(E, "glob"))."""
    name = _check_name(call.func) or ""
    positional = [a for a in call.args if a.keyword is None]
    return "regex" in name.lower() or any(a.keyword is not None and a.keyword.value in _MESSAGE_KEYWORDS
                                         for a in call.args) or (name != "suppress" and len(positional) >
                                                                  positional_types)


def _innermost_def(stack: tuple):
    return next((s for s in reversed(stack) if isinstance(s, cst.FunctionDef)), None)


def _within(region: _Region, op: _Op) -> bool:
    """``op`` runs inside the code ``region`` guards (not in a function or class defined there)."""
    if any(r is region for r in op.regions):
        return True
    index = next((i for i, s in enumerate(op.stack) if s is region.node), None)
    if index is None:
        return False
    rest = op.stack[index + 1:]
    if any(isinstance(s, (cst.FunctionDef, cst.ClassDef)) for s in rest):
        return False
    if isinstance(region.node, cst.Try) and rest and isinstance(region.node.body, cst.IndentedBlock):
        return any(s is rest[0] for s in region.node.body.body)  # the try's body, not its handlers
    return True


def _list_or_tuple_test(call: cst.Call) -> bool:
    """``isinstance(x, list)`` (``tuple``, or a tuple of the two)."""
    if len(call.args) != 2:
        return False
    types = call.args[1].value
    names = [e.value for e in types.elements] if isinstance(types, cst.Tuple) else [types]
    return bool(names) and all(isinstance(n, cst.Name) and n.value in ("list", "tuple") for n in names)


def _is_call_of(expr, names) -> bool:
    return isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value in names


def _code(node) -> str:
    from .source import code_for_node

    text = " ".join(code_for_node(node).split())
    return text if len(text) <= 60 else text[:57] + "..."


__all__ = ["Units", "Kept", "Escape", "Reason", "tracked", "ITERATOR_HANDED_ON", "ITERATOR_NAME_MISSING"]


def _holds_operator(kind) -> bool:
    """An operator, a def or lambda that calls operators, an ops object, or a list, dict or tuple holding one (a table of
    cases)."""
    if isinstance(kind, str):
        return kind == df.OPERATOR or kind == f"tuple:{df.OPERATOR}"
    if not isinstance(kind, tuple):
        return False
    if kind[0] in ("function", "ops"):  # (an ops object made outside the pipelines' definitions, too)
        return True
    if kind[0] in ("seq", "gen", "map"):
        return _holds_operator(kind[1])
    return kind[0] == "tup" and any(_holds_operator(k) for k in kind[1])


def _portable_operators(kind):
    """``kind`` as another module can read it: a def or lambda that calls operators, or an ops object, is an operator
    there."""
    if not isinstance(kind, tuple):
        return kind
    if kind[0] in ("function", "ops"):
        return df.OPERATOR
    if kind[0] in ("seq", "gen", "map"):
        return (kind[0], _portable_operators(kind[1]))
    if kind[0] == "tup":
        return ("tup", tuple(_portable_operators(k) for k in kind[1]))
    return df.TOP
