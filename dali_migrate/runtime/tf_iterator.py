"""``TFIterator``: what nvidia.dali.plugin.tf.DALIIterator() gave (``transforms/unroll/frameworks.py``)."""


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
