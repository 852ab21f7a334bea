"""Framework plugins besides PyTorch: TensorFlow's DALIDataset and JAX's DALIGenericIterator.

``nvidia.dali.plugin.tf.DALIDataset(pipeline=..., output_dtypes=..., output_shapes=...)`` becomes
``TFDataset(...)`` with the same arguments: a ``tf.data.Dataset.from_generator`` over the migrated pipeline
whose elements are what DALIDataset gave (DALI 2.4.0, dali_dataset_op.cc, checked against the real plugin
in docs/dali-facts.md): a tuple of tensors even for one output, each of its output_dtype (another dtype is an
error, not a cast), shaped to output_shapes the way the plugin matches shapes (size-1 dimensions of the step
are dropped where exactly one way fits). ``nvidia.dali.plugin.jax.DALIGenericIterator`` becomes
``JaxEpochIterator``: the ``EpochIterator`` (same counting, reader metadata, policies) that gives
``{name: jax.Array}`` through DLPack, as the JAX plugin does for one pipeline.

``nvidia.dali.plugin.tf.DALIIterator()``, the graph op, becomes ``TFIterator()``: called with the op's
arguments it gives the pipeline's next step as a list of tf.Tensors, eagerly or as a ``tf.py_function`` node in
a graph (a tf.function, a TF1 session), with the op's shape and dtype checks (docs/dali-facts.md). It decides at
run time: a pipeline still in pipeline mode goes to the plugin's own op.

What stays marked (DM215): PaddlePaddle and MXNet iterators (their plugins need CUDA, so no adapter was tested
here), TensorFlow's raw op ``DALIRawIterator()``, ``DALIDatasetWithInputs``, JAX's
``data_iterator``/``peekable_data_iterator`` decorators and ``jax_function``.
"""

from __future__ import annotations

import libcst as cst

from ... import dataflow as df
from ...names import dotted
from . import rules
from .epoch_iterator import policy_member
from .model import code_of, kwarg

TF_NAME = "TFDataset"
TF_OP_NAME = df.TF_OP_CLASS
TF_ITERATOR_OP = df.TF_ITERATOR_OP
JAX_NAME = "JaxEpochIterator"
TF_DATASET = "nvidia.dali.plugin.tf.DALIDataset"
JAX_ITERATOR = "nvidia.dali.plugin.jax.DALIGenericIterator"
JAX_ITERATORS = (JAX_ITERATOR, "nvidia.dali.plugin.jax.iterator.DALIGenericIterator")
TF_DATASETS = (TF_DATASET, "nvidia.dali.plugin.tf._DALIDatasetV2")

