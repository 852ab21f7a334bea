from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin.pytorch import DALIClassificationIterator, LastBatchPolicy


@pipeline_def(batch_size=4, num_threads=2, device_id=0)
def files(root):
    jpegs, labels = fn.readers.file(file_root=root, name="Reader")
    return fn.resize(fn.decoders.image(jpegs, device="mixed"), size=(8, 8)), labels


def train(root):
    loader = DALIClassificationIterator(files(root), reader_name="Reader", last_batch_policy=LastBatchPolicy.PARTIAL)
    seen = [len(batch[0]["label"]) for batch in loader]
    # the plugin's iterator has no shutdown(): the original raises AttributeError here, and so does the migration
    loader.shutdown()
    return seen
