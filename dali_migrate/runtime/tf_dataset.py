"""``TFDataset``: what nvidia.dali.plugin.tf.DALIDataset gave (``transforms/unroll/frameworks.py``)."""


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