TF_SOURCE = '''\
def TFDataset(pipeline, output_dtypes=None, output_shapes=None, fail_on_device_mismatch=True, *, batch_size=1,
              dtypes=None, shapes=None, **executor_options):
    """A tf.data.Dataset over a dynamic-mode pipeline, as DALIDataset gave (written by dali-migrate).

    Each element is one step: a tuple of tf.Tensors, one per output, of output_dtypes (a step of another dtype
    is an error, as in DALIDataset), fitted to output_shapes as DALIDataset did: a compatible shape is kept,
    else the size-1 dimensions of the step are dropped where exactly one way fits. The steps continue the one
    stream of the pipeline: a new iterator over the dataset goes on where the last one stopped (DALIDataset
    restarted its pipeline). The tensors are made on the host; TensorFlow copies them where an op needs them.
    The executor options of DALIDataset (num_threads, device_id, prefetch depths) have no counterpart here:
    the migrated pipeline loads ahead itself.
    """
    import concurrent.futures

    import numpy as np
    import tensorflow as tf
    import nvidia.dali.experimental.dynamic as ndd

    output_dtypes = dtypes if output_dtypes is None else output_dtypes
    output_shapes = shapes if output_shapes is None else output_shapes
    if isinstance(output_dtypes, tuple):
        output_shapes = (None,) * len(output_dtypes) if output_shapes is None else output_shapes
        output_shapes = tuple(tf.TensorShape(shape) for shape in output_shapes)
    else:
        output_dtypes, output_shapes = (output_dtypes,), (tf.TensorShape(output_shapes),)

    def fitted(array, shape, index):
        if shape.is_compatible_with(array.shape):
            return array
        if array.size == 1 and shape.is_fully_defined() and shape.num_elements() == 1:
            return array.reshape(shape.as_list())
        wanted = shape.as_list()
        if len(wanted) < array.ndim:
            fits = []  # each way to keep len(wanted) dimensions of the step, dropping only size-1 ones

            def match(kept, want, have):
                if want == len(wanted):
                    if all(size == 1 for size in array.shape[have:]):
                        fits.append(kept)
                    return
                if have == array.ndim:
                    return
                if wanted[want] in (None, array.shape[have]):
                    match(kept + [array.shape[have]], want + 1, have + 1)
                if array.shape[have] == 1:
                    match(kept, want, have + 1)

            match([], 0, 0)
            if len(fits) == 1:
                return array.reshape(fits[0])
        raise ValueError(f"The shape provided for output {index} ({shape}) does not fit the step's shape "
                         f"{array.shape} in exactly one way")

    stream = iter(pipeline)
    # tf.data resumes a generator on any of its threads; a dynamic-mode generator must resume on the thread
    # that started it (its EvalContext is held across yields), so one worker thread runs every step.
    worker = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="TFDataset")

    def next_step():
        step = next(stream)
        step = step if isinstance(step, (tuple, list)) else (step,)
        arrays = []
        with ndd.EvalMode.sync_cpu:
            for index, (batch, dtype, shape) in enumerate(zip(step, output_dtypes, output_shapes)):
                array = np.asarray(ndd.as_tensor(batch).cpu())
                if array.dtype != dtype.as_numpy_dtype:
                    raise TypeError(f"The type provided for output {index} ({dtype.name}) is not the type of "
                                    f"the pipeline's output ({array.dtype})")
                arrays.append(fitted(array, shape, index))
        return tuple(arrays)

    def steps():
        while True:
            try:
                yield worker.submit(next_step).result()
            except StopIteration:  # the pipeline ended (an exhausted external source): so does the dataset
                return

    signature = tuple(tf.TensorSpec(shape, dtype) for shape, dtype in zip(output_shapes, output_dtypes))
    return tf.data.Dataset.from_generator(steps, output_signature=signature)
'''

