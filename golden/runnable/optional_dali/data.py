"""The data module of a training project where DALI is optional: without it the module still imports (its
tests and CPU-only tools use the rest), and asking for a DALI loader says what to install."""
try:
    import nvidia.dali.fn as fn
    import nvidia.dali.types as types
    from nvidia.dali import pipeline_def
    from nvidia.dali.plugin.pytorch import DALIGenericIterator, LastBatchPolicy
    HAVE_DALI = True
except ImportError:
    fn = types = pipeline_def = None
    DALIGenericIterator, LastBatchPolicy = object, None
    HAVE_DALI = False


class ArrayLoader(DALIGenericIterator):
    """Batches of {"x": ..., "twice": ...} over a folder of .npy files; the last batch partial or dropped."""

    def __init__(self, root, batch_size, drop_last):
        if not HAVE_DALI:
            raise RuntimeError("this loader needs NVIDIA DALI: pip install nvidia-dali-cuda120")

        @pipeline_def(batch_size=batch_size, num_threads=1, device_id=None)
        def arrays():
            x = fn.readers.numpy(file_root=root, name="Reader")
            return fn.cast(x, dtype=types.FLOAT), x * 2

        policy = LastBatchPolicy.DROP if drop_last else LastBatchPolicy.PARTIAL
        super().__init__(arrays(), ["x", "twice"], reader_name="Reader", last_batch_policy=policy)


def mean_of(values):
    return sum(values) / len(values)
