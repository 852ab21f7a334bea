"""An optional DALI whose iterator class is derived from (a placeholder base without DALI), with the policy enum
imported in a nested `if`: the iterator and the policy members migrate, so their placeholders go too."""
import os

HAVE_DALI = not os.environ.get("WITHOUT_DALI")

if HAVE_DALI:
    from nvidia.dali import __version__ as dali_version
    from nvidia.dali import fn, pipeline_def
    from nvidia.dali.plugin.pytorch import DALIClassificationIterator

    if int(dali_version.split(".")[0]) >= 1:
        from nvidia.dali.plugin.base_iterator import LastBatchPolicy
else:
    fn, pipeline_def, DALIClassificationIterator, LastBatchPolicy = None, None, object, None


class Loader(DALIClassificationIterator):
    def __init__(self, pipes, reader_name, drop=False):
        policy = LastBatchPolicy.DROP if drop else LastBatchPolicy.PARTIAL
        super().__init__(pipes, reader_name=reader_name, last_batch_policy=policy)


def loader(root, drop):
    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def pipe():
        data = fn.readers.numpy(file_root=root, name="Reader")
        return data, data * 2

    return Loader(pipe(), "Reader", drop)