TF_OP_SOURCE = '''\
class TFIterator:
    """What nvidia.dali.plugin.tf.DALIIterator() gave, over dynamic-mode pipelines (written by dali-migrate).

    Called with the op's arguments, it gives the pipeline's next step as a list of tf.Tensors, one per dtype: at
    once in eager mode; in a graph (a tf.function, a TF1 session) as a tf.py_function node that takes the next
    step each time it runs. As the op did, it checks each step against shapes (a shape given must be the step's
    shape; an empty one is not checked) and sets them as the static shapes in a graph. A step of another dtype
    is an error (the op reinterpreted the step's bytes as that dtype). Calls over one pipeline object continue
    its one stream, also from two calls in one graph (the op gave each graph node its own copy of the pipeline,
    and in eager mode shared one between pipelines defined alike). The tensors are made on the host. A pipeline
    still in pipeline mode goes to the plugin's own op.
    """

    _streams = {}  # id(pipeline) -> (pipeline, its steps, the one thread that runs them), for every TFIterator

    def __call__(self, pipeline=None, serialized_pipeline=None, sparse=[], shapes=[], dtypes=[], batch_size=-1,
                 prefetch_queue_depth=2, exec_dynamic=None, **kwargs):
        import collections.abc
        import concurrent.futures
        import importlib

        import numpy as np
        import tensorflow as tf
        import nvidia.dali.experimental.dynamic as ndd

        if serialized_pipeline is not None or any(
                cls.__name__ == "Pipeline" and cls.__module__ == "nvidia.dali.pipeline" for cls in type(pipeline).__mro__):
            plugin_op = getattr(importlib.import_module("nvidia.dali.plugin.tf"), "DALIIterator")()  # (by its name:
            return plugin_op(pipeline=pipeline, serialized_pipeline=serialized_pipeline, sparse=sparse,  # the module
                             shapes=shapes, dtypes=dtypes, batch_size=batch_size,  # keeps no import of the plugin)
                             prefetch_queue_depth=prefetch_queue_depth, exec_dynamic=exec_dynamic, **kwargs)
        if any(sparse):
            raise NotImplementedError("TFIterator has no sparse outputs; the plugin's op is needed for them")
        if (not isinstance(shapes, collections.abc.Iterable) or len(shapes) == 0) and batch_size == -1:
            raise Exception("shapes and batch_size arguments cannot be empty, please provide at leas one shape "
                            "argument element with the BATCH size or set batch_size")
        dtypes = [tf.as_dtype(dtype) for dtype in dtypes]
        shapes = [tf.TensorShape(shape if isinstance(shape, collections.abc.Iterable) else [shape])
                  for shape in list(shapes)[:len(dtypes)]]
        shapes += [tf.TensorShape([])] * (len(dtypes) - len(shapes))
        for shape in shapes:
            if shape.rank and not shape.is_fully_defined():
                raise tf.errors.InvalidArgumentError(None, None, f"Shape {shape} is not fully defined")

        key = id(pipeline)
        if key not in TFIterator._streams:
            worker = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="TFIterator")
            TFIterator._streams[key] = (pipeline, iter(pipeline), worker)
        _, stream, worker = TFIterator._streams[key]

        def next_step():  # on the stream's own thread: a dynamic-mode generator resumes where it started
            step = next(stream)
            step = step if isinstance(step, (tuple, list)) else (step,)
            if len(step) != len(dtypes):
                raise tf.errors.InvalidArgumentError(None, None, f"The pipeline gives {len(step)} outputs and "
                                                     f"{len(dtypes)} dtypes were given")
            arrays = []
            with ndd.EvalMode.sync_cpu:
                for index, (batch, dtype, shape) in enumerate(zip(step, dtypes, shapes)):
                    array = np.asarray(ndd.as_tensor(batch).cpu())
                    if array.dtype != dtype.as_numpy_dtype:
                        raise TypeError(f"The type provided for output {index} ({dtype.name}) is not the type of "
                                        f"the pipeline's output ({array.dtype}): DALIIterator() reinterpreted "
                                        f"the output's bytes as {dtype.name}")
                    if shape.rank and list(array.shape) != shape.as_list():
                        raise tf.errors.InvalidArgumentError(
                            None, None, f"DALI pipeline output shape at {index} {list(array.shape)} != "
                                        f"{shape.as_list()} plugin `shapes` argument")
                    arrays.append(array)
            return arrays

        def run_step():
            try:
                return worker.submit(next_step).result()
            except StopIteration:
                raise tf.errors.OutOfRangeError(None, None, "The pipeline has no more steps") from None

        if tf.executing_eagerly():
            return [tf.convert_to_tensor(array) for array in run_step()]
        outputs = tf.py_function(run_step, [], dtypes)
        for output, shape in zip(outputs, shapes):
            output.set_shape(shape if shape.rank else None)
        return outputs
'''

JAX_SOURCE = '''\
class JaxEpochIterator(EpochIterator):
    """Epochs of {name: jax.Array} over a dynamic-mode pipeline, as the JAX plugin's DALIGenericIterator gave.

    Written by dali-migrate: it counts as EpochIterator does, and hands each output to JAX through DLPack.
    Several pipelines give their outputs stacked (as the plugin did for shards on one device). Over pipelines
    still in pipeline mode it is the JAX plugin's own iterator.
    """

    @staticmethod
    def _plugin_class():
        import importlib

        return getattr(importlib.import_module("nvidia.dali.plugin.jax"), "DALIGenericIterator")

    def _convert(self, steps, keep):
        import jax.dlpack
        import jax.numpy as jnp
        import nvidia.dali.experimental.dynamic as ndd

        outputs = [{name: jax.dlpack.from_dlpack(ndd.as_tensor(batch))[:n] for name, batch in zip(self.output_map, step)}
                   for step, n in zip(steps, keep)]
        if len(outputs) == 1:
            return outputs[0]
        return {name: jnp.stack([output[name] for output in outputs]) for name in self.output_map}
'''

_NOT_HERE = {
    "nvidia.dali.plugin.tf.DALIRawIterator": "the TensorFlow graph op DALIRawIterator() has no dynamic-mode "
                                             "adapter: feed tf.data.Dataset.from_generator from the migrated "
                                             "pipeline",
}


def why_not(qualname: str) -> str:
    """The DM215 text for a framework plugin name the migration leaves marked."""
    if qualname in _NOT_HERE:
        return _NOT_HERE[qualname]
    name, module = qualname.rsplit(".", 1)[-1], qualname.split(".")[3] if qualname.count(".") >= 3 else "plugin"
    if module in ("paddle", "mxnet"):
        return (f"{name} ({module}) has no dynamic-mode adapter: the {module} plugin needs CUDA, so none was tested; "
                f"iterate the migrated generator and hand each output to {module} through DLPack "
                f"(ndd.as_tensor(batch).__dlpack__())")
    return (f"{name} ({module}) has no dynamic-mode adapter: iterate the migrated generator and convert each "
            f"output through DLPack (ndd.as_tensor(batch))")


