"""DALI is optional here: the module imports it under try/except ImportError and binds placeholders
without it. The placeholders of names the migrated code no longer reads go; ndd is imported where DALI was."""
import numpy as np

try:
    from nvidia.dali import fn, pipeline_def
    from nvidia.dali.plugin.pytorch import DALIGenericIterator, LastBatchPolicy
    HAVE_DALI = True
except (ImportError, ModuleNotFoundError):
    fn = pipeline_def = None
    DALIGenericIterator, LastBatchPolicy = object, None
    HAVE_DALI = False


def loader(root):
    if not HAVE_DALI:
        raise RuntimeError("install DALI to load the data")

    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def doubled():
        data = fn.readers.numpy(file_root=root, name="Reader")
        return data * 2

    return DALIGenericIterator(doubled(), ["x"], reader_name="Reader", last_batch_policy=LastBatchPolicy.PARTIAL)