def _pipeline_value(call: cst.Call):
    arg = df.pipeline_argument(call)
    return arg.value if arg is not None else None


def _migrated(unroller, node) -> bool:
    """``node`` holds a pipeline this run migrates (a generator, a ReaderStream or a migrated class's object)."""
    if node is None:
        return False
    name = dotted(node) if isinstance(node, (cst.Name, cst.Attribute)) else None
    if unroller._pipe_kind_of(node, name) is not None or unroller.streams(node):
        return True
    return name == "self" and unroller.in_migrated_class()


def rewrite_tf_dataset(unroller, original: cst.Call, call: cst.Call) -> cst.BaseExpression:
    pipeline = _pipeline_value(original)
    if kwarg(original, "input_datasets") is not None:
        unroller.mark(rules.OTHER_FRAMEWORK.id, "DALIDataset with input_datasets has no dynamic-mode adapter: "
                      "feed the migrated pipeline's external data yourself", original)
        return call
    if any(a.star for a in original.args) and pipeline is None or not _migrated(unroller, pipeline):
        what = code_of(pipeline) if pipeline is not None else "its pipeline"
        unroller.mark(rules.OTHER_FRAMEWORK.id, f"DALIDataset (tf) not migrated: the tool cannot follow {what} to a "
                      f"pipeline it migrated in this module; pass the migrated pipeline to a "
                      f"tf.data.Dataset.from_generator", original)
        return call
    unroller.need_tf_dataset = True
    unroller.report(rules.FRAMEWORK_MIGRATED.id, f"DALIDataset -> {TF_NAME}, written into this module: a "
                    f"tf.data.Dataset.from_generator over the migrated pipeline (same dtypes and shapes; a new "
                    f"iterator continues the stream where DALIDataset restarted the pipeline)", original)
    return call.with_changes(func=cst.Name(TF_NAME))


def rewrite_tf_iterator(unroller, original: cst.Call, call: cst.Call) -> cst.BaseExpression:
    """``dali_tf.DALIIterator()`` -> ``TFIterator()``: it takes a migrated pipeline or a kept one (run time)."""
    if original.args:
        unroller.mark(rules.OTHER_FRAMEWORK.id, "DALIIterator() takes no arguments: not migrated", original)
        return call
    unroller.need_tf_iterator = True
    unroller.report(rules.FRAMEWORK_MIGRATED.id, f"DALIIterator() -> {TF_OP_NAME}(), written into this module: the "
                    f"pipeline's next step as tf.Tensors at each call (eager) or each run of its tf.py_function "
                    f"node (graph), shapes and dtypes checked as the op checked them; calls over one pipeline object "
                    f"continue its one stream (the op gave each graph node its own copy)", original)
    return call.with_changes(func=cst.Name(TF_OP_NAME))


def rewrite_jax_iterator(unroller, original: cst.Call, call: cst.Call) -> cst.BaseExpression:
    from .consumers import rewrite_torch_iterator

    policy = kwarg(original, "last_batch_policy")
    if policy is not None and code_of(policy).endswith("PARTIAL"):
        unroller.mark(rules.OTHER_FRAMEWORK.id, "DALIGenericIterator (jax) with last_batch_policy=PARTIAL: the JAX "
                      "plugin refuses it, so there is nothing to keep", original)
        return call
    if policy is not None and policy_member(unroller.ctx.imports, policy) is None:
        unroller.mark(rules.OTHER_FRAMEWORK.id, f"DALIGenericIterator (jax) with last_batch_policy={code_of(policy)}: "
                      f"the JAX plugin refuses PARTIAL, which this value may be at run time; name the member", original)
        return call
    rewritten = rewrite_torch_iterator(unroller, original, call, None, jax=True)
    if isinstance(rewritten, cst.Call) and isinstance(rewritten.func, cst.Name) and rewritten is not call:
        unroller.need_jax_iterator = True
        unroller.report(rules.FRAMEWORK_MIGRATED.id, f"DALIGenericIterator (jax) -> {JAX_NAME}: EpochIterator's "
                        f"counting, outputs as jax.Array through DLPack", original)
        return rewritten.with_changes(func=cst.Name(JAX_NAME))
    return rewritten
